// The kill tests of every engine, run again and again with both cores busy, keeping the whole
// output of every run that failed (issue 48: two flakes seen only under the whole suite's load).
// Not part of `make test`: `make soak` runs it (SOAK_ROUNDS, SOAK_MINUTES, SOAK_ENGINES).
//   usage: node scripts/soak.mjs [--rounds 30] [--minutes 600] [--engines chromium,firefox,webkit] [--load 2]
// Each round runs every kill test of every engine once, each file under one suite browser as
// `make test` does. Results go to build/soak/results.jsonl (one line per test run) and the
// failing runs' output to build/soak/<engine>-<file>-<time>.log; the table at the end counts
// clean and failed runs per test and engine, over every run in results.jsonl.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "build/soak");
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: process.env.SOAK_ROUNDS ?? "30" },
    minutes: { type: "string", default: process.env.SOAK_MINUTES ?? "600" },
    engines: { type: "string", default: process.env.SOAK_ENGINES ?? "chromium,firefox,webkit" },
    load: { type: "string", default: String(availableParallelism()) },
  },
});

/** The kill tests: a file, the name pattern of its kill tests, and the engines they run in. */
const KILL_TESTS = [
  { file: "crash", pattern: ".", engines: ["chromium", "firefox", "webkit"] },
  { file: "indexes", pattern: "killed during an index build", engines: ["chromium", "firefox", "webkit"] },
  { file: "storage-process", pattern: "storage process killed", engines: ["webkit"] },
];

/** Busy loops, one per core, for as long as the soak runs: the load the flakes were seen under. */
function startLoad(n) {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ["-e", "for (;;) Math.sqrt(Math.random());"], { stdio: "ignore" }),
  );
}

/** Runs one file's kill tests in `engine`; its output, exit code and each test's outcome from the TAP stream. */
function runFile(engine, { file, pattern }) {
  const args = ["--import", "tsx", "browser/suite-browser.ts", "node", "--import", "tsx", "--test", "--test-concurrency=1"];
  args.push("--test-timeout=600000", `--test-name-pattern=${pattern}`, `browser/${file}.test.ts`);
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: join(ROOT, "tests"), env: { ...process.env, ENGINE: engine } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => {
      // Top-level TAP lines of the file's tests: "ok 3 - name" / "not ok 3 - name", skips left out.
      const tests = [...output.matchAll(/^(not ok|ok) \d+ - (.*?)( # SKIP.*)?$/gm)]
        .filter((m) => !m[3])
        .map((m) => ({ name: m[2], ok: m[1] === "ok" }));
      done({ code, output, tests });
    });
  });
}

mkdirSync(OUT, { recursive: true });
const results = join(OUT, "results.jsonl");
const deadline = Date.now() + Number(values.minutes) * 60_000;
const engines = values.engines.split(",");
const load = startLoad(Number(values.load));
const stopLoad = () => {
  for (const p of load) p.kill();
};
process.on("exit", stopLoad);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(1));
try {
  for (let round = 1; round <= Number(values.rounds) && Date.now() < deadline; round++) {
    for (const engine of engines)
      for (const kill of KILL_TESTS.filter((k) => k.engines.includes(engine))) {
        if (Date.now() >= deadline) break;
        const started = Date.now();
        const run = await runFile(engine, kill);
        const seconds = Math.round((Date.now() - started) / 1000);
        const failed = run.code !== 0 || run.tests.length === 0 || run.tests.some((t) => !t.ok);
        const log = failed ? join(OUT, `${engine}-${kill.file}-${Date.now()}.log`) : undefined;
        if (log) writeFileSync(log, run.output);
        for (const t of run.tests.length ? run.tests : [{ name: `${kill.file} (no test ran)`, ok: false }])
          appendFileSync(
            results,
            `${JSON.stringify({ at: new Date().toISOString(), engine, file: kill.file, ...t, seconds, log })}\n`,
          );
        console.log(`round ${round} ${engine} ${kill.file}: ${failed ? `FAILED (${log})` : "clean"} in ${seconds} s`);
      }
  }
} finally {
  stopLoad();
}

// Every run recorded so far, per test and engine.
const counts = new Map();
for (const line of existsSync(results) ? readFileSync(results, "utf8").trim().split("\n") : []) {
  const r = JSON.parse(line);
  const key = `${r.engine}\t${r.name}`;
  const c = counts.get(key) ?? { clean: 0, failed: 0 };
  c[r.ok ? "clean" : "failed"]++;
  counts.set(key, c);
}
console.log("\nengine\tclean\tfailed\ttest");
for (const [key, c] of [...counts].sort()) {
  const [engine, name] = key.split("\t");
  console.log(`${engine}\t${c.clean}\t${c.failed}\t${name}`);
}
