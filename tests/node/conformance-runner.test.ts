// attrmap-conformance, the package's bin, against the three testees of this repository (the
// crate natively, the npm package, the Python reference), a testee with one SDK's known
// departure, and testees that go wrong in every way the runner must survive. What each run
// must report is worked out here from the vector files themselves.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Entry, Report } from "../../pkg/conformance/report.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const repo = here("../../");
const cli = fileURLToPath(import.meta.resolve("attrmap/package.json").replace(/package\.json$/, "dist/conformance/cli.js"));
const vectorsDir = here("../conformance/");

const python = ["python3", here("../conformance/testee.py")];
const rustTestee = [join(repo, "target/debug/examples/conformance-testee")];
const tsTestee = [process.execPath, "--import", "tsx", here("../conformance/testee.ts")];
const misbehaving = (mode: string, testee = python) => [
  process.execPath,
  here("../conformance/misbehaving.mjs"),
  mode,
  "--",
  ...testee,
];

const reports = mkdtempSync(join(tmpdir(), "attrmap-conformance-"));
let runs = 0;

/** One run of the bin, as a user starts it; it must end well within `limitMs`, whatever the testee does. */
function run(flags: string[], testee: string[], limitMs = 120_000) {
  const report = join(reports, `report-${++runs}.json`);
  const started = Date.now();
  const r = spawnSync(process.execPath, [cli, ...flags, "--report", report, "--", ...testee], {
    cwd: here(".."),
    encoding: "utf8",
    timeout: limitMs,
  });
  assert.equal(r.error, undefined, `the runner did not end within ${limitMs} ms`);
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    ms: Date.now() - started,
    report: () => JSON.parse(readFileSync(report, "utf8")) as Report,
  };
}

// ---- What the vector files hold, read here without the runner ----------------------------

interface Raw {
  id?: string;
  divergences?: Array<{ sdk: string; class: string; when?: string; actual?: Record<string, unknown> }>;
}
const vectors = (file: string) => JSON.parse(readFileSync(join(vectorsDir, file), "utf8")) as Record<string, unknown>;
/** Every case of every group of every vector file, as `file group[index]`, with its marks and how many requests it makes. */
const allCases = (() => {
  const out: Array<{ key: string; marks: Raw["divergences"]; requests: number; anyError: boolean }> = [];
  const groups: Record<string, string[]> = {
    "fnv1a32.json": ["cases"],
    "email.json": ["cases", "profileBodyCases"],
    "partition.json": ["cases"],
    "formatting.json": ["partitionNameCases", "tokenCases"],
    "page-token.json": ["cases", "archiveTokenCases", "notFoundCases", "nullTokenCases", "errorTransport"],
    "segmented-log.json": ["cases", "pageCases"],
    "append.json": ["cases"],
    "index.json": ["cases"],
    "export.json": ["cases"],
  };
  for (const [file, names] of Object.entries(groups)) {
    const doc = vectors(file);
    for (const group of names) {
      const value = doc[group];
      const list = (Array.isArray(value) ? value : [value]) as Raw[];
      list.forEach((c, index) => {
        // An email case is asked twice: its canonical form and its partition.
        const requests = file === "email.json" && group === "cases" ? 2 : 1;
        // Where the contract fixes only that a call fails (docs/conformance.md): any error passes.
        const anyError = ["archiveTokenCases", "nullTokenCases"].includes(group) || ["append.json", "index.json"].includes(file);
        out.push({ key: `${file} ${group}[${index}]`, marks: c.divergences, requests, anyError });
      });
    }
  }
  return out;
})();
const totalRequests = allCases.reduce((n, c) => n + c.requests, 0);
const keyOf = (e: Entry) => `${e.file} ${e.group}[${e.index}]`;
const keys = (entries: Entry[]) => [...new Set(entries.map(keyOf))].sort();
const markedFor = (sdk: string, cls?: string) =>
  allCases
    .filter((c) => c.marks?.some((m) => m.sdk === sdk && (cls === undefined || m.class === cls)))
    .map((c) => c.key)
    .sort();

before(() => {
  // The crate's testee: `make test` has built it with the crate's tests; this makes the file stand alone.
  execFileSync("cargo", ["build", "-q", "--example", "conformance-testee"], { cwd: repo, stdio: "inherit" });
});

// ---- The testees of this repository pass everything ---------------------------------------

for (const [name, testee, skipped] of [
  ["the Python reference", python, {}],
  ["the npm package", tsTestee, {}],
  // The formatting class is about locales whose digits are not ASCII: Node's ICU takes ar-EG from LANG.
  ["the npm package under LANG=ar_EG.UTF-8", ["env", "LANG=ar_EG.UTF-8", "LC_ALL=ar_EG.UTF-8", ...tsTestee], {}],
  ["the crate (no HTTP layer: httpRequest unsupported)", rustTestee, { httpRequest: 1 }],
] as const) {
  test(`${name} passes every case of every class`, () => {
    const r = run([], [...testee]);
    assert.equal(r.status, 0, r.stdout);
    const report = r.report();
    assert.ok(report.ok);
    assert.deepEqual(report.failures, []);
    assert.deepEqual(report.unsupported, skipped);
    const skips = Object.values(skipped as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.deepEqual(report.totals, { passed: totalRequests - skips, failed: 0, known: 0, skipped: skips });
    assert.ok(Object.keys(report.classes).length >= 15);
    assert.match(r.stdout, new RegExp(`${totalRequests - skips} passed, 0 failed, 0 known divergences, ${skips} skipped: PASS`));
  });
}

test("the bin is installed as a user runs it: node_modules/.bin/attrmap-conformance", () => {
  const bin = here("../node_modules/.bin/attrmap-conformance");
  const r = spawnSync(bin, ["--", ...python], { cwd: here(".."), encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /: PASS$/m);
});

test("a built tree without vectors beside it says in one line to pass --vectors, and exits 2", () => {
  // The runner's files as `make build` leaves them (dist/conformance, no vectors/ beside dist).
  const tree = mkdtempSync(join(tmpdir(), "attrmap-built-"));
  try {
    cpSync(join(cli, ".."), join(tree, "dist/conformance"), { recursive: true });
    const r = spawnSync(process.execPath, [join(tree, "dist/conformance/cli.js"), "--", ...python], { encoding: "utf8" });
    assert.equal(r.status, 2);
    assert.match(
      r.stderr.split("\n")[0]!,
      /^attrmap-conformance: no vectors beside this build .*pass --vectors tests\/conformance$/,
    );
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

// ---- A testee with one SDK's departure ------------------------------------------------------

test("a testee that trims without 0x0B fails exactly the cases marked for Rust's vertical tab, and --sdk rust passes", () => {
  const broken = [...python, "--trim-without-vertical-tab"];
  const expected = markedFor("rust", "vertical-tab");
  assert.ok(expected.length >= 19, `${expected.length} cases`);

  const plain = run([], broken);
  assert.equal(plain.status, 1);
  const report = plain.report();
  assert.deepEqual(keys(report.failures), expected);
  // Each failure says which SDK answers that way.
  assert.ok(report.failures.every((f) => f.mark?.sdk === "rust" && f.mark.class === "vertical-tab"));
  assert.match(plain.stdout, /email\.json cases\[9\] \("trim-leading-0x0b"\) canonicalEmail/);
  assert.match(plain.stdout, /: FAIL$/m);

  const known = run(["--sdk", "rust"], broken);
  assert.equal(known.status, 0, known.stdout);
  const r = known.report();
  assert.equal(r.sdk, "rust");
  assert.deepEqual(r.failures, []);
  assert.deepEqual(keys(r.known), expected);
  // Every other case marked for Rust is answered as the contract says: "fixed?" where the mark
  // recorded another answer under any condition (not where Rust cannot take the input, nor where
  // the contract's "some error" is also what the mark says).
  const otherRust = allCases
    .filter((c) => !expected.includes(c.key))
    .filter((c) =>
      c.marks?.some(
        (m) => m.sdk === "rust" && m.actual && !m.when && !(c.anyError && ("error" in m.actual || "errorPrefix" in m.actual)),
      ),
    )
    .map((c) => c.key)
    .sort();
  assert.ok(otherRust.length >= 4, `${otherRust.length} cases`);
  assert.deepEqual(keys(r.fixed), otherRust);
  // A Rust mark that recorded no answer (it cannot take the input) is never "fixed?".
  const cannotTake = markedFor("rust").filter((k) =>
    allCases.find((c) => c.key === k)?.marks?.every((m) => m.sdk !== "rust" || !m.actual),
  );
  assert.ok(cannotTake.length >= 3, `${cannotTake.length} cases`);
  for (const k of cannotTake) assert.ok(!keys(r.fixed).includes(k), k);
  assert.match(known.stdout, /KNOWN DIVERGENCES/);
  assert.match(known.stdout, /FIXED\?/);
});

test("--sdk go does not excuse Rust's departure: the vertical-tab cases still fail", () => {
  const r = run(["--sdk", "go"], [...python, "--trim-without-vertical-tab"]);
  assert.equal(r.status, 1);
  assert.deepEqual(keys(r.report().failures), markedFor("rust", "vertical-tab"));
});

test("a testee that answers one archive token wrong fails with that case named", () => {
  const doc = vectors("page-token.json") as { archiveTokenCases: Array<{ firstSequence: string }> };
  const index = doc.archiveTokenCases.findIndex((c) => c.firstSequence === "12345");
  const r = run([], misbehaving("wrong-archive-token=12345"));
  assert.equal(r.status, 1);
  const report = r.report();
  assert.equal(report.failures.length, 1);
  const [f] = report.failures;
  assert.equal(keyOf(f!), `page-token.json archiveTokenCases[${index}]`);
  assert.equal(f!.expected, 'result "00000000000000012345"');
  assert.equal(f!.got, 'result "00000000000000012344"');
  assert.match(
    r.stdout,
    new RegExp(`FAILED \\(1\\)\\n  page-token\\.json archiveTokenCases\\[${index}\\] \\("12345"\\) archiveToken`),
  );
  assert.equal(report.totals.passed, totalRequests - 1);
});

test("with --sdk, a marked case answered neither as the contract nor as the mark says still fails", () => {
  // The TypeScript SDK is marked to write 99999999999999999901 as "100000000000000000000"; this
  // testee writes it one too low, which is neither.
  const doc = vectors("page-token.json") as {
    archiveTokenCases: Array<{ firstSequence: string; divergences?: Array<{ sdk: string; actual?: { token: string } }> }>;
  };
  const index = doc.archiveTokenCases.findIndex((c) => c.firstSequence === "99999999999999999901");
  const mark = doc.archiveTokenCases[index]!.divergences!.find((m) => m.sdk === "typescript")!;
  assert.equal(mark.actual?.token, "100000000000000000000");
  const r = run(["--sdk", "typescript"], misbehaving("wrong-archive-token=99999999999999999901"));
  assert.equal(r.status, 1);
  const report = r.report();
  assert.deepEqual(keys(report.failures), [`page-token.json archiveTokenCases[${index}]`]);
  assert.equal(report.known.length, 0);
});

/** The request ID of case `key` (requests are numbered in file order, an email case taking two; see allCases). */
function requestOf(key: string): number {
  const at = allCases.findIndex((c) => c.key === key);
  assert.ok(at >= 0, key);
  return allCases.slice(0, at).reduce((n, c) => n + c.requests, 0) + 1;
}

test("a failure in a class no one measured for the --sdk given says so; a measured one does not", () => {
  const key = "page-token.json errorTransport[0]";
  const classes = (vectors("divergences.json") as { classes: Record<string, { measured?: string[] }> }).classes;
  // Every class with marks lists the SDKs measured for it; Go's HTTP answers were never measured.
  for (const [name, c] of Object.entries(classes)) assert.ok(c.measured?.length, `${name} has its measured list`);
  assert.ok(!classes["error-transport"]!.measured!.includes("go") && classes["error-transport"]!.measured!.includes("python"));
  const go = run(["--sdk", "go"], misbehaving(`error-at=${requestOf(key)}`));
  assert.equal(go.status, 1);
  assert.deepEqual(
    go.report().failures.map((f) => [keyOf(f), f.unmeasured]),
    [[key, ["error-transport"]]],
  );
  assert.match(go.stdout, /error-transport never measured for go: this may be a departure/);
  // Rust's mark records another answer (HTTP 200 in plain text): an error is neither, and measured.
  const measured = run(["--sdk", "rust"], misbehaving(`error-at=${requestOf(key)}`));
  assert.equal(measured.status, 1);
  assert.equal(measured.report().failures[0]!.unmeasured, undefined);
  assert.doesNotMatch(measured.stdout, /never measured/);
});

test("a failure no mark of its case predicts, that looks like a departure marked in other files, names its class", async () => {
  // An append that archives nothing: Java writes no token of its own there, so the case has no
  // mark; a testee that answers it in Arabic-Indic digits shows the locale habit marked elsewhere.
  const key = "append.json cases[8]";
  assert.equal(allCases.find((c) => c.key === key)!.marks, undefined);
  const r = run(["--sdk", "java"], misbehaving(`locale-digits-at=${requestOf(key)}`));
  assert.equal(r.status, 1);
  const [failure, ...rest] = r.report().failures;
  assert.deepEqual([keyOf(failure!), rest.length], [key, 0]);
  assert.equal(failure!.resembles?.class, "locale-digits");
  assert.deepEqual(failure!.resembles?.sdks, ["java"]);
  for (const file of ["formatting.json", "partition.json", "append.json"])
    assert.ok(failure!.resembles?.files.includes(file), file);
  assert.match(r.stdout, /looks like the locale-digits departure marked for java in .*formatting\.json.*; no mark records it/);
  // An answer that is simply wrong looks like nothing; nor does a null where the marks have none
  // (an index value, not an email or a token).
  const wrong = run(["--sdk", "java"], misbehaving(`error-at=${requestOf(key)}`));
  assert.equal(wrong.report().failures[0]!.resembles, undefined);
  const nullValue = "index.json cases[0]";
  assert.ok(JSON.stringify(vectors("index.json").cases).includes("null"));
  const index = run(["--sdk", "python"], misbehaving(`error-at=${requestOf(nullValue)}`)).report();
  assert.deepEqual([keys(index.failures), index.failures[0]!.resembles], [[nullValue], undefined]);
  // The departures the runner recognizes are classes the vectors have.
  const judge = (await import(cli.replace(/cli\.js$/, "judge.js"))) as { LOOKS_LIKE: Record<string, unknown> };
  const classes = Object.keys((vectors("divergences.json") as { classes: object }).classes);
  for (const cls of Object.keys(judge.LOOKS_LIKE)) assert.ok(classes.includes(cls), cls);
});

test("Go's null page token and Rust's serde message for a null email are known divergences of those SDKs alone", () => {
  const cases: Array<[string, string, string]> = [
    ["go", "page-token.json nullTokenCases[0]", '{"result":"current"}'],
    ["rust", "email.json profileBodyCases[0]", '{"error":"invalid type: null, expected a string at line 1 column 19"}'],
    ["rust", "email.json profileBodyCases[1]", '{"error":"missing field `emailAddress` at line 1 column 18"}'],
  ];
  for (const [sdk, key, answer] of cases) {
    const known = run(["--sdk", sdk], misbehaving(`answer-at=${requestOf(key)}:${answer}`)).report();
    assert.deepEqual([known.failures, keys(known.known)], [[], [key]], `${sdk} ${key}`);
    const other = run(["--sdk", "typescript"], misbehaving(`answer-at=${requestOf(key)}:${answer}`)).report();
    assert.deepEqual(keys(other.failures), [key], `not a departure of typescript: ${key}`);
  }
});

test("Java's locale digits are marked wherever it formats a token: append plans and archived pages too", () => {
  const marked = markedFor("java", "locale-digits");
  for (const key of [
    "append.json cases[2]",
    "append.json cases[3]",
    "append.json cases[4]",
    "append.json cases[6]",
    "append.json cases[7]",
    "segmented-log.json pageCases[14]",
  ])
    assert.ok(marked.includes(key), key);
  // Under ASCII digits the contract's answer passes them (the marks hold only under the locale).
  const r = run(["--sdk", "java"], python).report();
  assert.deepEqual(r.failures, []);
});

test("marks that cannot hold under the testee's conditions are not 'fixed': Java's locale marks under ASCII digits", () => {
  const localeOnly = allCases.filter(
    (c) => c.marks?.some((m) => m.sdk === "java") && c.marks.filter((m) => m.sdk === "java").every((m) => m.when),
  );
  assert.ok(localeOnly.length >= 60, `${localeOnly.length} cases`);
  const r = run(["--sdk", "java"], python).report();
  assert.deepEqual(r.failures, []);
  const fixed = keys(r.fixed);
  for (const c of localeOnly) assert.ok(!fixed.includes(c.key), c.key);
  assert.ok(r.fixed.every((f) => f.mark !== undefined && f.mark.when === undefined));
});

// ---- Testees that go wrong --------------------------------------------------------------------

/** The one failure of a run whose testee misbehaved at request `id`; every other case passed. */
function oneFault(mode: string, pattern: RegExp, flags: string[] = []) {
  const r = run(flags, misbehaving(mode));
  assert.equal(r.status, 1, r.stdout);
  const report = r.report();
  assert.equal(report.failures.length, 1, JSON.stringify(report.failures, null, 1));
  assert.match(report.failures[0]!.got ?? "", pattern);
  assert.equal(report.totals.passed, totalRequests - 1, "the testee was started again for the rest");
  return { r, failure: report.failures[0]! };
}

test("a testee that crashes: that case fails with its exit status and last words, and the rest still run", () => {
  const { failure } = oneFault("crash-at=40", /exited with status 3 before answering.*crashing at request 40/s);
  assert.ok(failure.where.length > 0);
});

test("a testee that hangs on one request: that case fails after the case time limit, and the rest still run", () => {
  // Long enough for the 1 MiB email through the proxy on a loaded machine (2 s was not, beside
  // two soaks), short enough to wait for once.
  const { r } = oneFault("hang-at=7", /gave no answer within 5000 ms/, ["--case-timeout", "5000"]);
  assert.ok(r.ms < 30_000, `${r.ms} ms`);
});

/** `cargo run` of a Rust program that runs its arguments as a child, as a Rust testee under cargo is a grandchild. */
function cargoRun(): string[] {
  const dir = mkdtempSync(join(tmpdir(), "testee-cargo-run-"));
  execFileSync("mkdir", ["-p", join(dir, "src")]);
  writeFileSync(join(dir, "Cargo.toml"), '[package]\nname = "launcher"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n');
  writeFileSync(
    join(dir, "src/main.rs"),
    `fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = std::process::Command::new(&args[0]).args(&args[1..]).status().expect("the testee starts");
    std::process::exit(status.code().unwrap_or(1));
}\n`,
  );
  const manifest = join(dir, "Cargo.toml");
  const target = join(repo, "target/doc-testee");
  execFileSync("cargo", ["build", "-q", "--offline", "--manifest-path", manifest, "--target-dir", target], { stdio: "inherit" });
  return ["cargo", "run", "-q", "--offline", "--manifest-path", manifest, "--target-dir", target, "--"];
}

test("a testee under a wrapper (a shell script, a Node launcher, cargo run) that gets stuck: bounded, nothing left", () => {
  // The wrapper's child does the work and holds the runner's pipe; the wrapper alone killed, the
  // runner used to wait for that pipe forever.
  const stuck = misbehaving("stuck-at=7");
  const launcher = "require('child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' })";
  for (const wrapped of [
    ["sh", "-c", '"$0" "$@"; exit $?', ...stuck],
    [process.execPath, "-e", launcher, ...stuck],
    [...cargoRun(), ...stuck],
  ]) {
    // Bounded: the whole run (every vector through the proxy, one stop) in well under the
    // run's own limit, even on a loaded machine; before the fix it never ended.
    const r = run(["--case-timeout", "5000", "--timeout", "90000"], wrapped, 120_000);
    assert.equal(r.status, 1, r.stdout);
    const report = r.report();
    assert.equal(report.failures.length, 1, JSON.stringify(report.failures, null, 1));
    assert.match(report.failures[0]!.got ?? "", /gave no answer within 5000 ms/);
    assert.equal(report.totals.passed, totalRequests - 1, "the testee was started again for the rest");
    assert.ok(r.ms < 60_000, `${r.ms} ms`);
    const left = spawnSync("ps", ["-eo", "args"], { encoding: "utf8" }).stdout.split("\n");
    assert.deepEqual(
      left.filter((line) => line.includes("misbehaving.mjs stuck-at=7")),
      [],
      "the stuck program was stopped with its wrapper",
    );
  }
});

test('"id": null answers the request asked (a line the testee could not parse): no fault, that case as answered', () => {
  const r = run([], misbehaving("null-id-at=12"));
  assert.equal(r.status, 0, r.stdout);
  const report = r.report();
  assert.deepEqual(report.failures, []);
  assert.equal(report.totals.skipped, 1);
  assert.equal(report.totals.passed, totalRequests - 1);
});

test("a testee that prints garbage, or answers another request's id: that case fails, named", () => {
  oneFault("garbage-at=12", /printed a line that is not JSON: this is not JSON/);
  oneFault("wrong-id-at=12", /answered id 1012 while request 12 was asked/);
});

test("a testee that never answers: the run ends, every case failed, in a bounded time", () => {
  const r = run(["--case-timeout", "200", "--start-timeout", "200"], misbehaving("silent"), 30_000);
  assert.equal(r.status, 1);
  const report = r.report();
  assert.equal(report.totals.failed, totalRequests);
  // Five time-outs in a row, then the testee is not started again.
  assert.equal(report.failures.filter((f) => /gave no answer within 200 ms/.test(f.got ?? "")).length, 5);
  assert.match(report.failures.at(-1)!.got ?? "", /not run: the testee failed 5 requests in a row/);
  assert.ok(r.ms < 10_000, `${r.ms} ms`);
});

test("a testee slow to start has the time of its start on top of its first case's", () => {
  // Its first answer 6 s late, each case 5 s at most (the 1 MiB email through the proxy on a
  // loaded machine): the start allowance (30 s by default) covers it.
  const slowStart = run(["--case-timeout", "5000"], misbehaving("start-delay=6000"), 60_000);
  assert.equal(slowStart.status, 0, slowStart.stdout);
  // Without the allowance the first case fails, named for its start (the run's limit ends the rest).
  const strict = run(["--case-timeout", "5000", "--start-timeout", "1", "--timeout", "5500"], misbehaving("start-delay=6000"));
  assert.match(strict.report().failures[0]?.got ?? "", /gave no answer within 5000 ms \(and 1 ms to start\)/);
});

test("a slow testee: the run's time limit ends it, and the cases not asked are reported as not run", () => {
  // 20 ms an answer: every case would take over 10 s; the limit is 4 s, long enough for a
  // loaded machine to start the testee and answer some (1.5 s answered only 5 beside make test).
  const r = run(["--timeout", "4000"], misbehaving("slow=20"), 30_000);
  assert.equal(r.status, 1);
  const report = r.report();
  assert.ok(report.totals.passed > 10 && report.totals.passed < totalRequests, `${report.totals.passed} passed`);
  assert.match(report.failures.at(-1)!.got ?? "", /not run: the run's time limit \(4000 ms\) was reached/);
  assert.ok(r.ms < 20_000, `${r.ms} ms`);
});

test("a testee that cannot be started fails every case with the reason", () => {
  const r = run(["--case-timeout", "1000"], ["/nonexistent/testee"], 30_000);
  assert.equal(r.status, 1);
  const report = r.report();
  assert.equal(report.totals.failed, totalRequests);
  assert.match(report.failures[0]!.got ?? "", /could not be started: spawn \/nonexistent\/testee ENOENT/);
});

test("usage errors exit 2 and say what is wrong", () => {
  const usage = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 30_000 });
  const none = usage("--sdk", "rust");
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no testee: give its command after --/);
  const sdk = usage("--sdk", "cobol", "--", "true");
  assert.equal(sdk.status, 2);
  assert.match(sdk.stderr, /--sdk must be one of the SDKs the vectors mark \(python, typescript, go, java, rust\), got "cobol"/);
  const ms = usage("--case-timeout", "soon", "--", "true");
  assert.equal(ms.status, 2);
  assert.match(ms.stderr, /--case-timeout must be a whole number of milliseconds/);
});

test("a report that cannot be written, or vectors missing a file: exit 2 before the testee starts, one line naming it", () => {
  const usage = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 30_000 });
  const started = join(reports, "started");
  const testee = ["sh", "-c", `touch ${started}`];
  const report = usage("--report", "/nonexistent-folder/report.json", "--", ...testee);
  assert.equal(report.status, 2);
  assert.match(report.stderr, /^attrmap-conformance: ENOENT: .*\/nonexistent-folder\/report\.json'\n$/);
  const partial = mkdtempSync(join(tmpdir(), "attrmap-vectors-"));
  writeFileSync(join(partial, "divergences.json"), readFileSync(join(vectorsDir, "divergences.json")));
  const vectorsMissing = usage("--vectors", partial, "--", ...testee);
  assert.equal(vectorsMissing.status, 2);
  assert.match(vectorsMissing.stderr, /^attrmap-conformance: ENOENT: no such file or directory, open '.*\.json'\n$/);
  writeFileSync(join(partial, "divergences.json"), "{ not json");
  const notJson = usage("--vectors", partial, "--", ...testee);
  assert.equal(notJson.status, 2);
  assert.match(notJson.stderr, /^attrmap-conformance: .*divergences\.json: .*JSON.*\n$/);
  assert.equal(existsSync(started), false, "the testee was never started");
  rmSync(partial, { recursive: true });
});

test("--help prints the usage on standard output and exits 0", () => {
  const help = spawnSync(process.execPath, [cli, "--help"], { encoding: "utf8", timeout: 30_000 });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: attrmap-conformance .*--allow-empty/s);
  assert.equal(help.stderr, "");
});

test("a testee that answers no case at all (every op unsupported) fails the run, unless --allow-empty", () => {
  // docs/conformance.md: an op a testee does not implement is answered {"id", "unsupported": true}.
  const nothing = [
    process.execPath,
    "-e",
    'require("readline").createInterface({ input: process.stdin }).on("line", (l) => ' +
      "console.log(JSON.stringify({ id: JSON.parse(l).id, unsupported: true })))",
  ];
  const r = run([], nothing);
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /NOTHING CHECKED: the testee answered no case/);
  assert.match(r.stdout, new RegExp(`0 passed, 0 failed, 0 known divergences, ${totalRequests} skipped: FAIL`));
  assert.equal(r.report().ok, false);
  const allowed = run(["--allow-empty"], nothing);
  assert.equal(allowed.status, 0, allowed.stdout);
  assert.match(allowed.stdout, /skipped: PASS$/m);
  // Every op is skipped whole; their requests add up to every request of the vectors.
  const line = /^SKIPPED: answered unsupported: (.*)$/m.exec(r.stdout)![1]!;
  const shares = [...line.matchAll(/\w+ \(all (\d+) requests\)/g)];
  assert.equal(shares.map((m) => m[0]).join(", "), line);
  assert.equal(
    shares.reduce((n, m) => n + Number(m[1]), 0),
    totalRequests,
  );
});

test("the SKIPPED line says when only some of an op's requests were answered unsupported", () => {
  const r = run([], misbehaving("unsupported-at=7"));
  assert.equal(r.status, 0, r.stdout);
  const [op, n] = Object.entries(r.report().unsupported)[0]!;
  assert.equal(n, 1);
  const m = new RegExp(`^SKIPPED: answered unsupported: ${op} \\(1 of (\\d+) requests\\)$`, "m").exec(r.stdout);
  assert.ok(m && Number(m[1]) > 1, r.stdout);
});

// ---- The testees of docs/conformance.md, as a maintainer copies them --------------------------

/** The code block of `language` in docs/conformance.md, written to a file of its own. */
function docExample(language: string, file: string): string {
  const doc = readFileSync(join(repo, "docs/conformance.md"), "utf8");
  const fence = "```";
  const block = doc.match(new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`));
  assert.ok(block, `docs/conformance.md has a ${language} example`);
  const dir = mkdtempSync(join(tmpdir(), `testee-${language}-`));
  writeFileSync(join(dir, file), block[1]!);
  return join(dir, file);
}

/** The email cases given as UTF-16 code units (lone surrogates), which a UTF-8 testee cannot parse. */
const LONE_SURROGATE_CASES = (vectors("email.json").cases as Array<{ inputUtf16?: unknown }>).filter((c) => c.inputUtf16).length;

/**
 * A run where the classes `passing` all pass and every other case is skipped; with `utf8`, the
 * lone-surrogate email cases are skipped too (answered with `"id": null`), and nothing else.
 */
function passesOnly(testee: string[], passing: string[], utf8 = false) {
  const r = run([], testee);
  assert.equal(r.status, 0, r.stdout);
  const report = r.report();
  assert.deepEqual(report.failures, []);
  for (const [cls, c] of Object.entries(report.classes)) {
    const unparsable = utf8 && ["canonical-email", "email-partition"].includes(cls) ? LONE_SURROGATE_CASES : 0;
    if (passing.includes(cls)) assert.ok(c.passed > 0 && c.skipped === unparsable, `${cls}: ${JSON.stringify(c)}`);
    else assert.equal(c.passed, 0, `${cls} is not in the example`);
  }
  assert.ok(report.totals.skipped > 0);
}

test("the Python testee of docs/conformance.md passes the classes it implements and skips the rest", () => {
  passesOnly(["python3", docExample("python", "testee.py")], EMAIL_CLASSES);
});

const EMAIL_CLASSES = ["fnv1a32", "canonical-email", "email-partition"];

test("the TypeScript testee of docs/conformance.md runs under tsx and passes the classes it implements", () => {
  passesOnly([process.execPath, "--import", import.meta.resolve("tsx"), docExample("typescript", "testee.mts")], EMAIL_CLASSES);
});

test("the Java testee of docs/conformance.md runs with Gson and passes the classes it implements, in any locale", () => {
  const testee = ["java", "-cp", "/usr/share/java/gson.jar", docExample("java", "Testee.java")];
  passesOnly(testee, EMAIL_CLASSES);
  // The locale the locale-digits marks are about: its partition names keep their ASCII digits.
  passesOnly([testee[0]!, "-Duser.language=ar", "-Duser.country=EG", ...testee.slice(1)], EMAIL_CLASSES);
});

test("the Rust testee of docs/conformance.md builds with cargo and passes the classes it implements", () => {
  const main = docExample("rust", "main.rs");
  const dir = join(main, "..");
  execFileSync("mkdir", ["-p", join(dir, "src")]);
  execFileSync("mv", [main, join(dir, "src/main.rs")]);
  writeFileSync(
    join(dir, "Cargo.toml"),
    '[package]\nname = "testee"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nserde_json = "1"\n\n[workspace]\n',
  );
  // Offline, from the registry cache the crate's own tests filled; built once into the crate's target folder.
  const target = join(repo, "target/doc-testee");
  execFileSync("cargo", ["build", "-q", "--offline", "--manifest-path", join(dir, "Cargo.toml"), "--target-dir", target], {
    stdio: "inherit",
  });
  assert.ok(LONE_SURROGATE_CASES >= 2);
  passesOnly([join(target, "debug/testee")], EMAIL_CLASSES, true);
});

test("the Go testee of docs/conformance.md builds with go and passes the classes it implements", () => {
  const source = docExample("go", "main.go");
  const binary = join(source, "../testee");
  execFileSync("go", ["build", "-o", binary, source], { cwd: join(source, ".."), stdio: "inherit" });
  passesOnly([binary], ["fnv1a32", "canonical-email", "email-partition", "page-token", "null-token"]);
});
