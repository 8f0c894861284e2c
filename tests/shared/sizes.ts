// The size of what ships, measured the way users compare libraries: a minified esbuild bundle
// (with splitting) of what a page loads at start, gzip -9, plus the .wasm files a page of
// "attrmap/browser" fetches; Dexie and idb-keyval bundled the same way in the same run. Every
// figure has a stable name, which the docs' markers use: `<!--size:page.core-->44.4 KiB` (gzip,
// KiB with one decimal), `<!--size:page.core:raw-->122.0 KiB` (raw), `<!--size:ratio.core-->1.39x`
// (gzip against Dexie's). make bench (bench/size.bench.ts --write) writes them into README.md and
// BENCHMARKS.md; node/sizes.test.ts fails when one there is not what this measures.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { loadedAtStart } from "./page-chunks.js";

/** Every figure's name and what it is. A ratio is a page's size over Dexie's (gzip, and raw). */
export const FIGURES = {
  "wasm.store": "the core's wasm module (wasm/attrmap_bg.wasm), the file a page of attrmap/browser fetches",
  "wasm.verifier": "the export verifier's wasm module, fetched at the first import",
  "wasm.verifier-inline": "the verifier's module inlined as base64, where its file is not served",
  "wasm.maintenance": "the maintenance module, at a first resize, chunk-size change, retention or indexPartition",
  "entry.attrmap": 'entry "attrmap" alone (wasm inlined)',
  "entry.browser": 'entry "attrmap/browser" alone, its JS only (wasm.store beside it)',
  "entry.browser+wasm": 'entry "attrmap/browser" and its wasm file',
  "entry.export-import": 'what entry "attrmap/export-import" adds to a page of "attrmap/browser"',
  "entry.dex": 'what entry "attrmap/dex" adds to a page of "attrmap/browser"',
  "entry.http": 'what entry "attrmap/http" adds to a page of "attrmap/browser"',
  "entry.react": 'what entry "attrmap/react" adds to a page of "attrmap/browser" (React not counted)',
  "page.core": "a page with maps, logs, the directory, the archive, live queries and watch (+ wasm.store)",
  "page.every": "a page of every entry but React (+ wasm.store)",
  dexie: "Dexie, all of it",
  "idb-keyval": "idb-keyval, all of it",
  "ratio.core": "page.core over dexie",
  "ratio.every": "page.every over dexie",
} as const;

export type FigureName = keyof typeof FIGURES;
/** Bytes, or for a ratio (a name "ratio.*") the ratio of the sizes; gzip is gzip -9's. */
export interface Size {
  raw: number;
  gzip: number;
}
export type Sizes = Record<FigureName, Size>;

export const isFigureName = (name: string): name is FigureName => Object.hasOwn(FIGURES, name);
export const isRatio = (name: FigureName) => name.startsWith("ratio.");

const require = createRequire(import.meta.url);

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
const sizeOf = (bytes: Buffer): Size => ({ raw: bytes.length, gzip: gzip(bytes) });
const sum = (a: Size, b: Size): Size => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip });
const minus = (a: Size, b: Size): Size => ({ raw: a.raw - b.raw, gzip: a.gzip - b.gzip });
const over = (a: Size, b: Size): Size => ({ raw: a.raw / b.raw, gzip: a.gzip / b.gzip });

/** Every figure of the package installed in tests/node_modules (about a second). */
export async function measureSizes(): Promise<Sizes> {
  const pkgDir = dirname(require.resolve("attrmap/package.json"));
  const file = (path: string) => sizeOf(readFileSync(join(pkgDir, path)));
  const store = file("wasm/attrmap_bg.wasm");

  // Each entry: alone for the two core entries, and what it adds to a page of "attrmap/browser" for the others.
  const browser = sizeOf(await minified('export * from "attrmap/browser";'));
  const added = async (entry: string) =>
    minus(sizeOf(await minified(`export * from "attrmap/browser"; export * from "attrmap/${entry}";`)), browser);

  // The two pages of the page-weight goal: maps, logs, the directory, the archive, live queries and
  // watch; and everything the package offers but the React binding (which needs React).
  const core = sizeOf(
    await minified(`import { openAttrmap } from "attrmap/browser";
const store = openAttrmap();
const map = await store.partitionedMap("m");
await map.upsert("k", 1);
const log = await store.chunkedLog("l");
await log.append(1);
await (await store.customerDirectory()).getProfile("a@example.com");
await (await store.subscriberArchive()).getSubscriberPage();
store.liveQuery((s) => s.partitionedMap("m")).subscribe(() => {});
store.watch(() => {});`),
  );
  const every = sizeOf(
    await minified(["browser", "export-import", "dex", "http"].map((e) => `export * from "attrmap/${e}";`).join("\n")),
  );
  const dexie = sizeOf(await minified('export * from "dexie";'));
  return {
    "wasm.store": store,
    "wasm.verifier": file("wasm/attrmap_verifier_bg.wasm"),
    "wasm.verifier-inline": file("wasm/attrmap_verifier_inline.js"),
    "wasm.maintenance": file("wasm/attrmap_maintenance_bg.wasm"),
    "entry.attrmap": sizeOf(await minified('export * from "attrmap";')),
    "entry.browser": browser,
    "entry.browser+wasm": sum(browser, store),
    "entry.export-import": await added("export-import"),
    "entry.dex": await added("dex"),
    "entry.http": await added("http"),
    "entry.react": await added("react"),
    "page.core": sum(core, store),
    "page.every": sum(every, store),
    dexie,
    "idb-keyval": sizeOf(await minified('export * from "idb-keyval";')),
    "ratio.core": over(sum(core, store), dexie),
    "ratio.every": over(sum(every, store), dexie),
  };
}

// ---- the figures in markdown --------------------------------------------------------

/** A figure as the docs write it: KiB with one decimal, a ratio with two and an x. */
export function formatFigure(name: FigureName, field: keyof Size, sizes: Sizes): string {
  const value = sizes[name][field];
  return isRatio(name) ? `${value.toFixed(2)}x` : `${(value / 1024).toFixed(1)} KiB`;
}

/** A marker and the figure after it in a markdown file; `problem` says what is wrong with a malformed one. */
export interface Marked {
  line: number;
  marker: string;
  name: string;
  field: keyof Size;
  /** The figure as written (`44.4 KiB`, `1.39x`), and its number (KiB, or the ratio). */
  documented: string;
  value: number;
  /** Where the figure starts and ends in the text (the marker stays). */
  start: number;
  end: number;
  problem?: string;
}

/** Every `<!--size...-->` marker of a markdown text, with the figure that follows it. */
export function markedFigures(text: string): Marked[] {
  return [...text.matchAll(/<!--\s*size\b([^>]*)-->/g)].map((m) => {
    const marker = m[0];
    const line = text.slice(0, m.index).split("\n").length;
    const start = m.index + marker.length;
    const figure = /^(\d+(?:\.\d+)?)( KiB|x)/.exec(text.slice(start, start + 20));
    const parts = /^:([a-z0-9.+-]+)(?::(raw))?$/.exec(m[1]!);
    const name = parts?.[1] ?? m[1]!;
    const marked = {
      line,
      marker,
      name,
      field: parts?.[2] === "raw" ? ("raw" as const) : ("gzip" as const),
      documented: figure?.[0] ?? "",
      value: Number(figure?.[1]),
      start,
      end: start + (figure?.[0].length ?? 0),
    };
    const unit = isFigureName(name) && isRatio(name) ? "x" : " KiB";
    const problem =
      parts === null
        ? "is not written <!--size:NAME--> or <!--size:NAME:raw-->"
        : !isFigureName(name)
          ? `names no figure the measurement knows (tests/shared/sizes.ts, FIGURES: ${Object.keys(FIGURES).join(", ")})`
          : figure === null || figure[2] !== unit
            ? `is not followed by its figure, a number and "${unit}" on the same line`
            : undefined;
    return problem === undefined ? marked : { ...marked, problem };
  });
}

/** The text with every marked figure written as measured; throws on a malformed marker. */
export function writeFigures(text: string, sizes: Sizes, file = "the text"): string {
  let out = "";
  let from = 0;
  for (const m of markedFigures(text)) {
    if (m.problem !== undefined) throw new Error(`${file}:${m.line}: ${m.marker} ${m.problem}`);
    out += text.slice(from, m.start) + formatFigure(m.name as FigureName, m.field, sizes);
    from = m.end;
  }
  return out + text.slice(from);
}
