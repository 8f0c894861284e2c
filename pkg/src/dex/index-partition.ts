// Where an index value lives when its index is moved to the engine (docs/indexes.md): the Rust
// core writes its canonical text, which is then placed as a key is.

import { describeType, invalid, isArray, list } from "../common/args.js";
import { MAX_COMPOUND_LENGTH, MAX_TEXT_LENGTH } from "../common/constants.js";
import { type IndexPair, type IndexValue, indexPair } from "../indexes/values.js";
import { type KeyPartition, keyPartition } from "../rules/rules.js";
import { ready } from "../wasm/core-module.js";
import { canonicalIndexValue, maintenanceReady } from "../wasm/maintenance-module.js";

export type { IndexElement, IndexValue } from "../indexes/values.js";

/** Where an index value lives in the engine's layout: its canonical text, and that text's partition. */
export interface IndexPartition extends KeyPartition {
  /** The value as JSON written one way (docs/indexes.md), the key of its entry in the index instance. */
  canonicalValue: string;
}

function pairOf(name: string, value: unknown): IndexPair {
  const pair = indexPair(value);
  if (pair === undefined)
    throw invalid(`${name} must be null, a boolean, a finite number, a valid Date or a string, got ${describeType(value)}`);
  return pair;
}

/** `indexPartition(value, partitionCount)` of "attrmap/dex" (its doc comment is in index.ts). */
export async function indexPartition(value: IndexValue, partitionCount?: number): Promise<IndexPartition> {
  const compound = isArray(value);
  const pairs = compound
    ? list<unknown>("value", value, MAX_COMPOUND_LENGTH).map((element, i) => pairOf(`value[${i}]`, element))
    : [pairOf("value", value)];
  const units = pairs.reduce((n, [, payload]) => n + (typeof payload === "string" ? payload.length : 0), 0);
  if (units > MAX_TEXT_LENGTH)
    throw invalid(`value's strings may hold at most ${MAX_TEXT_LENGTH} UTF-16 code units, got ${units}`);
  await Promise.all([maintenanceReady(), ready()]);
  const canonicalValue = canonicalIndexValue(pairs, compound);
  return { canonicalValue, ...keyPartition(canonicalValue, partitionCount) };
}
