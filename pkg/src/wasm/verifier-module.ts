// The export verifier (docs/export-format.md): a second wasm module of the crate (its feature
// `verifier`), so that a page loads it only when it imports. Only this module calls into it.
import * as wasm from "../../wasm/attrmap_verifier.js";
import { type AttrmapError, callCore, toAttrmapError } from "../common/errors.js";
import { keyBytes } from "./encodings.js";
import { compileBeside, startOnce } from "./module-file.js";

/**
 * Starts the verifier's module, once, at the first import: the file beside the package,
 * compiled as it streams, else the inlined copy, which bundlers make a chunk of its own
 * (Node takes that path: its fetch reads no file: URLs).
 */
export const verifierReady = startOnce("the export verifier's wasm module", async () => {
  const beside = new URL("../../wasm/attrmap_verifier_bg.wasm", import.meta.url);
  wasm.initSync({ module: await compileBeside(beside, () => import("../../wasm/attrmap_verifier_inline.js")) });
});

/** The export verifier of the Rust core, one line a call; made after `verifierReady()`, `free()` it after. */
export class ExportChecker {
  private readonly verifier = new wasm.ExportVerifier(); // after verifierReady()

  /** The error for a line that is not JSON or not a line of the format, to throw. */
  badLine(reason: string, what: string): AttrmapError {
    return toAttrmapError(this.verifier.badLine(reason, what)) as AttrmapError;
  }

  /** Names the lines from here on `label` in messages (`attribute "k"`), instead of by number. */
  label(label: string): void {
    this.verifier.label(label);
  }

  header(format: string, version: number): void {
    callCore(() => this.verifier.header(format, version));
  }

  partitionedLayout(map: string, layoutVersion: number, partitionCount: number, keyRule: string): void {
    callCore(() => this.verifier.partitionedLayout(map, layoutVersion, partitionCount, keyRule));
  }

  chunkedLayout(map: string, layoutVersion: number, segments: Float64Array): void {
    callCore(() => this.verifier.chunkedLayout(map, layoutVersion, segments));
  }

  state(map: string, nextSequence: number, latest: string): void {
    callCore(() => this.verifier.state(map, nextSequence, latest));
  }

  partition(map: string, instance: string, keys: Uint8Array, ends: Uint32Array): void {
    callCore(() => this.verifier.partition(map, instance, keys, ends));
  }

  chunk(map: string, instance: string, sequences: Float64Array): void {
    callCore(() => this.verifier.chunk(map, instance, sequences));
  }

  /** The first sequence the log being read keeps. */
  retainedFrom(): number | undefined {
    return this.verifier.retainedFrom();
  }

  /** After the last line: maps, instances and entries. */
  finish(): { maps: number; instances: number; entries: number } {
    const [maps, instances, entries] = callCore(() => this.verifier.finish());
    return { maps: maps!, instances: instances!, entries: entries! };
  }

  free(): void {
    this.verifier.free();
  }
}

/** What a pull does with each entry or log whose facts (MERGE_FACT_* bits, one byte each) are `facts`: MERGE_OUTCOME_* each. */
export function mergeDecisions(facts: Uint8Array): Uint8Array {
  return callCore(() => wasm.mergeDecisions(facts));
}

/** The digest of each canonical JSON text of `texts` (src/sync.rs): 16 hex digits each. */
export function digestsOf(texts: readonly string[]): string[] {
  const { bytes, ends } = keyBytes(texts);
  const all = callCore(() => wasm.digests(bytes, ends));
  return texts.map((_, i) => all.slice(i * 16, i * 16 + 16));
}
