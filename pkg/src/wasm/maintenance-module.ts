// The rare whole-map operations: a map's resize, a log's chunk-size change and retention. Their
// rules are in a third wasm module of the crate (its feature `maintenance`), started at the
// first such call, so that pages that never make one do not load it. Only this module calls
// into it.
import * as wasm from "../../wasm/attrmap_maintenance.js";
import { callCore } from "../store/errors.js";
import { compileBeside, startOnce } from "./module-file.js";
import { HASH_PIECE, type LogBook } from "./store-module.js";

/** Starts the module, once: the file beside the package, else its inlined copy (as the verifier's). */
export const maintenanceReady = startOnce("the maintenance wasm module", async () => {
  const beside = new URL("../../wasm/attrmap_maintenance_bg.wasm", import.meta.url);
  wasm.initSync({ module: await compileBeside(beside, () => import("../../wasm/attrmap_maintenance_inline.js")) });
});

const encoder = new TextEncoder();

/**
 * The partition index of each canonical key under `partitionCount`, many keys a crossing:
 * keys are encoded into one buffer of at most a piece's bytes at a time (each key's UTF-8 is
 * what placeKey hashes, lone surrogates included).
 */
export function partitionIndexes(keys: readonly string[], partitionCount: number): Uint32Array {
  const out = new Uint32Array(keys.length);
  for (let from = 0; from < keys.length; ) {
    let to = from;
    let room = 0;
    while (to < keys.length && (to === from || room + keys[to]!.length * 3 <= HASH_PIECE)) room += keys[to++]!.length * 3;
    const bytes = new Uint8Array(room);
    const ends = new Uint32Array(to - from);
    let at = 0;
    for (let i = from; i < to; i++) {
      at += encoder.encodeInto(keys[i]!, bytes.subarray(at)).written;
      ends[i - from] = at;
    }
    out.set(
      callCore(() => wasm.partitionIndexes(bytes.subarray(0, at), ends, partitionCount)),
      from,
    );
    from = to;
  }
  return out;
}

/** `changeChunkSize`: whether anything changes, the chunk to archive (length 0: none), the new segments. */
export function chunkSizeChange(
  log: LogBook,
  currentLength: number,
  size: number,
): { changed: boolean; cut: { first: number; length: number }; segments: Float64Array } {
  const out = callCore(() => wasm.chunkSizeChange(log.book, log.latest, currentLength, size));
  return { changed: out[0] === 1, cut: { first: out[1]!, length: out[2]! }, segments: out.subarray(3) };
}

/** Retention: the new first retained sequence, the chunks it drops, and the old first retained sequence. */
export function dropPlan(
  log: LogBook,
  token: string,
  recordName: string,
): { retainedFrom: number; dropped: number; previous: number } {
  const out = callCore(() => wasm.dropPlan(log.book, log.latest, token, recordName));
  return { retainedFrom: out[0]!, dropped: out[1]!, previous: out[2]! };
}
