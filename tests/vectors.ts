// Reads the cross-SDK vector files (tests/conformance/*.json) into typed cases.
import { readFileSync } from "node:fs";

export interface Repeat {
  prefix: string;
  unit: string;
  count: number;
  suffix: string;
}

/** One reference SDK's departure from a case's `expect` (tests/conformance/divergences.json). */
export interface Divergence {
  sdk: "python" | "typescript" | "go" | "java" | "rust";
  class: string;
  evidence: "run" | "read" | "range";
  how: string;
  detail?: string;
  when?: string;
  /** That SDK's output in the shape of `expect`; absent when it cannot take the input. */
  actual?: Record<string, unknown>;
}

export interface EmailCase {
  id: string;
  input?: string;
  inputUtf16?: number[];
  inputRepeat?: Repeat;
  expect:
    | { error: string }
    | { canonicalEmail?: string; canonicalEmailRepeat?: Repeat; hash: number; partitionIndex: number; partitionName: string };
  divergences?: Divergence[];
}

export interface ProfileBodyCase {
  id: string;
  body: Record<string, unknown>;
  expect: { error: string };
}

export interface FnvCase {
  id: string;
  inputHex?: string;
  inputRepeat?: { prefixHex: string; unitHex: string; count: number; suffixHex: string };
  hash: number;
  hashHex: string;
}

export interface TokenCase {
  id: string;
  token: string;
  expect: { pageToken: string } | { error: string };
  divergences?: Divergence[];
}

export interface SegmentJson {
  fromSequence: number;
  chunkSize: number;
}

export interface SegmentedTokenCase {
  id: string;
  segments: SegmentJson[];
  token: string;
  expect: { pageToken: string } | { error: string };
}

export interface SegmentedPageCase {
  id: string;
  segments: SegmentJson[];
  state: { nextSequence: number; latestArchivedChunkToken: string };
  retainedFrom: number;
  token: string;
  expect: { firstSequence: number; nextPageToken: string };
}

export interface ArchiveTokenCase {
  /** A decimal string: values go past 64 bits, and some are negative or fractions. */
  firstSequence: string;
  expect: { token: string } | { error: string };
  divergences?: Divergence[];
}

/** `firstSequence` as the package takes it: a bigint when it is an integer, else the number. */
export function archiveInput(c: ArchiveTokenCase): bigint | number {
  return /^-?\d+$/.test(c.firstSequence) ? BigInt(c.firstSequence) : Number(c.firstSequence);
}

export interface FormattingVectors {
  partitionNameCases: Array<{ index: number; partitionCount: number; expect: { partitionName: string } }>;
  tokenCases: Array<{ firstSequence: number; expect: { token: string } }>;
}

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./conformance/${name}`, import.meta.url), "utf8")) as T;
}

export const fnvVectors = load<{ cases: FnvCase[] }>("fnv1a32.json");
export const emailVectors = load<{ partitionCount: number; cases: EmailCase[]; profileBodyCases: ProfileBodyCase[] }>(
  "email.json",
);
export const tokenVectors = load<{
  chunkSize: number;
  cases: TokenCase[];
  archiveTokenCases: ArchiveTokenCase[];
  notFoundCases: Array<{ id: string; token: string; expect: { error: string } }>;
  nullTokenCases: Array<{ id: string; token: null; expect: { error: string }; divergences: Divergence[] }>;
  errorTransport: { expect: { status: number; contentType: string; body: { error: string } }; request: string };
}>("page-token.json");
export const formattingVectors = load<FormattingVectors>("formatting.json");
export const divergenceClasses = load<{ sdks: string[]; classes: Record<string, { title: string }> }>("divergences.json");

export const segmentedVectors = load<{ cases: SegmentedTokenCase[]; pageCases: SegmentedPageCase[] }>("segmented-log.json");

export const expand = (r: Repeat): string => r.prefix + r.unit.repeat(r.count) + r.suffix;

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
}

export function emailInput(c: EmailCase): string {
  if (c.input !== undefined) return c.input;
  if (c.inputUtf16) return String.fromCharCode(...c.inputUtf16);
  if (c.inputRepeat) return expand(c.inputRepeat);
  throw new Error(`case ${c.id} has no input`);
}

export function fnvInput(c: FnvCase): Uint8Array {
  if (c.inputHex !== undefined) return hexBytes(c.inputHex);
  const r = c.inputRepeat!;
  const unit = hexBytes(r.unitHex);
  const out = new Uint8Array(r.prefixHex.length / 2 + unit.length * r.count + r.suffixHex.length / 2);
  out.set(hexBytes(r.prefixHex));
  for (let i = 0; i < r.count; i++) out.set(unit, r.prefixHex.length / 2 + i * unit.length);
  out.set(hexBytes(r.suffixHex), out.length - r.suffixHex.length / 2);
  return out;
}
