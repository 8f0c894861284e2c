// make bench, scale part: does the cost per record stay flat as the data grows? Headless
// Chromium, on-disk profile, a fresh database (or a fresh browser, for the demo) per measure.
// - a bulk import through the API: one upsertProfiles call of 10,000 and of 100,000 profiles;
// - the demo's sample import (its form, its batches, its fill chart) of 10,000 and 100,000
//   profiles with a tenth as many subscribers;
// - single upserts and gets with 10,000 profiles in 1000, 100 and 10 partitions (10, 100 and
//   1000 a partition);
// - single upserts and gets with 1,000 profiles in 10 partitions and 100,000 in 1000: the
//   same partition size (about 100), a hundred times the data; beside them the raw floor
//   on the same layout, to tell what IndexedDB itself does with a larger database.
// Printed: the median of the rounds and the large/small ratio per record or per operation.
// Figures, not tests.
import "../browser/page-types.js";
import { dispose, launchBrowser, type Tab } from "../browser/engines.js";
import { openPage, SHARED_PATH, serveWww } from "../browser/harness.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SMALL = 10_000;
const LARGE = 100_000;
const OPS = 200;

const server = await serveWww();

/** Microseconds per profile of one upsertProfiles call of `n` profiles, in a fresh database. */
function bulk(tab: Tab, n: number, name: string): Promise<number> {
  return tab.evaluate(
    async ({ n, name }) => {
      const dir = await window.attrmap.openAttrmap({ name }).customerDirectory();
      const profiles = Array.from({ length: n }, (_, i) => ({ emailAddress: `user${i}@example.com`, fullName: `User ${i}` }));
      const t0 = performance.now();
      await dir.upsertProfiles(profiles);
      return ((performance.now() - t0) * 1000) / n;
    },
    { n, name },
  );
}

/**
 * Microseconds per sequential upsert and per get, with `n` profiles stored in `partitions`
 * partitions: attrmap, and the storage bench's raw floor (tests/shared/storage-bench.ts) on
 * the same partition count.
 */
function singles(tab: Tab, n: number, partitions: number, name: string): Promise<Record<string, number>> {
  return tab.evaluate(
    async ({ n, partitions, name, ops, path }) => {
      const { openAttrmap } = window.attrmap;
      const dir = await openAttrmap({ name }).customerDirectory({ partitionCount: partitions });
      const profile = (emailAddress: string, fullName: string) => ({ emailAddress, fullName, companyName: "", customerTier: "" });
      const stored = Array.from({ length: n }, (_, i) => profile(`user${i}@example.com`, ""));
      await dir.upsertProfiles(stored);
      const time = async (op: (i: number) => Promise<unknown>) => {
        const t0 = performance.now();
        for (let i = 0; i < ops; i++) await op(i);
        return ((performance.now() - t0) * 1000) / ops;
      };
      const newProfile = (i: number) => profile(`new${i}@example.com`, "New");
      const storedEmail = (i: number) => `user${(i * 7919) % n}@example.com`;
      const out = {
        upsert: await time((i) => dir.upsertProfile(newProfile(i))),
        get: await time((i) => dir.getProfile(storedEmail(i))),
      };
      const bench = (await import(`${path}storage-bench.js`)) as typeof import("../shared/storage-bench.js");
      const db = await bench.openRawDatabase(`${name}-raw`);
      const raw = bench.rawProfiles(db, name, partitions);
      await raw.putMany(stored);
      Object.assign(out, {
        "raw upsert": await time((i) => raw.upsert(newProfile(i))),
        "raw get": await time((i) => raw.get(storedEmail(i))),
      });
      db.close();
      return out;
    },
    { n, partitions, name, ops: OPS, path: SHARED_PATH },
  );
}

/** Microseconds per record of the demo's sample import of `profiles` profiles and a tenth as many subscribers. */
async function demoImport(profiles: number): Promise<number> {
  const browser = await launchBrowser("chromium");
  try {
    const tab = await openPage(browser, server.origin, "/");
    return await tab.evaluate(async (profiles) => {
      const input = (id: string) => document.getElementById(id) as HTMLInputElement;
      input("sample-profiles").value = String(profiles);
      input("sample-subscribers").value = String(profiles / 10);
      const message = () => document.getElementById("sample-message")?.textContent ?? "";
      const t0 = performance.now();
      (document.getElementById("sample-import") as HTMLButtonElement).click();
      while (!message().startsWith("Done")) {
        if (message().startsWith("Import stopped")) throw new Error(message());
        await new Promise((r) => setTimeout(r, 20));
      }
      return ((performance.now() - t0) * 1000) / (profiles * 1.1);
    }, profiles);
  } finally {
    await dispose(browser);
  }
}

const rows = new Map<string, number[][]>();
/** Microseconds by operation and entries a partition ("upsert:100"), one figure a round. */
const bySize: Record<string, number[]> = {};
const add = (row: string, small: number, large: number) => {
  if (!rows.has(row)) rows.set(row, []);
  rows.get(row)!.push([small, large]);
};
for (let round = 0; round < ROUNDS; round++) {
  const browser = await launchBrowser("chromium");
  const tab = await openPage(browser, server.origin);
  await bulk(tab, 1000, `scale-warm-${round}`); // compiles the code paths before anything is timed
  const small = await bulk(tab, SMALL, `scale-b1-${round}`);
  add("bulk import through the API, per profile", small, await bulk(tab, LARGE, `scale-b2-${round}`));
  const few = await singles(tab, LARGE / 100, 10, `scale-s1-${round}`);
  const many = await singles(tab, LARGE, 1000, `scale-s2-${round}`);
  for (const [key, row] of [
    ["upsert", "single upsert"],
    ["get", "get"],
    ["raw upsert", "raw floor: locked read-modify-write"],
    ["raw get", "raw floor: get of the partition"],
  ] as const)
    add(`${row}, ~100 a partition`, few[key]!, many[key]!);
  // The partition size at a fixed size of map: what README's "Choosing a partition count" rests on.
  for (const partitions of [1000, 100, 10]) {
    const ops = await singles(tab, SMALL, partitions, `scale-p${partitions}-${round}`);
    for (const op of ["upsert", "get"] as const) (bySize[`${op}:${SMALL / partitions}`] ??= []).push(ops[op]!);
  }
  await dispose(browser);
  add("the demo's sample import, per record", await demoImport(SMALL), await demoImport(LARGE));
  process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
}
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (x: number) => `${x.toFixed(1)} us`;
console.log(
  `\nScale in chromium (on-disk profile), ${ROUNDS} rounds: median per record or operation; ` +
    "large / small, median (min to max)",
);
console.log(`${"work".padEnd(84)}${"small".padStart(12)}${"large".padStart(12)}   ratio`);
for (const [row, pairs] of rows) {
  const ratios = pairs.map(([s, l]) => l! / s!);
  const [small, large] = row.includes("a partition") ? ["1,000 / 10", "100,000 / 1000"] : ["10,000", "100,000"];
  console.log(
    `${`${row} (${small} vs ${large})`.padEnd(84)}${us(median(pairs.map((p) => p[0]!))).padStart(12)}` +
      `${us(median(pairs.map((p) => p[1]!))).padStart(12)}   ${median(ratios).toFixed(2)}x ` +
      `(${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})`,
  );
}
console.log(`\nBy partition size: ${SMALL.toLocaleString("en")} profiles, single operations, median of the rounds`);
console.log(`${"entries a partition".padEnd(22)}${"upsert".padStart(12)}${"get".padStart(12)}`);
for (const size of [10, 100, 1000]) {
  const [upsert, get] = ["upsert", "get"].map((op) => us(median(bySize[`${op}:${size}`]!)).padStart(12));
  console.log(`${String(size).padEnd(22)}${upsert}${get}`);
}
