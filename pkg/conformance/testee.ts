// A testee program driven over its standard input and output: one JSON request a line, one
// JSON answer a line, one request at a time. Whatever goes wrong (it cannot start, exits,
// hangs, prints something that is not an answer, answers another request) comes back as a
// fault for the request asked, and the program is stopped so the next request finds a fresh one.
// The program may be a wrapper (`go run`, `cargo run`, `npx`, a shell script) whose child does
// the work and holds the same standard output: so it runs in a process group of its own, which is
// stopped whole, and the runner never waits for the output to close after a kill.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Answer } from "./judge.js";

/** One line the runner sends. */
export interface Request {
  id: number;
  op: string;
  input: unknown;
}

/** What went wrong with one request, in the report's words. */
export interface Fault {
  fault: string;
}

const STDERR_LINES = 20;

/** The last lines the testee wrote to standard error, for a report of its exit. */
class Tail {
  private lines: string[] = [];
  push(line: string) {
    this.lines.push(line);
    if (this.lines.length > STDERR_LINES) this.lines.shift();
  }
  text(): string {
    return this.lines.length ? `; its standard error ended:\n    ${this.lines.join("\n    ")}` : "";
  }
}

/** Parses one answer line for request `id`: the answer, or why it is not one. */
export function parseAnswer(line: string, id: number): Answer | Fault {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { fault: `printed a line that is not JSON: ${clip(line)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { fault: `printed a line that is not a JSON object: ${clip(line)}` };
  const a = value as Record<string, unknown>;
  // `"id": null` answers a request line the testee could not parse: one request is asked at a time.
  if (a.id !== id && a.id !== null)
    return { fault: `answered id ${clip(JSON.stringify(a.id) ?? "(none)")} while request ${id} was asked` };
  const kinds = ["result", "error", "unsupported"].filter((k) => Object.hasOwn(a, k));
  if (kinds.length !== 1)
    return { fault: `answered with ${kinds.length ? kinds.join(" and ") : "none"} of result, error, unsupported: ${clip(line)}` };
  if ("error" in a && typeof a.error !== "string") return { fault: `answered an error that is not a string: ${clip(line)}` };
  if ("unsupported" in a && a.unsupported !== true) return { fault: `answered unsupported that is not true: ${clip(line)}` };
  if ("result" in a) return { result: a.result };
  return "error" in a ? { error: a.error as string } : { unsupported: true };
}

/**
 * JSON in ASCII: every character past U+007E written `\\uXXXX`, so that no reader splits a
 * request at U+2028 or mistakes its encoding (a lone surrogate stays one escape).
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/** One start of the program: what it printed and how it ended, kept apart from the next start's. */
interface Run {
  child: ChildProcessWithoutNullStreams;
  /** Whether it has answered a request yet: until then, its start is still under way. */
  answered: boolean;
  lines: string[];
  exited?: string;
  stderr: Tail;
  wake?: () => void;
}

/** Process groups can be signalled on POSIX systems; elsewhere only the program itself is. */
const GROUPS = process.platform !== "win32";

/** The testees running now, stopped whole if the runner ends first (an error, Ctrl-C). */
const running = new Set<ChildProcessWithoutNullStreams>();

/** Sends `signal` to the program and everything it started (its process group). */
function signalAll(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  try {
    if (GROUPS && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

process.once("exit", () => {
  for (const child of running) signalAll(child, "SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(signal, () => {
    for (const child of running) signalAll(child, "SIGKILL");
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const)[signal]);
  });

/**
 * The testee program, started when first asked and again after each fault. The first answer of
 * each start may take `startMs` more than a case's time: a JVM, `cargo run` or a loaded machine
 * starts slower than it answers, and a restart must not fail every case after a slow one.
 */
export class ProcessTestee {
  private run: Run | undefined;

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly startMs = 30_000,
  ) {}

  private start(): Run {
    const child = spawn(this.command, this.args, { stdio: ["pipe", "pipe", "pipe"], detached: GROUPS });
    running.add(child);
    child.once("exit", () => running.delete(child));
    const run: Run = { child, answered: false, lines: [], stderr: new Tail() };
    const ended = (why: string) => {
      run.exited ??= why;
      run.wake?.();
    };
    // Lines end at "\n" only: readline would also end one at U+2028, which a JSON string may hold.
    let partial = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      run.lines.push(...lines.map((l) => l.replace(/\r$/, "")));
      run.wake?.();
    });
    createInterface({ input: child.stderr }).on("line", (line) => run.stderr.push(line));
    child.on("error", (e) => ended(`could not be started: ${e.message}`));
    // "close", not "exit": it comes after the last line the program printed has been read.
    child.on("close", (code, signal) => ended(signal ? `was ended by ${signal}` : `exited with status ${code}`));
    // A testee that exits before reading everything closes the pipe: its exit is the report.
    child.stdin.on("error", () => {});
    this.run = run;
    return run;
  }

  /**
   * Sends `request` and waits at most `timeoutMs` for its answer (and the start allowance, for
   * the first answer of a start), never past `latest` (the run's own deadline, in ms since the epoch).
   */
  async call(request: Request, timeoutMs: number, latest = Number.POSITIVE_INFINITY): Promise<Answer | Fault> {
    const run = this.run ?? this.start();
    run.child.stdin.write(`${asciiJson(request)}\n`);
    const starting = run.answered ? 0 : Math.max(0, Math.min(this.startMs, latest - Date.now() - timeoutMs));
    const deadline = Date.now() + timeoutMs + starting;
    for (;;) {
      const line = run.lines.shift();
      if (line !== undefined) {
        if (line.trim() === "") continue;
        run.answered = true;
        const answer = parseAnswer(line, request.id);
        if ("fault" in answer) await this.stop();
        return answer;
      }
      if (run.exited !== undefined) {
        this.run = undefined;
        return { fault: `${run.exited} before answering${run.stderr.text()}` };
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        await this.stop();
        const within = starting ? `${timeoutMs} ms (and ${starting} ms to start)` : `${timeoutMs} ms`;
        return { fault: `gave no answer within ${within} (stopped; the next request starts it again)` };
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        run.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      run.wake = undefined;
    }
  }

  /**
   * Ends the program: its standard input closed, then, if it has not exited after a moment, its
   * whole process group killed. What it started goes too (a wrapper's child that kept the
   * output open would otherwise hold the run), and nothing more is read from it.
   */
  async stop(): Promise<void> {
    const run = this.run;
    this.run = undefined;
    if (!run) return;
    const child = run.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin.end();
      const timer = setTimeout(() => signalAll(child, "SIGKILL"), 500);
      await exited;
      clearTimeout(timer);
    }
    signalAll(child, "SIGKILL"); // what the program started and left behind
    child.stdout.destroy();
    child.stderr.destroy();
  }
}
