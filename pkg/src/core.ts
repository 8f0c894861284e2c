// Typed access to the pure rules of the Rust core: partitions, tokens, log steps.
import "./init.js";
import * as wasm from "../wasm/attrmap.js";
import type { EmailPartition, LogState, NewSubscriber, Subscriber, SubscriberAppend, SubscriberPage } from "../wasm/attrmap.js";
import { callCore } from "./errors.js";

/** Trims ASCII whitespace (0x20, 0x09-0x0D) and lowercases A-Z; throws `invalid_email`. */
export function canonicalEmailAddress(email: string): string {
  return callCore(() => wasm.canonicalEmailAddress(email));
}

/** 32-bit FNV-1a of `bytes`, as an unsigned integer. */
export function fnv1a32(bytes: Uint8Array): number {
  return wasm.fnv1a32(bytes);
}

/** The canonical email, its hash and the partition it lives in (default 1000 partitions). */
export function emailPartition(email: string, partitionCount?: number): EmailPartition {
  return callCore(() => wasm.emailPartition(email, partitionCount));
}

/** The instance name of partition `index`: `partition-` + index padded to the largest index. */
export function partitionName(index: number, partitionCount?: number): string {
  return callCore(() => wasm.partitionName(index, partitionCount));
}

/** Returns `current` for `""` or `current`, the token itself for a chunk boundary; else throws `invalid_page_token`. */
export function validatePageToken(token: string, chunkSize?: number): string {
  return callCore(() => wasm.validatePageToken(token, chunkSize));
}

/** The 20-digit token an archived chunk is stored under. Pass a bigint above 2^53 - 1. */
export function archiveChunkToken(firstSequence: number | bigint): string {
  return callCore(() => wasm.archiveChunkToken(firstSequence));
}

/** One register step as a pure function: every write to make, to be stored together. */
export function appendSubscriber(
  state: LogState | undefined,
  current: Subscriber[] | undefined,
  input: NewSubscriber,
  chunkSize?: number,
): SubscriberAppend {
  return callCore(() => wasm.appendSubscriber(state, current, input, chunkSize));
}

/** Assembles the page for `token` from the one chunk read for it (`undefined`: not stored). */
export function subscriberPage(
  token: string,
  chunk: Subscriber[] | undefined,
  state: LogState | undefined,
  chunkSize?: number,
): SubscriberPage {
  return callCore(() => wasm.subscriberPage(token, chunk, state, chunkSize));
}
