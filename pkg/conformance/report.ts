// What a run found: counts per class, then every failure, known divergence and mark the
// testee no longer needs, each naming its vector file and index so it can be looked up.
import type { Case, Mark } from "./cases.js";
import { describeExpected, type Resemblance } from "./judge.js";
import type { Outcome } from "./run.js";
import { clip } from "./testee.js";

export interface Counts {
  passed: number;
  failed: number;
  known: number;
  skipped: number;
}

/** One case in the report, with what the vectors expect and what the testee said. */
export interface Entry {
  where: string;
  file: string;
  group: string;
  index: number;
  case: string;
  class: string;
  op: string;
  input: unknown;
  expected: string;
  got?: string;
  mark?: { sdk: string; class: string; evidence: string; how: string; when?: string };
  /** Classes of the case's marks never measured for the run's SDK. */
  unmeasured?: string[];
  /** The departure marked in other cases that this failure looks like. */
  resembles?: Resemblance;
}

export interface Report {
  testee: string[];
  sdk: string | null;
  ok: boolean;
  totals: Counts;
  classes: Record<string, Counts>;
  failures: Entry[];
  known: Entry[];
  /** Cases marked for `sdk` that the testee answered as the contract says. */
  fixed: Entry[];
  /** Operations the testee answered `unsupported`, with how many cases each. */
  unsupported: Record<string, number>;
  /** How many requests the run made of each operation. */
  requests: Record<string, number>;
}

const zero = (): Counts => ({ passed: 0, failed: 0, known: 0, skipped: 0 });

/** Inputs as the report keeps them: long strings (a 1 MiB email, an export file) cut short. */
function clipped(value: unknown): unknown {
  if (typeof value === "string") return clip(value, 300);
  if (Array.isArray(value)) return value.map(clipped);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipped(v)]));
  return value;
}

function entry(c: Case, got?: string, mark?: Mark): Entry {
  const e: Entry = {
    where: `${c.file} ${c.group}[${c.index}] (${JSON.stringify(c.name)})`,
    file: c.file,
    group: c.group,
    index: c.index,
    case: c.name,
    class: c.class,
    op: c.op,
    input: clipped(c.input),
    expected: clip(describeExpected(c.expected), 300),
  };
  if (got !== undefined) e.got = clip(got, 300);
  if (mark) {
    const { sdk, class: cls, evidence, how, when } = mark;
    e.mark = when ? { sdk, class: cls, evidence, how, when } : { sdk, class: cls, evidence, how };
  }
  return e;
}

/**
 * The report of a run. A run in which the testee answered no case at all (every op
 * `unsupported`: a misspelled op name, a testee not wired yet) fails unless `allowEmpty`.
 */
export function buildReport(testee: string[], sdk: string | undefined, outcomes: readonly Outcome[], allowEmpty = false): Report {
  const report: Report = {
    testee,
    sdk: sdk ?? null,
    ok: true,
    totals: zero(),
    classes: {},
    failures: [],
    known: [],
    fixed: [],
    unsupported: {},
    requests: {},
  };
  for (const { case: c, verdict } of outcomes) {
    report.requests[c.op] = (report.requests[c.op] ?? 0) + 1;
    const counts = (report.classes[c.class] ??= zero());
    counts[verdict.kind] += 1;
    report.totals[verdict.kind] += 1;
    if (verdict.kind === "failed") {
      const e = entry(c, verdict.got, verdict.mark);
      if (verdict.unmeasured) e.unmeasured = verdict.unmeasured;
      if (verdict.resembles) e.resembles = verdict.resembles;
      report.failures.push(e);
    } else if (verdict.kind === "known") report.known.push(entry(c, verdict.got, verdict.mark));
    else if (verdict.kind === "passed" && verdict.fixed) report.fixed.push(entry(c, undefined, verdict.fixed));
    else if (verdict.kind === "skipped") report.unsupported[c.op] = (report.unsupported[c.op] ?? 0) + 1;
  }
  const answered = report.totals.passed + report.totals.failed + report.totals.known;
  report.ok = report.totals.failed === 0 && (answered > 0 || allowEmpty);
  return report;
}

const MAX_LISTED = 100;

function describeMark(m: NonNullable<Entry["mark"]>): string {
  return `marked for ${m.sdk} (${m.class}, ${m.evidence}): ${m.how}${m.when ? ` (when ${m.when})` : ""}`;
}

function listed(title: string, entries: readonly Entry[], lines: (e: Entry) => string[]): string[] {
  if (entries.length === 0) return [];
  const out = ["", `${title} (${entries.length})`];
  for (const e of entries.slice(0, MAX_LISTED)) out.push(`  ${e.where} ${e.op}`, ...lines(e).map((l) => `    ${l}`));
  if (entries.length > MAX_LISTED) out.push(`  ... and ${entries.length - MAX_LISTED} more (--report FILE.json lists every one)`);
  return out;
}

/** The report as the terminal shows it. */
export function formatReport(r: Report): string {
  const width = Math.max(5, ...Object.keys(r.classes).map((k) => k.length));
  const row = (name: string, c: Counts) =>
    `${name.padEnd(width)}  ${[c.passed, c.failed, c.known, c.skipped].map((n) => String(n).padStart(7)).join("")}`;
  const out = [
    `attrmap-conformance: ${r.testee.join(" ")}${r.sdk ? ` (known divergences of ${r.sdk} expected)` : ""}`,
    "",
    `${"class".padEnd(width)}   passed failed  known skipped`,
    ...Object.entries(r.classes).map(([name, c]) => row(name, c)),
    row("total", r.totals),
  ];
  out.push(
    ...listed("FAILED", r.failures, (e) => [
      `input:    ${JSON.stringify(e.input)}`,
      `expected: ${e.expected}`,
      `got:      ${e.got}`,
      ...(e.mark ? [`(answers as ${describeMark(e.mark)})`] : []),
      ...(e.unmeasured
        ? [`(${e.unmeasured.join(", ")} never measured for ${r.sdk}: this may be a departure of the SDK no mark records yet)`]
        : []),
      ...(e.resembles
        ? [
            `(looks like the ${e.resembles.class} departure marked for ${e.resembles.sdks.join(", ")} in ` +
              `${e.resembles.files.join(", ")}; no mark records it for this case)`,
          ]
        : []),
    ]),
    ...listed("KNOWN DIVERGENCES (do not fail the run)", r.known, (e) => [
      `got: ${e.got}`,
      ...(e.mark ? [describeMark(e.mark)] : []),
    ]),
    ...listed(`FIXED? answered as the contract says, though marked for ${r.sdk}`, r.fixed, (e) =>
      e.mark ? [describeMark(e.mark)] : [],
    ),
  );
  const skipped = Object.entries(r.unsupported);
  const share = (op: string, n: number) => (n === r.requests[op] ? `all ${n} requests` : `${n} of ${r.requests[op]} requests`);
  if (skipped.length)
    out.push("", `SKIPPED: answered unsupported: ${skipped.map(([op, n]) => `${op} (${share(op, n)})`).join(", ")}`);
  const t = r.totals;
  if (t.passed + t.failed + t.known === 0 && !r.ok)
    out.push("", "NOTHING CHECKED: the testee answered no case; a run that checks nothing fails (--allow-empty passes it)");
  out.push(
    "",
    `${t.passed} passed, ${t.failed} failed, ${t.known} known divergences, ${t.skipped} skipped: ${r.ok ? "PASS" : "FAIL"}`,
  );
  return out.join("\n");
}
