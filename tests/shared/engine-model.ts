// The engine's attribute store as tests/dex/engine_model.py models it, through the engine's own
// protobuf classes (dex_pb2 of the dex-python-sdk wheel that `make test` installs in build/dex-pb):
// SetAttributes requests applied in arrival order, GetAttributes answered as the engine writes it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = new URL("../../", import.meta.url).pathname;
const DEX_PB2 = join(repo, "build/dex-pb/dex/dexpb/dex_pb2.py");
const PYTHON = join(repo, "build/dex-pb/venv/bin/python");
const MODEL = join(repo, "tests/dex/engine_model.py");

/** One flow's attributes on a modelled engine; `close()` removes its files. */
export class EngineModel {
  private readonly dir = mkdtempSync(join(tmpdir(), "attrmap-engine-"));
  private readonly state = join(this.dir, "state.json");
  private sent = 0;

  private run(...args: string[]): string {
    return execFileSync(PYTHON, [MODEL, DEX_PB2, this.state, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  }

  /** Applies SetAttributes requests (their canonical protobuf JSON), in order. */
  set(requests: ReadonlyArray<{ json: string }>): void {
    if (requests.length === 0) return;
    const files = requests.map((r) => {
      const file = join(this.dir, `request-${++this.sent}.json`);
      writeFileSync(file, r.json);
      return file;
    });
    this.run("set", ...files);
  }

  /** Applies entry changes as the flow's locking RPC does (read, change, write each partition), inside `valueField` if given. */
  rpc(changes: readonly unknown[], valueField?: string): void {
    if (changes.length === 0) return;
    const file = join(this.dir, `changes-${++this.sent}.json`);
    writeFileSync(file, JSON.stringify(changes));
    this.run("rpc", file, ...(valueField ? [valueField] : []));
  }

  /** The GetAttributes response for every key, as the engine's JSON; values over 1 KiB as blob IDs unless `hydrate`. */
  get({ hydrate = true } = {}): string {
    return this.run("get", ...(hydrate ? ["--hydrate"] : []));
  }

  /** Every attribute, key to its JSON payload's text (what a byte-for-byte comparison compares). */
  payloads(): Map<string, string> {
    const response = JSON.parse(this.get()) as { attributes?: Array<{ key: string; value: { objValue: { payload: string } } }> };
    return new Map(
      (response.attributes ?? []).map((a) => [a.key, Buffer.from(a.value.objValue.payload, "base64").toString("utf8")]),
    );
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
