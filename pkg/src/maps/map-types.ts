// The public types of a partitioned map: how it opens, what a partition is, how a resize
// reports and a page is asked for; and what a map's entries must be (the directory's profiles).
import type { WriteOptions } from "../concurrency/locks.js";
import type { IndexSpec } from "../indexes/definition.js";

/**
 * How `store.partitionedMap(name, options)` opens or creates a map of values of type `V`, whose
 * declared indexes are named `N`.
 */
export interface PartitionedMapOptions<V = unknown, N extends string = string> {
  /**
   * Partitions of the map. Left out: 1000 for a new map, the stored count for an existing one.
   * Given for an existing map, it must be the stored count: another is `layout_mismatch`
   * (`resize()` changes the count).
   */
  partitionCount?: number | undefined;
  /**
   * How keys become canonical: `"exact"` (default for a new map: any string as it is),
   * `"email"` (the email rule of docs/partitioned-map.md), or the name of `canonicalizeKey`. Stored with the map:
   * opening it with another rule is `layout_mismatch`.
   */
  keyRule?: string | undefined;
  /** Your own canonicalizer (its rule is stored as `keyRule`, `"custom"` if you give no name). Must be stable. */
  canonicalizeKey?: ((key: string) => string) | undefined;
  /**
   * Indexes the map must have (docs/indexes.md): by name, a key path or `{ keyPath, unique,
   * multiEntry }`. A missing one is built as the map opens; one stored with another
   * definition is `layout_mismatch`; stored ones not declared are kept. Their names are the ones
   * `where` takes (README, "Typed index names").
   */
  indexes?: Readonly<Record<N, IndexSpec<V>>> | undefined;
}

/** A partition instance: canonical key to value. A `Map`, so any string key round-trips (`__proto__` too). */
export type Partition<V> = Map<string, V>;

/** How far a resize has got: entries written to their new partitions, of all entries. */
export interface ResizeProgress {
  done: number;
  total: number;
}

/** How `map.resize(partitionCount, options)` waits and reports. */
export interface ResizeOptions extends WriteOptions {
  /** Called as entries are written to their new partitions (between IndexedDB requests). */
  onProgress?: ((progress: ResizeProgress) => void) | undefined;
}

/** Which entries `map.page(options)` holds: the first, or those after the `next` cursor of an earlier page. */
export interface MapPageOptions {
  /** The canonical key the page starts after (an earlier page's `next`). */
  after?: string | null | undefined;
  /** Entries on the page, 1 to 10,000. */
  limit: number;
}

/** A page of `map.page(options)`: up to `limit` entries in the order of `entries()`. */
export interface MapPage<V> {
  entries: Array<[string, V]>;
  /** `after` of the next page, or null when this page reaches the last entry. */
  next: string | null;
}

/**
 * @internal What the entries of a map must be (customer profiles are checked; other maps hold
 * any value): why a stored value is not one (undefined when it is), and a caller's value as the
 * map stores it under canonical `key`.
 */
export interface EntryKind<V> {
  problem(key: string, value: unknown): string | undefined;
  input(key: string, value: unknown, argument: string): V;
}
