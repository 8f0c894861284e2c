// A log's chunk-size change and retention: the rules are in a third wasm module of the crate
// (its feature `maintenance`), started at the first such call, so that pages that never change
// a chunk size or drop archives do not load it. Only this module calls into it.
import * as wasm from "../wasm/attrmap_maintenance.js";
import type { LogBook } from "./core.js";
import { callCore } from "./errors.js";
import { compileBeside, startOnce } from "./wasm-file.js";

/** Starts the module, once: the file beside the package, else its inlined copy (as the verifier's). */
export const maintenanceReady = startOnce("the log maintenance wasm module", async () => {
  const inlined = async () => (await import("../wasm/attrmap_maintenance_inline.js")).default;
  wasm.initSync({ module: await compileBeside(new URL("../wasm/attrmap_maintenance_bg.wasm", import.meta.url), inlined) });
});

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
