// make bench, storage part: attrmap beside its last release (what this version changed), the
// fastest correct plain-IndexedDB code for the same work (the floor), Dexie and idb-keyval, in one
// browser with an on-disk profile (see
// rounds.ts). Single operations take turns in blocks (interleaved, in
// tests/shared/storage-bench.ts, the page side). Printed: the median time per operation and, for
// attrmap, its ratio to each peer with the spread of the per-round ratios. Figures, not tests.
import "../browser/page-types.js";
import { SHARED_PATH } from "../browser/harness.js";
import type { BenchLibraries, BenchOptions, Contender } from "../shared/storage-bench.js";
import { RELEASED, ROWS } from "../shared/storage-bench.js";
import { printTable } from "./report.js";
import { ENGINE, inRounds, RELEASED_PATH } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const OPTIONS = { size: Number(process.env.BENCH_SIZE ?? 10_000), ops: 500, bulk: 100_000, concurrent: 1000 };
const CONTENDERS: Contender[] = ["attrmap", RELEASED, "raw", "dexie", "idb-keyval"];

const results = await inRounds(
  CONTENDERS,
  ROUNDS,
  (round) => CONTENDERS.map((who) => `bench-${who}-${round}`),
  (tab, order, round) =>
    tab.evaluate(
      async ({ order, options, path, releasedPath }) => {
        const bench = (await import(`${path}storage-bench.js`)) as typeof import("../shared/storage-bench.js");
        const Dexie = ((await import("/vendor/dexie.mjs" as string)) as { Dexie: BenchLibraries["Dexie"] }).Dexie;
        const idbKeyval = (await import("/vendor/idb-keyval.js" as string)) as BenchLibraries["idbKeyval"];
        const released = (await import(releasedPath)) as BenchLibraries["released"];
        return bench.runRound({ attrmap: window.attrmap, released, Dexie, idbKeyval }, order, options);
      },
      { order, options: { ...OPTIONS, round } satisfies BenchOptions, path: SHARED_PATH, releasedPath: RELEASED_PATH },
    ),
);
printTable(
  `Storage in ${ENGINE} (on-disk profile), ` +
    `${OPTIONS.size.toLocaleString("en")} profiles and subscribers stored, ` +
    `${ROUNDS} rounds: median time per operation; attrmap's ratio to each peer, median (min to max of the rounds)`,
  CONTENDERS,
  Object.values(ROWS),
  results,
);
