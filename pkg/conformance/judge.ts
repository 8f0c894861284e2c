// Whether a testee's answer is what a case expects: the contract's answer, or one reference
// SDK's marked departure from it.
import type { Case, Expected, Mark } from "./cases.js";

/** A testee's answer to one request (docs/conformance.md, "Protocol"). */
export type Answer = { result: unknown } | { error: string } | { unsupported: true };

/** What became of one case. */
export type Verdict =
  | { kind: "passed"; fixed?: Mark }
  /** `unmeasured`: classes of the case's marks never measured for the SDK asked for (its departure may be unrecorded). */
  | { kind: "failed"; got: string; mark?: Mark; unmeasured?: string[]; resembles?: Resemblance }
  | { kind: "known"; mark: Mark; got: string }
  | { kind: "skipped" };

/** Equal as JSON values: numbers by value, objects whatever their key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(bo, k) && sameJson((a as Record<string, unknown>)[k], bo[k]));
}

/** An HTTP answer's media type without its parameters (`application/json; charset=utf-8`). */
function normalized(op: string, result: unknown): unknown {
  if (op !== "httpRequest" || typeof result !== "object" || result === null) return result;
  const r = result as Record<string, unknown>;
  const type = typeof r.contentType === "string" ? r.contentType.split(";")[0]?.trim().toLowerCase() : r.contentType;
  return { ...r, contentType: type };
}

/** Whether `answer` is `expected`. */
export function matches(op: string, expected: Expected, answer: Answer): boolean {
  if ("result" in expected) return "result" in answer && sameJson(expected.result, normalized(op, answer.result));
  if (!("error" in answer)) return false;
  if ("error" in expected) return answer.error === expected.error;
  if ("anyError" in expected) return true;
  if ("errorPrefix" in expected) return answer.error.startsWith(expected.errorPrefix);
  const { line, reason } = expected.exportError;
  return answer.error.startsWith(`line ${line}: `) && answer.error.includes(`(${reason})`);
}

/** The answer as the report prints it. */
export function describeAnswer(answer: Answer): string {
  if ("unsupported" in answer) return "unsupported";
  return "error" in answer ? `error ${JSON.stringify(answer.error)}` : `result ${JSON.stringify(answer.result)}`;
}

/** The expectation as the report prints it. */
export function describeExpected(expected: Expected): string {
  if ("result" in expected) return `result ${JSON.stringify(expected.result)}`;
  if ("error" in expected) return `error ${JSON.stringify(expected.error)}`;
  if ("anyError" in expected) return `an error (any message; attrmap's code is ${expected.anyError})`;
  if ("errorPrefix" in expected) return `an error starting ${JSON.stringify(expected.errorPrefix)}`;
  return `an error starting "line ${expected.exportError.line}: " naming (${expected.exportError.reason})`;
}

/** A failure that looks like a departure the vectors mark elsewhere: its class, and for which SDKs in which files. */
export interface Resemblance {
  class: string;
  sdks: string[];
  files: string[];
}

/** Where the vectors mark one SDK's departures of one class: the vector files, and the kinds of case (the report's classes). */
interface Marked {
  files: Set<string>;
  kinds: Set<string>;
}

/** Which classes each SDK's marks hold, and where: SDK, then class of departure. */
export type MarkedClasses = ReadonlyMap<string, ReadonlyMap<string, Marked>>;

/** Every SDK's marked classes over `cases`. */
export function markedClasses(cases: readonly Case[]): MarkedClasses {
  const out = new Map<string, Map<string, Marked>>();
  for (const c of cases)
    for (const m of c.marks) {
      const classes = out.get(m.sdk) ?? out.set(m.sdk, new Map()).get(m.sdk)!;
      const marked = classes.get(m.class) ?? classes.set(m.class, { files: new Set(), kinds: new Set() }).get(m.class)!;
      marked.files.add(c.file);
      marked.kinds.add(c.class);
    }
  return out;
}

/** `value` with every decimal digit of any script as its ASCII digit (a run of 10 digits counts from its first). */
function asciiDigits(value: unknown): unknown {
  if (typeof value === "string")
    return value.replace(/\p{Nd}/gu, (d) => {
      let zero = d.codePointAt(0)!;
      while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
      return String((d.codePointAt(0)! - zero) % 10);
    });
  if (Array.isArray(value)) return value.map(asciiDigits);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asciiDigits(v)]));
  return value;
}

function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  return typeof value === "object" && Object.values(value as object).some(holdsNull);
}

/**
 * How a class's departure shows in any case, marked or not: a locale's digits where the contract
 * has ASCII ones; any answer to an input that holds a null. The keys are classes of
 * divergences.json (the runner's tests check that they are).
 */
export const LOOKS_LIKE: Readonly<Record<string, (c: Case, answer: Answer) => boolean>> = {
  "locale-digits": (c, answer) =>
    "result" in c.expected && "result" in answer && sameJson(c.expected.result, asciiDigits(answer.result)),
  "null-input": (c) => holdsNull(c.input),
};

/**
 * The marked departure, of `sdk` or of any SDK, that a failure of `c` looks like: one the vectors
 * mark on cases of the same kind (a null email, not a null index value), and not on `c` itself.
 */
function resemblance(c: Case, answer: Answer, sdk: string | undefined, marked: MarkedClasses): Resemblance | undefined {
  for (const [cls, looksLike] of Object.entries(LOOKS_LIKE)) {
    if (c.marks.some((m) => m.class === cls && (sdk === undefined || m.sdk === sdk)) || !looksLike(c, answer)) continue;
    const sdks = [...marked]
      .filter(([s, classes]) => (sdk === undefined || s === sdk) && classes.get(cls)?.kinds.has(c.class))
      .map(([s]) => s);
    const files = new Set(sdks.flatMap((s) => [...marked.get(s)!.get(cls)!.files]));
    if (sdks.length) return { class: cls, sdks, files: [...files].sort() };
  }
  return undefined;
}

/**
 * The verdict on `answer` to `c`. With `sdk`, a failure that one of that SDK's marks predicts
 * (its answer, or any answer when the SDK cannot take the input) is a known divergence. A pass
 * is reported as possibly fixed only by a mark that recorded another answer and holds under any
 * condition: a mark without an answer (the SDK cannot take the input) or with a `when` (a
 * locale the testee may not run under) proves nothing when the contract's answer comes back. A
 * failure no mark of the case predicts names the class of a departure it looks like (`marked`:
 * where the vectors mark each SDK's classes), so an SDK's known habit in an unmarked case reads as such.
 */
export function judge(c: Case, answer: Answer, sdk: string | undefined, marked: MarkedClasses = new Map()): Verdict {
  if ("unsupported" in answer) return { kind: "skipped" };
  const mine = c.marks.filter((m) => m.sdk === sdk);
  if (matches(c.op, c.expected, answer)) {
    const fixed = mine.find((m) => m.when === undefined && m.expected !== undefined && !matches(c.op, m.expected, answer));
    return fixed ? { kind: "passed", fixed } : { kind: "passed" };
  }
  const got = describeAnswer(answer);
  const known = mine.find((m) => m.expected === undefined || matches(c.op, m.expected, answer));
  if (known) return { kind: "known", mark: known, got };
  const failed: Verdict = { kind: "failed", got };
  // Without --sdk, or when the answer is neither, say which SDK the case is marked for.
  const predicted = c.marks.find((m) => m.expected !== undefined && matches(c.op, m.expected, answer));
  if (predicted) failed.mark = predicted;
  else {
    // No mark of this case predicts it: one that looks like a departure marked in another case says so.
    const resembles = resemblance(c, answer, sdk, marked);
    if (resembles) failed.resembles = resembles;
  }
  if (sdk !== undefined) {
    const unmeasured = [...new Set(c.marks.filter((m) => m.measured && !m.measured.includes(sdk)).map((m) => m.class))];
    if (unmeasured.length) failed.unmeasured = unmeasured;
  }
  return failed;
}
