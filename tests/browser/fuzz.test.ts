// The hardening fuzz (tests/shared/fuzz.ts) in real Chromium: in a page and in a module
// worker, with storage in IndexedDB on an on-disk profile and Web Locks.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import type { FuzzReport } from "../shared/fuzz.js";
import "./page-types.js";
import { ENGINE } from "./engines.js";
import { openPage, SHARED_PATH, useProfile } from "./harness.js";

const env = useProfile();
// WebKit clones a stored sparse array hole by hole (0.5 s for each of the fuzz's, at every read
// and write of the chunk or partition holding it), and every round stores more of them, which
// every later export reads: five rounds there took six minutes a test (the slowest calls the test
// reports). So WebKit makes one round of every call.
const ROUNDS = ENGINE === "webkit" ? 1 : 5;

function check(report: FuzzReport, t: TestContext): void {
  t.diagnostic(`${ENGINE}: slowest calls (ms, all bad values and rounds): ${JSON.stringify(report.slowest)}`);
  assert.deepEqual(report.failures, []);
  assert.ok(report.calls > 20_000 + ROUNDS * 1000, `only ${report.calls} calls`);
  assert.ok((report.outcomes.ok ?? 0) > 200, JSON.stringify(report.outcomes));
  assert.ok((report.outcomes.invalid_argument ?? 0) > 10_000, JSON.stringify(report.outcomes));
}

test("the fuzz in a page: every call answers or throws an AttrmapError, golden values survive", async (t) => {
  const page = await openPage(env.browser, env.server.origin);
  const report = await page.evaluate(
    async ({ path, rounds }) => {
      const { fuzz } = (await import(`${path}fuzz.js`)) as typeof import("../shared/fuzz.js");
      return fuzz(window.attrmap, { rounds, storage: { name: "fuzz-page" } });
    },
    { path: SHARED_PATH, rounds: ROUNDS },
  );
  check(report, t);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the fuzz in a module worker", async (t) => {
  const page = await openPage(env.browser, env.server.origin);
  const report = await page.evaluate(
    ({ origin, path, rounds }) =>
      new Promise<FuzzReport>((resolve, reject) => {
        const code = `
          import * as core from "${origin}/attrmap/dist/index.js";
          import * as dex from "${origin}/attrmap/dist/dex/index.js";
          import * as exportImport from "${origin}/attrmap/dist/export-import/index.js";
          import * as http from "${origin}/attrmap/dist/http/index.js";
          import { fuzz } from "${origin}${path}fuzz.js";
          const crashed = (e) => postMessage({ crash: String(e) });
          const attrmap = { ...core, ...exportImport, ...dex, ...http };
          fuzz(attrmap, { rounds: ${rounds}, storage: { name: "fuzz-worker" } }).then(postMessage, crashed);`;
        const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => (e.data.crash ? reject(new Error(e.data.crash)) : resolve(e.data as FuzzReport));
        worker.onerror = (e) => reject(new Error(e.message));
      }),
    { origin: env.server.origin, path: SHARED_PATH, rounds: ROUNDS },
  );
  check(report, t);
  assert.deepEqual(page.errors, []);
  await page.close();
});
