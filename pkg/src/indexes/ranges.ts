// The entry-key ranges a query's condition names in an index (docs/indexes.md, "Queries"), in
// index order and disjoint, and those left after a page's cursor: what one read of a query reads.
import * as args from "../common/args.js";
import { INDEX_VALUE_KIND_TEXT } from "../common/constants.js";
import { compareKeys, type Key, type KeyBounds, prefixRange } from "../idb/keys.js";
import type { IndexDefinition } from "./definition.js";
import type { Condition, ReadPlan } from "./query.js";
import { indexPair } from "./values.js";

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
