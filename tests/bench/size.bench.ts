// make bench: the size of what ships, measured the way users compare libraries: a minified
// esbuild bundle (with splitting) of what a page loads at start, gzip -9, plus the .wasm file a
// page of "attrmap/browser" fetches; Dexie and idb-keyval bundled the same way in the same run.
// Figures, not a test.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { loadedAtStart } from "../shared/page-chunks.js";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("attrmap/package.json"));
const file = (path: string) => readFileSync(join(pkgDir, path));
const storeWasm = file("wasm/attrmap_bg.wasm");

/** The minified JS a page of module `source` loads at start (packages resolve from tests/, as in a user's app). */
async function minified(source: string): Promise<Buffer> {
  const out = await build({
    stdin: { contents: source, resolveDir: import.meta.dirname, sourcefile: "page.js" },
    bundle: true,
    minify: true,
    format: "esm",
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
    external: ["react"],
  });
  const loaded = loadedAtStart(out.metafile);
  return Buffer.concat(out.outputFiles.filter((f) => loaded.some((l) => f.path.endsWith(`/${l}`))).map((f) => f.contents));
}

const gzip = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const sizes = (bytes: Buffer): [number, number] => [bytes.length, gzip(bytes)];
const row = (label: string, raw: number, gz: number) =>
  console.log(`${label.padEnd(62)} ${kib(raw).padStart(10)}   ${kib(gz).padStart(10)}`);

console.log(`${"size".padEnd(62)}        raw         gzip`);
row("wasm: the store's module (wasm/attrmap_bg.wasm)", storeWasm.length, gzip(storeWasm));
const verifierWasm = file("wasm/attrmap_verifier_bg.wasm");
row("wasm: the export verifier's module, loaded at the first import", verifierWasm.length, gzip(verifierWasm));
const verifierInline = file("wasm/attrmap_verifier_inline.js");
row("   the same inlined as base64 (where its file is not served)", verifierInline.length, gzip(verifierInline));
const maintenanceWasm = file("wasm/attrmap_maintenance_bg.wasm");
row("wasm: the maintenance module, at a first resize or log change", maintenanceWasm.length, gzip(maintenanceWasm));

// Each entry: alone for the two core entries, and what it adds to a page of "attrmap/browser" for the others.
const browserEntry = await minified('export * from "attrmap/browser";');
row('entry "attrmap" (wasm inlined)', ...sizes(await minified('export * from "attrmap";')));
row('entry "attrmap/browser" (+ wasm file)', browserEntry.length + storeWasm.length, gzip(browserEntry) + gzip(storeWasm));
for (const entry of ["export-import", "dex", "http", "react"]) {
  const both = await minified(`export * from "attrmap/browser"; export * from "attrmap/${entry}";`);
  row(`entry "attrmap/${entry}", added to "attrmap/browser"`, both.length - browserEntry.length, gzip(both) - gzip(browserEntry));
}

// The two pages of the page-weight goal: maps, logs, the directory, the archive, live queries and
// watch; and everything the package offers but the React binding (which needs React).
const corePage = await minified(`import { openAttrmap } from "attrmap/browser";
const store = openAttrmap();
const map = await store.partitionedMap("m");
await map.upsert("k", 1);
const log = await store.chunkedLog("l");
await log.append(1);
await (await store.customerDirectory()).getProfile("a@example.com");
await (await store.subscriberArchive()).getSubscriberPage();
store.liveQuery((s) => s.partitionedMap("m")).subscribe(() => {});
store.watch(() => {});`);
const everything = await minified(
  ["browser", "export-import", "dex", "http"].map((e) => `export * from "attrmap/${e}";`).join("\n"),
);
const withWasm = (bundle: Buffer): [number, number] => [bundle.length + storeWasm.length, gzip(bundle) + gzip(storeWasm)];
row("page: maps, logs, directory, archive, live, watch (+ wasm)", ...withWasm(corePage));
row("page: every entry but React (+ wasm)", ...withWasm(everything));
const dexie = await minified('export * from "dexie";');
row("baseline: Dexie, all of it", ...sizes(dexie));
row("baseline: idb-keyval, all of it", ...sizes(await minified('export * from "idb-keyval";')));
const ratio = (page: Buffer) => (withWasm(page)[1] / gzip(dexie)).toFixed(3);
console.log(`pages against Dexie (gzip): maps, logs, live and watch ${ratio(corePage)}x, every entry ${ratio(everything)}x`);
