// store.transaction in every engine, on on-disk profiles (docs/transactions.md): transfers
// between accounts with a ledger from two tabs, a dedicated worker and the service worker at
// once, every scope in a random order; a live query that sums the accounts meanwhile; and the
// locks a transaction holds, seen from another tab. Expected balances are the transfers added up
// by the test (tests/shared/transfers.ts), never read from the package. Killed browsers are
// crash.test.ts's.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { ACCOUNTS, balancesAfter, START, type Transfer, transfers } from "../shared/transfers.js";
import { openPage, SHARED_PATH, type Tab, uniqueNames, useProfile, within } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("tx");

/** The service worker of the test: runs the transfers it is sent, and answers with their sequences. */
const SERVICE_WORKER = `
import * as attrmap from "/attrmap/dist/index.js";
import * as bank from "${SHARED_PATH}transfers.js";
self.addEventListener("message", (event) => {
  const { name, list, seed } = event.data;
  event.waitUntil(
    bank
      .runTransfers(attrmap, name, list, { inFlight: 3, seed })
      .then((sequences) => event.source.postMessage({ sequences }), (e) => event.source.postMessage({ crash: String(e) })),
  );
});`;

/** Runs `list` in `page` (3 at a time). */
function inPage(page: Tab, name: string, list: Transfer[], seed: number): Promise<number[]> {
  return page.evaluate(
    async ({ name, list, seed, path }) => {
      const bank = (await import(`${path}transfers.js`)) as typeof import("../shared/transfers.js");
      return bank.runTransfers(window.attrmap, name, list, { inFlight: 3, seed });
    },
    { name, list, seed, path: SHARED_PATH },
  );
}

/** Runs `list` in a dedicated module worker of `page`. */
function inWorker(page: Tab, name: string, list: Transfer[], seed: number): Promise<number[]> {
  return page.evaluate(
    ({ name, list, seed, origin, path }) =>
      new Promise<number[]>((resolve, reject) => {
        const source = `import * as attrmap from "${origin}/attrmap/dist/index.js";
          import * as bank from "${origin}${path}transfers.js";
          bank.runTransfers(attrmap, ${JSON.stringify(name)}, ${JSON.stringify(list)}, { inFlight: 3, seed: ${seed} })
            .then((sequences) => postMessage({ sequences }), (e) => postMessage({ crash: String(e) }));`;
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => {
          worker.terminate();
          if (e.data.crash) reject(new Error(e.data.crash));
          else resolve(e.data.sequences);
        };
        worker.onerror = (e) => reject(new Error(e.message));
      }),
    { name, list, seed, origin: env.server.origin, path: SHARED_PATH },
  );
}

/** Runs `list` in the test's service worker, registered from `page`. */
function inServiceWorker(page: Tab, name: string, list: Transfer[], seed: number): Promise<number[]> {
  return page.evaluate(
    async ({ name, list, seed }) => {
      const registration = await navigator.serviceWorker.register("/tx-sw.js", { type: "module", scope: "/tx-sw/" });
      const worker = registration.installing ?? registration.waiting ?? registration.active!;
      if (worker.state !== "activated")
        await new Promise((r) => worker.addEventListener("statechange", () => worker.state === "activated" && r(null)));
      return new Promise<number[]>((resolve, reject) => {
        navigator.serviceWorker.addEventListener("message", (e) => {
          if (e.data.crash) reject(new Error(e.data.crash));
          else resolve(e.data.sequences);
        });
        worker.postMessage({ name, list, seed });
      });
    },
    { name, list, seed },
  );
}

test("transfers from two tabs, a worker and the service worker at once: no money made or lost, no deadlock", async () => {
  env.server.files.set("/tx-sw.js", { type: "text/javascript", body: SERVICE_WORKER });
  const name = freshDb();
  const [first, second] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  const total = ACCOUNTS * START;
  // The live query sums the accounts, read in one snapshot, at every change: never a sum but the total.
  await first.evaluate(
    async ({ name, path }) => {
      const bank = (await import(`${path}transfers.js`)) as typeof import("../shared/transfers.js");
      const { store, names } = await bank.openBank(window.attrmap, name, { open: true });
      const w = window as unknown as { sums: number[] };
      w.sums = [];
      store
        .liveQuery(async (s) => {
          const balances = await (await s.partitionedMap<number>("accounts")).getMany(names);
          return [...balances.values()].reduce((a, b) => a + b, 0);
        })
        .subscribe((sum) => w.sums.push(sum));
    },
    { name, path: SHARED_PATH },
  );
  const lists = [1, 2, 3, 4].map((seed) => transfers(seed, 40));
  const sequences = await within(
    "160 transfers from four contexts",
    Promise.all([
      inPage(first, name, lists[0]!, 11),
      inPage(second, name, lists[1]!, 12),
      inWorker(second, name, lists[2]!, 13),
      inServiceWorker(first, name, lists[3]!, 14),
    ]),
    120_000,
  );
  const stored = await second.evaluate(
    async ({ name, path }) => {
      const bank = (await import(`${path}transfers.js`)) as typeof import("../shared/transfers.js");
      return bank.readBank(window.attrmap, name);
    },
    { name, path: SHARED_PATH },
  );
  assert.deepEqual(stored.balances, balancesAfter(lists.flat()));
  // Every transfer has its one record, under the sequence its transaction was told.
  assert.deepEqual(
    sequences.flat().sort((a, b) => a - b),
    Array.from({ length: 160 }, (_, i) => i + 1),
  );
  const key = (t: Transfer) => `${t.from}>${t.to}:${t.amount}`;
  assert.deepEqual(stored.records.map(key).sort(), lists.flat().map(key).sort());
  await new Promise((r) => setTimeout(r, 200)); // the last announcements
  const sums = await first.evaluate(() => (window as unknown as { sums: number[] }).sums);
  assert.ok(sums.length > 1, "the live query ran again");
  assert.deepEqual([...new Set(sums)], [total]);
  assert.deepEqual([first.errors, second.errors], [[], []]);
  await Promise.all([first.close(), second.close()]);
});

test("another tab meets a transaction's locks: its instances and a whole map in scope wait, others do not", async () => {
  const name = freshDb();
  const holder = await openPage(env.browser, env.server.origin);
  const other = await openPage(env.browser, env.server.origin);
  // The holder starts a transaction over `held` (one key) and the whole map `all`, whose work waits for a signal.
  const keys = await holder.evaluate(async (name) => {
    const { openAttrmap, keyPartition } = window.attrmap;
    const store = openAttrmap({ name });
    const [map, all] = [
      await store.partitionedMap<string>("m", { partitionCount: 8 }),
      await store.partitionedMap<string>("all", { partitionCount: 4 }),
    ];
    await map.upsertMany([
      ["held", "before"],
      ["free", "before"],
    ]);
    const free = keyPartition("free", 8).partitionName !== keyPartition("held", 8).partitionName;
    const w = window as unknown as { finish: () => void; done: Promise<unknown> };
    const finish = new Promise<void>((r) => (w.finish = r));
    let started = () => {};
    const running = new Promise<void>((r) => (started = r));
    w.done = store.transaction([map.at("held"), all], async (tx) => {
      started();
      await tx.upsert(map, "held", "in the transaction");
      await tx.upsert(all, "x", "in the transaction");
      await finish;
    });
    await running;
    return { free };
  }, name);
  assert.ok(keys.free, "the two keys are in two partitions");
  await other.evaluate(async (name) => {
    // Each write through a store of its own: writes of one store to one map would share a batch (group commit).
    const open = (map: string) => window.attrmap.openAttrmap({ name }).partitionedMap<string>(map);
    const [held, all, free, ifAvailable] = await Promise.all([open("m"), open("all"), open("m"), open("m")]);
    const w = window as unknown as { writes: Record<string, string> };
    w.writes = {};
    const note = (what: string) => (v: unknown) => void (w.writes[what] = v === undefined ? "done" : String(v));
    void held.upsert("held", "from the other tab").then(note("held"), note("held"));
    void all.upsert("y", "from the other tab").then(note("all"), note("all"));
    void free.upsert("free", "from the other tab").then(note("free"), note("free"));
    void ifAvailable.upsert("held", "x", { lock: "ifAvailable" }).then(note("ifAvailable"), (e) => note("ifAvailable")(e.code));
    await new Promise((r) => setTimeout(r, 300));
  }, name);
  // Only the write outside the scope has landed; the one that may not wait was refused.
  assert.deepEqual(await other.evaluate(() => (window as unknown as { writes: object }).writes), {
    free: "done",
    ifAvailable: "lock_conflict",
  });
  await holder.evaluate(async () => {
    const w = window as unknown as { finish: () => void; done: Promise<unknown> };
    w.finish();
    await w.done;
  });
  await other.evaluate(async () => {
    for (let i = 0; i < 500 && Object.keys((window as unknown as { writes: object }).writes).length < 4; i++)
      await new Promise((r) => setTimeout(r, 10));
  });
  assert.deepEqual(await other.evaluate(() => (window as unknown as { writes: object }).writes), {
    free: "done",
    ifAvailable: "lock_conflict",
    held: "done",
    all: "done",
  });
  // The waiting writes ran after the transaction's commit: theirs is the last value.
  const values = await other.evaluate(async (name) => {
    const store = window.attrmap.openAttrmap({ name });
    const [map, all] = [await store.partitionedMap<string>("m"), await store.partitionedMap<string>("all")];
    return { held: await map.get("held"), x: await all.get("x"), y: await all.get("y") };
  }, name);
  assert.deepEqual(values, { held: "from the other tab", x: "in the transaction", y: "from the other tab" });
  await Promise.all([holder.close(), other.close()]);
});
