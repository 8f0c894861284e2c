// npm's `prepack` in pkg/: copies the README, the changelog, the benchmarks, the licences and
// docs/ from the repository root into the package, so that `npm pack` there (or `make pack`)
// gives the whole package the registry page and the README's links need; and the conformance
// vectors (tests/conformance: the JSON files and export/), which attrmap-conformance reads.
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "pkg");
for (const file of ["README.md", "BENCHMARKS.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"]) {
  cpSync(join(root, file), join(pkg, file));
}
// docs/ as it is now: a page removed from the repository leaves the package too.
rmSync(join(pkg, "docs"), { recursive: true, force: true });
mkdirSync(join(pkg, "docs"));
for (const page of readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"))) {
  cpSync(join(root, "docs", page), join(pkg, "docs", page));
}
// The vectors as they are now: the JSON files and export/, not the generator nor the testees beside them.
rmSync(join(pkg, "vectors"), { recursive: true, force: true });
const vectors = join(root, "tests", "conformance");
const isVectors = (f) => f === vectors || f === join(vectors, "export") || /\.(json|ndjson)$/.test(f);
cpSync(vectors, join(pkg, "vectors"), { recursive: true, filter: isVectors });
