// make bench: start-up of each entry, before (the released 0.2.0, its tarball kept in
// tests/fixtures) and after (the package built here): a fresh tab imports the entry as the
// package's exports give it to a page that imports its files itself (not through a bundler),
// from 127.0.0.1 (no cache), and makes a first call; printed is the median and range of 8 tabs,
// in each engine. Figures, not a test.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dispose, ENGINES, launchBrowser } from "../browser/engines.js";
import { serveWww } from "../browser/harness.js";

const TABS = 8;
const root = mkdtempSync(join(tmpdir(), "attrmap-startup-"));
mkdirSync(join(root, "before"));
execFileSync("tar", ["xzf", join(import.meta.dirname, "../fixtures/attrmap-0.2.0.tgz"), "-C", join(root, "before")]);
const installed = dirname(createRequire(import.meta.url).resolve("attrmap/package.json"));
cpSync(installed, join(root, "after", "package"), { recursive: true });
/** The file a page that imports the package's files itself loads for `entry` (its exports' default). */
const exportsMap = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).exports;
const file = (entry: string) => (exportsMap[entry].default as string).slice(2);
writeFileSync(join(root, "blank.html"), '<!doctype html><meta charset="utf-8"><title>start-up</title>');
const server = await serveWww(root);

/** What a case does in the page, from its first `import()` to the answer of its first call. */
type Case = { label: string; version: "before" | "after"; run: string };
const first = 'm.emailPartition("a@example.com")';
const IMPORT_FILE = '{"format":"attrmap-export","version":1}\n';
const CASES: Case[] = [
  { label: '"attrmap", emailPartition', version: "before", run: `const m = await load("dist/index.js"); ${first};` },
  { label: '"attrmap", emailPartition', version: "after", run: `const m = await load("${file(".")}"); ${first};` },
  { label: '"attrmap/browser", emailPartition', version: "before", run: `const m = await load("browser/index.js"); ${first};` },
  {
    label: '"attrmap/browser", emailPartition',
    version: "after",
    // Since the lazy start, the browser entry's synchronous rules need ready() first (the import did it before).
    run: `const m = await load("${file("./browser")}"); await m.ready(); ${first};`,
  },
  {
    label: '"attrmap/browser", a first import',
    version: "before",
    run: `const m = await load("browser/index.js"); await m.openAttrmap({ name }).importData(${JSON.stringify(IMPORT_FILE)});`,
  },
  {
    label: '"attrmap/browser" + "attrmap/export-import", a first import',
    version: "after",
    run: `const [m, e] = await Promise.all([load("${file("./browser")}"), load("${file("./export-import")}")]);
      await e.importData(m.openAttrmap({ name }), ${JSON.stringify(IMPORT_FILE)});`,
  },
  {
    label: '"attrmap/browser" + "attrmap/http", createHandler',
    version: "after",
    run: `const [m, h] = await Promise.all([load("${file("./browser")}"), load("${file("./http")}")]);
      await m.ready(); h.createHandler(m.openAttrmap({ name }));`,
  },
];

const ms = (n: number) => `${n.toFixed(0)} ms`;
console.log(`\nstart-up: a fresh tab's import() and first call, median (range) of ${TABS} tabs`);
for (const engine of ENGINES) {
  const browser = await launchBrowser(engine);
  try {
    for (const c of CASES) {
      const times: number[] = [];
      for (let i = 0; i < TABS; i++) {
        const tab = await browser.newTab();
        await tab.goto(`${server.origin}/blank.html`);
        const load = `const load = (f) => import("${server.origin}/${c.version}/package/" + f);`;
        const body = `${load} const name = "startup-${i}"; ${c.run}`;
        times.push(
          await tab.evaluate(async (code) => {
            const t0 = performance.now();
            await new Function(`return (async () => { ${code} })()`)();
            return performance.now() - t0;
          }, body),
        );
        await tab.close();
      }
      times.sort((a, b) => a - b);
      const median = (times[TABS / 2 - 1]! + times[TABS / 2]!) / 2;
      const range = `(${ms(times[0]!)} - ${ms(times.at(-1)!)})`;
      console.log(`${engine.padEnd(9)} ${c.version.padEnd(7)} ${c.label.padEnd(62)} ${ms(median).padStart(7)} ${range}`);
    }
  } finally {
    await dispose(browser);
  }
}
await server.close();
rmSync(root, { recursive: true, force: true });
