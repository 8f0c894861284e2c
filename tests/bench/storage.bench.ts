// make bench, storage part: attrmap beside the fastest correct plain-IndexedDB code for the
// same work (the floor), Dexie and idb-keyval, in one browser with an on-disk profile:
// Chromium unless BENCH_ENGINE says firefox or webkit. Several rounds, each in a fresh tab where
// every contender gets a fresh database; single operations take turns in blocks (interleaved, in
// tests/shared/storage-bench.ts, the page side). Printed: the median time per operation and, for
// attrmap, its ratio to each peer with the spread of the per-round ratios. Figures, not tests.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import "../browser/page-types.js";
import { dispose, ENGINES, type EngineName, launchBrowser } from "../browser/engines.js";
import { openPage, SHARED_PATH, serveWww } from "../browser/harness.js";
import { type BenchOptions, type BenchResult, type Contender, ROWS } from "../shared/storage-bench.js";

const ENGINE = (process.env.BENCH_ENGINE ?? "chromium") as EngineName;
if (!ENGINES.includes(ENGINE)) throw new Error(`BENCH_ENGINE must be one of ${ENGINES.join(", ")}, not ${ENGINE}`);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const OPTIONS = { size: Number(process.env.BENCH_SIZE ?? 10_000), ops: 500, bulk: 100_000, concurrent: 1000 };
const CONTENDERS: Contender[] = ["attrmap", "raw", "dexie", "idb-keyval"];

const require = createRequire(import.meta.url);
const server = await serveWww();
for (const [path, pkg] of [
  ["/vendor/dexie.mjs", "dexie/dist/dexie.mjs"],
  ["/vendor/idb-keyval.js", "idb-keyval/dist/index.js"],
])
  server.files.set(path!, { type: "text/javascript", body: readFileSync(require.resolve(pkg!), "utf8") });
// On disk in every engine: WebKit without a driver (under WebDriver its site data would be
// in memory only; see LaunchOptions.keepData).
const browser = await launchBrowser(ENGINE, undefined, { keepData: true });

/**
 * The order the contenders are set up and run their concurrent and bulk rows in, in `round`:
 * a Williams design, in which over every CONTENDERS.length rounds each contender goes first
 * once and right after each other contender once. (A plain rotation would keep every contender
 * behind the same one, in that one's background work.)
 */
function order(round: number): Contender[] {
  const n = CONTENDERS.length;
  const first = Array.from({ length: n }, (_, i) => (i % 2 ? (i + 1) / 2 : (n - i / 2) % n));
  return first.map((c) => CONTENDERS[(c + round) % n]!);
}

const results = new Map<Contender, BenchResult[]>(CONTENDERS.map((c) => [c, []]));
let previous: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const tab = await openPage(browser, server.origin);
  const result = await tab.evaluate(
    async ({ order, options, path, previous }) => {
      // The previous round's tab is closed: its databases can go now, before the timing.
      // WebKit without a driver closes a tab by a message the page reads a moment later, so its
      // connections may outlive the close: each deletion is awaited 2 s at most, and finishes later.
      await Promise.all(
        previous.map(
          (name) =>
            new Promise((r) => {
              indexedDB.deleteDatabase(name).onsuccess = r;
              setTimeout(r, 2000);
            }),
        ),
      );
      const bench = (await import(`${path}storage-bench.js`)) as typeof import("../shared/storage-bench.js");
      const Dexie = ((await import("/vendor/dexie.mjs" as string)) as { Dexie: BenchLibraryDexie }).Dexie;
      const idbKeyval = (await import("/vendor/idb-keyval.js" as string)) as BenchLibraryKeyval;
      return bench.runRound({ attrmap: window.attrmap, Dexie, idbKeyval }, order, options);
    },
    { order: order(round), options: { ...OPTIONS, round } satisfies BenchOptions, path: SHARED_PATH, previous },
  );
  await tab.close();
  previous = CONTENDERS.map((who) => `bench-${who}-${round}`);
  for (const who of CONTENDERS) results.get(who)!.push(result[who]!);
  process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
}
await dispose(browser);
await server.close();

type BenchLibraryDexie = import("../shared/storage-bench.js").BenchLibraries["Dexie"];
type BenchLibraryKeyval = import("../shared/storage-bench.js").BenchLibraries["idbKeyval"];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(1)} us`);
console.log(
  `\nStorage in ${ENGINE} (on-disk profile), ` +
    `${OPTIONS.size.toLocaleString("en")} profiles and subscribers stored, ` +
    `${ROUNDS} rounds: median time per operation; attrmap's ratio to each peer, median (min to max of the rounds)`,
);
console.log(`${"operation".padEnd(38)}${CONTENDERS.map((c) => c.padStart(12)).join("")}   ratios`);
for (const row of Object.values(ROWS)) {
  const cells = CONTENDERS.map((c) => {
    const xs = results
      .get(c)!
      .map((r) => r[row])
      .filter((x): x is number => x !== undefined);
    return xs.length ? ms(median(xs)) : "-";
  });
  const ratios = CONTENDERS.slice(1).flatMap((peer) => {
    const per = results.get("attrmap")!.flatMap((r, i) => {
      const p = results.get(peer)![i]![row];
      return p === undefined || r[row] === undefined ? [] : [r[row]! / p];
    });
    if (per.length === 0) return [];
    return [`/${peer} ${median(per).toFixed(2)}x (${Math.min(...per).toFixed(2)} to ${Math.max(...per).toFixed(2)})`];
  });
  console.log(`${row.padEnd(38)}${cells.map((c) => c.padStart(12)).join("")}   ${ratios.join(", ")}`);
}
