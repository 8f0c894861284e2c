// One run: every case sent to the testee in turn, each answer judged, within a time limit
// per case and one for the whole run.
import type { Case } from "./cases.js";
import { judge, markedClasses, type Verdict } from "./judge.js";
import type { ProcessTestee } from "./testee.js";

export interface RunOptions {
  /** The SDK whose marked divergences are expected (`--sdk`). */
  sdk?: string;
  caseTimeoutMs: number;
  totalTimeoutMs: number;
  /** After this many faults in a row the testee is not started again; the rest is not run. */
  maxFaultsInARow: number;
}

/** A case and what became of it; a fault (exit, hang, garbage) is a failure of its own kind. */
export interface Outcome {
  case: Case;
  verdict: Verdict;
}

export async function runCases(cases: readonly Case[], testee: ProcessTestee, options: RunOptions): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const deadline = Date.now() + options.totalTimeoutMs;
  let faultsInARow = 0;
  let notRun: string | undefined;
  const marked = markedClasses(cases);
  for (const [i, c] of cases.entries()) {
    if (notRun === undefined && Date.now() >= deadline)
      notRun = `not run: the run's time limit (${options.totalTimeoutMs} ms) was reached`;
    if (notRun !== undefined) {
      outcomes.push({ case: c, verdict: { kind: "failed", got: notRun } });
      continue;
    }
    const timeout = Math.max(1, Math.min(options.caseTimeoutMs, deadline - Date.now()));
    const answer = await testee.call({ id: i + 1, op: c.op, input: c.input }, timeout, deadline);
    if ("fault" in answer) {
      outcomes.push({ case: c, verdict: { kind: "failed", got: `the testee ${answer.fault}` } });
      faultsInARow += 1;
      if (faultsInARow >= options.maxFaultsInARow)
        notRun = `not run: the testee failed ${faultsInARow} requests in a row and was not started again`;
      continue;
    }
    faultsInARow = 0;
    outcomes.push({ case: c, verdict: judge(c, answer, options.sdk, marked) });
  }
  await testee.stop();
  return outcomes;
}
