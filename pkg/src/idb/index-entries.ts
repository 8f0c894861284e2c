// The entries object store (schema.ts): sorted keys, each ending with its owner, and each
// holding a copy of its owner's value, as indexes keep them (indexes/entries.ts says what they
// mean), so that a query reads its results alone. This module says what a write does to them;
// entry-store.ts, loaded with a map's first index, stores it. It knows nothing of maps, values
// or indexes.
import { lazyModule } from "../common/lazy-module.js";
import { type EntryKey, type KeyBounds, type Owner, prefixRange } from "./keys.js";

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

/**
 * @internal The code that stores entry writes (entry-store.ts): loaded with the write path of
 * indexes (indexes/index-host.ts, entryWritesFor), and needed only by a write that has entries.
 */
export const entryStoreCode = /* @__PURE__ */ lazyModule(() => import("./entry-store.js"), "the index entries of a write");

/** Deleting every entry whose key starts with `prefix` (a map's, an index's). */
export function deletingAll(prefix: readonly (string | number)[]): EntryWrites {
  return { ...noEntryWrites(), deleteRanges: [prefixRange(prefix)] };
}

/** No entry writes. */
export function noEntryWrites(): EntryWrites {
  return { put: [], delete: [], deleteRanges: [], unique: [] };
}

/** Whether `writes` changes any entry. */
export function touchesIndexEntries(writes: EntryWrites | undefined): writes is EntryWrites {
  return writes !== undefined && writes.put.length + writes.delete.length + writes.deleteRanges.length > 0;
}

/** The most entry keys a change announces one by one; past it, the ranges of their indexes. */
const ANNOUNCED_ENTRIES = 1000;

/** What a write did to entries, as its announcement tells it (live/changes.ts, EntryChanges). */
export function announcedEntries(writes: EntryWrites): { keys: EntryKey[]; ranges: KeyBounds[] } {
  const keys = [...writes.put.map(([key]) => key), ...writes.delete];
  if (keys.length <= ANNOUNCED_ENTRIES) return { keys, ranges: writes.deleteRanges };
  const indexes = new Map(keys.map((k) => [JSON.stringify(k.slice(0, 2)), k.slice(0, 2)]));
  return { keys: [], ranges: [...writes.deleteRanges, ...[...indexes.values()].map(prefixRange)] };
}
