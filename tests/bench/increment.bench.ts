// make bench, increment part: moving what changed to the engine. A directory of 100,000
// profiles is exported whole (exportDexRequests), then 100 profiles change and the increment
// since the full export's checkpoint is computed; then 100 more change that lie in 10
// partitions only, and the increment since the first is computed. Each timed to the last request,
// in one browser with an on-disk profile, a fresh database each round. Printed: each time, the
// partitions each increment carries (the engine's attribute is a whole partition), and the full
// export's time over each increment's.
import "../browser/page-types.js";
import { dispose, launchBrowser } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";
import { ENGINE } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const CHANGED = 100;

const server = await serveWww();
const browser = await launchBrowser(ENGINE, undefined, { keepData: true });
interface Increment {
  ms: number;
  attributes: number;
  /** The partitions of the changed profiles (by emailPartition). */
  partitions: number;
}
const rows: Array<{ full: number; scattered: Increment; clustered: Increment }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const tab = await openPage(browser, server.origin);
  rows.push(
    await tab.evaluate(
      async ({ size, changed, name }) => {
        const store = window.attrmap.openAttrmap({ name });
        const directory = await store.customerDirectory();
        const profile = (i: number, tier: string) => ({
          emailAddress: `user${i}@example.com`,
          fullName: `User ${i}`,
          customerTier: tier,
        });
        await directory.upsertProfiles(Array.from({ length: size }, (_, i) => profile(i, "silver")));
        const drain = async (since?: number) => {
          let checkpoint = 0;
          let attributes = 0;
          const started = performance.now();
          for await (const r of window.attrmap.exportDexRequests(store, { flowId: "f", sdk: "typescript", since })) {
            checkpoint = r.checkpoint;
            attributes += r.attributeCount;
          }
          return { ms: performance.now() - started, checkpoint, attributes };
        };
        const full = await drain();
        const partitionOf = (i: number) => window.attrmap.emailPartition(`user${i}@example.com`).partitionName;
        const changeAndDrain = async (picked: number[], tier: string, since: number) => {
          await directory.upsertProfiles(picked.map((i) => profile(i, tier)));
          const { ms, attributes, checkpoint } = await drain(since);
          return { ms, attributes, checkpoint, partitions: new Set(picked.map(partitionOf)).size };
        };
        // 100 profiles spread over the directory: nearly as many partitions.
        const scattered = await changeAndDrain(
          Array.from({ length: changed }, (_, i) => Math.floor((i * size) / changed)),
          "gold",
          full.checkpoint,
        );
        // 100 profiles that lie in 10 partitions (the first 10 the profiles in order fall in).
        const clusters = new Map<string, number[]>();
        for (let i = 0; i < size && [...clusters.values()].flat().length < changed; i++) {
          const at = clusters.get(partitionOf(i)) ?? (clusters.size < 10 ? [] : undefined);
          if (at) clusters.set(partitionOf(i), [...at, i]);
        }
        const clustered = await changeAndDrain([...clusters.values()].flat(), "platinum", scattered.checkpoint);
        return { full: full.ms, scattered, clustered };
      },
      { size: SIZE, changed: CHANGED, name: `increment-${round}` },
    ),
  );
  await tab.close();
  process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
}
await dispose(browser);
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\nIncrement in ${ENGINE} (on-disk profile), ${SIZE.toLocaleString("en")} profiles, ${CHANGED} changed, ` +
    `${ROUNDS} rounds (median, min to max)`,
);
console.log(`full exportDexRequests               ${median(rows.map((r) => r.full)).toFixed(0)} ms`);
for (const kind of ["scattered", "clustered"] as const) {
  const ratios = rows.map((r) => r.full / r[kind].ms);
  console.log(
    `increment, ${kind}: ${median(rows.map((r) => r[kind].ms)).toFixed(1)} ms, ` +
      `${rows.map((r) => r[kind].attributes).join(", ")} attributes ` +
      `(partitions of the changed profiles: ${rows.map((r) => r[kind].partitions).join(", ")}); ` +
      `full / increment ${median(ratios).toFixed(0)}x (${Math.min(...ratios).toFixed(0)}x to ${Math.max(...ratios).toFixed(0)}x)`,
  );
}
