// make bench, index-cost part: building an index over 100,000 entries beside Dexie adding the same
// index by a version upgrade and beside raw IndexedDB writing the same entries in two layouts
// (one record per entry, as stored today; sorted pages), and an upsert into a map with 0, 1, 2 and
// 4 indexes beside raw transactions doing what each layout asks of one (issue 49). One browser
// (BENCH_ENGINE), on-disk profile, a fresh tab per round (tests/shared/index-cost-bench.ts is the
// page side). Printed: each row's median and its ratio to the table's first row, with the spread
// of the per-round ratios. Figures, not tests.
import "../browser/page-types.js";
import { SHARED_PATH } from "../browser/harness.js";
import { BUILD_ROWS, BYTES, type IndexCostLibraries, WRITE_ROWS } from "../shared/index-cost-bench.js";
import { median, printRatios } from "./report.js";
import { ENGINE, inRounds } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
/** Profiles of the write table: 100 a partition, as SIZE's in 1000 partitions, in a tenth of the time to set up. */
const WRITE_SIZE = 10_000;
const OPS = 200;
/** The tables to measure: BENCH_PARTS=build, =write or both (the default). */
const PARTS = (process.env.BENCH_PARTS ?? "build,write").split(",");

const results = await inRounds(
  ["attrmap"],
  ROUNDS,
  (round) => [
    ...["index-cost", "index-cost-raw", "index-cost-dexie", "index-write", "index-write-raw"].map((db) => `${db}-${round}`),
  ],
  async (tab, _order, round) => {
    const run = (part: "build" | "write") =>
      tab.evaluate(
        async ({ part, path, size, writeSize, ops, round }) => {
          const bench = (await import(`${path}index-cost-bench.js`)) as typeof import("../shared/index-cost-bench.js");
          const Dexie = ((await import("/vendor/dexie.mjs" as string)) as { Dexie: IndexCostLibraries["Dexie"] }).Dexie;
          const libs = { attrmap: window.attrmap, Dexie };
          return part === "build" ? bench.runBuildRound(libs, size, round) : bench.runWriteRound(libs, writeSize, ops, round);
        },
        { part, path: SHARED_PATH, size: SIZE, writeSize: WRITE_SIZE, ops: OPS, round },
      );
    return {
      attrmap: {
        ...(PARTS.includes("build") ? await run("build") : {}),
        ...(PARTS.includes("write") ? await run("write") : {}),
      },
    };
  },
);
const rounds = results.get("attrmap")!;
const size = SIZE.toLocaleString("en");
if (PARTS.includes("build")) {
  printRatios(
    `Building an index over ${size} entries in ${ENGINE} (on-disk profile), ${ROUNDS} rounds: median; ratio to Dexie's upgrade`,
    Object.values(BUILD_ROWS),
    rounds,
  );
  const bytes = Object.values(BYTES).map((row) => {
    const each = median(rounds.map((r) => r[row]!));
    return `${row}: ${Number.isNaN(each) ? "not reported" : each.toFixed(0)}`;
  });
  console.log(`Storage an index adds (navigator.storage.estimate(), median): ${bytes.join(", ")}`);
}
if (PARTS.includes("write")) {
  const writes = Object.values(WRITE_ROWS);
  const raw = writes.indexOf(WRITE_ROWS.rawNone);
  printRatios(
    `An upsert with ${WRITE_SIZE.toLocaleString("en")} profiles, 100 a partition, in ${ENGINE}, ${ROUNDS} rounds of ${OPS}: ` +
      "median; ratio to no index",
    writes.slice(0, raw),
    rounds,
  );
  printRatios("The same work in raw IndexedDB, by layout: median; ratio to the partition alone", writes.slice(raw), rounds);
}
