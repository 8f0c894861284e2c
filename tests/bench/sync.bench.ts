// make bench, sync part (docs/sync.md): a directory of 100,000 profiles restored from the engine's
// answer (importDexAttributes into an empty database) beside a full importData of the same
// profiles; a pull in which 100 of them changed on the engine, beside the restore; and
// exportDexEntryChanges after 100 local changes, scattered over ~100 partitions and clustered in
// 10, to see that it costs what the changed partitions cost, not the map. The pull is timed twice:
// from the whole answer (GetAttributes with allKeys), and from the changed partitions alone. The engine's answer is
// built in the page from the store's own SetAttributes requests (GetAttributes answers the same
// `{ key, value }` pairs; the Node suite checks that form against the engine's classes). One
// browser with an on-disk profile, fresh databases each round.
import "../browser/page-types.js";
import { dispose, launchBrowser } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";
import { ENGINE } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const CHANGED = 100;

const server = await serveWww();
const browser = await launchBrowser(ENGINE, undefined, { keepData: true });
interface Round {
  importData: number;
  restore: number;
  pull: number;
  pulledApplied: number;
  partialPull: number;
  scattered: { ms: number; partitions: number; changes: number };
  clustered: { ms: number; partitions: number; changes: number };
}
const rows: Round[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const tab = await openPage(browser, server.origin);
  rows.push(
    await tab.evaluate(
      async ({ size, changed, name }) => {
        const { openAttrmap, exportDexRequests, importDexAttributes, exportDexEntryChanges, exportText, importData } =
          window.attrmap;
        const profile = (i: number, tier: string) => ({
          emailAddress: `user${i}@example.com`,
          fullName: `User ${i}`,
          customerTier: tier,
        });
        const source = openAttrmap({ name: `${name}-source` });
        const directory = await source.customerDirectory();
        await directory.upsertProfiles(Array.from({ length: size }, (_, i) => profile(i, "silver")));
        /** The engine's answer: every attribute the store's requests set, as GetAttributes gives them. */
        const answer = async () => {
          const attributes: unknown[] = [];
          for await (const r of exportDexRequests(source, { flowId: "f", sdk: "typescript" }))
            attributes.push(...(JSON.parse(r.json) as { attributes: unknown[] }).attributes);
          return JSON.stringify({ attributes });
        };
        const timed = async <T>(f: () => Promise<T>) => {
          const started = performance.now();
          const value = await f();
          return { ms: performance.now() - started, value };
        };
        const file = await exportText(source);
        const imported = await timed(() => importData(openAttrmap({ name: `${name}-imported` }), file));
        const first = await answer();
        const device = openAttrmap({ name: `${name}-device` });
        const restored = await timed(() => importDexAttributes(device, first, { sdk: "typescript" }));
        const partitionOf = (i: number) => window.attrmap.emailPartition(`user${i}@example.com`).partitionName;
        // 100 profiles change on the engine, spread over the directory.
        const spread = Array.from({ length: changed }, (_, i) => Math.floor((i * size) / changed));
        await directory.upsertProfiles(spread.map((i) => profile(i, "gold")));
        const second = await answer();
        const pulled = await timed(() => importDexAttributes(device, second, { sdk: "typescript" }));
        // The same change pulled by a backend that answers the changed partitions only (GetAttributes with keys).
        const changedKeys = new Set(spread.map((i) => `customer_profiles_by_email_partition/${partitionOf(i)}`));
        await directory.upsertProfiles(spread.map((i) => profile(i, "copper")));
        const onlyChanged = JSON.stringify({
          attributes: (JSON.parse(await answer()) as { attributes: Array<{ key: string }> }).attributes.filter((a) =>
            changedKeys.has(a.key),
          ),
        });
        const partial = await timed(() => importDexAttributes(device, onlyChanged, { sdk: "typescript", partial: true }));
        // 100 local changes, then the entry changes since the pull: scattered, then clustered in 10 partitions.
        const mine = await device.customerDirectory();
        const entryChanges = async (picked: number[], tier: string, since: number) => {
          await mine.upsertProfiles(picked.map((i) => profile(i, tier)));
          const { ms, value } = await timed(() => exportDexEntryChanges(device, { since, sdk: "typescript" }));
          await device.acknowledgeChanges(value.checkpoint);
          return {
            ms,
            partitions: new Set(picked.map(partitionOf)).size,
            changes: value.changes.length,
            checkpoint: value.checkpoint,
          };
        };
        const scattered = await entryChanges(
          spread.map((i) => i + 1),
          "platinum",
          await device.changesCheckpoint(),
        );
        const clusters = new Map<string, number[]>();
        for (let i = 0; i < size && [...clusters.values()].flat().length < changed; i++) {
          const at = clusters.get(partitionOf(i)) ?? (clusters.size < 10 ? [] : undefined);
          if (at) clusters.set(partitionOf(i), [...at, i]);
        }
        const clustered = await entryChanges([...clusters.values()].flat(), "bronze", scattered.checkpoint);
        return {
          importData: imported.ms,
          restore: restored.ms,
          pull: pulled.ms,
          pulledApplied: pulled.value.applied.CustomerProfilesByEmailPartition ?? 0,
          partialPull: partial.ms,
          scattered,
          clustered,
        };
      },
      { size: SIZE, changed: CHANGED, name: `sync-${round}` },
    ),
  );
  await tab.close();
  process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
}
await dispose(browser);
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)} to ${Math.max(...xs).toFixed(digits)})`;
console.log(
  `\nSync in ${ENGINE} (on-disk profile), ${SIZE.toLocaleString("en")} profiles, ${CHANGED} changed, ` +
    `${ROUNDS} rounds (median, min to max)`,
);
/** One figure's line: its name, then the median and the spread. */
const line = (name: string, value: string) => console.log(`${name.padEnd(40)}${value}`);
line("importData of the same profiles", `${spread(rows.map((r) => r.importData))} ms`);
line("restore (importDexAttributes, empty)", `${spread(rows.map((r) => r.restore))} ms`);
line(
  "  restore / importData",
  `${spread(
    rows.map((r) => r.restore / r.importData),
    2,
  )}x`,
);
line(
  `pull, ${CHANGED} changed on the engine`,
  `${spread(rows.map((r) => r.pull))} ms (partitions written: ${rows.map((r) => r.pulledApplied).join(", ")})`,
);
line(
  "  restore / pull",
  `${spread(
    rows.map((r) => r.restore / r.pull),
    1,
  )}x`,
);
line("pull of the changed partitions only", `${spread(rows.map((r) => r.partialPull))} ms (partial: true)`);
line(
  "  restore / that pull",
  `${spread(
    rows.map((r) => r.restore / r.partialPull),
    1,
  )}x`,
);
for (const kind of ["scattered", "clustered"] as const)
  line(
    `exportDexEntryChanges, ${kind}`,
    `${spread(
      rows.map((r) => r[kind].ms),
      1,
    )} ms, ${rows.map((r) => r[kind].changes).join(", ")} changes ` +
      `in ${rows.map((r) => r[kind].partitions).join(", ")} partitions`,
  );
