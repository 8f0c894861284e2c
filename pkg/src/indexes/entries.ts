// An index's entries (docs/storage.md, "Index entries"): one IndexedDB key per (index value,
// owner) in the `entries` object store, `[map, index, kind1, payload1, ..., owner]`, where the
// owner is a map's canonical key or a log's sequence. IndexedDB orders array keys element by
// element, and each element of a value is a `[kind, payload]` pair whose kinds are numbered in
// the index's order, so the object store keeps every index sorted as docs/indexes.md orders it, and
// equal values in owner order. Each entry holds `[owner, value]`, a copy of its owner's entry,
// so that a query reads its results alone with one getAll, as an IndexedDB index does, not the
// partitions they are in.

import {
  INDEX_VALUE_KIND_DATE,
  INDEX_VALUE_KIND_FALSE,
  INDEX_VALUE_KIND_NULL,
  INDEX_VALUE_KIND_TRUE,
} from "../common/constants.js";
import { AttrmapError } from "../common/errors.js";
import type { EntryWrites } from "../idb/index-entries.js";
import { type EntryKey, type Owner, prefixRange } from "../idb/keys.js";
import type { IndexDefinition } from "./definition.js";
import { type IndexPair, indexPair } from "./values.js";

/** `path` split at its dots. */
function steps(path: string): string[] {
  return path.split(".");
}

/**
 * What a dotted path finds in a value: own enumerable data properties only, what IndexedDB's
 * structured clone keeps, so that a caller's value is read as its stored copy will be (a
 * property the copy drops would key an entry its next write cannot find again), and a getter, a
 * prototype or a proxy's trap never runs.
 */
function atPath(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const step of path) {
    if (typeof at !== "object" || at === null) return undefined;
    let d: PropertyDescriptor | undefined;
    try {
      d = Object.getOwnPropertyDescriptor(at, step);
    } catch {
      return undefined;
    }
    if (d === undefined || !("value" in d) || !d.enumerable) return undefined;
    at = d.value;
  }
  return at;
}

/** The flat `[kind, payload, ...]` of each distinct value `value` has in the index (none: not in it). */
function indexValuesOf(def: IndexDefinition, value: unknown): Array<Array<string | number>> {
  if (Array.isArray(def.keyPath)) {
    const flat: Array<string | number> = [];
    for (const path of def.keyPath) {
      const pair = indexPair(atPath(value, steps(path)));
      if (pair === undefined) return [];
      flat.push(...pair);
    }
    return [flat];
  }
  const found = atPath(value, steps(def.keyPath));
  if (def.multiEntry && Array.isArray(found)) {
    const distinct = new Map<string, IndexPair>();
    for (let i = 0; i < found.length; i++) {
      const pair = indexPair(atPath(found, [String(i)]));
      if (pair !== undefined) distinct.set(pairId(pair), pair);
    }
    return [...distinct.values()].map((p) => [...p]);
  }
  const pair = indexPair(found);
  return pair === undefined ? [] : [[...pair]];
}

/** The key of `owner`'s entry of the flattened value `flat` in index `def` of `map`. */
function entryKey(map: string, def: IndexDefinition, flat: ReadonlyArray<string | number>, owner: Owner): EntryKey {
  return [map, def.name, ...flat, owner];
}

/**
 * The key of the one entry `owner`'s `value` has in index `def` of `map`, which is not multi-entry:
 * what a write stored it under. Undefined when the value has none.
 */
export function entryKeyOf(map: string, def: IndexDefinition, owner: Owner, value: unknown): EntryKey | undefined {
  const [flat] = indexValuesOf(def, value);
  return flat === undefined ? undefined : entryKey(map, def, flat, owner);
}

/** One string per distinct flattened value (the kind tells a string from a number). */
function pairId(flat: readonly (string | number)[]): string {
  return JSON.stringify(flat);
}

/** The error of a unique index whose value `flat` `owner` would hold while `other` holds it. */
export type ConflictError = (def: IndexDefinition, flat: ReadonlyArray<string | number>, owner: Owner, other: Owner) => Error;

/** An index value's flat pairs as a message shows it: `"Acme"`, `3`, `null`, a date in ISO form, `["Acme", 3]`. */
export function describeValue(flat: ReadonlyArray<string | number>, compound: boolean): string {
  const shown: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const [kind, payload] = [flat[i] as number, flat[i + 1]!];
    shown.push(
      kind === INDEX_VALUE_KIND_NULL
        ? "null"
        : kind === INDEX_VALUE_KIND_FALSE
          ? "false"
          : kind === INDEX_VALUE_KIND_TRUE
            ? "true"
            : kind === INDEX_VALUE_KIND_DATE
              ? `Date(${new Date(payload as number).toISOString()})`
              : JSON.stringify(payload),
    );
  }
  return compound ? `[${shown.join(", ")}]` : shown[0]!;
}

/** The error of a write that would give a unique index of the `noun` `name` a value another owner holds. */
export function conflictError(noun: "map" | "log", name: string): ConflictError {
  const shown = (o: Owner) => (noun === "log" ? `record ${o}` : JSON.stringify(o));
  return (def, flat, owner, other) =>
    new AttrmapError(
      "constraint_violation",
      `index "${def.name}" of ${noun} "${name}": value ${describeValue(flat, Array.isArray(def.keyPath))} ` +
        `is held by ${shown(other)}, so ${shown(owner)} cannot hold it`,
    );
}

/**
 * Adds to `out` what a change of `owner`'s value from `before` to `after` (undefined: absent)
 * does to the entries of `defs` in `map`: the values it no longer has are deleted, and every
 * value it has is put again with `[owner, held]` (a map's entry holds its value, a log's the
 * record whose value `after` is). A value new to a unique index is checked; `conflict` makes
 * its error.
 */
export function addEntryWrites(
  map: string,
  defs: readonly IndexDefinition[],
  owner: Owner,
  before: unknown,
  after: unknown,
  out: EntryWrites,
  conflict: ConflictError,
  held: unknown = after,
): void {
  for (const def of defs) {
    const old = before === undefined ? [] : indexValuesOf(def, before);
    const now = after === undefined ? [] : indexValuesOf(def, after);
    const oldIds = new Set(old.map(pairId));
    const nowIds = new Set(now.map(pairId));
    for (const flat of old) if (!nowIds.has(pairId(flat))) out.delete.push(entryKey(map, def, flat, owner));
    for (const flat of now) {
      const key = entryKey(map, def, flat, owner);
      out.put.push([key, [owner, held]]);
      if (def.unique && !oldIds.has(pairId(flat)))
        out.unique.push({
          key,
          range: prefixRange([map, def.name, ...flat]),
          id: pairId([def.name, ...flat]),
          owner,
          conflict: (other) => conflict(def, flat, owner, other),
        });
    }
  }
}
