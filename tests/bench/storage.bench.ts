// make bench, storage part: a browser with an on-disk profile, Chromium unless BENCH_ENGINE
// says firefox or webkit. Raw IndexedDB (one put per readwrite transaction, one get per
// readonly transaction) in the same engine is the floor; beside it, this package's operations
// at directory sizes 1,000 / 10,000 / 100,000, to show whether the cost of one operation grows
// with the size of the map or log. Figures, not tests.
import "../browser/page-types.js";
import { dispose, ENGINES, type EngineName, launchBrowser } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const OPS = 200;
const ENGINE = (process.env.BENCH_ENGINE ?? "chromium") as EngineName;
if (!ENGINES.includes(ENGINE)) throw new Error(`BENCH_ENGINE must be one of ${ENGINES.join(", ")}, not ${ENGINE}`);

const server = await serveWww();
// keepData: WebKit then stores on disk as the others do (under WebDriver it keeps data in memory).
const browser = await launchBrowser(ENGINE, undefined, { keepData: true });
const page = await openPage(browser, server.origin);

interface Row {
  size: number;
  op: string;
  ms: number;
  n: number;
}
const rows: Row[] = [];

for (const size of SIZES) {
  const result = await page.evaluate(
    async ({ size, ops }) => {
      const { openAttrmap } = window.attrmap;
      const out: Array<{ op: string; ms: number; n: number }> = [];
      const time = async (op: string, n: number, f: (i: number) => Promise<unknown>) => {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) await f(i);
        out.push({ op, ms: performance.now() - t0, n });
      };
      const profile = (i: number) => ({
        emailAddress: `user${i}@example.com`,
        fullName: `User ${i}`,
        companyName: "Example",
        customerTier: "gold",
      });
      const subscriber = (i: number) => ({ subscriberId: `sub-${i}`, deliveryAddress: `sub-${i}@example.com` });

      // Raw IndexedDB floor: the same records, one object per key.
      const raw = await new Promise<IDBDatabase>((resolve) => {
        const req = indexedDB.open(`raw-${size}`, 1);
        req.onupgradeneeded = () => req.result.createObjectStore("profiles");
        req.onsuccess = () => resolve(req.result);
      });
      const done = (tx: IDBTransaction) => new Promise((r) => (tx.oncomplete = r));
      const batch = 10_000;
      for (let start = 0; start < size; start += batch) {
        const tx = raw.transaction("profiles", "readwrite");
        for (let i = start; i < Math.min(size, start + batch); i++)
          tx.objectStore("profiles").put(profile(i), `user${i}@example.com`);
        await done(tx);
      }
      await time("raw put, 1 per transaction", ops, async (i) => {
        const tx = raw.transaction("profiles", "readwrite");
        tx.objectStore("profiles").put(profile(size + i), `user${size + i}@example.com`);
        await done(tx);
      });
      await time(
        "raw get",
        ops,
        (i) =>
          new Promise(
            (r) =>
              (raw
                .transaction("profiles")
                .objectStore("profiles")
                .get(`user${(i * 7919) % size}@example.com`).onsuccess = r),
          ),
      );
      raw.close();

      const store = openAttrmap({ name: `bench-${size}` });
      const dir = await store.customerDirectory();
      const archive = await store.subscriberArchive();
      const t0 = performance.now();
      for (let start = 0; start < size; start += batch) {
        await dir.upsertProfiles(Array.from({ length: Math.min(batch, size - start) }, (_, k) => profile(start + k)));
      }
      out.push({ op: "bulk import profiles (upsertProfiles, 10,000 a call)", ms: performance.now() - t0, n: size });
      const t1 = performance.now();
      for (let start = 0; start < size; start += batch) {
        await archive.registerSubscribers(Array.from({ length: Math.min(batch, size - start) }, (_, k) => subscriber(start + k)));
      }
      out.push({ op: "bulk import subscribers (registerSubscribers, 10,000 a call)", ms: performance.now() - t1, n: size });

      await time("upsertProfile", ops, (i) => dir.upsertProfile(profile(size + i)));
      await time("getProfile", ops, (i) => dir.getProfile(`user${(i * 7919) % size}@example.com`));
      await time("registerSubscriber", ops, (i) => archive.registerSubscriber(subscriber(size + i)));
      const chunks = Math.floor(size / 100);
      await time("getSubscriberPage (archived)", ops, (i) =>
        archive.getSubscriberPage(String(((i * 7919) % chunks) * 100 + 1).padStart(20, "0")),
      );
      await time("getSubscriberPage (current)", ops, () => archive.getSubscriberPage(""));
      store.close();
      return out;
    },
    { size, ops: OPS },
  );
  for (const r of result) rows.push({ size, ...r });
  process.stderr.write(`size ${size} done\n`);
}

await dispose(browser);
await server.close();

const ops = [...new Set(rows.map((r) => r.op))];
const fmt = (r: Row | undefined) =>
  r ? `${(r.n / (r.ms / 1000)).toFixed(0).padStart(8)}/s ${(r.ms / r.n).toFixed(3).padStart(8)} ms` : "";
console.log(
  `\nIndexedDB in ${ENGINE} (on-disk profile): ops/s and mean latency per op ` + `(${OPS} sequential ops; bulk rows per record)`,
);
console.log("operation".padEnd(62) + SIZES.map((s) => `size ${s.toLocaleString("en")}`.padStart(25)).join(""));
for (const op of ops) {
  console.log(op.padEnd(62) + SIZES.map((s) => fmt(rows.find((r) => r.size === s && r.op === op)).padStart(25)).join(""));
}
