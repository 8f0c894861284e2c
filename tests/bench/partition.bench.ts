// make bench: emailPartition through the package (JS -> wasm -> JS) side by side with a
// plain-JS implementation in the same process, and the size of what ships.
// Figures, not a test: nothing here fails on time.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { emailPartition } from "attrmap";
import { build } from "esbuild";
import { loadedAtStart } from "../shared/page-chunks.js";

// ---- the baseline: a straightforward plain-JS implementation of the same rule ----------
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the rule being checked
const NON_ASCII = /[^\x00-\x7f]/;
const isWs = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

function plainEmailPartition(email: string, count = 1000) {
  if (NON_ASCII.test(email)) throw new Error("emailAddress must contain only ASCII characters");
  let start = 0;
  let end = email.length;
  while (start < end && isWs(email.charCodeAt(start))) start++;
  while (end > start && isWs(email.charCodeAt(end - 1))) end--;
  if (start === end) throw new Error("emailAddress is required");
  const canonicalEmail = email.slice(start, end).toLowerCase(); // ASCII only here: same as A-Z
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonicalEmail.length; i++) hash = Math.imul(hash ^ canonicalEmail.charCodeAt(i), 0x01000193);
  hash >>>= 0;
  const partitionIndex = hash % count;
  return {
    canonicalEmail,
    hash,
    partitionIndex,
    partitionName: `partition-${String(partitionIndex).padStart(String(count - 1).length, "0")}`,
  };
}

// ---- timing ------------------------------------------------------------------------------
function measure(fn: (s: string) => unknown, inputs: string[], minMs = 400): number {
  let sink = 0;
  const once = (n: number) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += (fn(inputs[i % inputs.length]!) as { hash: number }).hash & 1;
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  once(20_000); // warm up the JIT
  let n = 10_000;
  while (once(n) < 50) n *= 2;
  const rounds: number[] = [];
  const deadline = Date.now() + minMs;
  while (rounds.length < 5 || Date.now() < deadline) rounds.push((once(n) * 1e6) / n);
  if (sink < 0) console.log(sink); // keep the results alive
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!; // median ns per call
}

const typical = Array.from({ length: 4096 }, (_, i) => ` User.${i * 7919}@Example.COM`); // about 20-25 bytes
const long = Array.from({ length: 256 }, (_, i) => `${"Ab".repeat(506)}${i}@example.com`.slice(0, 1024)); // 1 KiB
for (const s of [...typical.slice(0, 50), ...long.slice(0, 20)]) {
  const a = emailPartition(s);
  const b = plainEmailPartition(s);
  if (a.canonicalEmail !== b.canonicalEmail || a.hash !== b.hash || a.partitionName !== b.partitionName) {
    throw new Error(`baseline disagrees with the package on ${JSON.stringify(s)}`);
  }
}

const fmt = (ns: number) => `${(1e9 / ns / 1e6).toFixed(2).padStart(7)} M ops/s  ${ns.toFixed(0).padStart(6)} ns/op`;
console.log(`emailPartition, Node ${process.version}, median of timed rounds`);
console.log("keys            attrmap (wasm)                 plain JS baseline              ratio");
for (const [label, inputs] of [
  ["typical ~22 B", typical],
  ["long 1 KiB", long],
] as const) {
  const wasm = measure((s) => emailPartition(s), inputs);
  const plain = measure((s) => plainEmailPartition(s), inputs);
  console.log(`${label.padEnd(15)} ${fmt(wasm)}   ${fmt(plain)}   ${(wasm / plain).toFixed(2)}x`);
}

// ---- size of what ships ------------------------------------------------------------------
const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("attrmap/package.json"));
const inlineJs = readFileSync(join(pkgDir, "wasm/attrmap_inline.js"), "utf8");
const wasmBytes = readFileSync(join(pkgDir, "wasm/attrmap_bg.wasm"));
const glue = readFileSync(join(pkgDir, "wasm/attrmap.js"));
const dist = Buffer.concat(
  readdirSync(join(pkgDir, "dist"))
    .filter((f) => f.endsWith(".js"))
    .map((f) => readFileSync(join(pkgDir, "dist", f))),
);
// What a bundler makes of a page's module `source`, minified, that the page loads at start: the
// entry chunk and the chunks it imports statically (the browser entry's inlined fallback is a
// chunk loaded only if needed). Packages resolve from tests/, as a user's app resolves them.
const minified = async (source: string) => {
  const out = await build({
    stdin: { contents: source, resolveDir: import.meta.dirname, sourcefile: "page.js" },
    bundle: true,
    minify: true,
    format: "esm",
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
  });
  const loaded = loadedAtStart(out.metafile);
  return Buffer.concat(out.outputFiles.filter((f) => loaded.some((l) => f.path.endsWith(`/${l}`))).map((f) => f.contents));
};
const inlineBundle = await minified('export * from "attrmap";');
const browserBundle = await minified('export * from "attrmap/browser";');
// The page of the page-weight goal: a store with maps, logs, the directory, the archive, live queries and watch.
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
// The peers of the storage bench, bundled the same way: everything their package exports.
const peer = (name: string) => minified(`export * from "${name}";`);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const gzip = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;
const row = (label: string, raw: number, gz: number) =>
  console.log(`${label.padEnd(46)} ${kib(raw).padStart(10)}   ${kib(gz).padStart(10)}`);
console.log(`\n${"size".padEnd(46)}        raw         gzip`);
for (const [label, bytes] of [
  ["wasm module", wasmBytes],
  ["inlined module .js", Buffer.from(inlineJs)],
  ["wasm-bindgen glue", glue],
  ["package JS (dist/*.js)", dist],
  ["minified bundle, default entry (wasm inlined)", inlineBundle],
  ["minified bundle, browser entry (JS only)", browserBundle],
] as const) {
  row(label, bytes.length, gzip(bytes));
}
// A page through the browser entry loads its bundle and the wasm file, each compressed alone.
const withWasm = (bundle: Buffer) => gzip(bundle) + gzip(wasmBytes);
row("browser entry: bundle + wasm file", browserBundle.length + wasmBytes.length, withWasm(browserBundle));
row("page: maps, logs, live, watch (+ wasm file)", corePage.length + wasmBytes.length, withWasm(corePage));
const dexie = await peer("dexie");
for (const [name, bytes] of [
  ["dexie", dexie],
  ["idb-keyval", await peer("idb-keyval")],
] as const) {
  row(`baseline: minified bundle of ${name}`, bytes.length, gzip(bytes));
}
console.log(
  `pages against Dexie (gzip): everything ${(withWasm(browserBundle) / gzip(dexie)).toFixed(2)}x, ` +
    `maps, logs, live and watch ${(withWasm(corePage) / gzip(dexie)).toFixed(2)}x`,
);
