// Reads the cross-SDK vector files (tests/conformance/*.json) into typed cases.
import { readFileSync } from "node:fs";

export interface Repeat {
  prefix: string;
  unit: string;
  count: number;
  suffix: string;
}

export interface EmailCase {
  id: string;
  input?: string;
  inputUtf16?: number[];
  inputRepeat?: Repeat;
  expect:
    | { error: string }
    | { canonicalEmail?: string; canonicalEmailRepeat?: Repeat; hash: number; partitionIndex: number; partitionName: string };
  knownDivergence?: string;
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
  firstSequence: string;
  expect: { token: string } | { error: string };
}

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./conformance/${name}`, import.meta.url), "utf8")) as T;
}

export const fnvVectors = load<{ cases: FnvCase[] }>("fnv1a32.json");
export const emailVectors = load<{ partitionCount: number; cases: EmailCase[] }>("email.json");
export const tokenVectors = load<{ chunkSize: number; cases: TokenCase[]; archiveTokenCases: ArchiveTokenCase[] }>(
  "page-token.json",
);

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
