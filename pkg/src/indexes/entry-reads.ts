// Reads of the `entries` object store, with the map's metadata in the same readonly
// transaction: the ranges of entry keys a query (or the engine's index export) names.
import { storageError } from "../common/errors.js";
import type { EntryKey, KeyBounds } from "../idb/keys.js";
import { request } from "../idb/requests.js";
import { ENTRIES, MAPS } from "../idb/schema.js";
import type { Instances } from "../instances/instances.js";

/** What one read of entries asks: from the last with `reverse`, up to `limit`, keys and values as wanted. */
export interface EntryRead {
  reverse: boolean;
  limit: number;
  keys: boolean;
  values: boolean;
}

/**
 * Reads, in one readonly transaction, the metadata of `map` and its index entries in `ranges`
 * (in order, or from the last with `reverse`), up to `limit`: their keys (with `keys`) and the
 * values they hold (with `values`).
 */
export function searchEntries(
  instances: Instances,
  map: string,
  ranges: readonly KeyBounds[],
  { reverse, limit, keys: withKeys, values: withValues }: EntryRead,
  doing: string,
): Promise<{ meta: unknown; keys: EntryKey[]; values: unknown[] }> {
  const { keyRange } = instances.connection;
  const bound = (r: KeyBounds) => keyRange.bound(r.lower, r.upper, r.lowerOpen, r.upperOpen);
  const count = Number.isFinite(limit) ? limit : undefined;
  return instances.reading(
    map,
    { entries: ranges },
    doing,
    async (tx) => {
      const entries = tx.objectStore(ENTRIES);
      const meta = request(tx.objectStore(MAPS).get(map), doing);
      const keys: EntryKey[] = [];
      const values: unknown[] = [];
      if (reverse) {
        // A cursor from the end of each range, the last range first, until `limit`.
        for (const r of [...ranges].reverse())
          if (keys.length < limit) await lastEntries(entries, bound(r), limit - keys.length, !withValues, doing, keys, values);
      } else {
        // Every range asked at once (one round trip), each for up to `limit`, then cut to `limit`.
        const read = await Promise.all(
          ranges.map((r) =>
            Promise.all([
              withKeys ? request(entries.getAllKeys(bound(r), count), doing) : [],
              withValues ? request(entries.getAll(bound(r), count), doing) : [],
            ]),
          ),
        );
        // One by one: a range may hold more entries than a call takes arguments.
        for (const [k, v] of read) {
          for (const key of k as EntryKey[]) keys.push(key);
          for (const value of v) values.push(value);
        }
        keys.length = Math.min(keys.length, limit);
        values.length = Math.min(values.length, limit);
      }
      return { meta: instances.own(await meta), keys, values: values.map(instances.own) };
    },
    { walk: reverse },
  );
}

/** How many index entries of `map` lie in `ranges`, with the map's metadata, in one readonly transaction. */
export function countEntries(
  instances: Instances,
  map: string,
  ranges: readonly KeyBounds[],
  doing: string,
): Promise<{ meta: unknown; count: number }> {
  const { keyRange } = instances.connection;
  return instances.reading(map, { entries: ranges }, doing, async (tx) => {
    const entries = tx.objectStore(ENTRIES);
    const [meta, ...counts] = await Promise.all([
      request(tx.objectStore(MAPS).get(map), doing),
      ...ranges.map((r) => request(entries.count(keyRange.bound(r.lower, r.upper, r.lowerOpen, r.upperOpen)), doing)),
    ]);
    return { meta: instances.own(meta), count: counts.reduce((a: number, b) => a + (b as number), 0) };
  });
}

/** Adds to `keys` (and `values`, unless `keysOnly`) up to `limit` entries of `range`, from the last. */
function lastEntries(
  store: IDBObjectStore,
  range: IDBKeyRange,
  limit: number,
  keysOnly: boolean,
  doing: string,
  keys: EntryKey[],
  values: unknown[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    let n = 0;
    const req = keysOnly ? store.openKeyCursor(range, "prev") : store.openCursor(range, "prev");
    req.onerror = () => reject(storageError(req.error, doing));
    req.onsuccess = () => {
      const cursor = req.result;
      if (!cursor) return resolve();
      keys.push(cursor.primaryKey as EntryKey);
      if (!keysOnly) values.push((cursor as IDBCursorWithValue).value);
      if (++n >= limit) resolve();
      else cursor.continue();
    };
  });
}
