// make bench, lifecycle and portability part: headless Chromium with an on-disk profile.
// Beside raw IndexedDB doing the same work in the same run: delete (against the put and
// delete floors), iteration over 100,000 profiles and 100,000 records (against a raw cursor
// over one object per record), resize of 100,000 profiles 1000 -> 4000 partitions (against
// one raw transaction that reads and rewrites 100,000 records), and export and import of the
// 200,000 (against a raw cursor with JSON.stringify, and JSON.parse with batched puts), with
// the peak JS heap of each, sampled over CDP while it runs. Figures, not tests.
import "../browser/page-types.js";
import { openTab, persistentContext, serveWww } from "../browser/harness.js";

const SIZE = Number(process.env.BENCH_LIFECYCLE_SIZE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OPS = 200;

const server = await serveWww();
const browser = await persistentContext();
const page = await openTab(browser.context, server.origin);
const cdp = await browser.context.newCDPSession(page);
await cdp.send("Performance.enable");

/** The JS heap in use now (bytes), as the page's performance metrics report it. */
async function heap(): Promise<number> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return metrics.find((m) => m.name === "JSHeapUsedSize")!.value;
}

/**
 * The most memory `work` (run in the page) keeps alive at once: every 50 ms a full garbage
 * collection, then the heap in use, less the heap before. Collecting first measures what is
 * retained, not garbage waiting for a collection; it slows the work, so this run is not timed.
 */
async function peakRetained(work: () => Promise<unknown>): Promise<number> {
  await cdp.send("HeapProfiler.collectGarbage");
  const base = await heap();
  let peak = base;
  let running = true;
  const sampler = (async () => {
    while (running) {
      await cdp.send("HeapProfiler.collectGarbage");
      peak = Math.max(peak, await heap());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    await work();
    return peak - base;
  } finally {
    running = false;
    await sampler;
  }
}

interface Measure {
  /** Records (or operations) done. */
  n: number;
  ms: number;
}
const results = new Map<string, Measure[]>();
/** The most memory retained at once, per operation (one untimed run). */
const peaks = new Map<string, number>();
let imports = 0; // each import goes into a database of its own
let exportBytes = 0;
const note = (op: string, m: Measure) => results.set(op, [...(results.get(op) ?? []), m]);

// ---- setup: the same data as the package's maps and as one raw object per record --------
await page.evaluate(
  async ({ size }) => {
    const w = window as unknown as Record<string, unknown>;
    const profile = (i: number) => ({
      emailAddress: `user${i}@example.com`,
      fullName: `User ${i}`,
      companyName: "Example",
      customerTier: "gold",
    });
    const subscriber = (i: number) => ({ subscriberId: `sub-${i}`, deliveryAddress: `sub-${i}@example.com` });
    w.profile = profile;
    const raw = await new Promise<IDBDatabase>((resolve) => {
      const req = indexedDB.open("raw-lifecycle", 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore("profiles");
        req.result.createObjectStore("subscribers");
        req.result.createObjectStore("moved");
        req.result.createObjectStore("imported");
      };
      req.onsuccess = () => resolve(req.result);
    });
    w.raw = raw;
    const done = (tx: IDBTransaction) => new Promise((r) => (tx.oncomplete = r));
    for (let start = 0; start < size; start += 10_000) {
      const tx = raw.transaction(["profiles", "subscribers"], "readwrite");
      for (let i = start; i < Math.min(size, start + 10_000); i++) {
        tx.objectStore("profiles").put(profile(i), `user${i}@example.com`);
        tx.objectStore("subscribers").put({ sequence: i + 1, ...subscriber(i) }, i + 1);
      }
      await done(tx);
    }
    const store = window.attrmap.openAttrmap({ name: "bench-lifecycle" });
    w.store = store;
    const dir = await store.customerDirectory();
    const archive = await store.subscriberArchive();
    for (let start = 0; start < size; start += 10_000) {
      const n = Math.min(10_000, size - start);
      await dir.upsertProfiles(Array.from({ length: n }, (_, k) => profile(start + k)));
      await archive.registerSubscribers(Array.from({ length: n }, (_, k) => subscriber(start + k)));
    }
  },
  { size: SIZE },
);
process.stderr.write(`set up ${SIZE.toLocaleString("en")} profiles and subscribers\n`);

for (let round = 0; round < ROUNDS; round++) {
  // ---- delete against the put and delete floors (OPS each, sequential) -----------------
  const deletes = await page.evaluate(
    async ({ size, ops, round }) => {
      const w = window as unknown as { raw: IDBDatabase; store: ReturnType<typeof window.attrmap.openAttrmap> };
      const profile = (window as unknown as { profile: (i: number) => object }).profile;
      const done = (tx: IDBTransaction) => new Promise((r) => (tx.oncomplete = r));
      const dir = await w.store.customerDirectory();
      const out: Record<string, number> = {};
      const time = async (op: string, f: (i: number) => Promise<unknown>) => {
        const t0 = performance.now();
        for (let i = 0; i < ops; i++) await f(i);
        out[op] = performance.now() - t0;
      };
      // Keys of this round: added, then deleted, so every round deletes keys that are there.
      const key = (i: number) => size + round * ops + i;
      await time("raw put, 1 per transaction", async (i) => {
        const tx = w.raw.transaction("profiles", "readwrite");
        tx.objectStore("profiles").put(profile(key(i)), `user${key(i)}@example.com`);
        await done(tx);
      });
      await time("raw delete, 1 per transaction", async (i) => {
        const tx = w.raw.transaction("profiles", "readwrite");
        tx.objectStore("profiles").delete(`user${key(i)}@example.com`);
        await done(tx);
      });
      await time("upsertProfile", (i) => dir.upsertProfile(profile(key(i)) as { emailAddress: string }));
      await time("deleteProfile", (i) => dir.deleteProfile(`user${key(i)}@example.com`));
      return out;
    },
    { size: SIZE, ops: OPS, round },
  );
  for (const [op, ms] of Object.entries(deletes)) note(op, { n: OPS, ms });

  // ---- iteration: 100,000 profiles and 100,000 records, against a raw cursor -------------
  const walks = await page.evaluate(async () => {
    const w = window as unknown as { raw: IDBDatabase; store: ReturnType<typeof window.attrmap.openAttrmap> };
    const cursor = (name: string) =>
      new Promise<number>((resolve) => {
        let n = 0;
        const req = w.raw.transaction(name).objectStore(name).openCursor();
        req.onsuccess = () => {
          const c = req.result;
          if (!c) return resolve(n);
          n++;
          c.continue();
        };
      });
    const out: Record<string, [number, number]> = {};
    const time = async (op: string, f: () => Promise<number>) => {
      const t0 = performance.now();
      const n = await f();
      out[op] = [n, performance.now() - t0];
    };
    const count = async (it: AsyncIterable<unknown>) => {
      let n = 0;
      for await (const _ of it) n++;
      return n;
    };
    await time("raw cursor over profiles", () => cursor("profiles"));
    await time("directory.profiles()", async () => count((await w.store.customerDirectory()).profiles()));
    await time("raw cursor over subscribers", () => cursor("subscribers"));
    await time("archive.subscribers() (newest first)", async () => count((await w.store.subscriberArchive()).subscribers()));
    return out;
  });
  for (const [op, [n, ms]] of Object.entries(walks)) note(op, { n, ms });

  // ---- resize against one raw transaction that reads and rewrites every record -----------
  const resized = await page.evaluate(
    async ({ to }) => {
      const w = window as unknown as { raw: IDBDatabase; store: ReturnType<typeof window.attrmap.openAttrmap> };
      const t0 = performance.now();
      const tx = w.raw.transaction(["profiles", "moved"], "readwrite");
      const all = await new Promise<unknown[]>((r) => {
        const req = tx.objectStore("profiles").getAll();
        req.onsuccess = () => r(req.result);
      });
      for (const [i, p] of all.entries()) tx.objectStore("moved").put(p, i);
      await new Promise((r) => (tx.oncomplete = r));
      const rawMs = performance.now() - t0;
      const dir = await w.store.customerDirectory();
      const t1 = performance.now();
      await dir.map.resize(to);
      return { n: all.length, rawMs, ms: performance.now() - t1, from: to === 4000 ? 1000 : 4000 };
    },
    { to: round % 2 === 0 ? 4000 : 1000 },
  );
  note("raw: read and rewrite every profile in one transaction", { n: resized.n, ms: resized.rawMs });
  note("directory.map.resize (1000 <-> 4000 partitions)", { n: resized.n, ms: resized.ms });

  // ---- export and import (the file goes to a Blob, held by the browser outside the JS heap) --
  const exportRaw = () =>
    page.evaluate(async () => {
      const w = window as unknown as { raw: IDBDatabase };
      const t0 = performance.now();
      let n = 0;
      const parts: string[] = [];
      for (const name of ["profiles", "subscribers"]) {
        await new Promise<void>((resolve) => {
          const req = w.raw.transaction(name).objectStore(name).openCursor();
          req.onsuccess = () => {
            const c = req.result;
            if (!c) return resolve();
            parts.push(`${JSON.stringify(c.value)}\n`);
            n++;
            // Handed to a Blob a piece at a time, as a streamed download would be.
            if (parts.length === 1000) (window as unknown as { rawBlob: Blob }).rawBlob = new Blob(parts.splice(0));
            c.continue();
          };
        });
      }
      return { n, ms: performance.now() - t0 };
    });
  const exportOurs = () =>
    page.evaluate(async () => {
      const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; exportBlob?: Blob };
      const t0 = performance.now();
      const stream = window.attrmap.exportData(w.store, { maps: ["CustomerProfilesByEmailPartition", "SubscriberChunks"] });
      w.exportBlob = await new Response(stream).blob();
      return { ms: performance.now() - t0, bytes: w.exportBlob.size };
    });
  const importRaw = () =>
    page.evaluate(async () => {
      const w = window as unknown as { raw: IDBDatabase; exportBlob: Blob };
      const done = (tx: IDBTransaction) => new Promise((r) => (tx.oncomplete = r));
      const clear = w.raw.transaction("imported", "readwrite");
      clear.objectStore("imported").clear(); // into an empty store, as the import goes into a new database
      await done(clear);
      const t0 = performance.now();
      const reader = w.exportBlob.stream().pipeThrough(new TextDecoderStream()).getReader();
      let [rest, n] = ["", 0];
      let batch: unknown[] = [];
      const flush = async () => {
        const tx = w.raw.transaction("imported", "readwrite");
        for (const value of batch) tx.objectStore("imported").put(value, n++);
        batch = [];
        await done(tx);
      };
      for (let next = await reader.read(); ; next = await reader.read()) {
        const lines = (rest + (next.value ?? "")).split("\n");
        rest = next.done ? "" : lines.pop()!;
        for (const line of lines) if (line) batch.push(JSON.parse(line));
        if (batch.length >= 200 || next.done) await flush(); // as the import stages 200 instances a transaction
        if (next.done) break;
      }
      return { n, ms: performance.now() - t0 };
    });
  const importOurs = () =>
    page.evaluate(async (name) => {
      const w = window as unknown as { exportBlob: Blob };
      const target = window.attrmap.openAttrmap({ name });
      const t0 = performance.now();
      const summary = await window.attrmap.importData(target, w.exportBlob);
      const ms = performance.now() - t0;
      target.close();
      return { ms, entries: summary.entries };
    }, `bench-import-${imports++}`);
  const rawOut = await exportRaw();
  note("raw: cursor and JSON.stringify of every record", { n: rawOut.n, ms: rawOut.ms });
  const exported = await exportOurs();
  note("exportData (profiles and subscribers)", { n: 2 * SIZE, ms: exported.ms });
  const rawIn = await importRaw();
  // Both read the same file, whose lines hold the 2 x SIZE records: rates are records per second.
  note("raw: JSON.parse and put of every line (200 a transaction)", { n: 2 * SIZE, ms: rawIn.ms });
  const importedRun = await importOurs();
  note("importData (profiles and subscribers)", { n: importedRun.entries, ms: importedRun.ms });
  if (round === 0) {
    exportBytes = exported.bytes;
    peaks.set("raw: cursor and JSON.stringify of every record", await peakRetained(exportRaw));
    peaks.set("exportData (profiles and subscribers)", await peakRetained(exportOurs));
    peaks.set("raw: JSON.parse and put of every line (200 a transaction)", await peakRetained(importRaw));
    peaks.set("importData (profiles and subscribers)", await peakRetained(importOurs));
  }
  process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
}

await browser.dispose();
await server.close();

// ---- report: median and spread of the rounds, each row beside its raw floor --------------
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (m: Measure) => m.n / (m.ms / 1000);
const fmtRate = (ms: Measure[]) => {
  const rates = ms.map(rate);
  return `${median(rates).toFixed(0)}/s (${Math.min(...rates).toFixed(0)} - ${Math.max(...rates).toFixed(0)})`;
};
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `\nLifecycle and portability in headless Chromium (on-disk profile), ${SIZE.toLocaleString("en")} profiles and ` +
    `${SIZE.toLocaleString("en")} subscribers: records (or operations) per second, median (min - max) of ${ROUNDS} rounds; ` +
    `the export file is ${mib(exportBytes)}`,
);
const pairs: Array<[string, string]> = [
  ["deleteProfile", "raw delete, 1 per transaction"],
  ["upsertProfile", "raw put, 1 per transaction"],
  ["directory.profiles()", "raw cursor over profiles"],
  ["archive.subscribers() (newest first)", "raw cursor over subscribers"],
  ["directory.map.resize (1000 <-> 4000 partitions)", "raw: read and rewrite every profile in one transaction"],
  ["exportData (profiles and subscribers)", "raw: cursor and JSON.stringify of every record"],
  ["importData (profiles and subscribers)", "raw: JSON.parse and put of every line (200 a transaction)"],
];
for (const [ours, floor] of pairs) {
  const [a, b] = [results.get(ours)!, results.get(floor)!];
  const ratio = median(b.map(rate)) / median(a.map(rate));
  const heapOf = (op: string) => (peaks.has(op) ? `, at most ${mib(peaks.get(op)!)} of JS heap retained` : "");
  console.log(`  ${ours}: ${fmtRate(a)}${heapOf(ours)}`);
  console.log(`    ${floor}: ${fmtRate(b)}${heapOf(floor)}  -> the floor is ${ratio.toFixed(2)}x faster`);
}
