// The vector files as one list of requests for a testee: each case of each file becomes one
// request (an email case two: its canonical form and its partition), with what the contract
// expects and what each reference SDK is marked to answer instead.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** What a testee must answer for a case to pass. */
export type Expected =
  /** `{"result": value}`, compared as JSON values. */
  | { result: unknown }
  /** `{"error": message}` with exactly this message. */
  | { error: string }
  /** `{"error": ...}` with any message: the contract fixes that it fails, not its words (`code` is attrmap's). */
  | { anyError: string }
  /** An error whose message starts with this text. */
  | { errorPrefix: string }
  /** An export refused at this line for this reason: the message starts `line N: ` and holds `(reason)`. */
  | { exportError: { line: number; reason: string } };

/** A reference SDK's departure from a case, as its vector file marks it. */
export interface Mark {
  sdk: string;
  class: string;
  evidence: string;
  how: string;
  when?: string;
  /** What that SDK answers; absent when it cannot take the input at all. */
  expected?: Expected;
  /** The SDKs the mark's class was measured for (divergences.json); absent: every SDK. */
  measured?: string[];
}

/** One request of the run and how to judge its answer. */
export interface Case {
  /** Where it comes from: `email.json`, `cases`, 12, and the case's own id. */
  file: string;
  group: string;
  index: number;
  name: string;
  /** The report's class: what the case checks. */
  class: string;
  op: string;
  input: unknown;
  expected: Expected;
  marks: Mark[];
}

/** The vector files' marks as they are written. */
interface RawMark {
  sdk: string;
  class: string;
  evidence: string;
  how: string;
  when?: string;
  actual?: Record<string, unknown>;
}

type Raw = Record<string, unknown> & { divergences?: RawMark[]; expect?: Record<string, unknown> };

interface Repeat {
  prefix: string;
  unit: string;
  count: number;
  suffix: string;
}

const expand = (r: Repeat) => r.prefix + r.unit.repeat(r.count) + r.suffix;

/** The SDKs the vectors mark, and the classes of their divergences (divergences.json). */
export interface Divergences {
  sdks: string[];
  classes: Record<string, { title: string; measured?: string[] }>;
}

/** The vector files of `dir`. */
export class Vectors {
  constructor(readonly dir: string) {}

  json<T>(file: string): T {
    const text = readFileSync(join(this.dir, file), "utf8");
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw new SyntaxError(`${join(this.dir, file)}: ${e instanceof Error ? e.message : e}`);
    }
  }

  text(file: string): string {
    return readFileSync(join(this.dir, file), "utf8");
  }
}

/** A case's expected answer: `{error}` or the named result fields (one field: its value). */
function expectedOf(expect: Record<string, unknown>, fields: readonly string[]): Expected {
  if (typeof expect.error === "string") return { error: expect.error };
  if (typeof expect.errorPrefix === "string") return { errorPrefix: expect.errorPrefix };
  const [only] = fields;
  if (fields.length === 1 && only !== undefined) return { result: expect[only] };
  return { result: Object.fromEntries(fields.map((f) => [f, expect[f]])) };
}

/**
 * A mark's `actual` in the form of the case's request: the result fields it names over the
 * contract's (`actual` may give only the field that differs); `undefined` when it says
 * nothing about this request.
 */
function markExpected(actual: Record<string, unknown>, contract: Record<string, unknown>, fields: readonly string[]) {
  if ("error" in actual || "errorPrefix" in actual) return expectedOf(actual, fields);
  if (!fields.some((f) => f in actual)) return undefined;
  const resultFields = "error" in contract || "errorPrefix" in contract ? {} : contract;
  return expectedOf({ ...resultFields, ...actual }, fields);
}

function marksOf(raw: Raw, fields: readonly string[], classes: Divergences["classes"], errorAsAny = false): Mark[] {
  const out: Mark[] = [];
  for (const m of raw.divergences ?? []) {
    const mark: Mark = { sdk: m.sdk, class: m.class, evidence: m.evidence, how: m.how };
    if (m.when) mark.when = m.when;
    const measured = classes[m.class]?.measured;
    if (measured) mark.measured = measured;
    if (m.actual) {
      const expected = markExpected(m.actual, raw.expect ?? {}, fields);
      if (expected === undefined) continue;
      mark.expected = errorAsAny && "error" in expected ? { anyError: expected.error } : expected;
    }
    out.push(mark);
  }
  return out;
}

const PARTITION_FIELDS = ["hash", "partitionIndex", "partitionName"] as const;

/** Every case of every vector file, in file order. */
export function loadCases(vectors: Vectors): Case[] {
  const cases: Case[] = [];
  const { classes } = vectors.json<Divergences>("divergences.json");
  const add = (
    file: string,
    group: string,
    list: Raw[],
    build: (raw: Raw, index: number) => Omit<Case, "file" | "group" | "index">[],
  ) =>
    list.forEach((raw, index) => {
      for (const c of build(raw, index)) cases.push({ file, group, index, ...c });
    });
  const name = (raw: Raw, fallback: unknown) => String(raw.id ?? fallback);
  /** A case whose expectation is a result under `fields` or a message, marked in the same shape. */
  const simple = (raw: Raw, cls: string, op: string, input: unknown, fields: readonly string[], id: unknown = raw.id) => ({
    name: name(raw, id),
    class: cls,
    op,
    input,
    expected: expectedOf(raw.expect ?? {}, fields),
    marks: marksOf(raw, fields, classes),
  });

  const fnv = vectors.json<{ cases: Raw[] }>("fnv1a32.json");
  add("fnv1a32.json", "cases", fnv.cases, (raw) => {
    const r = raw.inputRepeat as { prefixHex: string; unitHex: string; count: number; suffixHex: string } | undefined;
    const bytesHex = r ? r.prefixHex + r.unitHex.repeat(r.count) + r.suffixHex : (raw.inputHex as string);
    return [
      { name: name(raw, ""), class: "fnv1a32", op: "fnv1a32", input: { bytesHex }, expected: { result: raw.hash }, marks: [] },
    ];
  });

  const email = vectors.json<{ partitionCount: number; cases: Raw[]; profileBodyCases: Raw[] }>("email.json");
  add("email.json", "cases", email.cases, (raw) => {
    const units = raw.inputUtf16 as number[] | undefined;
    const input = units
      ? String.fromCharCode(...units)
      : raw.inputRepeat
        ? expand(raw.inputRepeat as Repeat)
        : (raw.input as string);
    const expect = raw.expect ?? {};
    const repeat = expect.canonicalEmailRepeat as Repeat | undefined;
    const contract = repeat ? { ...raw, expect: { ...expect, canonicalEmail: expand(repeat) } } : raw;
    return [
      simple(contract, "canonical-email", "canonicalEmail", input, ["canonicalEmail"]),
      simple(
        contract,
        "email-partition",
        "emailPartition",
        { email: input, partitionCount: email.partitionCount },
        PARTITION_FIELDS,
      ),
    ];
  });
  add("email.json", "profileBodyCases", email.profileBodyCases, (raw) => [
    simple(raw, "profile-body", "profileBody", { body: raw.body }, []),
  ]);

  const partition = vectors.json<{ cases: Raw[] }>("partition.json");
  add("partition.json", "cases", partition.cases, (raw) => {
    const count = raw.partitionCount;
    return raw.rule === "email"
      ? [simple(raw, "email-partition", "emailPartition", { email: raw.key, partitionCount: count }, PARTITION_FIELDS)]
      : [simple(raw, "key-partition", "keyPartition", { key: raw.key, partitionCount: count }, PARTITION_FIELDS)];
  });

  const formatting = vectors.json<{ partitionNameCases: Raw[]; tokenCases: Raw[] }>("formatting.json");
  add("formatting.json", "partitionNameCases", formatting.partitionNameCases, (raw) => [
    simple(
      raw,
      "formatting",
      "partitionName",
      { index: raw.index, partitionCount: raw.partitionCount },
      ["partitionName"],
      `${raw.index} of ${raw.partitionCount}`,
    ),
  ]);
  add("formatting.json", "tokenCases", formatting.tokenCases, (raw) => [
    simple(raw, "formatting", "archiveToken", { firstSequence: String(raw.firstSequence) }, ["token"], raw.firstSequence),
  ]);

  const tokens = vectors.json<{
    chunkSize: number;
    cases: Raw[];
    archiveTokenCases: Raw[];
    notFoundCases: Raw[];
    nullTokenCases: Raw[];
    errorTransport: Raw;
  }>("page-token.json");
  const pageToken = (token: unknown) => ({ token, chunkSize: tokens.chunkSize });
  add("page-token.json", "cases", tokens.cases, (raw) => [
    simple(raw, "page-token", "pageToken", pageToken(raw.token), ["pageToken"]),
  ]);
  // Out-of-range arguments and null tokens must fail; their words are not part of the contract.
  const mustFail = (raw: Raw, cls: string, op: string, input: unknown, fields: readonly string[], id: unknown) => {
    const c = simple(raw, cls, op, input, fields, id);
    return {
      ...c,
      expected: "error" in c.expected ? { anyError: c.expected.error } : c.expected,
      marks: marksOf(raw, fields, classes, true),
    };
  };
  add("page-token.json", "archiveTokenCases", tokens.archiveTokenCases, (raw) => [
    mustFail(raw, "archive-token", "archiveToken", { firstSequence: raw.firstSequence }, ["token"], raw.firstSequence),
  ]);
  add("page-token.json", "notFoundCases", tokens.notFoundCases, (raw) => [
    simple(raw, "not-found", "pageNotFound", { token: raw.token }, []),
  ]);
  add("page-token.json", "nullTokenCases", tokens.nullTokenCases, (raw) => [
    mustFail(raw, "null-token", "pageToken", pageToken(null), ["pageToken"], raw.id),
  ]);
  add("page-token.json", "errorTransport", [tokens.errorTransport], (raw) => {
    const [method, path] = String(raw.request).split(" ");
    return [simple(raw, "error-transport", "httpRequest", { method, path }, ["status", "contentType", "body"], raw.request)];
  });

  const segmented = vectors.json<{ cases: Raw[]; pageCases: Raw[] }>("segmented-log.json");
  add("segmented-log.json", "cases", segmented.cases, (raw) => [
    simple(raw, "segmented-token", "segmentedPageToken", { token: raw.token, segments: raw.segments }, ["pageToken"]),
  ]);
  add("segmented-log.json", "pageCases", segmented.pageCases, (raw) => [
    simple(
      raw,
      "next-page-token",
      "page",
      { segments: raw.segments, state: raw.state, retainedFrom: raw.retainedFrom, token: raw.token },
      ["firstSequence", "nextPageToken"],
    ),
  ]);

  const append = vectors.json<{ cases: Raw[] }>("append.json");
  add("append.json", "cases", append.cases, (raw) => [
    mustFail(
      raw,
      "append-plan",
      "appendPlan",
      { segments: raw.segments, state: raw.state, currentLength: raw.currentLength, count: raw.count },
      ["firstSequence", "archivedTokens", "state", "currentLength"],
      raw.id,
    ),
  ]);

  const index = vectors.json<{ cases: Raw[] }>("index.json");
  add("index.json", "cases", index.cases, (raw) => [
    mustFail(
      raw,
      "index-partition",
      "indexPartition",
      { value: raw.value, partitionCount: raw.partitionCount },
      ["canonicalValue", ...PARTITION_FIELDS],
      raw.id,
    ),
  ]);

  const exports = vectors.json<{ cases: Raw[] }>("export.json");
  add("export.json", "cases", exports.cases, (raw) => {
    const expect = raw.expect as { error?: { line: number; reason: string } };
    const file = String(raw.file);
    const expected: Expected = expect.error
      ? { exportError: expect.error }
      : expectedOf(raw.expect ?? {}, ["maps", "instances", "entries"]);
    return [{ name: file, class: "export", op: "verifyExport", input: { text: vectors.text(file) }, expected, marks: [] }];
  });
  return cases;
}
