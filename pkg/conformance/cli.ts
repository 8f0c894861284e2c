#!/usr/bin/env node
// attrmap-conformance: runs every cross-SDK vector against a testee program and reports, per
// class, what passed, failed, was skipped or is a known divergence of the SDK named by --sdk.
// The protocol and the testees: docs/conformance.md.
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Case, type Divergences, loadCases, Vectors } from "./cases.js";
import { buildReport, formatReport } from "./report.js";
import { runCases } from "./run.js";
import { ProcessTestee } from "./testee.js";

const USAGE = `usage: attrmap-conformance [--sdk NAME] [--report FILE.json] [--case-timeout MS] [--start-timeout MS]
                           [--timeout MS] [--vectors DIR] [--allow-empty] -- COMMAND [ARGS...]

Starts COMMAND and sends it every conformance vector, one JSON request a line on its standard
input; it answers one JSON line each on its standard output (docs/conformance.md).
  --sdk NAME           failures the vectors mark for NAME are known divergences (python,
                       typescript, go, java, rust), listed apart, and do not fail the run
  --report FILE.json   also write the report as JSON
  --case-timeout MS    time for one answer (default 10000); the testee is then started again
  --start-timeout MS   more time for the first answer of each start of the testee (default 30000)
  --timeout MS         time for the whole run (default 600000)
  --vectors DIR        the vector files (default: those of this package)
  --allow-empty        pass a run in which the testee answered no case (every op unsupported)
Exit status: 0 every case passed or is a known divergence, 1 a failure (or nothing checked),
2 a usage error.`;

class UsageError extends Error {}

/** A file that cannot be read or written (its message names it), or vectors that are not JSON. */
const ioProblem = (e: unknown): e is Error => (e instanceof Error && "code" in e) || e instanceof SyntaxError;
/** `--help`: the usage on standard output, and success. */
class Help extends Error {}

interface Options {
  sdk?: string;
  report?: string;
  caseTimeoutMs: number;
  startTimeoutMs: number;
  totalTimeoutMs: number;
  vectors: string;
  allowEmpty: boolean;
  command: string[];
}

/** The vectors a packed package carries (npm pack copies them); a built tree has none there. */
const PACKAGE_VECTORS = fileURLToPath(new URL("../../vectors/", import.meta.url));

function parse(argv: readonly string[]): Options {
  const options: Options = {
    caseTimeoutMs: 10_000,
    startTimeoutMs: 30_000,
    totalTimeoutMs: 600_000,
    vectors: PACKAGE_VECTORS,
    allowEmpty: false,
    command: [],
  };
  const rest = [...argv];
  const value = (flag: string) => {
    const v = rest.shift();
    if (v === undefined || v === "--") throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const ms = (flag: string) => {
    const v = Number(value(flag));
    if (!Number.isInteger(v) || v < 1) throw new UsageError(`${flag} must be a whole number of milliseconds, at least 1`);
    return v;
  };
  while (rest.length) {
    const arg = rest.shift();
    if (arg === "--") {
      options.command = rest.splice(0);
    } else if (arg === "--sdk") options.sdk = value(arg);
    else if (arg === "--report") options.report = value(arg);
    else if (arg === "--case-timeout") options.caseTimeoutMs = ms(arg);
    else if (arg === "--start-timeout") options.startTimeoutMs = ms(arg);
    else if (arg === "--timeout") options.totalTimeoutMs = ms(arg);
    else if (arg === "--vectors") options.vectors = value(arg);
    else if (arg === "--allow-empty") options.allowEmpty = true;
    else if (arg === "--help" || arg === "-h") throw new Help();
    else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (options.command.length === 0) throw new UsageError("no testee: give its command after --");
  return options;
}

async function main(argv: readonly string[]): Promise<number> {
  let options: Options;
  let vectors: Vectors;
  let cases: Case[];
  // Every problem of the arguments or of the files is found before the testee starts: a usage
  // error prints the usage, a file that cannot be read or written one line naming it; exit 2.
  try {
    options = parse(argv);
    if (options.vectors === PACKAGE_VECTORS && !existsSync(PACKAGE_VECTORS))
      throw new UsageError(
        `no vectors beside this build (${PACKAGE_VECTORS}: npm pack puts them there); ` +
          "in the repository, pass --vectors tests/conformance",
      );
    vectors = new Vectors(options.vectors);
    const { sdks } = vectors.json<Divergences>("divergences.json");
    if (options.sdk !== undefined && !sdks.includes(options.sdk))
      throw new UsageError(
        `--sdk must be one of the SDKs the vectors mark (${sdks.join(", ")}), got ${JSON.stringify(options.sdk)}`,
      );
    cases = loadCases(vectors);
    if (options.report) writeFileSync(options.report, ""); // written at the end: writable now
  } catch (e) {
    if (e instanceof Help) {
      console.log(USAGE);
      return 0;
    }
    if (e instanceof UsageError) {
      if (e.message) console.error(`attrmap-conformance: ${e.message}`);
      console.error(USAGE);
      return 2;
    }
    if (!ioProblem(e)) throw e;
    console.error(`attrmap-conformance: ${e.message}`);
    return 2;
  }
  const [command = "", ...args] = options.command;
  const outcomes = await runCases(cases, new ProcessTestee(command, args, options.startTimeoutMs), {
    ...(options.sdk === undefined ? {} : { sdk: options.sdk }),
    caseTimeoutMs: options.caseTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs,
    maxFaultsInARow: 5,
  });
  const report = buildReport(options.command, options.sdk, outcomes, options.allowEmpty);
  console.log(formatReport(report));
  if (options.report)
    try {
      writeFileSync(options.report, `${JSON.stringify(report, null, 2)}\n`);
    } catch (e) {
      if (!ioProblem(e)) throw e;
      console.error(`attrmap-conformance: the report was not written: ${e.message}`);
      return 2;
    }
  return report.ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
