// The keys of the `entries` object store as plain values (no DOM types, so that the public declarations
// that name them compile anywhere): each entry's key is an array that ends with its owner, and
// keys are ordered as IndexedDB orders them.

/** A key of the `entries` object store, or a bound of a range of them. */
export type Key = string | number | Key[];

/** An entry's key in the `entries` object store. */
export type EntryKey = Array<string | number>;
/** Who an entry points at: a map's canonical key, or a log's sequence. */
export type Owner = string | number;

/** The bounds of a range of entry keys, as IDBKeyRange.bound takes them. */
export interface KeyBounds {
  lower: Key;
  upper: Key;
  lowerOpen: boolean;
  upperOpen: boolean;
}

// A key greater than every key that starts with the same elements: IndexedDB orders arrays after
// numbers and strings.
const AFTER: Key = [];

/** The entries whose keys start with `prefix` (every entry of a map, of an index, of one value). */
export function prefixRange(prefix: readonly (string | number)[]): KeyBounds {
  return { lower: [...prefix], upper: [...prefix, AFTER], lowerOpen: false, upperOpen: false };
}

/** The owner of an entry: its key's last element. */
export function ownerOf(key: Key): Owner {
  return (key as EntryKey).at(-1)!;
}

/**
 * Compares two keys as IndexedDB does, for the keys of this object store (numbers, strings and
 * arrays of them): numbers < strings < arrays; strings by UTF-16 code units; arrays element by
 * element, a prefix first.
 */
export function compareKeys(a: Key, b: Key): number {
  const rank = (k: Key) => (typeof k === "number" ? 0 : typeof k === "string" ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra < 2) return a < b ? -1 : a > b ? 1 : 0;
  const x = a as Key[];
  const y = b as Key[];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareKeys(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

/** Whether `key` is within `range`. */
export function inRange(key: Key, range: KeyBounds): boolean {
  const lo = compareKeys(key, range.lower);
  const hi = compareKeys(key, range.upper);
  return (range.lowerOpen ? lo > 0 : lo >= 0) && (range.upperOpen ? hi < 0 : hi <= 0);
}

/** Whether two ranges may share a key (their ends compared as if closed). */
export function overlap(a: KeyBounds, b: KeyBounds): boolean {
  return compareKeys(a.lower, b.upper) <= 0 && compareKeys(b.lower, a.upper) <= 0;
}
