// make bench, increment part: moving what changed to the engine. A directory of 100,000
// profiles is exported whole (exportDexRequests), then 100 profiles change and the increment
// since the full export's checkpoint is computed; both timed to the last request, in one
// browser with an on-disk profile, a fresh database each round. Printed: each time, the
// partitions the increment carries, and the full export's time over the increment's.
import "../browser/page-types.js";
import { dispose, launchBrowser } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";
import { ENGINE } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const CHANGED = 100;

const server = await serveWww();
const browser = await launchBrowser(ENGINE, undefined, { keepData: true });
const rows: Array<{ full: number; increment: number; attributes: number; partitions: number }> = [];
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
            attributes += r.attributes;
          }
          return { ms: performance.now() - started, checkpoint, attributes };
        };
        const full = await drain();
        const picked = Array.from({ length: changed }, (_, i) => Math.floor((i * size) / changed));
        await directory.upsertProfiles(picked.map((i) => profile(i, "gold")));
        const increment = await drain(full.checkpoint);
        const partitions = new Set(picked.map((i) => window.attrmap.emailPartition(`user${i}@example.com`).partitionName)).size;
        return { full: full.ms, increment: increment.ms, attributes: increment.attributes, partitions };
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
const ratios = rows.map((r) => r.full / r.increment);
console.log(
  `\nIncrement in ${ENGINE} (on-disk profile), ${SIZE.toLocaleString("en")} profiles, ${CHANGED} changed, ` +
    `${ROUNDS} rounds (median, min to max)`,
);
console.log(`full exportDexRequests      ${median(rows.map((r) => r.full)).toFixed(0)} ms`);
console.log(`increment since its checkpoint ${median(rows.map((r) => r.increment)).toFixed(1)} ms`);
console.log(
  `attributes in the increment  ${rows.map((r) => r.attributes).join(", ")} (partitions of the changed profiles: ${rows
    .map((r) => r.partitions)
    .join(", ")})`,
);
console.log(
  `full / increment             ${median(ratios).toFixed(0)}x ` +
    `(${Math.min(...ratios).toFixed(0)}x to ${Math.max(...ratios).toFixed(0)}x)`,
);
