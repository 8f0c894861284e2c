// Persistence and room: the origin's storage as `navigator.storage` reports it. Where the
// StorageManager is missing (Node, some workers, insecure contexts) nothing is known and
// nothing fails: `persist()` is `false`, the figures are `undefined`.
import { storageError } from "../common/errors.js";

/** What `store.storageStatus()` reports of the origin's storage. */
export interface StorageStatus {
  /** Whether the browser keeps the origin's data under storage pressure (`navigator.storage.persisted()`). */
  persisted: boolean;
  /** Bytes the origin uses, all of its storage together; `undefined` where unknown. */
  usage: number | undefined;
  /** Bytes the origin may use; `undefined` where unknown. */
  quota: number | undefined;
}

type Manager = Partial<Pick<StorageManager, "persist" | "persisted" | "estimate">>;

function manager(): Manager | undefined {
  return (globalThis as { navigator?: { storage?: Manager } }).navigator?.storage;
}

/** Asks the browser to keep the origin's data under storage pressure; `true` when granted. */
export async function persist(): Promise<boolean> {
  const storage = manager();
  if (typeof storage?.persist !== "function") return false;
  return storage.persist().catch((e: unknown) => {
    throw storageError(e, "asking the browser to persist the origin's data");
  });
}

/** Whether the origin's data is persisted, and its usage and quota in bytes. */
export async function storageStatus(): Promise<StorageStatus> {
  const storage = manager();
  const [persisted, estimate] = await Promise.all([
    typeof storage?.persisted === "function" ? storage.persisted() : false,
    typeof storage?.estimate === "function" ? storage.estimate() : undefined,
  ]).catch((e: unknown) => {
    throw storageError(e, "reading the origin's storage status");
  });
  return { persisted, usage: estimate?.usage, quota: estimate?.quota };
}
