// The package as an npm user meets it: import by name in plain Node 20, the exports map,
// typed declarations without `any`, what the tarball ships (docs.test.ts checks its documents) and that npm pack gives it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import * as esbuild from "esbuild";
import ts from "typescript";
import { loadedAtStart } from "../shared/page-chunks.js";
import { typeCheck } from "./type-checks.js";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("attrmap/package.json"));

test("plain node (no loader, no flags) imports the pure functions by package name", () => {
  const out = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      'import { emailPartition, AttrmapError } from "attrmap"; const p = emailPartition(" Alice@Example.COM "); ' +
        "console.log(p.partitionName, p.hash, typeof AttrmapError);",
    ],
    { cwd: dirname(pkgDir), encoding: "utf8" },
  );
  assert.equal(out.trim(), "partition-278 2493822278 function");
});

test("the exports map hides internals", async () => {
  await assert.rejects(import("attrmap/dist/wasm/core-module.js" as string), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.deepEqual(Object.keys(manifest.exports), [
    ".",
    "./browser",
    "./export-import",
    "./dex",
    "./http",
    "./react",
    "./package.json",
  ]);
});

/**
 * The package's files a bundler takes into what a page of `source` loads at start: the entry
 * chunk and the chunks it imports statically (a dynamic import is a chunk fetched only if run).
 */
async function bundled(source: string, which: "start" | "all" = "start"): Promise<string[]> {
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: dirname(pkgDir), sourcefile: "use.js" },
    bundle: true,
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
    format: "esm",
    platform: "browser",
    logLevel: "silent",
  });
  const outputs = loadedAtStart(result.metafile, { later: which === "all" });
  return outputs.flatMap((out) =>
    Object.keys(result.metafile.outputs[out]!.inputs).flatMap((f) =>
      f.includes("attrmap/") ? [f.replace(/^.*attrmap\//, "")] : [],
    ),
  );
}

test('"attrmap" loads the inlined wasm, "attrmap/browser" only the file (the inlined one is a fallback chunk)', async () => {
  const use = (from: string) => `import { emailPartition } from "${from}"; emailPartition("a@example.com");`;
  const inlined = await bundled(use("attrmap"));
  assert.ok(inlined.includes("dist/wasm/init.js") && inlined.includes("wasm/attrmap_inline.js"), inlined.join());
  assert.ok(!inlined.includes("dist/wasm/init-streaming.js"), inlined.join());
  const streaming = await bundled(use("attrmap/browser"));
  assert.ok(streaming.includes("dist/wasm/init-streaming.js"), streaming.join());
  assert.ok(!streaming.some((f) => f === "dist/wasm/init.js" || f.includes("inline")), streaming.join());
});

test("a page of the core entry loads no module of export and import, the engine's requests or the HTTP handler", async () => {
  const page = `import { openAttrmap } from "attrmap/browser";
const store = openAttrmap();
await (await store.partitionedMap("m")).upsert("k", 1);
await (await store.chunkedLog("l")).append(1);
store.liveQuery((s) => s.partitionedMap("m")).subscribe(() => {});`;
  const loaded = await bundled(page);
  assert.ok(loaded.includes("dist/maps/partitioned-map.js") && loaded.includes("dist/live/live-query.js"), loaded.join());
  assert.deepEqual(
    loaded.filter((f) => /^dist\/(export-import|dex|http)\//.test(f)),
    [],
  );
  // And an entry of a concern brings its own modules, fetched at its first call, not another
  // start of the wasm.
  const exportPage = `${page}\nimport { exportText } from "attrmap/export-import";\nexportText(store);`;
  const exporting = await bundled(exportPage, "all");
  assert.ok(exporting.includes("dist/export-import/export-data.js"), exporting.join());
  const exportingAtStart = await bundled(exportPage);
  assert.ok(!exportingAtStart.includes("dist/export-import/export-data.js"), exportingAtStart.join());
  assert.ok(!exportingAtStart.some((f) => f === "dist/wasm/init.js" || f === "wasm/attrmap_inline.js"), exportingAtStart.join());
  // A page that exports only has none of the verifier; one that imports has its glue, and
  // starts its module at the first import (the inlined copy is a chunk of its own).
  assert.ok(!exporting.some((f) => f.includes("verifier")), exporting.join());
  const importPage = `${page}\nimport { importData } from "attrmap/export-import";\nimportData(store, "");`;
  const importing = await bundled(importPage, "all");
  assert.ok(importing.includes("dist/wasm/verifier-module.js"), importing.join());
  const importingAtStart = await bundled(importPage);
  assert.ok(!importingAtStart.some((f) => f.includes("verifier")), importingAtStart.join());
  // A feature the page does not call costs it nothing at start: the maintenance module's glue
  // (resize, chunk-size change, retention), index builds and queries, transactions and the
  // feed's reader are chunks it fetches at the first call, which the bundle still holds.
  const later = [
    "dist/wasm/maintenance-module.js",
    "dist/maps/resize.js",
    "dist/instances/rewrite.js",
    "dist/logs/retention.js",
    "dist/indexes/catalog.js",
    "dist/indexes/build.js",
    "dist/indexes/index-reads.js",
    "dist/indexes/ranges.js",
    "dist/transactions/transaction.js",
    "dist/transactions/parts.js",
    "dist/feed/change-feed.js",
  ];
  assert.deepEqual(
    later.filter((f) => loaded.includes(f)),
    [],
  );
  const all = await bundled(page, "all");
  assert.deepEqual(
    later.filter((f) => !all.includes(f)),
    [],
  );
  assert.ok(!loaded.some((f) => f.startsWith("wasm/attrmap_maintenance_inline")), loaded.join());
});

test("the tarball ships the compiled package, the wasm inlined and as a file, not sources", () => {
  const files = execFileSync("find", [".", "-type", "f"], { cwd: pkgDir, encoding: "utf8" }).split("\n").filter(Boolean);
  for (const needed of [
    "./dist/index.js",
    "./dist/index.d.ts",
    "./dist/browser/index.js",
    "./dist/wasm/init-streaming.js",
    "./dist/export-import/index.js",
    "./dist/dex/index.js",
    "./dist/http/index.js",
    "./dist/react/index.js",
    "./wasm/attrmap.js",
    "./wasm/attrmap_bg.wasm",
    "./wasm/attrmap_inline.js",
    ...["verifier", "maintenance"].flatMap((module) =>
      [".js", ".d.ts", "_bg.wasm", "_inline.js", "_inline.d.ts"].map((end) => `./wasm/attrmap_${module}${end}`),
    ),
    "./package.json",
  ]) {
    assert.ok(files.includes(needed), `${needed} missing from ${files.join(", ")}`);
  }
  assert.ok(!files.some((f) => f.startsWith("./src/") || f.endsWith(".rs")), files.join(", "));
});

test("the package ships the conformance runner as a bin, with the repository's vectors as they are", () => {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  assert.deepEqual(manifest.bin, { "attrmap-conformance": "./dist/conformance/cli.js" });
  assert.match(readFileSync(join(pkgDir, "dist/conformance/cli.js"), "utf8"), /^#!\/usr\/bin\/env node\n/);
  const vectorsDir = join(import.meta.dirname, "../conformance");
  const list = (dir: string) =>
    execFileSync("find", [".", "-type", "f", "(", "-name", "*.json", "-o", "-name", "*.ndjson", ")"], {
      cwd: dir,
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean)
      .sort();
  const files = list(vectorsDir);
  assert.ok(files.length >= 25, files.join(", "));
  assert.deepEqual(list(join(pkgDir, "vectors")), files);
  for (const f of files)
    assert.equal(readFileSync(join(pkgDir, "vectors", f), "utf8"), readFileSync(join(vectorsDir, f), "utf8"), f);
  // Only the vectors: not the generator, nor the testees of this repository.
  assert.deepEqual(
    execFileSync("find", [".", "-type", "f", "!", "-name", "*.json", "!", "-name", "*.ndjson"], {
      cwd: join(pkgDir, "vectors"),
      encoding: "utf8",
    }),
    "",
  );
});

test("npm pack in pkg/ gives the same files as the tarball the tests install", () => {
  const listed = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--silent"], {
      cwd: join(import.meta.dirname, "../../pkg"),
      encoding: "utf8",
    }),
  )[0].files.map((f: { path: string }) => f.path);
  const installed = execFileSync("find", [".", "-type", "f"], { cwd: pkgDir, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && f !== "./.installed-from-tarball")
    .map((f) => f.slice(2));
  assert.deepEqual(listed.sort(), installed.sort());
});

test("no public export of any entry is typed any", typeCheck, () => {
  const entries = ["index", "browser/index", "export-import/index", "dex/index", "http/index", "react/index"].map((e) =>
    join(pkgDir, `dist/${e}.d.ts`),
  );
  const program = ts.createProgram(entries, {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    jsx: ts.JsxEmit.ReactJSX,
  });
  const checker = program.getTypeChecker();
  // Walk the declarations the package itself wrote for each export (functions, classes,
  // interfaces, type aliases) and report every `any` written in them.
  const offenders: string[] = [];
  for (const entry of entries) {
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
    assert.ok(exports.length >= 1, `${entry} exports nothing`);
    for (const sym of exports) {
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      for (const decl of target.declarations ?? []) {
        const visit = (node: ts.Node): void => {
          if (node.kind === ts.SyntaxKind.AnyKeyword) offenders.push(`${sym.name}: ${decl.getText().slice(0, 120)}`);
          ts.forEachChild(node, visit);
        };
        visit(decl);
      }
    }
  }
  assert.deepEqual(offenders, []);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(diagnostics, []);
});

/** The installed package's exports map. */
function manifestExports(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).exports;
}

/** Type-checks `source` as a user's project with `lib` (strict, library declarations checked too); returns the errors. */
function compileAsUser(lib: string[], types: string[], source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "attrmap-user-"));
  try {
    const file = join(dir, "use.ts");
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: lib.map((l) => `lib.${l.toLowerCase()}.d.ts`),
      types,
      typeRoots: [join(dirname(pkgDir), "@types")],
      baseUrl: dirname(dirname(pkgDir)),
      // Each entry's declarations where the exports map says (React's need React's types).
      paths: Object.fromEntries(
        Object.entries(manifestExports())
          .filter(([entry]) => entry !== "./react" && entry !== "./package.json")
          .map(([entry, to]) => [`attrmap${entry.slice(1)}`, [join(pkgDir, (to as { types: string }).types)]]),
      ),
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.fileName.split("/").slice(-2).join("/") ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USE = `
import { openAttrmap, emailPartition, retryOnConflict, type CustomerProfile } from "attrmap";
import { exportText } from "attrmap/export-import";
import { exportDexRequests } from "attrmap/dex";
import { createHandler } from "attrmap/http";
export async function use(factory: Parameters<typeof openAttrmap>[0]): Promise<CustomerProfile | undefined> {
  const store = openAttrmap(factory);
  const directory = await store.customerDirectory();
  await retryOnConflict(() => directory.upsertProfile({ emailAddress: "a@example.com" }, { lock: "ifAvailable" }));
  createHandler(store);
  await exportText(store);
  exportDexRequests(store, { flowId: "f", sdk: "go" });
  return directory.getProfile(emailPartition("a@example.com").canonicalEmail);
}
`;

test("the declarations compile for a Node project (no DOM lib), a worker project and a page project", typeCheck, () => {
  assert.deepEqual(compileAsUser(["ES2022"], ["node"], USE), []);
  assert.deepEqual(compileAsUser(["ES2022", "WebWorker"], [], USE), []);
  // In a page, the platform's own objects are accepted where the package asks for them.
  const page = `${USE}\nopenAttrmap({ indexedDB, IDBKeyRange, locks: navigator.locks });\n`;
  assert.deepEqual(compileAsUser(["ES2022", "DOM"], [], page), []);
  // And a profile without an email is a type error.
  const missing = `${USE}
import type { CustomerProfileInput } from "attrmap";
export const p: CustomerProfileInput = { fullName: "x" };
`;
  assert.ok(compileAsUser(["ES2022"], ["node"], missing).some((e) => e.includes("emailAddress")));
});

test("an index's key path is checked against the map's value type; a map of unknown values takes any path", typeCheck, () => {
  const use = (path: string) => `
import { openAttrmap } from "attrmap";
interface Person { company: string; tier: number | null; address?: { city: string }; tags: string[]; born: Date }
export async function typed(): Promise<void> {
  const store = openAttrmap();
  const people = await store.partitionedMap<Person>("people", {
    indexes: { byCity: "address.city", byTag: { keyPath: "tags", multiEntry: true } },
  });
  await people.createIndex("byPair", ["company", "tier"]);
  await people.createIndex("byIt", ${JSON.stringify(path)});
  await (await store.customerDirectory({ indexes: { byCompany: "companyName" } })).where("byCompany").equals("Acme").toArray();
  await (await store.partitionedMap("untyped")).createIndex("any", "any.path.at.all");
}
`;
  assert.deepEqual(compileAsUser(["ES2022", "DOM"], [], use("born")), []);
  const misspelled = compileAsUser(["ES2022", "DOM"], [], use("compnay"));
  assert.equal(misspelled.length, 1, misspelled.join("\n"));
  assert.match(misspelled[0]!, /"compnay"/);
  assert.match(compileAsUser(["ES2022", "DOM"], [], use("address.town")).join("\n"), /"address\.town"/);
});

test("where takes the names of the indexes a map or log declares; any name when it declares none", typeCheck, () => {
  const use = (name: string) => `
import { openAttrmap, type PartitionedMap } from "attrmap";
interface Person { company: string; tier: number }
export async function typed(): Promise<void> {
  const store = openAttrmap();
  const people = await store.partitionedMap("people", { indexes: { byCompany: "company", byTier: "tier" } });
  await people.where(${JSON.stringify(name)}).keys();
  const persons = await store.partitionedMap<Person, "byCompany">("persons", { indexes: { byCompany: "company" } });
  await persons.where(${JSON.stringify(name)}).keys();
  await (await persons.createIndex("byPair", ["company", "tier"])).where("byPair").keys();
  const widened: PartitionedMap<Person> = persons; // any name, for an index another tab made
  await widened.where("madeElsewhere").keys();
  await (await store.partitionedMap<Person>("loose", { indexes: { byTier: "tier" } })).where("anything").keys();
  await (await store.chunkedLog("audit", { indexes: { byType: "type" } })).where("byType").keys();
  const directory = await store.customerDirectory({ indexes: { byCompany: "companyName" } });
  await directory.where(${JSON.stringify(name)}).keys();
  const archive = await store.subscriberArchive({ indexes: { byCompany: "subscriberId" } });
  await archive.where(${JSON.stringify(name)}).keys();
  await (await store.customerDirectory()).where("anything").keys();
  await (await store.partitionedMap("none", { indexes: {} })).where("anything").keys(); // none declared: any name
}
`;
  assert.deepEqual(compileAsUser(["ES2022", "DOM"], [], use("byCompany")), []);
  const misspelled = compileAsUser(["ES2022", "DOM"], [], use("byCompnay"));
  assert.equal(misspelled.length, 4, misspelled.join("\n"));
  for (const e of misspelled) assert.match(e, /"byCompnay"/);
  // The type arguments and the option must name the same indexes.
  const undeclared = `import { openAttrmap } from "attrmap";
await openAttrmap().partitionedMap<{ a: string }, "byA" | "byB">("m", { indexes: { byA: "a" } });
export {};
`;
  assert.match(compileAsUser(["ES2022", "DOM"], [], undeclared).join("\n"), /byB/);
});
