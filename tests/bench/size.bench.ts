// make bench: the size of what ships, measured the way users compare libraries (shared/sizes.ts:
// a minified esbuild bundle, with splitting, of what a page loads at start, gzip -9, plus the
// .wasm file a page of "attrmap/browser" fetches; Dexie and idb-keyval bundled the same way in
// the same run). Prints the figures; with --write (as make bench runs it), also writes them
// where README.md and BENCHMARKS.md mark them (<!--size:NAME-->), which node/sizes.test.ts checks.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type FigureName, formatFigure, markedFigures, measureSizes, writeFigures } from "../shared/sizes.js";

const sizes = await measureSizes();
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const row = (label: string, name: FigureName) =>
  console.log(`${label.padEnd(62)} ${kib(sizes[name].raw).padStart(10)}   ${kib(sizes[name].gzip).padStart(10)}`);

console.log(`${"size".padEnd(62)}        raw         gzip`);
row("wasm: the core's module (wasm/attrmap_bg.wasm)", "wasm.store");
row("wasm: the export verifier's module, loaded at the first import", "wasm.verifier");
row("   the same inlined as base64 (where its file is not served)", "wasm.verifier-inline");
row("wasm: the maintenance module, at a first resize or log change", "wasm.maintenance");
row('entry "attrmap" (wasm inlined)', "entry.attrmap");
row('entry "attrmap/browser" (+ wasm file)', "entry.browser+wasm");
for (const entry of ["export-import", "dex", "http", "react"] as const) {
  row(`entry "attrmap/${entry}", added to "attrmap/browser"`, `entry.${entry}`);
}
row("page: maps, logs, directory, archive, live, watch (+ wasm)", "page.core");
row("page: every entry but React (+ wasm)", "page.every");
row("baseline: Dexie, all of it", "dexie");
row("baseline: idb-keyval, all of it", "idb-keyval");
const ratio = (name: FigureName) => sizes[name].gzip.toFixed(3);
console.log(
  `pages against Dexie (gzip): maps, logs, live and watch ${ratio("ratio.core")}x, every entry ${ratio("ratio.every")}x`,
);

if (process.argv.includes("--write")) {
  // Both files checked before either is written: a malformed marker throws, and nothing is written.
  const docs = ["README.md", "BENCHMARKS.md"].map((doc) => {
    const path = fileURLToPath(new URL(`../../${doc}`, import.meta.url));
    const text = readFileSync(path, "utf8");
    return { doc, path, text, written: writeFigures(text, sizes, doc) };
  });
  for (const { doc, path, text, written } of docs) {
    const marked = markedFigures(text);
    let rewritten = 0;
    for (const m of marked) {
      const measured = formatFigure(m.name as FigureName, m.field, sizes);
      if (measured === m.documented) continue;
      console.log(`${doc}:${m.line} ${m.marker}: ${m.documented} -> ${measured}`);
      rewritten++;
    }
    if (written !== text) writeFileSync(path, written);
    console.log(`${doc}: ${marked.length} marked figures, ${rewritten} rewritten`);
  }
}
