// The package as an npm user meets it: import by name in plain Node 20, the exports map,
// typed declarations without `any`, and what the tarball ships.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("attrmap/package.json"));

test("plain node (no loader, no flags) imports the pure functions by package name", () => {
  const out = execFileSync(process.execPath, [
    "--input-type=module",
    "-e",
    'import { emailPartition, AttrmapError } from "attrmap"; const p = emailPartition(" Alice@Example.COM "); console.log(p.partitionName, p.hash, typeof AttrmapError);',
  ], { cwd: dirname(pkgDir), encoding: "utf8" });
  assert.equal(out.trim(), "partition-278 2493822278 function");
});

test("the exports map hides internals", async () => {
  await assert.rejects(import("attrmap/dist/core.js" as string), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.deepEqual(Object.keys(manifest.exports), [".", "./package.json"]);
});

test("the tarball ships the compiled package and the inlined wasm, not sources", () => {
  const files = execFileSync("find", [".", "-type", "f"], { cwd: pkgDir, encoding: "utf8" }).split("\n").filter(Boolean);
  for (const needed of ["./dist/index.js", "./dist/index.d.ts", "./wasm/attrmap.js", "./wasm/attrmap_inline.js", "./package.json"]) {
    assert.ok(files.includes(needed), `${needed} missing from ${files.join(", ")}`);
  }
  assert.ok(!files.some((f) => f.startsWith("./src/") || f.endsWith(".rs")), files.join(", "));
});

test("no public export is typed any", () => {
  const entry = join(pkgDir, "dist/index.d.ts");
  const program = ts.createProgram([entry], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 });
  const checker = program.getTypeChecker();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
  assert.ok(exports.length >= 10, `only ${exports.length} exports`);
  // Walk the declarations the package itself wrote for each export (functions, classes,
  // interfaces, type aliases) and report every \`any\` written in them.
  const offenders: string[] = [];
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
  assert.deepEqual(offenders, []);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(diagnostics, []);
});
