// The pure rules of the contract (docs/) as public functions: canonical emails, FNV-1a, partitions and
// page tokens, exactly as every reference SDK computes them. Each checks its arguments'
// types, then asks the Rust core.

import * as args from "../common/args.js";
import { CURRENT, DEFAULT_PARTITION_COUNT } from "../common/constants.js";
import { type CustomerProfile, type CustomerProfileInput, profileInput } from "../reference-samples/records.js";
import * as wasm from "../wasm/core-module.js";
import { type Segment, segmentNumbers } from "../wasm/encodings.js";

/** Where one email lives. */
export interface EmailPartition {
  canonicalEmail: string;
  /** 32-bit FNV-1a of the canonical email, unsigned. */
  hash: number;
  partitionIndex: number;
  partitionName: string;
}

/** Where one canonical key lives. */
export interface KeyPartition {
  hash: number;
  partitionIndex: number;
  partitionName: string;
}

/** A profile ready to store, and where. */
export interface PlacedCustomerProfile extends EmailPartition {
  profile: CustomerProfile;
}

function partitionCountArg(partitionCount: unknown): number {
  return partitionCount === undefined
    ? DEFAULT_PARTITION_COUNT
    : wasm.resolvePartitionCount(args.number("partitionCount", partitionCount));
}

/** Trims ASCII whitespace (0x20, 0x09-0x0D) and lowercases A-Z; throws `invalid_email`. */
export function canonicalEmailAddress(emailAddress: string): string {
  return wasm.canonicalEmail(args.text("emailAddress", emailAddress));
}

/** 32-bit FNV-1a of `bytes` (a `Uint8Array`, of any length), as an unsigned integer. */
export function fnv1a32(bytes: Uint8Array): number {
  return wasm.hashBytes(args.bytes("bytes", bytes));
}

/** The canonical email, its hash and the partition it lives in (default 1000 partitions). */
export function emailPartition(emailAddress: string, partitionCount?: number): EmailPartition {
  const email = args.text("emailAddress", emailAddress);
  const count = partitionCountArg(partitionCount);
  const { key, hash, index } = wasm.placeKey(email, true, count);
  return { canonicalEmail: key, hash, partitionIndex: index, partitionName: wasm.partitionName(index, count) };
}

/** The partition of a key that is already canonical (FNV-1a of its UTF-8 bytes, mod N). */
export function keyPartition(canonicalKey: string, partitionCount?: number): KeyPartition {
  const key = args.text("canonicalKey", canonicalKey);
  const count = partitionCountArg(partitionCount);
  const { hash, index } = wasm.placeKey(key, false, count);
  return { hash, partitionIndex: index, partitionName: wasm.partitionName(index, count) };
}

/** The instance name of partition `index`: `partition-` + index padded to the largest index. */
export function partitionName(index: number, partitionCount?: number): string {
  return wasm.partitionName(args.number("index", index), partitionCountArg(partitionCount));
}

/** Checks a customer profile, canonicalizes its email and names its partition. */
export function placeCustomerProfile(profile: CustomerProfileInput, partitionCount?: number): PlacedCustomerProfile {
  const input = profileInput(profile);
  const placed = emailPartition(input.emailAddress, partitionCount);
  return { profile: { ...input, emailAddress: placed.canonicalEmail }, ...placed };
}

/**
 * `"current"` for `""` or `"current"`, the token itself for a chunk boundary; else throws
 * `invalid_page_token`. The layout is a chunk size (default 100), or the segments of a log
 * whose chunk size changed: `[{ fromSequence: 1, chunkSize: 10 }, { fromSequence: 26, chunkSize: 3 }]`.
 */
export function validatePageToken(token: string, layout?: number | readonly Segment[]): string {
  const t = args.text("token", token);
  return wasm.isCurrentToken(t, segmentsArg(layout)) ? CURRENT : t;
}

/** A caller's chunk size or segment list as the core takes it: `[from, size, ...]`. */
function segmentsArg(layout: unknown): Float64Array {
  if (layout === undefined || typeof layout === "number") return Float64Array.of(1, wasm.resolveChunkSize(layout));
  return segmentNumbers(args.list<unknown>("segments", layout, 1_000_000), (segment, i) => {
    const s = args.object(`segments[${i}]`, segment);
    return [
      args.number(`segments[${i}].fromSequence`, args.field(`segments[${i}]`, s, "fromSequence")),
      args.number(`segments[${i}].chunkSize`, args.field(`segments[${i}]`, s, "chunkSize")),
    ];
  });
}

/** The 20-digit token an archived chunk is stored under. Pass a bigint above 2^53 - 1. */
export function archiveChunkToken(firstSequence: number | bigint): string {
  if (typeof firstSequence === "number") return wasm.archiveToken(firstSequence);
  if (typeof firstSequence !== "bigint")
    throw args.invalid(`firstSequence must be a number or a bigint, got ${args.describeType(firstSequence)}`);
  // Only a bigint of a reasonable size is written out in decimal (one can have a billion digits).
  if (BigInt.asIntN(512, firstSequence) !== firstSequence)
    throw args.invalid("firstSequence is a bigint far outside the range of tokens");
  return wasm.archiveTokenOfDecimal(firstSequence.toString());
}
