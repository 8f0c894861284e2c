// An index of a partitioned map in the engine's layout (docs/indexes.md, "The index in the
// engine's layout"): itself a hash-partitioned map, whose instance `partition-NNN` holds a
// dictionary from each canonical index value placed there to the sorted keys that have it. A
// server flow then finds "the customers of Acme" by loading one instance, as it finds an email.

import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { partitionJson } from "../export-import/exact-json.js";
import { type EntryKey, prefixRange } from "../idb/keys.js";
import { publicDefinition } from "../indexes/definition.js";
import { searchEntries } from "../indexes/entry-reads.js";
import { readMeta } from "../maps/layout.js";
import { keyPartition } from "../rules/rules.js";
import { canonicalIndexValue, maintenanceReady } from "../wasm/maintenance-module.js";

/** One instance of an index's attribute map: its name, and its dictionary's JSON. */
export interface IndexInstance {
  instance: string;
  json: string;
  /** The value with the most keys in it, for the error of an instance too large to send. */
  largest: { value: string; keys: number };
}

/** The flat `[kind, payload, ...]` of an entry key's value as `[kind, payload]` pairs. */
function pairsOf(key: EntryKey): Array<readonly [number, number | string]> {
  const pairs: Array<readonly [number, number | string]> = [];
  for (let i = 2; i < key.length - 1; i += 2) pairs.push([key[i] as number, key[i + 1] as number | string]);
  return pairs;
}

/**
 * The instances of index `index` of `map` with `partitionCount` partitions, in partition order,
 * read from one snapshot of its entries. An index still being built (or left half built by a
 * closed tab) is refused: its entries are not yet every value's.
 */
export async function indexInstances(
  ctx: Context,
  map: string,
  index: string,
  layoutVersion: number,
  partitionCount: number,
): Promise<IndexInstance[]> {
  await maintenanceReady();
  const doing = `exporting index "${index}" of map "${map}"`;
  const { meta, keys } = await searchEntries(
    ctx.instances,
    map,
    [prefixRange([map, index])],
    { reverse: false, limit: Number.POSITIVE_INFINITY, keys: true, values: false },
    doing,
  );
  const layout = readMeta(map, meta);
  if (layout === undefined || "meta" in layout || layout.layoutVersion !== layoutVersion)
    throw new AttrmapError("layout_changed", `map "${map}" changed its layout while it was being exported`);
  const def = layout.indexes?.find((d) => d.name === index);
  if (def === undefined)
    throw new AttrmapError("layout_changed", `index "${index}" of map "${map}" was dropped during the export`);
  if (def.building)
    throw new AttrmapError(
      "not_exportable",
      `index "${index}" of map "${map}" is being built, or its build was interrupted: ` +
        "let createIndex (or the map's indexes option) finish it, then export",
    );
  const compound = Array.isArray(publicDefinition(def).keyPath);
  // Entries come sorted by value, equal values in key order: a value's keys are already sorted
  // (UTF-16 code units, as IndexedDB orders strings) and its canonical text is computed once.
  const partitions = new Map<number, { name: string; values: Map<string, string[]> }>();
  let previous: string | undefined;
  let owners: string[] = [];
  for (const key of keys) {
    const value = JSON.stringify(key.slice(2, -1));
    if (value !== previous) {
      previous = value;
      const canonical = canonicalIndexValue(pairsOf(key), compound);
      const { partitionIndex, partitionName } = keyPartition(canonical, partitionCount);
      let partition = partitions.get(partitionIndex);
      if (partition === undefined) partitions.set(partitionIndex, (partition = { name: partitionName, values: new Map() }));
      owners = [];
      partition.values.set(canonical, owners);
    }
    owners.push(key[key.length - 1] as string);
  }
  return [...partitions]
    .sort(([a], [b]) => a - b)
    .map(([, { name, values }]) => {
      let largest = { value: "", keys: 0 };
      for (const [value, list] of values) if (list.length > largest.keys) largest = { value, keys: list.length };
      return { instance: name, json: partitionJson(values), largest };
    });
}
