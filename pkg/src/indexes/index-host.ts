// What a map or a log gives its indexes (docs/indexes.md): where its definitions are and how to
// read them again, the owners each stored instance holds, how an entry read back becomes what a
// query gives, and the check of the layout read with it. The index methods a map and a log
// share (createIndex, dropIndex, indexes, a query's reads) are written once against it, in
// catalog.ts and index-reads.ts, whose code a page loads at the first call of one of them.
import type { Context } from "../common/context.js";
import { lazyModule } from "../common/lazy-module.js";
import { entryStoreCode } from "../idb/index-entries.js";
import type { Owner } from "../idb/keys.js";
import type { StoredIndex } from "./definition.js";
import type { IndexReader } from "./query.js";

/** A map or a log, as its indexes see it. */
export interface IndexHost<E = unknown> {
  readonly ctx: Context;
  readonly name: string;
  /** What messages call it. */
  readonly noun: "map" | "log";
  /**
   * The owners an instance holds (a partition's keys, a chunk's sequences), each with the value
   * its index paths read and what its entries hold (a map's value twice; a log's record's value,
   * and the record).
   */
  ownersOf(instance: string, value: unknown): Iterable<readonly [Owner, unknown, unknown]>;
  /** Its indexes as this object last read its layout. */
  stored(): readonly StoredIndex[];
  /** Reads its layout again (after a change of indexes, here or in another context). */
  refresh(): Promise<void>;
  /**
   * Runs `read`, whose transaction checks with `check` the metadata it read: a map whose keys
   * were placed under another layout runs it again under the stored one.
   */
  withLayout<T>(read: (check: (raw: unknown) => void) => Promise<T>): Promise<T>;
  /** An entry of index `index` as stored, as a query gives it; `corrupt_data` when it is not one. */
  decode(held: unknown, index: string): E;
  /** The owner of an entry `decode` gave, and the value its index paths read. */
  indexed(entry: E): readonly [Owner, unknown];
}

/** @internal The catalog's code: createIndex, dropIndex, indexes() and the `indexes` option. */
export const catalogCode = /* @__PURE__ */ lazyModule(
  () => import("./catalog.js"),
  "createIndex, dropIndex, indexes() and the indexes option",
);

/**
 * @internal What a write does to its map's index entries (entries.ts): loaded when a map or log
 * with indexes opens (or by a write that finds indexes another tab added: CodeNeeded).
 */
export const entryWritesCode = /* @__PURE__ */ lazyModule(() => import("./entries.js"), "the index entries of a write");

/** Loads the write path of indexes when `indexes` (a layout's) has any, so that its writes need not wait for it. */
export async function entryWritesFor(indexes: readonly unknown[] | undefined): Promise<void> {
  if (indexes !== undefined && indexes.length > 0) await loadEntryWrites();
}

/** Loads the write path of indexes. */
export async function loadEntryWrites(): Promise<void> {
  await Promise.all([entryWritesCode.load(), entryStoreCode.load()]);
}

/**
 * What a stored layout's indexes are, build state included, as one string: two layouts of one
 * version with other indexes (a version a failed build gave back, used again) differ in it.
 */
export function indexesSignature(indexes: unknown): string {
  if (!Array.isArray(indexes) || indexes.length === 0) return "";
  return JSON.stringify(
    indexes.map((i: Record<string, unknown> | null) =>
      typeof i === "object" && i !== null ? [i.name, i.keyPath, i.unique, i.multiEntry, i.building !== undefined] : i,
    ),
  );
}

/** @internal A query's reads. */
export const indexReadsCode = /* @__PURE__ */ lazyModule(() => import("./index-reads.js"), "a query of an index");

/** A query's reader of `host`'s indexes, whose code loads at the first read. */
export function indexReader<E>(host: IndexHost<E>): IndexReader<E> {
  return {
    readIndex: async (index, plan) => (await indexReadsCode.load()).readIndex(host, index, plan),
    countIndex: async (index, plan) => (await indexReadsCode.load()).countIndex(host, index, plan),
  };
}
