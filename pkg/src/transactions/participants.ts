// What a transaction (transaction.ts) needs of the maps and logs it writes: their rules
// (where a key lives, what a value must be, what a write stores), never their storage, which the
// transaction reads and writes itself, under its own locks, in its own IndexedDB transactions.
import type { MapWrites, Snapshot, Writes } from "../instances/instances.js";
import type { Placement } from "../maps/map-context.js";

/** A partitioned map's rules, under the layout its object knows. */
export interface MapRules<V> {
  readonly kind: "partitioned";
  readonly name: string;
  readonly database: string;
  /** Whether stored metadata `raw` is the layout keys are placed with; if not, it takes that layout and says false. */
  adopt(raw: unknown): boolean;
  /** The canonical key and partition of a caller's `key` (named `argument` in errors). */
  place(key: unknown, argument: string): Placement;
  /** The partitions of the layout. */
  partitionCount(): number;
  /** Every partition instance of the layout. */
  instances(): string[];
  /** The value of canonical `key` in a partition as stored (`raw`, undefined when absent), checked. */
  entry(instance: string, raw: unknown, key: string): V | undefined;
  /** A caller's value for canonical `key` as the map stores it (the directory's profile check), or `invalid_argument`. */
  input(key: string, value: unknown, argument: string): V;
  /** What setting (`[key, value]`) and deleting (`[key]`) entries of `instances` does, as `snapshot` has them. */
  writes(instances: readonly string[], snapshot: Snapshot, edits: ReadonlyMap<string, ReadonlyMap<string, Edit<V>>>): MapWrites;
}

/** A staged change of one entry: its new value, or its removal. */
export type Edit<V> = { value: V } | { deleted: true };

/** A chunked log's rules. */
export interface LogRules<I, R> {
  readonly kind: "chunked";
  readonly name: string;
  readonly database: string;
  /** A caller's item as the log appends it (the archive's subscriber check), or `invalid_argument`. */
  input(item: unknown, argument: string): I;
  /** The record item `n` (0-based) of these appends gets, after what `snapshot` (metadata, `current`) holds. */
  record(snapshot: Snapshot, n: number, item: I): R;
  /** What appending `items` after what `snapshot` holds stores, and the records. */
  writes(items: readonly I[], snapshot: Snapshot): Writes<R[]>;
}
