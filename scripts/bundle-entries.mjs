// Bundles the package's entries (pkg/package.json "exports": each entry's `module`, what
// bundlers take, names its module in dist/; its `default`, what Node and a page that imports
// the files themselves take, the bundled file) into dist/bundle/, in one esbuild run
// with splitting: the entries share one copy of each module (a store opened through
// "attrmap/browser" is the one "attrmap/dex" knows), and code loaded at a first call stays a
// chunk of its own. A page that loads the package unbundled then fetches a few files, not every
// module one import after another (BENCHMARKS.md, "Start-up"). The wasm-bindgen glue and the
// wasm files stay beside the package (pkg/wasm/), imported by the same relative paths, since
// dist/bundle/ is as deep as dist/wasm/. The modules stay in dist/ for the types, and the
// bundles' source maps lead through theirs to src/.
import { readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { build } from "../pkg/node_modules/esbuild/lib/main.js";

const PKG = resolve(import.meta.dirname, "../pkg");
const WASM = resolve(PKG, "wasm");
const BUNDLE = "./dist/bundle/";

const exportsMap = JSON.parse(readFileSync(resolve(PKG, "package.json"), "utf8")).exports;
const entryPoints = {};
for (const [entry, target] of Object.entries(exportsMap)) {
  if (typeof target !== "object") continue; // "./package.json"
  if (!target.default.startsWith(BUNDLE)) throw new Error(`exports["${entry}"].default is not in ${BUNDLE}`);
  entryPoints[basename(target.default, ".js")] = target.module;
}

await build({
  absWorkingDir: PKG,
  entryPoints,
  outdir: BUNDLE,
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  sourcemap: "linked",
  external: ["react"],
  logLevel: "warning",
  plugins: [
    {
      name: "wasm-beside-the-package",
      setup(b) {
        // The glue and the inlined modules stay files of their own, imported as the modules do.
        b.onResolve({ filter: /\/wasm\/attrmap/ }, (a) =>
          dirname(resolve(a.resolveDir, a.path)) === WASM ? { path: a.path, external: true } : undefined,
        );
      },
    },
  ],
});
