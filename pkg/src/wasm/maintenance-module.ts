// The rare whole-map operations: a map's resize, a log's chunk-size change and retention (and an
// index value's canonical text, which only a move to the engine's layout needs). Their
// rules are in a third wasm module of the crate (its feature `maintenance`), started at the
// first such call, so that pages that never make one do not load it. Only this module calls
// into it.
import * as wasm from "../../wasm/attrmap_maintenance.js";
import {
  CHUNK_SIZE_CHANGE_CHANGED,
  CHUNK_SIZE_CHANGE_CUT_FIRST,
  CHUNK_SIZE_CHANGE_CUT_LENGTH,
  CHUNK_SIZE_CHANGE_LENGTH,
  DROP_PLAN_DROPPED,
  DROP_PLAN_PREVIOUS_RETAINED_FROM,
  DROP_PLAN_RETAINED_FROM,
} from "../common/constants.js";
import { callCore } from "../common/errors.js";
import { HASH_PIECE } from "./core-module.js";
import { indexValueEncoding, keyBytes, keyRoom, type LogBook, type Segment, segmentsOf } from "./encodings.js";
import { compileBeside, startOnce } from "./module-file.js";

/** Starts the module, once: the file beside the package, else its inlined copy (as the verifier's). */
export const maintenanceReady = startOnce("the maintenance wasm module", async () => {
  const beside = new URL("../../wasm/attrmap_maintenance_bg.wasm", import.meta.url);
  wasm.initSync({ module: await compileBeside(beside, () => import("../../wasm/attrmap_maintenance_inline.js")) });
});

/**
 * The partition index of each canonical key under `partitionCount`, many keys a crossing: at
 * most a piece's bytes of keys at a time (see keyBytes).
 */
export function partitionIndexes(keys: readonly string[], partitionCount: number): Uint32Array {
  const out = new Uint32Array(keys.length);
  for (let from = 0; from < keys.length; ) {
    // At least one key a crossing, and no more keys than a piece's bytes can surely hold.
    let to = from;
    for (let room = 0; to < keys.length && (to === from || room + keyRoom(keys[to]!) <= HASH_PIECE); to++)
      room += keyRoom(keys[to]!);
    const { bytes, ends } = keyBytes(keys.slice(from, to));
    out.set(
      callCore(() => wasm.partitionIndexes(bytes, ends, partitionCount)),
      from,
    );
    from = to;
  }
  return out;
}

/** What a chunk-size change writes (ChunkSizeChangeSlot of src/bindings/mod.rs). */
export interface ChunkSizeChange {
  /** False when the size asked for is in force: nothing to write. */
  changed: boolean;
  /** The chunk archived from `current` (`length` 0: none). */
  cut: { first: number; length: number };
  /** The log's segments after the change. */
  segments: Segment[];
}

/** `changeChunkSize`'s plan for a log whose `current` holds `currentLength` records. */
export function chunkSizeChange(log: LogBook, currentLength: number, size: number): ChunkSizeChange {
  const out = callCore(() => wasm.chunkSizeChange(log.book, log.latest, currentLength, size));
  return {
    changed: out[CHUNK_SIZE_CHANGE_CHANGED] === 1,
    cut: { first: out[CHUNK_SIZE_CHANGE_CUT_FIRST]!, length: out[CHUNK_SIZE_CHANGE_CUT_LENGTH]! },
    segments: segmentsOf(out, CHUNK_SIZE_CHANGE_LENGTH),
  };
}

/** Retention's plan (DropPlanSlot): the new first retained sequence, the chunks dropped, the old first retained sequence. */
export function dropPlan(
  log: LogBook,
  token: string,
  recordName: string,
): { retainedFrom: number; dropped: number; previous: number } {
  const out = callCore(() => wasm.dropPlan(log.book, log.latest, token, recordName));
  return {
    retainedFrom: out[DROP_PLAN_RETAINED_FROM]!,
    dropped: out[DROP_PLAN_DROPPED]!,
    previous: out[DROP_PLAN_PREVIOUS_RETAINED_FROM]!,
  };
}

/** The canonical text of an index value given as its pairs (docs/indexes.md); `compound`: a compound index's. */
export function canonicalIndexValue(pairs: readonly (readonly [number, number | string])[], compound: boolean): string {
  const { kinds, numbers, units } = indexValueEncoding(pairs);
  return callCore(() => wasm.canonicalIndexValue(kinds, numbers, units, compound));
}
