// Indexes in each engine's own IndexedDB (docs/indexes.md): an index built in one tab while
// another tab reads and writes the map (no version upgrade, nobody blocked), every index
// compared with a scan of the values afterwards, and a live query of an index that runs again
// for writes inside its range (from another tab and a worker), not for writes outside it.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { openPage, type Tab, useProfile } from "./harness.js";

const env = useProfile();
const ENTRIES = 6000;
const COMPANIES = ["Acme", "Beta", "Gamma", "Delta", "Zeta"];

interface Person {
  company: string;
  tier: number | null;
  tags: string[];
}

/** Index entries in the contract's order, computed from the values alone: by value, then by key. */
function expectedOrder(entries: Array<[string, Person]>, field: "company" | "tier"): string[] {
  const rank = (v: unknown) => (v === null ? 0 : typeof v === "number" ? 3 : 5);
  const cmp = (a: unknown, b: unknown) =>
    rank(a) - rank(b) || ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);
  return [...entries].sort(([ka, a], [kb, b]) => cmp(a[field], b[field]) || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([k]) => k);
}

test("an index is built in one tab while another reads and writes; every index then equals a scan of the values", async () => {
  const [a, b] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  await a.evaluate(
    async ({ n, companies }) => {
      const map = await window.attrmap.openAttrmap({ name: "indexed" }).partitionedMap<unknown>("people");
      const entries = Array.from(
        { length: n },
        (_, i) => [`p${i}`, { company: companies[i % companies.length], tier: i % 11 === 0 ? null : i % 4, tags: [] }] as const,
      );
      await map.upsertMany(entries);
      const w = window as unknown as { build: Promise<unknown>; progress: number[]; builtAt: number };
      w.progress = [];
      w.build = map
        .createIndex("byCompany", "company", { onProgress: ({ done }) => w.progress.push(done) })
        .then(() => (w.builtAt = performance.timeOrigin + performance.now()));
    },
    { n: ENTRIES, companies: COMPANIES },
  );
  // Tab b writes and reads while the build runs: one write at a time, each timed.
  const during = await b.evaluate(async () => {
    const map = await window.attrmap.openAttrmap({ name: "indexed" }).partitionedMap<Person>("people");
    const done: Array<{ at: number; read: boolean }> = [];
    for (let i = 0; i < 40; i++) {
      await map.upsert(`p${i * 7}`, { company: i % 2 ? "Acme" : "Omega", tier: 9, tags: ["moved"] });
      await map.upsert(`new${i}`, { company: "Acme", tier: i, tags: [] });
      done.push({ at: performance.timeOrigin + performance.now(), read: (await map.get(`new${i}`))?.tier === i });
    }
    return done;
  });
  const built = await a.evaluate(async () => {
    const w = window as unknown as { build: Promise<unknown>; progress: number[]; builtAt: number };
    await w.build;
    return { builtAt: w.builtAt, progress: w.progress };
  });
  assert.ok(
    during.every((d) => d.read),
    "every read of tab b saw its own write",
  );
  assert.ok(
    during[0]!.at < built.builtAt,
    `tab b's first write landed before the build ended (${Math.round(built.builtAt - during[0]!.at)} ms before)`,
  );
  assert.equal(built.progress.at(-1), 1000, "the build walked every partition");

  // Every index, read back, equals the order computed here from a scan of the values.
  const read = await a.evaluate(async () => {
    const map = await window.attrmap.openAttrmap({ name: "indexed" }).partitionedMap<Person>("people");
    await map.createIndex("byTier", "tier");
    await map.createIndex("byTag", "tags", { multiEntry: true });
    const scan: Array<[string, Person]> = [];
    for await (const entry of map.entries()) scan.push(entry);
    return {
      scan,
      byCompany: await map.where("byCompany").keys(),
      byTier: await map.where("byTier").keys(),
      moved: await map.where("byTag").equals("moved").keys(),
      acme: await map.where("byCompany").equals("Acme").count(),
      page: await map.where("byCompany").startsWith("G").page({ limit: 5 }),
    };
  });
  assert.equal(read.scan.length, ENTRIES + 40);
  assert.deepEqual(read.byCompany, expectedOrder(read.scan, "company"));
  assert.deepEqual(read.byTier, expectedOrder(read.scan, "tier"));
  assert.deepEqual(
    read.moved,
    read.scan
      .filter(([, v]) => v.tags.includes("moved"))
      .map(([k]) => k)
      .sort(),
  );
  assert.equal(read.acme, read.scan.filter(([, v]) => v.company === "Acme").length);
  assert.deepEqual(
    read.page.entries.map(([k]) => k),
    expectedOrder(read.scan, "company")
      .filter((k) => read.scan.find(([key]) => key === k)![1].company === "Gamma")
      .slice(0, 5),
  );
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await Promise.all([a.close(), b.close()]);
});

/** Runs `code` (a module body with `attrmap` imported) in a dedicated module worker of `page`; resolves with what it posts. */
function inWorker(page: Tab, code: string): Promise<unknown> {
  return page.evaluate(
    ({ origin, code }) =>
      new Promise((resolve, reject) => {
        const source = `import * as attrmap from "${origin}/attrmap/dist/index.js";\n${code}`;
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => {
          worker.terminate();
          resolve(e.data);
        };
        worker.onerror = (e) => reject(new Error(e.message));
      }),
    { origin: env.server.origin, code },
  );
}

test("a live query of an index runs again for writes inside its range (another tab, a worker), not outside it", async () => {
  const page = await openPage(env.browser, env.server.origin);
  await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "live-index" });
    const map = await store.partitionedMap<{ company: string }>("c", { indexes: { byCompany: "company" } });
    await map.upsert("a1", { company: "Acme" });
    const w = window as unknown as { results: string[][] };
    w.results = [];
    store
      .liveQuery(async (s) => (await s.partitionedMap<{ company: string }>("c")).where("byCompany").equals("Acme").keys())
      .subscribe((keys) => w.results.push(keys));
  });
  const results = async (n: number) => {
    for (;;) {
      const seen = await page.evaluate(() => (window as unknown as { results: string[][] }).results);
      if (seen.length >= n) return seen;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  assert.deepEqual(await results(1), [["a1"]]);
  const other = await openPage(env.browser, env.server.origin);
  const write = (key: string, company: string) =>
    other.evaluate(
      async ({ key, company }) =>
        (await window.attrmap.openAttrmap({ name: "live-index" }).partitionedMap<{ company: string }>("c")).upsert(key, {
          company,
        }),
      { key, company },
    );
  // Outside the range (the map has one partition's worth of keys: the same instances are written).
  await write("z1", "Zeta");
  await write("z2", "Beta");
  await write("a2", "Acme"); // inside: the next result
  assert.deepEqual(await results(2), [["a1"], ["a1", "a2"]], "writes outside the range ran nothing");
  await inWorker(
    page,
    `const m = await attrmap.openAttrmap({ name: "live-index" }).partitionedMap("c");
     await m.upsert("z1", { company: "Acme" });
     postMessage("done");`,
  );
  assert.deepEqual((await results(3)).at(-1), ["a1", "a2", "z1"], "a key entering the range from a worker");
  await write("a1", "Beta");
  assert.deepEqual((await results(4)).at(-1), ["a2", "z1"], "a key leaving the range from another tab");
  assert.deepEqual(page.errors, []);
  await Promise.all([page.close(), other.close()]);
});
