// make bench, search part: finding profiles by company through an index, in attrmap (the
// customer directory's index), the last release (the same, from its tarball: what this version
// changed), plain IndexedDB (a native index: the floor) and Dexie, in one
// browser with an on-disk profile (see rounds.ts; tests/shared/search-bench.ts is the page side).
// Printed: the median time per operation and attrmap's ratios to each peer. Figures, not tests.
import "../browser/page-types.js";
import { SHARED_PATH } from "../browser/harness.js";
import type { SearchContender, SearchLibraries, SearchOptions } from "../shared/search-bench.js";
import { SEARCH_ROWS } from "../shared/search-bench.js";
import { RELEASED } from "../shared/storage-bench.js";
import { printTable } from "./report.js";
import { ENGINE, inRounds, RELEASED_PATH } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const OPTIONS = { size: Number(process.env.BENCH_SIZE ?? 10_000), ops: 200 };
const CONTENDERS: SearchContender[] = ["attrmap", RELEASED, "raw", "dexie"];

const results = await inRounds(
  CONTENDERS,
  ROUNDS,
  (round) => CONTENDERS.map((who) => `search-${who}-${round}`),
  (tab, order, round) =>
    tab.evaluate(
      async ({ order, options, path, releasedPath }) => {
        const bench = (await import(`${path}search-bench.js`)) as typeof import("../shared/search-bench.js");
        const Dexie = ((await import("/vendor/dexie.mjs" as string)) as { Dexie: SearchLibraries["Dexie"] }).Dexie;
        const released = (await import(releasedPath)) as SearchLibraries["released"];
        return bench.runSearchRound({ attrmap: window.attrmap, released, Dexie }, order, options);
      },
      { order, options: { ...OPTIONS, round } satisfies SearchOptions, path: SHARED_PATH, releasedPath: RELEASED_PATH },
    ),
);
printTable(
  `Search in ${ENGINE} (on-disk profile), ${OPTIONS.size.toLocaleString("en")} profiles of 100 companies, ` +
    `${ROUNDS} rounds: median time per operation; attrmap's ratio to each peer, median (min to max of the rounds)`,
  CONTENDERS,
  Object.values(SEARCH_ROWS),
  results,
);
