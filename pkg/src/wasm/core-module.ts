// Typed access to the Rust core's module, and the one module that calls into it (the
// verifier's and the maintenance modules have their own: verifier-module.ts and
// maintenance-module.ts). Every function here takes primitives its callers have already checked for
// type and size (see args.ts); the core checks values and throws coded errors, rethrown as
// AttrmapError. Importing it starts nothing: the module starts at the first call that needs it
// (see `ready`), so that an import in a server build or a prerender does no work and waits on nothing.
import type { PlacedSink } from "../../wasm/attrmap.js";
import * as glue from "../../wasm/attrmap.js";
import * as args from "../common/args.js";
import {
  APPEND_PLAN_ARCHIVE_COUNT,
  APPEND_PLAN_ARCHIVE_FROM,
  APPEND_PLAN_CHUNK_LENGTH,
  APPEND_PLAN_FIRST_SEQUENCE,
  APPEND_PLAN_NEXT_SEQUENCE,
  DEFAULT_PARTITION_COUNT,
  FNV_OFFSET_BASIS,
} from "../common/constants.js";
import { AttrmapError, callCore } from "../common/errors.js";
import type { LogBook } from "./encodings.js";
import { startOnce } from "./module-file.js";

/** @internal Where this realm's entry gets the module: bytes at hand (inlined), or compiled once fetched. */
export interface ModuleSource {
  now?: () => BufferSource;
  later: () => Promise<WebAssembly.Module | BufferSource>;
}

let source: ModuleSource | undefined;
let running = false;

/** @internal Called by the entry as it is imported (wasm/init.ts, init-streaming.ts): where the module is; it starts nothing. */
export function startFrom(from: ModuleSource): void {
  source = from;
}

function run(module: WebAssembly.Module | BufferSource): void {
  glue.initSync({ module });
  running = true;
}

/**
 * Starts the core's wasm module, once, and resolves when it runs. Every store operation calls
 * it first; in "attrmap/browser" (which fetches the module) the synchronous rules
 * (`emailPartition`, `keyPartition`, ...) need it to have resolved once; call it early to have
 * the module warm. Rejects with `storage_error` where the module cannot be loaded.
 */
export const ready: () => Promise<void> = startOnce("the core's wasm module", async () => {
  const module = await source!.later();
  if (!running) run(module); // a synchronous start may have come first
});

function notStarted(): never {
  throw new AttrmapError("not_ready", '"attrmap/browser" starts its wasm at the first store operation: await ready() first');
}

/**
 * Calls into the module (`callCore`), started first: now, where the bytes are at hand; else
 * `not_ready` until `ready()` resolved. (The glue is only ever named, never passed around, so
 * that bundlers drop what of it the package does not call.)
 */
function call<T>(into: () => T): T {
  if (!running) run((source?.now ?? notStarted)());
  return callCore(into);
}

/** The largest piece of a byte array hashed in one crossing. */
export const HASH_PIECE = 1 << 20;

// The core's checks and rules, each a thin call: the rule and its message live in Rust.
export const resolvePartitionCount = (count: number | undefined): number => call(() => glue.resolvePartitionCount(count));
export const resolveChunkSize = (size: number | undefined): number => call(() => glue.resolveChunkSize(size));
export const checkLayoutVersion = (version: number): void => call(() => glue.checkLayoutVersion(version));
/** A map name: a string short enough for wasm and not one the core reserves. */
export function mapName(name: string, value: unknown): string {
  const s = args.text(name, value);
  call(() => glue.checkMapName(name, s));
  return s;
}
export const checkKeyRule = (name: string, custom: boolean): void => call(() => glue.checkKeyRule(name, custom));
export const checkSubscriberFields = (idLength: number, addressLength: number): void =>
  call(() => glue.checkSubscriberFields(idLength, addressLength));

/** FNV-1a of `bytes`, crossing in pieces so that no input needs more than a piece of wasm memory. */
export function hashBytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET_BASIS;
  for (let at = 0; at < bytes.length; at += HASH_PIECE)
    hash = call(() => glue.fnv1a32Continue(hash, bytes.subarray(at, at + HASH_PIECE)));
  return hash;
}

/** The canonical form of an email, as placeKey makes it (the rule is the core's). */
export const canonicalEmail = (email: string): string => placeKey(email, true, DEFAULT_PARTITION_COUNT).key;

/** Where a key lives: its canonical form (under the email rule, or as it is), its hash and its partition index. */
export interface PlacedKey {
  key: string;
  hash: number;
  index: number;
}

/** The key placeKey is placing, and what its sink made of what the core told. */
let placing = "";
let placed: PlacedKey | undefined;

/** Where the core tells where `placing` lives: one object for every call, so that a call allocates no other. */
const sink: PlacedSink = {
  placed(hash, index, changed, start, end, lowercase) {
    // Only an email changes, and the core admits only ASCII ones, where toLowerCase changes
    // exactly A-Z, as the rule does.
    const kept = changed ? placing.slice(start, end) : placing;
    placed = { key: lowercase ? kept.toLowerCase() : kept, hash, index };
  },
};

/** Where a key lives (see placeKey in src/bindings/store.rs). */
export function placeKey(key: string, email: boolean, partitionCount: number): PlacedKey {
  placing = key;
  // One crossing with the key; numbers come back, never a string (decoding one costs more than the placing).
  call(() => glue.placeKey(key, email, partitionCount, sink));
  return placed!;
}

// Partition names by count and index, made by the core once each: lookups name the same
// few partitions again and again.
const names = new Map<number, string[]>();
const NAME_TABLES = 8;

/** The name of partition `index` of `partitionCount` (`partition-042`), from the table for that count. */
export function partitionName(index: number, partitionCount: number): string {
  let table = names.get(partitionCount);
  if (!table) {
    if (names.size === NAME_TABLES) names.delete(names.keys().next().value!);
    names.set(partitionCount, (table = []));
  }
  return (table[index] ??= call(() => glue.partitionName(index, partitionCount)));
}

/** `true` when `token` means `current`; throws `invalid_page_token` unless it is a boundary of `segments`. */
export const isCurrentToken = (token: string, segments: Float64Array): boolean =>
  call(() => glue.validatePageToken(token, segments));
/** The 20-digit token of the archive whose first record has `firstSequence`. */
export const archiveToken = (firstSequence: number): string => call(() => glue.archiveChunkToken(firstSequence));
/** The 20-digit token of the archive starting at a sequence written in decimal digits (a bigint's). */
export const archiveTokenOfDecimal = (digits: string): string => call(() => glue.archiveChunkTokenOfDecimal(digits));

/** The bookkeeping of a new, empty log with chunks of `size`: no archive yet. */
export const newLog = (size: number): LogBook => ({ book: call(() => glue.newLog(size)), latest: "" });

/** Checks a log's bookkeeping: LogCheckSlot's numbers (constants.ts); `corrupt_data` for bookkeeping that breaks a rule. */
export const checkLog = (log: LogBook): Float64Array => call(() => glue.checkLog(log.book, log.latest));

/** The writes of an append: first and next sequence, and the chunks to archive. */
export interface AppendPlan {
  firstSequence: number;
  nextSequence: number;
  cuts: Array<{ first: number; length: number }>;
}

/** The core's plan for appending `count` records to a log whose `current` holds `currentLength`. */
export function appendPlan(log: LogBook, currentLength: number, count: number): AppendPlan {
  const out = call(() => glue.appendPlan(log.book, log.latest, currentLength, count));
  const [from, length] = [out[APPEND_PLAN_ARCHIVE_FROM]!, out[APPEND_PLAN_CHUNK_LENGTH]!];
  return {
    firstSequence: out[APPEND_PLAN_FIRST_SEQUENCE]!,
    nextSequence: out[APPEND_PLAN_NEXT_SEQUENCE]!,
    cuts: Array.from({ length: out[APPEND_PLAN_ARCHIVE_COUNT]! }, (_, k) => ({ first: from + k * length, length })),
  };
}

/** Checks the chunk read for `token` and returns the next older page's token. */
export const pageNext = (log: LogBook, token: string, present: boolean, sequences: Float64Array, recordName: string): string =>
  call(() => glue.pageNext(log.book, log.latest, token, present, sequences, recordName));
/** The token of the page holding `sequence` (the oldest retained one for a dropped sequence), or `""` past the newest record. */
export const pageOfSequence = (log: LogBook, sequence: number): string =>
  call(() => glue.pageOfSequence(log.book, log.latest, sequence));
