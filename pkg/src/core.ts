// Typed access to the pure rules of the Rust core: partitions, tokens, log steps.
import "./init.js";
import * as wasm from "../wasm/attrmap.js";
import type {
  CustomerProfile,
  EmailPartition,
  KeyPartition,
  LogAppend,
  LogPage,
  LogRecord,
  LogState,
  NewSubscriber,
  PlacedCustomerProfile,
  Subscriber,
} from "../wasm/attrmap.js";
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

/** The partition of a key that is already canonical (FNV-1a of its UTF-8 bytes, mod N). */
export function keyPartition(canonicalKey: string, partitionCount?: number): KeyPartition {
  return callCore(() => wasm.keyPartition(canonicalKey, partitionCount));
}

/** The instance name of partition `index`: `partition-` + index padded to the largest index. */
export function partitionName(index: number, partitionCount?: number): string {
  return callCore(() => wasm.partitionName(index, partitionCount));
}

/** Checks a customer profile, canonicalizes its email and names its partition. */
export function placeCustomerProfile(profile: Partial<CustomerProfile>, partitionCount?: number): PlacedCustomerProfile {
  return callCore(() => wasm.placeCustomerProfile(profile, partitionCount));
}

/** Returns `current` for `""` or `current`, the token itself for a chunk boundary; else throws `invalid_page_token`. */
export function validatePageToken(token: string, chunkSize?: number): string {
  return callCore(() => wasm.validatePageToken(token, chunkSize));
}

/** The 20-digit token an archived chunk is stored under. Pass a bigint above 2^53 - 1. */
export function archiveChunkToken(firstSequence: number | bigint): string {
  return callCore(() => wasm.archiveChunkToken(firstSequence));
}

/** Register steps of the subscriber archive as a pure function: every write to make. */
export function appendSubscribers(
  state: LogState | undefined,
  current: Subscriber[] | undefined,
  inputs: NewSubscriber[],
  chunkSize?: number,
): LogAppend<Subscriber> {
  return callCore(() => wasm.appendSubscribers(state, current, inputs, chunkSize));
}

/** Append steps of a generic chunked log (records `{sequence, value}`): every write to make. */
export function appendLogRecords<V>(
  state: LogState | undefined,
  current: LogRecord<V>[] | undefined,
  values: V[],
  chunkSize?: number,
): LogAppend<LogRecord<V>> {
  return callCore(() => wasm.appendLogRecords(state, current, values, chunkSize) as LogAppend<LogRecord<V>>);
}

/**
 * The page for `token` from the one chunk read for it (`undefined`: not stored), newest
 * first, with the token of the next older page. `noun` names the records in the
 * `not_found` message (`subscriber page "..." not found`).
 */
export function logPage<R extends { sequence: number }>(token: string, chunk: R[] | undefined, chunkSize: number | undefined, noun: string): LogPage<R> {
  return callCore(() => wasm.logPage(token, chunk, chunkSize, noun) as LogPage<R>);
}
