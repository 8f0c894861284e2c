// Every JavaScript snippet of the README and docs/ runs as written: page snippets as module
// scripts of a page whose import map resolves the package's entries (each on an origin of its own, so
// with storage of its own, in one on-disk Chromium profile: a browser launch costs more than the snippet), the
// Node snippet with node, the worker and service-worker snippets bundled (as the README says an
// unbundled worker needs) and started, the service worker answering the HTTP API. Each snippet
// is marked with where it runs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { newTab, openTab, type StaticServer, serveWww, useChromium } from "./harness.js";

const TESTS = resolve(fileURLToPath(new URL("..", import.meta.url)));
const DOCUMENTS = ["README.md", ...readdirSync(join(TESTS, "../docs")).map((f) => `docs/${f}`)].map((file) => ({
  file,
  text: readFileSync(join(TESTS, "..", file), "utf8"),
}));
const snippets = DOCUMENTS.flatMap(({ file, text }) =>
  [...text.matchAll(/<!-- snippet: ([a-z-]+) -->\n```js\n([\s\S]*?)```/g)].map((m, i) => ({
    where: m[1]!,
    code: m[2]!,
    id: `${file.replace(/\W/g, "-")}-${i}`,
    file,
  })),
);
/** Each entry of the package's exports map ("attrmap", "attrmap/export-import", ...) at its file under www/. */
const IMPORT_MAP = JSON.stringify({
  imports: Object.fromEntries(
    Object.entries(
      JSON.parse(readFileSync(join(TESTS, "node_modules/attrmap/package.json"), "utf8")).exports as Record<
        string,
        { default?: string }
      >,
    ).flatMap(([entry, target]) =>
      target.default?.startsWith("./dist/") ? [[`attrmap${entry.slice(1)}`, `/attrmap${target.default.slice(1)}`]] : [],
    ),
  ),
});
/** The one snippet of the README that runs `where`. */
const only = (where: string) => {
  const found = snippets.filter((s) => s.where === where);
  assert.equal(found.length, 1, `one ${where} snippet`);
  return found[0]!;
};

/** `code` bundled as a module, its imports resolved from tests/ (where the package is installed). */
const bundled = (code: string) =>
  buildSync({ stdin: { contents: code, resolveDir: TESTS }, bundle: true, format: "esm", write: false }).outputFiles[0]!.text;

const browser = useChromium();

/** A server of www/ on a new port: an origin of its own, whose storage no other test has touched. */
async function ownOrigin(t: TestContext): Promise<StaticServer> {
  const server = await serveWww();
  t.after(async () => {
    for (const page of browser.context.pages()) await page.close();
    await server.close();
  });
  return server;
}

test("every js block of the README and docs/ says where it runs", () => {
  for (const { file, text } of DOCUMENTS) {
    assert.equal(snippets.filter((s) => s.file === file).length, [...text.matchAll(/```js\n/g)].length, file);
  }
  assert.deepEqual([...new Set(snippets.map((s) => s.where))].sort(), ["node", "page", "service-worker", "worker"]);
});

for (const snippet of snippets.filter((s) => s.where === "page")) {
  const firstLine = snippet.code.split("\n").find((l) => !l.startsWith("import"));
  test(`${snippet.file} page snippet ${snippet.id} runs in a page: ${firstLine}`, async (t) => {
    const server = await ownOrigin(t);
    server.files.set(`/__readme__/${snippet.id}.js`, { type: "text/javascript", body: snippet.code });
    server.files.set(`/__readme__/${snippet.id}.html`, {
      type: "text/html",
      body: `<!doctype html><meta charset="utf-8">
<script type="importmap">${IMPORT_MAP}</script>
<script type="module">
try {
  await import("/__readme__/${snippet.id}.js");
  document.documentElement.dataset.outcome = "ok";
} catch (e) {
  document.documentElement.dataset.outcome = "failed: " + e;
}
</script>`,
    });
    const page = await newTab(browser.context);
    await page.goto(`${server.origin}/__readme__/${snippet.id}.html`);
    await page.waitForSelector("html[data-outcome]");
    assert.equal(await page.getAttribute("html", "data-outcome"), "ok");
    assert.deepEqual(page.errors, []);
  });
}

test("the README's Node snippet runs with node", () => {
  const snippet = only("node");
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
  const server = await ownOrigin(t);
  server.files.set("/readme-sw.js", { type: "text/javascript", body: bundled(only("service-worker").code) });
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

test("the README's module worker, bundled, appends what the page posts and answers with the record", async (t) => {
  const server = await ownOrigin(t);
  server.files.set("/readme-worker.js", { type: "text/javascript", body: bundled(only("worker").code) });
  const page = await openTab(browser.context, server.origin);
  const answers = await page.evaluate(async () => {
    const worker = new Worker("/readme-worker.js", { type: "module" });
    const replies: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      worker.onerror = (e) => reject(new Error(e.message));
      worker.onmessage = (e) => {
        replies.push(e.data);
        if (replies.length === 2) resolve();
      };
      worker.postMessage({ type: "login" });
      worker.postMessage({ type: "logout" });
      setTimeout(() => reject(new Error(`the worker answered ${replies.length} of 2 messages in 10 s`)), 10_000);
    });
    worker.terminate();
    const log = await window.attrmap.openAttrmap().chunkedLog("events");
    return { replies, count: await log.count() };
  });
  assert.deepEqual(answers, {
    replies: [
      { sequence: 1, value: { type: "login" } },
      { sequence: 2, value: { type: "logout" } },
    ],
    count: 2,
  });
  assert.deepEqual(page.errors, []);
});
