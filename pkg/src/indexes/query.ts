// Queries of one index (docs/indexes.md, "Queries"): `where(index)` and its conditions, and the
// reads a query makes (toArray, keys, count, page, ...), each handed to the map or log that owns
// the index (IndexReader). What ranges a condition names is ranges.ts's, loaded with the reads.

import * as args from "../common/args.js";
import { MAX_BATCH } from "../common/limits.js";
import { type EntryKey, type Owner, ownerOf } from "../idb/keys.js";
import { indexReadsCode } from "./index-host.js";
import type { IndexValue } from "./values.js";

/** A query's condition, as given: checked against the index when the query is read. */
export type Condition =
  | { op: "all" }
  | { op: "equals"; value: unknown }
  | { op: "anyOf"; values: unknown[] }
  | { op: "between"; lower: unknown; upper: unknown; lowerOpen: boolean; upperOpen: boolean }
  | { op: "above"; value: unknown }
  | { op: "below"; value: unknown }
  | { op: "startsWith"; prefix: unknown };

/** What one read of a query asks: its ranges' entries in order, up to `limit`, after a cursor. */
export interface ReadPlan {
  condition: Condition;
  reverse: boolean;
  limit: number;
  /** The tail (value pairs and owner) of the entry the read starts after. */
  after?: Array<string | number> | undefined;
  /** What to read: the entry keys alone, the entries alone, or both (for a cursor). */
  read: "keys" | "entries" | "both";
}

/** What reads a query: the map or log that owns the index. */
export interface IndexReader<E> {
  /** The entry keys of `plan` and its entries, each as `plan.read` asks (empty otherwise). */
  readIndex(index: string, plan: ReadPlan): Promise<{ keys: EntryKey[]; entries: E[] }>;
  /** How many entries `plan`'s ranges hold. */
  countIndex(index: string, plan: ReadPlan): Promise<number>;
}

/** A page of a query: its entries, and the cursor of the next page (null after the last). */
export interface QueryPage<E> {
  entries: E[];
  next: string | null;
}

/** How `toArray` and `keys` bound a read. */
export interface QueryLimit {
  /** At most this many entries (1 to 1,000,000; default: all). */
  limit?: number | undefined;
}

/** Which entries `page(options)` holds. */
export interface QueryPageOptions {
  /** The `next` of the page before (null or absent: the first page). */
  after?: string | null | undefined;
  /** Entries on the page, 1 to 10,000. */
  limit: number;
}

/** Options of `between`: each end is included unless said. */
export interface BetweenOptions {
  lowerOpen?: boolean | undefined;
  upperOpen?: boolean | undefined;
}

/**
 * A query of one index: `where(index)` gives one of every entry, a condition narrows it, and
 * `toArray`, `entries`, `keys`, `count`, `first`, `last` and `page` read it (each read one
 * readonly transaction, with no lock). Entries with equal index values come in key order.
 */
export class Query<E, K extends Owner = string> {
  /** @internal */
  constructor(
    private readonly reader: IndexReader<E>,
    /** The index queried. */
    readonly index: string,
    private readonly condition: Condition = { op: "all" },
    private readonly backwards = false,
  ) {}

  private with(condition: Condition): Query<E, K> {
    return new Query(this.reader, this.index, condition, this.backwards);
  }

  /** Entries whose index value is `value` (for a compound index, an array of one value per path). */
  equals(value: IndexValue): Query<E, K> {
    return this.with({ op: "equals", value });
  }

  /** Entries whose index value is any of `values`. */
  anyOf(values: Iterable<IndexValue>): Query<E, K> {
    return this.with({ op: "anyOf", values: args.list<unknown>("values", values, MAX_BATCH) });
  }

  /**
   * Entries from `lower` to `upper`, both included unless `lowerOpen` or `upperOpen` (unlike
   * Dexie's, whose upper end is open by default).
   */
  between(lower: IndexValue, upper: IndexValue, options: BetweenOptions = {}): Query<E, K> {
    const o = args.options("options", options);
    const open = (key: string) => {
      const v = args.field("options", o, key);
      return v === undefined ? false : args.boolean(`options.${key}`, v);
    };
    return this.with({ op: "between", lower, upper, lowerOpen: open("lowerOpen"), upperOpen: open("upperOpen") });
  }

  /** Entries whose index value is greater than `value`. */
  above(value: IndexValue): Query<E, K> {
    return this.with({ op: "above", value });
  }

  /** Entries whose index value is less than `value`. */
  below(value: IndexValue): Query<E, K> {
    return this.with({ op: "below", value });
  }

  /** Entries whose string value starts with `prefix`; for a compound index, whose first values are `prefix`'s elements. */
  startsWith(prefix: string | readonly IndexValue[]): Query<E, K> {
    return this.with({ op: "startsWith", prefix });
  }

  /** The same entries, in the opposite order. */
  reverse(): Query<E, K> {
    return new Query(this.reader, this.index, this.condition, !this.backwards);
  }

  private plan(limit: number, read: ReadPlan["read"] = "entries"): ReadPlan {
    return { condition: this.condition, reverse: this.backwards, limit, read };
  }

  /** The entries, up to `limit`, read in one transaction. */
  async toArray(options: QueryLimit = {}): Promise<E[]> {
    return (await this.reader.readIndex(this.index, this.plan(limitOf(options)))).entries;
  }

  /** The keys (a log's: sequences) of the entries, up to `limit`, without reading their values. */
  async keys(options: QueryLimit = {}): Promise<K[]> {
    const { keys } = await this.reader.readIndex(this.index, this.plan(limitOf(options), "keys"));
    return keys.map((key) => ownerOf(key) as K);
  }

  /** How many entries there are (an entry of a multiEntry index counts once per value). */
  count(): Promise<number> {
    return this.reader.countIndex(this.index, this.plan(Number.POSITIVE_INFINITY));
  }

  /** The first entry, or undefined. */
  async first(): Promise<E | undefined> {
    return (await this.reader.readIndex(this.index, this.plan(1))).entries[0];
  }

  /** The last entry, or undefined. */
  async last(): Promise<E | undefined> {
    return (await this.reader.readIndex(this.index, { ...this.plan(1), reverse: !this.backwards })).entries[0];
  }

  /**
   * A page of `limit` entries: the first, or those after `after` (the `next` of the page before).
   * The cursor is where the last entry was, so a page costs the same wherever it is, and
   * entries written between two pages are neither repeated nor skipped unless they move.
   */
  async page(options: QueryPageOptions): Promise<QueryPage<E>> {
    return (await indexReadsCode.load()).queryPage(this.reader, this.index, this.plan(0), options);
  }

  /** Every entry, a page of 1000 per transaction (each a consistent snapshot). */
  async *entries(): AsyncIterableIterator<E> {
    yield* (await indexReadsCode.load()).queryEntries(this.reader, this.index, this.plan(0));
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<E> {
    return this.entries();
  }
}

/** The `limit` of `toArray` or `keys` (none: every entry). */
function limitOf(options: unknown): number {
  const given = args.field("options", args.options("options", options), "limit");
  return given === undefined ? Number.POSITIVE_INFINITY : args.count("options.limit", given, 1, MAX_BATCH);
}
