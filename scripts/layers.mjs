// Fails when pkg/src's folders import each other in a loop at run time, or when a source file
// grows past 450 lines. Folders are the package's layers (docs/architecture.md): a folder may use
// the ones below it, and a loop means two layers are one in disguise. Type-only imports are
// erased by the compiler and do not count.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = "pkg/src";
const MAX_LINES = 450;
const files = readdirSync(ROOT, { recursive: true })
  .map((f) => join(ROOT, f))
  .filter((f) => f.endsWith(".ts"));
const folderOf = (file) => relative(ROOT, dirname(file)) || ".";

const problems = [];
const edges = new Map();
for (const file of files) {
  const source = readFileSync(file, "utf8");
  const lines = source.split("\n").length - 1;
  if (lines > MAX_LINES) problems.push(`${file}: ${lines} lines (at most ${MAX_LINES})`);
  // Static imports and re-exports that are not type-only, and dynamic imports (a lazily loaded
  // module still makes its folder depend on the target at run time).
  const specs = [
    ...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)"/gms),
    ...source.matchAll(/^import\s+"(\.[^"]+)"/gm),
    ...source.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g),
  ].map((m) => m[1]);
  for (const spec of specs) {
    const from = folderOf(file);
    const to = folderOf(join(dirname(file), spec));
    if (from === to || to.startsWith("..")) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    edges.get(from).set(to, `${file} imports ${spec}`);
  }
}

// Each edge that closes a loop: a path back from its target to its source.
function pathBetween(start, goal) {
  const seen = new Set();
  const walk = (node, path) => {
    if (node === goal) return path;
    if (seen.has(node)) return undefined;
    seen.add(node);
    for (const [next, why] of edges.get(node) ?? []) {
      const found = walk(next, [...path, why]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, []);
}
for (const [from, targets] of edges) {
  for (const [to, why] of targets) {
    const back = pathBetween(to, from);
    if (back) problems.push(`folders import each other at run time: ${[why, ...back].join(", then ")}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
