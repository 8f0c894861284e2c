// The README and docs/ as a stranger meets them: every link stays inside the repository (and
// inside the package, which ships them), and the tables of error codes and HTTP statuses say
// what the code does.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "attrmap";
import { HTTP_STATUS } from "attrmap/http";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const PACKAGE = dirname(createRequire(import.meta.url).resolve("attrmap/package.json"));

/** Markdown files of a tree, as paths relative to it: the README, BENCHMARKS.md and docs/. */
function documents(root: string): string[] {
  return ["README.md", "BENCHMARKS.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith(".md"),
  );
}

/** Every link target of a markdown file: [text](target). */
function links(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

for (const [where, root] of [
  ["the repository", ROOT],
  ["the packed package", PACKAGE],
] as const) {
  test(`README, BENCHMARKS and docs/ in ${where} link only to files that are there`, () => {
    const files = documents(root);
    assert.ok(files.length >= 8, files.join(", "));
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      assert.doesNotMatch(
        text,
        /https?:\/\/(?!127\.0\.0\.1[:/])/,
        `${file} links outside (only the local demo address may appear)`,
      );
      assert.doesNotMatch(text, /\.\.\/shared/, `${file} points at the shared folder`);
      for (const target of links(text)) {
        const path = target.split("#")[0]!;
        assert.ok(existsSync(join(root, dirname(file), path)), `${file} links to ${target}, which is not in ${where}`);
      }
    }
  });
}

test("the package ships its README, its changelog, its licences and the docs", () => {
  for (const file of ["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE", "docs/errors.md", "docs/storage.md"]) {
    assert.ok(existsSync(join(PACKAGE, file)), `${file} is not in the package`);
  }
  assert.equal(readFileSync(join(PACKAGE, "README.md"), "utf8"), readFileSync(join(ROOT, "README.md"), "utf8"));
});

test("every code of the Rust core is an ErrorCode of the package", () => {
  const rust = [...readFileSync(join(ROOT, "src/error.rs"), "utf8").matchAll(/ErrorCode::\w+ => "(\w+)"/g)].map((m) => m[1]!);
  assert.ok(rust.length >= 6);
  for (const code of rust) assert.ok((ERROR_CODES as readonly string[]).includes(code), `${code} is not in ERROR_CODES`);
});

test("docs/errors.md lists exactly the codes there are, each with the status the handler answers", () => {
  const rows = [...readFileSync(join(ROOT, "docs/errors.md"), "utf8").matchAll(/^\| `(\w+)` \| .* \| (\d{3}) \|$/gm)];
  assert.deepEqual(rows.map((r) => r[1]).sort(), [...ERROR_CODES].sort());
  for (const [, code, status] of rows) {
    assert.equal(Number(status), HTTP_STATUS[code as keyof typeof HTTP_STATUS] ?? 500, code);
  }
});
