// The database's schema (docs/storage.md): seven object stores, and the upgrade from each
// older version of the stored format to this one.
import { newIdentity } from "./identity.js";

/** The object store of every instance, keyed `[map, instance]`. */
export const INSTANCES = "instances";
/** The object store of the maps' metadata records, keyed by map name. */
export const MAPS = "maps";
/** The object store of every index's entries: sorted keys, each holding its owner's entry (see indexes/entries.ts). */
export const ENTRIES = "entries";
/**
 * The object store of the change feed (docs/change-feed.md): one record per committed write, its
 * key path `seq` numbered by the object store's key generator.
 */
export const CHANGES = "changes";
/**
 * The object store of the synced instances' bases (docs/sync.md): under `[map, instance]`, a
 * digest of what the engine held of the instance when the two last exchanged it.
 */
export const BASES = "bases";
/**
 * The object store of what exports sent (docs/sync.md), under `[checkpoint, map, instance]`:
 * each becomes its instance's base once the checkpoint is acknowledged.
 */
export const SENT = "sent";
/** The object store of the database's own records: its identity. */
export const DATABASE = "database";
/** The key of the identity record in DATABASE. */
export const IDENTITY = "identity";
/** The IndexedDB schema version this library creates and expects: the stored format's version (docs/storage.md). */
export const DB_VERSION = 6;

/**
 * Creates a database, or brings one written by an older version of this library to the
 * current schema. Version 1 stored a log's chunk size as one number and no key rule: a log
 * becomes one segment, and a partitioned map takes the key rule it is next opened with.
 * Version 2 had no identity: it gets one now, as a new database does. Version 3 had no
 * indexes: its maps have none, so the new object store starts empty. Version 4 had no change feed: it
 * starts empty, at sequence 1 (no checkpoint was ever given out). Version 5 had no bases: nothing
 * was exchanged with the engine as far as the store knows, and both new object stores start empty.
 */
export function upgrade(tx: IDBTransaction, oldVersion: number): void {
  const db = tx.db;
  if (!db.objectStoreNames.contains(INSTANCES)) db.createObjectStore(INSTANCES);
  if (!db.objectStoreNames.contains(MAPS)) db.createObjectStore(MAPS);
  if (!db.objectStoreNames.contains(ENTRIES)) db.createObjectStore(ENTRIES);
  if (!db.objectStoreNames.contains(CHANGES)) db.createObjectStore(CHANGES, { keyPath: "seq", autoIncrement: true });
  if (!db.objectStoreNames.contains(BASES)) db.createObjectStore(BASES);
  if (!db.objectStoreNames.contains(SENT)) db.createObjectStore(SENT);
  if (!db.objectStoreNames.contains(DATABASE)) db.createObjectStore(DATABASE).put(newIdentity(), IDENTITY);
  if (oldVersion === 1) {
    tx.objectStore(MAPS).openCursor().onsuccess = (event) => {
      const cursor = (event.target as IDBRequest<IDBCursorWithValue | null>).result;
      if (!cursor) return;
      const old = cursor.value as { kind?: unknown; chunkSize?: unknown; state?: unknown };
      if (old.kind === "chunked" && typeof old.chunkSize === "number") {
        const { chunkSize, ...rest } = old;
        cursor.update({
          ...rest,
          segments: [{ fromSequence: 1, chunkSize }],
          state: old.state ?? { nextSequence: 1, latestArchivedChunkToken: "" },
          retainedFrom: 1,
        });
      }
      cursor.continue();
    };
  }
}

/** Whether a database that exists is attrmap's: one of another program is never changed. */
export function ours(db: IDBDatabase): boolean {
  return db.objectStoreNames.contains(INSTANCES) && db.objectStoreNames.contains(MAPS);
}
