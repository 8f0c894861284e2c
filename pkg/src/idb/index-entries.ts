// The entries object store (schema.ts): sorted keys, each ending with its owner, and each
// holding a copy of its owner's value, as indexes keep them (indexes/entries.ts says what they
// mean), so that a query reads its results alone. This module writes a write's
// entries in its transaction, after checking that the values a unique index gives are each
// held by one owner; it knows nothing of maps, values or indexes.
import { type EntryKey, inRange, type KeyBounds, type Owner, ownerOf, prefixRange } from "./keys.js";
import { attempt, request } from "./requests.js";
import { ENTRIES } from "./schema.js";

/** What a write does to the entries of its map: deleted first, then put; `unique` checked before either. */
export interface EntryWrites {
  /** Entries put, each with its owner's value. */
  put: Array<readonly [EntryKey, unknown]>;
  delete: EntryKey[];
  /** Whole ranges deleted (a cleared map, a dropped index). */
  deleteRanges: KeyBounds[];
  unique: UniqueCheck[];
}

/** A unique index's value that, once the write is done, must belong to `owner` alone. */
export interface UniqueCheck {
  /** The entry put that the check is for. */
  key: EntryKey;
  /** Every entry of that index value, whatever its owner. */
  range: KeyBounds;
  /** The value's index and flattened pairs, as a string: two checks of one value have the same id. */
  id: string;
  owner: Owner;
  /** The error to throw when `other` holds the value too. */
  conflict(other: Owner): Error;
}

/** Deleting every entry whose key starts with `prefix` (a map's, an index's). */
export function deletingAll(prefix: readonly (string | number)[]): EntryWrites {
  return { ...noEntryWrites(), deleteRanges: [prefixRange(prefix)] };
}

/** No entry writes. */
export function noEntryWrites(): EntryWrites {
  return { put: [], delete: [], deleteRanges: [], unique: [] };
}

/** Entries' keys as strings, to find one in a list. */
const keyId = (key: EntryKey) => JSON.stringify(key);

/**
 * Checks `writes.unique` (against the stored entries, as `writes` leaves them, and against each
 * other), then issues the deletes and puts of `writes` in `tx`. Throws a check's conflict
 * before anything is issued; returns the requests issued, for the caller to await.
 */
export async function storeEntries(
  tx: IDBTransaction,
  writes: EntryWrites,
  keyRange: typeof IDBKeyRange,
  doing: string,
): Promise<IDBRequest[]> {
  const store = tx.objectStore(ENTRIES);
  const bound = (r: KeyBounds) => keyRange.bound(r.lower, r.upper, r.lowerOpen, r.upperOpen);
  if (writes.unique.length > 0) {
    const owners = new Map<string, Owner>();
    for (const check of writes.unique) {
      const first = owners.get(check.id);
      if (first !== undefined && first !== check.owner) throw check.conflict(first);
      owners.set(check.id, check.owner);
    }
    const deleted = new Set(writes.delete.map(keyId));
    const stored = await Promise.all(
      writes.unique.map((c) => request(store.getAllKeys(bound(c.range)), doing) as Promise<EntryKey[]>),
    );
    writes.unique.forEach((check, i) => {
      for (const key of stored[i]!) {
        const owner = ownerOf(key);
        const gone = deleted.has(keyId(key)) || writes.deleteRanges.some((r) => inRange(key, r));
        if (owner !== check.owner && !gone) throw check.conflict(owner);
      }
    });
  }
  return attempt(doing, () => [
    ...writes.deleteRanges.map((r) => store.delete(bound(r))),
    ...writes.delete.map((key) => store.delete(key)),
    ...writes.put.map(([key, value]) => store.put(value, key)),
  ]);
}

/** Whether `writes` changes any entry. */
export function touchesIndexEntries(writes: EntryWrites | undefined): writes is EntryWrites {
  return writes !== undefined && writes.put.length + writes.delete.length + writes.deleteRanges.length > 0;
}
