// Typed access to the Rust core's store module, and the one module that calls into it (the
// verifier's and the maintenance modules have their own: export-import/verifier.ts and
// maintenance.ts). Every function here takes primitives its callers have already checked for
// type and size (see args.ts); the core checks values and throws coded errors, rethrown as
// AttrmapError.
import type { PlacedSink } from "../../wasm/attrmap.js";
import * as wasm from "../../wasm/attrmap.js";
import { callCore } from "../store/errors.js";
import {
  APPEND_PLAN_ARCHIVE_COUNT,
  APPEND_PLAN_ARCHIVE_FROM,
  APPEND_PLAN_CHUNK_LENGTH,
  APPEND_PLAN_FIRST_SEQUENCE,
  APPEND_PLAN_NEXT_SEQUENCE,
  DEFAULT_PARTITION_COUNT,
  FNV_OFFSET_BASIS,
} from "./constants.js";
import type { LogBook } from "./encodings.js";

/** The largest piece of a byte array hashed in one crossing. */
export const HASH_PIECE = 1 << 20;

// The core's checks and rules, each a thin call: the rule and its message live in Rust.
export const resolvePartitionCount = (count: number | undefined): number => callCore(() => wasm.resolvePartitionCount(count));
export const resolveChunkSize = (size: number | undefined): number => callCore(() => wasm.resolveChunkSize(size));
export const checkLayoutVersion = (version: number): void => callCore(() => wasm.checkLayoutVersion(version));
export const checkMapName = (arg: string, name: string): void => callCore(() => wasm.checkMapName(arg, name));
export const checkKeyRule = (name: string, custom: boolean): void => callCore(() => wasm.checkKeyRule(name, custom));
export const checkSubscriberFields = (idLength: number, addressLength: number): void =>
  callCore(() => wasm.checkSubscriberFields(idLength, addressLength));

/** FNV-1a of `bytes`, crossing in pieces so that no input needs more than a piece of wasm memory. */
export function hashBytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET_BASIS;
  for (let at = 0; at < bytes.length; at += HASH_PIECE) hash = wasm.fnv1a32Continue(hash, bytes.subarray(at, at + HASH_PIECE));
  return hash;
}

/** The canonical form of an email, as placeKey makes it (the rule is the core's). */
export const canonicalEmail = (email: string): string => placeKey(email, true, DEFAULT_PARTITION_COUNT).key;

/** Where a key lives: its canonical form (under the email rule, or as it is), its hash and its partition index. */
export interface Placed {
  key: string;
  hash: number;
  index: number;
}

/** The key placeKey is placing, and what its sink made of what the core told. */
let placing = "";
let placed: Placed | undefined;

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
export function placeKey(key: string, email: boolean, partitionCount: number): Placed {
  placing = key;
  // One crossing with the key; numbers come back, never a string (decoding one costs more than the placing).
  callCore(() => wasm.placeKey(key, email, partitionCount, sink));
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
  return (table[index] ??= callCore(() => wasm.partitionName(index, partitionCount)));
}

/** `true` when `token` means `current`; throws `invalid_page_token` unless it is a boundary of `segments`. */
export const isCurrentToken = (token: string, segments: Float64Array): boolean =>
  callCore(() => wasm.validatePageToken(token, segments));
/** The 20-digit token of the archive whose first record has `firstSequence`. */
export const archiveToken = (firstSequence: number): string => callCore(() => wasm.archiveChunkToken(firstSequence));
/** The 20-digit token of the archive starting at a sequence written in decimal digits (a bigint's). */
export const archiveTokenOfDecimal = (digits: string): string => callCore(() => wasm.archiveChunkTokenOfDecimal(digits));

/** The bookkeeping of a new, empty log with chunks of `size`: no archive yet. */
export const newLog = (size: number): LogBook => ({ book: callCore(() => wasm.newLog(size)), latest: "" });

/** Checks a log's bookkeeping: LogCheckSlot's numbers (constants.ts); `corrupt_data` for bookkeeping that breaks a rule. */
export const checkLog = (log: LogBook): Float64Array => callCore(() => wasm.checkLog(log.book, log.latest));

/** The writes of an append: first and next sequence, and the chunks to archive. */
export interface AppendPlan {
  firstSequence: number;
  nextSequence: number;
  cuts: Array<{ first: number; length: number }>;
}

/** The core's plan for appending `count` records to a log whose `current` holds `currentLength`. */
export function appendPlan(log: LogBook, currentLength: number, count: number): AppendPlan {
  const out = callCore(() => wasm.appendPlan(log.book, log.latest, currentLength, count));
  const [from, length] = [out[APPEND_PLAN_ARCHIVE_FROM]!, out[APPEND_PLAN_CHUNK_LENGTH]!];
  return {
    firstSequence: out[APPEND_PLAN_FIRST_SEQUENCE]!,
    nextSequence: out[APPEND_PLAN_NEXT_SEQUENCE]!,
    cuts: Array.from({ length: out[APPEND_PLAN_ARCHIVE_COUNT]! }, (_, k) => ({ first: from + k * length, length })),
  };
}

/** Checks the chunk read for `token` and returns the next older page's token. */
export const pageNext = (log: LogBook, token: string, present: boolean, sequences: Float64Array, recordName: string): string =>
  callCore(() => wasm.pageNext(log.book, log.latest, token, present, sequences, recordName));
/** The token of the page holding `sequence` (the oldest retained one for a dropped sequence), or `""` past the newest record. */
export const pageOfSequence = (log: LogBook, sequence: number): string =>
  callCore(() => wasm.pageOfSequence(log.book, log.latest, sequence));
