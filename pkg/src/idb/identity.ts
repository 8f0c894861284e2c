// A database's identity: a random id and a creation time, written in the transaction that
// creates the database and never changed after. A store that has seen one and then finds
// none, or another, knows that the data it had is gone (docs/storage.md).
import { AttrmapError } from "../common/errors.js";

/** Who a database is: `id` is 128 random bits as 32 lowercase hex digits, `createdAt` milliseconds since the epoch. */
export interface Identity {
  readonly id: string;
  readonly createdAt: number;
}

/** A new identity, for a database being created. */
export function newIdentity(): Identity {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return { id: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""), createdAt: Date.now() };
}

/** The stored record as an Identity, or `corrupt_data` for anything else. */
export function storedIdentity(database: string, value: unknown): Identity {
  const v = value as { id?: unknown; createdAt?: unknown } | undefined;
  if (typeof v?.id !== "string" || !/^[0-9a-f]{32}$/.test(v.id) || !Number.isSafeInteger(v.createdAt))
    throw new AttrmapError("corrupt_data", `database "${database}" has no valid identity record`);
  return { id: v.id, createdAt: v.createdAt as number };
}

/** The `data_lost` error of a store that had the database `identity` and lost it. */
export function dataLost(database: string, identity: Identity): AttrmapError {
  return new AttrmapError(
    "data_lost",
    `database "${database}" (identity ${identity.id}, created ${new Date(identity.createdAt).toISOString()}) is gone: ` +
      "its data was cleared, evicted or deleted; call acknowledgeDataLoss() to go on with a new, empty database",
  );
}
