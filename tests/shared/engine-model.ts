// The engine's attribute store as tests/dex/engine_model.py models it, through the engine's own
// protobuf classes (dex_pb2 of the dex-python-sdk wheel that `make test` installs in build/dex-pb):
// SetAttributes requests applied in arrival order, GetAttributes answered as the engine writes it,
// a flow's locking RPC applying entry changes. One Python process per model, one command a line.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const repo = new URL("../../", import.meta.url).pathname;
const DEX_PB2 = join(repo, "build/dex-pb/dex/dexpb/dex_pb2.py");
const PYTHON = join(repo, "build/dex-pb/venv/bin/python");
const MODEL = join(repo, "tests/dex/engine_model.py");

/** One flow's attributes on a modelled engine; `close()` ends its process. */
export class EngineModel {
  private readonly python: ChildProcessWithoutNullStreams = spawn(PYTHON, [MODEL, DEX_PB2]);
  private readonly answers: Array<(line: string) => void> = [];
  private stderr = "";

  constructor() {
    createInterface({ input: this.python.stdout }).on("line", (line) => this.answers.shift()?.(line));
    this.python.stderr.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
  }

  private ask(command: object): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.answers.push((line) => resolve((JSON.parse(line) as { answer: unknown }).answer));
      this.python.once("exit", () => reject(new Error(`the engine model exited: ${this.stderr}`)));
      this.python.stdin.write(`${JSON.stringify(command)}\n`);
    });
  }

  /** Applies SetAttributes requests (their canonical protobuf JSON), in order. */
  async set(requests: ReadonlyArray<{ json: string }>): Promise<void> {
    await this.ask({ set: requests.map((r) => r.json) });
  }

  /** Applies entry changes as the flow's locking RPC does (read, change, write each partition), inside `valueField` if given. */
  async rpc(changes: readonly unknown[], valueField?: string): Promise<void> {
    await this.ask({ rpc: { changes, valueField: valueField ?? null } });
  }

  /** The GetAttributes response for every key, as the engine's JSON; values over 1 KiB as blob IDs unless `hydrate`. */
  async get({ hydrate = true } = {}): Promise<string> {
    return (await this.ask({ get: { hydrate } })) as string;
  }

  /** Every attribute, key to its JSON payload's text (what a byte-for-byte comparison compares). */
  async payloads(): Promise<Map<string, string>> {
    const response = JSON.parse(await this.get()) as {
      attributes?: Array<{ key: string; value: { objValue: { payload: string } } }>;
    };
    return new Map(
      (response.attributes ?? []).map((a) => [a.key, Buffer.from(a.value.objValue.payload, "base64").toString("utf8")]),
    );
  }

  close(): void {
    this.python.stdin.end();
  }
}
