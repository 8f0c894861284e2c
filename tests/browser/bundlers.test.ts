// The README's quick start, unchanged, in a new app of each bundler users pick, driven in
// Chromium: Vite's dev server (7 and 8) and production build, esbuild, webpack and Rollup builds.
// The app also imports "attrmap/browser", whose wasm is a file beside the package: where a
// bundler moves the package away from it (Vite 7's dependency pre-bundling), the package starts
// from its inlined module instead.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import * as esbuild from "esbuild";
import { rollup } from "rollup";
import webpack from "webpack";
import { appFolder, run, TESTS, viteCli, viteDev } from "./apps.js";
import { newTab, serveWww, until, useChromium } from "./harness.js";

const README = readFileSync(join(TESTS, "../README.md"), "utf8");
const QUICK_START = /## Quick start\n[\s\S]*?```js\n([\s\S]*?)```/.exec(README)![1]!;

const page = (script: string) =>
  `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>app</title>\n${script}\n`;
/**
 * An app whose main module runs `start` (the quick start, as a module of its own), then reads
 * Alice back through `reader`, imports an export of the database into another one and changes
 * a log's chunk size (the export verifier's and the maintenance wasm modules, which those
 * first calls load, beside the store's).
 */
const newApp = (name: string, start: string, reader: string) =>
  appFolder(name, {
    "package.json": JSON.stringify({ name, private: true, type: "module" }),
    "index.html": page('<script type="module" src="/src/main.js"></script>'),
    "src/quick-start.js": start,
    "src/main.js": `import "./quick-start.js";
import { openAttrmap } from "${reader}";
import { exportText, importData } from "attrmap/export-import";
const alice = await (await openAttrmap().customerDirectory()).getProfile("alice@example.com");
document.documentElement.dataset.alice = JSON.stringify(alice);
const copied = await importData(openAttrmap({ name: "copy" }), await exportText(openAttrmap()));
document.documentElement.dataset.imported = String(copied.entries);
const log = await openAttrmap().chunkedLog("events");
await log.append("opened");
await log.changeChunkSize(10);
document.documentElement.dataset.chunkSize = String((await log.stats()).chunkSize);
document.documentElement.dataset.ready = "true";
`,
  });
// The README's quick start as written, and as a page that follows the README's advice to import "attrmap/browser".
const apps = {
  "quick start": newApp("quick-start", QUICK_START, "attrmap"),
  "attrmap/browser": newApp("streaming", QUICK_START.replace('from "attrmap";', 'from "attrmap/browser";'), "attrmap/browser"),
};
after(() => {
  for (const app of Object.values(apps)) app.remove();
});
const browser = useChromium();

type Visit = {
  alice: Record<string, string>;
  imported: string | null;
  chunkSize: string | null;
  errors: string[];
  wasm: string[];
};

/** What a page of the app did at `origin`: Alice as read back, page errors, and the wasm-related responses. */
async function visit(origin: string): Promise<Visit> {
  const tab = await newTab(browser.context);
  try {
    const wasm: string[] = [];
    tab.on("response", (r) => {
      if (/\.wasm|inline/.test(r.url()))
        wasm.push(`${r.url().replace(/^.*\//, "")} ${r.status()} ${r.headers()["content-type"]}`);
    });
    await tab.goto(`${origin}/`);
    const failed = () => tab.errors.some((e) => e.startsWith("pageerror"));
    await until("the app to be ready", async () => (await tab.getAttribute("html", "data-ready")) === "true" || failed());
    const alice = JSON.parse((await tab.getAttribute("html", "data-alice")) ?? "{}") as Record<string, string>;
    const [imported, chunkSize] = [
      await tab.getAttribute("html", "data-imported"),
      await tab.getAttribute("html", "data-chunk-size"),
    ];
    return { alice, imported, chunkSize, errors: tab.errors, wasm };
  } finally {
    await tab.close();
  }
}

/**
 * The README says what the quick start saves: Alice, canonical email, gold. The one console
 * error allowed is the browser's own line for a wasm file a bundler did not copy (404).
 */
function assertQuickStartRan(result: Visit, where: string) {
  const missing = result.wasm.some((w) => /^attrmap(_verifier|_maintenance)?_bg\.wasm 404/.test(w));
  const notFound = "console: Failed to load resource: the server responded with a status of 404 (Not Found)";
  assert.deepEqual(
    result.errors.filter((e) => !(missing && e === notFound)),
    [],
    where,
  );
  assert.deepEqual(
    [result.alice.emailAddress, result.alice.fullName, result.alice.customerTier],
    ["alice@example.com", "Alice", "gold"],
    `${where}: ${JSON.stringify(result)}`,
  );
  assert.ok(Number(result.imported) >= 1, `${where}: the import: ${JSON.stringify(result)}`);
  assert.equal(result.chunkSize, "10", `${where}: the chunk-size change: ${JSON.stringify(result)}`);
}

/** Serves the built folder `dir` and visits it. */
async function visitBuild(dir: string) {
  const server = await serveWww(dir);
  try {
    return await visit(server.origin);
  } finally {
    await server.close();
  }
}

/** Writes the page of a build whose entry is `main.js` in `out`. */
const builtPage = (out: string, script: string) => writeFileSync(join(out, "index.html"), page(script));

for (const [name, app] of Object.entries(apps)) {
  const streaming = name === "attrmap/browser";
  for (const major of [7, 8] as const) {
    test(`${name}: vite ${major} dev server, no configuration`, async () => {
      const server = await viteDev(app.dir, major);
      try {
        const result = await visit(server.origin);
        assertQuickStartRan(result, `vite ${major} dev`);
        if (streaming && major === 7) {
          // Pre-bundled into node_modules/.vite/deps/, the wasm URL gets index.html: the inlined module starts it.
          assert.ok(
            result.wasm.some((w) => w.startsWith("attrmap_bg.wasm 200 text/html")),
            result.wasm.join(),
          );
          assert.ok(
            result.wasm.some((w) => w.startsWith("attrmap_inline")),
            result.wasm.join(),
          );
        }
      } finally {
        await server.close();
      }
    });
  }

  test(`${name}: vite build`, async () => {
    await run(process.execPath, [viteCli(8), "build", "--outDir", "out-vite", "--logLevel", "warn"], app.dir);
    const result = await visitBuild(join(app.dir, "out-vite"));
    assertQuickStartRan(result, "vite build");
    // The verifier's and maintenance's wasm files are streamed at their first calls, whichever entry started the store.
    for (const module of ["verifier", "maintenance"])
      assert.ok(
        result.wasm.some((w) => new RegExp(`^attrmap_${module}_bg-.*\\.wasm 200 application/wasm$`).test(w)),
        `${module}: ${result.wasm.join()}`,
      );
    if (streaming) {
      // The wasm file is streamed; the inlined module, a chunk of its own, is never fetched.
      assert.ok(
        result.wasm.some((w) => /^attrmap_bg-.*\.wasm 200 application\/wasm$/.test(w)),
        result.wasm.join(),
      );
      assert.ok(!result.wasm.some((w) => w.startsWith("attrmap_inline")), result.wasm.join());
    }
  });

  test(`${name}: esbuild (splitting), webpack and Rollup builds`, async () => {
    const out = (tool: string) => join(app.dir, `out-${tool}`);
    const entry = join(app.dir, "src/main.js");
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      splitting: true,
      format: "esm",
      outdir: out("esbuild"),
      logLevel: "silent",
    });
    builtPage(out("esbuild"), '<script type="module" src="./main.js"></script>');
    await new Promise<void>((ok, fail) =>
      webpack({ mode: "production", entry, output: { path: out("webpack"), filename: "main.js" } }, (e, stats) =>
        e || stats?.hasErrors() ? fail(e ?? new Error(stats?.toString())) : ok(),
      ),
    );
    builtPage(out("webpack"), '<script src="./main.js" defer></script>');
    const bundle = await rollup({ input: entry, plugins: [nodeResolve({ browser: true })], logLevel: "silent" });
    await bundle.write({ dir: out("rollup"), format: "es" });
    builtPage(out("rollup"), '<script type="module" src="./main.js"></script>');
    for (const tool of ["esbuild", "webpack", "rollup"]) {
      const result = await visitBuild(out(tool));
      assertQuickStartRan(result, tool);
      if (streaming && tool === "webpack")
        assert.ok(!result.wasm.some((w) => w.startsWith("attrmap_inline")), result.wasm.join());
    }
  });
}
