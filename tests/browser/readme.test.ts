// Every JavaScript snippet of the README runs as written: page snippets as module scripts of a
// page whose import map resolves "attrmap" (in a fresh on-disk profile each), the Node snippet
// with node, the service-worker snippet bundled (as the README says an unbundled service worker
// needs) and registered, answering the HTTP API. Each snippet is marked with where it runs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { openTab, persistentContext, type StaticServer, serveWww } from "./harness.js";

const TESTS = resolve(fileURLToPath(new URL("..", import.meta.url)));
const README = readFileSync(join(TESTS, "../README.md"), "utf8");
const snippets = [...README.matchAll(/<!-- snippet: ([a-z-]+) -->\n```js\n([\s\S]*?)```/g)].map((m, i) => ({
  where: m[1]!,
  code: m[2]!,
  id: i,
}));

let server: StaticServer;
before(async () => {
  server = await serveWww();
});
after(async () => {
  await server?.close();
});

test("every js block of the README says where it runs", () => {
  assert.equal(snippets.length, [...README.matchAll(/```js\n/g)].length);
  assert.deepEqual([...new Set(snippets.map((s) => s.where))].sort(), ["node", "page", "service-worker"]);
});

for (const snippet of snippets.filter((s) => s.where === "page")) {
  const firstLine = snippet.code.split("\n").find((l) => !l.startsWith("import"));
  test(`README page snippet ${snippet.id} runs in a page: ${firstLine}`, async (t) => {
    const browser = await persistentContext();
    t.after(() => browser.dispose());
    server.files.set(`/__readme__/${snippet.id}.js`, { type: "text/javascript", body: snippet.code });
    server.files.set(`/__readme__/${snippet.id}.html`, {
      type: "text/html",
      body: `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "attrmap": "/attrmap/dist/index.js" } }</script>
<script type="module">
try {
  await import("/__readme__/${snippet.id}.js");
  document.documentElement.dataset.outcome = "ok";
} catch (e) {
  document.documentElement.dataset.outcome = "failed: " + e;
}
</script>`,
    });
    const page = await openTab(browser.context, server.origin, "/__attrmap_test__.html");
    await page.goto(`${server.origin}/__readme__/${snippet.id}.html`);
    await page.waitForSelector("html[data-outcome]");
    assert.equal(await page.getAttribute("html", "data-outcome"), "ok");
    assert.deepEqual(page.errors, []);
  });
}

test("the README's Node snippet runs with node", () => {
  const snippet = snippets.find((s) => s.where === "node")!;
  const file = join(TESTS, ".readme-snippet.mjs"); // inside tests/, so "attrmap" and fake-indexeddb resolve
  writeFileSync(file, snippet.code);
  try {
    const run = spawnSync(process.execPath, [file], { cwd: TESTS, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /emailAddress: 'a@example\.com'/);
  } finally {
    rmSync(file);
  }
});

test("the README's service worker, bundled, serves the HTTP API to the page it controls", async (t) => {
  const snippet = snippets.find((s) => s.where === "service-worker")!;
  const bundle = buildSync({ stdin: { contents: snippet.code, resolveDir: TESTS }, bundle: true, format: "esm", write: false });
  server.files.set("/readme-sw.js", { type: "text/javascript", body: bundle.outputFiles[0]!.text });
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const page = await openTab(browser.context, server.origin);
  const answer = await page.evaluate(async () => {
    await navigator.serviceWorker.register("/readme-sw.js", { type: "module", scope: "/" });
    if (!navigator.serviceWorker.controller)
      await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    const response = await fetch("/patterns/hash-partitioned-attribute-map/start", { method: "POST" });
    return [response.status, ((await response.json()) as { flowID: string }).flowID];
  });
  assert.deepEqual(answer, [200, "customer-directory"]);
  assert.deepEqual(page.errors, []);
});
