// Queries of one index (docs/indexes.md, "Queries"): a condition names ranges of entry keys, and
// a read reads them with the values their owners hold. The map or log that owns the index reads
// (IndexReader); this module knows conditions, ranges and cursors.

import * as args from "../common/args.js";
import { INDEX_VALUE_KIND_TEXT } from "../common/constants.js";
import { MAX_BATCH } from "../common/limits.js";
import { compareKeys, type EntryKey, type Key, type KeyBounds, type Owner, ownerOf, prefixRange } from "../idb/keys.js";
import type { IndexDefinition } from "./definition.js";
import { type IndexValue, indexPair } from "./values.js";

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

/** Entries a step of `entries()` reads: each step is one transaction. */
const ITERATION_PAGE = 1000;

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

  private plan(limit: number, read: ReadPlan["read"] = "entries", after?: Array<string | number>): ReadPlan {
    return { condition: this.condition, reverse: this.backwards, limit, after, read };
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
    const o = args.options("options", options);
    const limit = args.pageLimit("options.limit", args.field("options", o, "limit"));
    const cursor = args.field("options", o, "after");
    const after = cursor == null ? undefined : tailOfCursor("options.after", cursor);
    const { keys, entries } = await this.reader.readIndex(this.index, this.plan(limit + 1, "both", after));
    if (entries.length <= limit) return { entries, next: null };
    return { entries: entries.slice(0, limit), next: JSON.stringify(keys[limit - 1]!.slice(2)) };
  }

  /** Every entry, a page of 1000 per transaction (each a consistent snapshot). */
  async *entries(): AsyncIterableIterator<E> {
    let after: Array<string | number> | undefined;
    for (;;) {
      const { keys, entries } = await this.reader.readIndex(this.index, this.plan(ITERATION_PAGE, "both", after));
      yield* entries;
      if (entries.length < ITERATION_PAGE) return;
      after = keys.at(-1)!.slice(2);
    }
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<E> {
    return this.entries();
  }
}

/** The `limit` of `toArray` or `keys` (none: every entry). */
function limitOf(options: unknown): number {
  const given = args.field("options", args.options("options", options), "limit");
  return given === undefined ? Number.POSITIVE_INFINITY : args.count("options.limit", given, 1);
}

/** A page cursor as the entry tail it stands for; anything else is `invalid_argument`. */
function tailOfCursor(name: string, value: unknown): Array<string | number> {
  const text = args.string(name, value);
  let tail: unknown;
  try {
    tail = JSON.parse(text);
  } catch {
    tail = undefined;
  }
  const ok =
    Array.isArray(tail) &&
    tail.length >= 2 &&
    tail.every((t) => typeof t === "string" || (typeof t === "number" && Number.isFinite(t)));
  if (!ok) throw args.invalid(`${name} must be the next cursor of an earlier page, got ${JSON.stringify(text.slice(0, 80))}`);
  return tail as Array<string | number>;
}

/** The `[kind, payload, ...]` of a bound of `def`; an element no index holds is `invalid_argument`. */
function flatOf(def: IndexDefinition, name: string, value: unknown, prefix = false): Array<string | number> {
  const element = (n: string, v: unknown) => {
    const pair = indexPair(v);
    if (pair === undefined)
      throw args.invalid(`${n} must be null, a boolean, a finite number, a valid Date or a string, got ${args.describeType(v)}`);
    return pair;
  };
  if (!Array.isArray(def.keyPath)) return [...element(name, value)];
  const paths = def.keyPath.length;
  if (!args.isArray(value))
    throw args.invalid(
      `${name} must be an array of ${paths} values for compound index "${def.name}", got ${args.describeType(value)}`,
    );
  const list = args.list<unknown>(name, value, paths);
  if (prefix ? list.length === 0 : list.length !== paths)
    throw args.invalid(
      `${name} must hold ${prefix ? `1 to ${paths}` : paths} values for compound index "${def.name}", got ${list.length}`,
    );
  return list.flatMap((v, i) => element(`${name}[${i}]`, v));
}

/** The smallest string greater than every string that starts with `prefix`, or undefined when there is none. */
function successor(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const unit = prefix.charCodeAt(i);
    if (unit < 0xffff) return prefix.slice(0, i) + String.fromCharCode(unit + 1);
  }
  return undefined;
}

/**
 * The ranges of entry keys a condition names in index `def` of `map`, in index order,
 * disjoint. `lo` above `hi` in `between`, or a bound no index holds, is `invalid_argument`.
 */
function rangesOf(map: string, def: IndexDefinition, condition: Condition): KeyBounds[] {
  const at = [map, def.name];
  const key = (flat: Array<string | number>, after = false): Key => (after ? [...at, ...flat, []] : [...at, ...flat]);
  const range = (lower: Key, upper: Key, lowerOpen: boolean, upperOpen: boolean): KeyBounds[] => {
    const c = compareKeys(lower, upper);
    return c > 0 || (c === 0 && (lowerOpen || upperOpen)) ? [] : [{ lower, upper, lowerOpen, upperOpen }];
  };
  switch (condition.op) {
    case "all":
      return [prefixRange(at)];
    case "equals":
      return [prefixRange([...at, ...flatOf(def, "value", condition.value)])];
    case "anyOf": {
      const distinct = new Map(
        condition.values.map((v, i) => {
          const flat = flatOf(def, `values[${i}]`, v);
          return [JSON.stringify(flat), flat] as const;
        }),
      );
      return [...distinct.values()].sort(compareKeys).map((flat) => prefixRange([...at, ...flat]));
    }
    case "between": {
      const lo = flatOf(def, "lower", condition.lower);
      const hi = flatOf(def, "upper", condition.upper);
      if (compareKeys(lo, hi) > 0) throw args.invalid(`between: lower is above upper in index "${def.name}"`);
      return range(key(lo, condition.lowerOpen), key(hi, !condition.upperOpen), condition.lowerOpen, condition.upperOpen);
    }
    case "above":
      return range(key(flatOf(def, "value", condition.value), true), key([], true), true, false);
    case "below":
      return range(key([]), key(flatOf(def, "value", condition.value)), false, true);
    case "startsWith": {
      if (Array.isArray(def.keyPath)) return [prefixRange([...at, ...flatOf(def, "prefix", condition.prefix, true)])];
      const prefix = args.string("prefix", condition.prefix);
      const next = successor(prefix);
      return range(
        key([INDEX_VALUE_KIND_TEXT, prefix]),
        next === undefined ? key([INDEX_VALUE_KIND_TEXT], true) : key([INDEX_VALUE_KIND_TEXT, next]),
        false,
        true,
      );
    }
  }
}

/** `ranges` narrowed to the keys after (or, `reverse`, before) `after` + owner, as a page continues. */
function rangesAfter(ranges: KeyBounds[], at: readonly string[], after: Array<string | number>, reverse: boolean): KeyBounds[] {
  const cursor: Key = [...at, ...after];
  if (!reverse)
    return ranges.flatMap((r) => {
      if (compareKeys(cursor, r.upper) >= 0) return [];
      return compareKeys(cursor, r.lower) >= 0 ? [{ ...r, lower: cursor, lowerOpen: true }] : [r];
    });
  return ranges.flatMap((r) => {
    if (compareKeys(cursor, r.lower) <= 0) return [];
    return compareKeys(cursor, r.upper) <= 0 ? [{ ...r, upper: cursor, upperOpen: true }] : [r];
  });
}

/** The entry-key ranges one read of `plan` covers in index `def` of `map`: its condition's, after its cursor. */
export function planRanges(map: string, def: IndexDefinition, plan: ReadPlan): KeyBounds[] {
  const ranges = rangesOf(map, def, plan.condition);
  return plan.after ? rangesAfter(ranges, [map, def.name], plan.after, plan.reverse) : ranges;
}
