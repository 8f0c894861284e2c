// The sizes README.md and BENCHMARKS.md give of the package as it is now are the ones make bench
// measures (shared/sizes.ts, of the package installed from the tarball): each is marked
// (<!--size:page.core-->44.4 KiB) and written by `make bench`, and went stale unseen while it was
// copied by hand. Fails on a marked figure off by more than 0.3 KiB (a ratio by more than 0.01),
// on a marker that names no measured figure, and on a size in KiB in the README with no marker.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIGURES, type FigureName, formatFigure, isRatio, markedFigures, measureSizes, type Sizes } from "../shared/sizes.js";

const DOCS = ["README.md", "BENCHMARKS.md"] as const;
const read = (doc: string) => readFileSync(fileURLToPath(new URL(`../../${doc}`, import.meta.url)), "utf8");
const FIX = "run `make bench` (or `cd tests && node --import tsx bench/size.bench.ts --write`) to write the measured figures";

/**
 * README sizes in KiB that carry no marker, each with why: a phrase of the README that holds it.
 * None today: the README gives only the figures of the build it ships with.
 */
const UNMARKED: ReadonlyArray<{ phrase: string; why: string }> = [];

let sizes: Sizes;
before(async () => {
  sizes = await measureSizes();
});

test("every marker in README.md and BENCHMARKS.md is well formed and names a figure the measurement knows", () => {
  const malformed = DOCS.flatMap((doc) =>
    markedFigures(read(doc)).flatMap((m) => (m.problem === undefined ? [] : [`${doc}:${m.line}: ${m.marker} ${m.problem}`])),
  );
  assert.deepEqual(malformed, [], `malformed markers:\n${malformed.join("\n")}`);
});

test("every marked figure in README.md and BENCHMARKS.md is the measured one", () => {
  const wrong = DOCS.flatMap((doc) =>
    markedFigures(read(doc)).flatMap((m) => {
      if (m.problem !== undefined) return []; // the test above names it
      const name = m.name as FigureName;
      const measured = sizes[name][m.field];
      const off = isRatio(name) ? Math.abs(m.value - measured) > 0.01 : Math.abs(m.value - measured / 1024) > 0.3;
      return off ? [`${doc}:${m.line}: ${m.marker} says ${m.documented}, measured ${formatFigure(name, m.field, sizes)}`] : [];
    }),
  );
  assert.deepEqual(wrong, [], `figures that differ from what make bench measures (${FIX}):\n${wrong.join("\n")}`);
});

test("BENCHMARKS.md's table of what ships now has every figure", () => {
  const names = new Set(markedFigures(read("BENCHMARKS.md")).map((m) => m.name));
  assert.deepEqual(
    Object.keys(FIGURES).filter((name) => !names.has(name)),
    [],
    "figures with no marker in BENCHMARKS.md",
  );
});

test("every size in KiB in the README is a marked figure, or an earlier build's listed here with why", () => {
  const readme = read("README.md");
  const marked = markedFigures(readme);
  assert.ok(marked.length >= 20, `only ${marked.length} marked figures in README.md`);
  const excepted = UNMARKED.flatMap(({ phrase }) => {
    const at = [...readme.matchAll(new RegExp(phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g"))];
    assert.ok(at.length > 0, `UNMARKED lists "${phrase}", which README.md no longer has: take it off the list`);
    return at.map((m) => [m.index, m.index + phrase.length] as const);
  });
  const unmarked = [...readme.matchAll(/\d+(?:\.\d+)?\s+KiB/g)].filter(
    (k) =>
      !marked.some((m) => m.start === k.index) && !excepted.some(([from, to]) => from <= k.index && k.index + k[0].length <= to),
  );
  assert.deepEqual(
    unmarked.map((k) => `README.md:${readme.slice(0, k.index).split("\n").length}: ${k[0].replace(/\s+/, " ")}`),
    [],
    "sizes with no marker: mark each <!--size:NAME--> (tests/shared/sizes.ts names them), or, for a figure of an earlier " +
      "build, say so in the sentence and list it in UNMARKED of this test",
  );
});
