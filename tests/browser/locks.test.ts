// Tests that fail without the Web Locks. IndexedDB already runs overlapping readwrite
// transactions one at a time, so "nothing lost" tests pass with or without locks; these
// check what only the locks give: each write holds the lock of every instance it writes for
// its whole transaction, a waiting writer waits, an abort ends a real wait, and opposite lock
// orders never deadlock. Each lock-dependent scenario also runs with a lock manager that
// locks nothing, as a control, and must fail there.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { holdLock, openPage, type Tab, uniqueNames, useProfile } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("locks");

type Manager = "web-locks" | "no-op";

/** Installs `window.lockManager`: navigator.locks wrapped to record each lock's hold, or a manager that locks nothing. */
async function installManager(page: Tab, manager: Manager): Promise<void> {
  await page.evaluate((manager) => {
    const w = window as unknown as {
      lockManager: unknown;
      held: Array<{ name: string; mode: string; from: number; to: number }>;
    };
    w.held = [];
    w.lockManager =
      manager === "no-op"
        ? {
            request: (name: string, options: LockOptions, cb: (l: Lock) => unknown) =>
              Promise.resolve().then(() => cb({ name, mode: options.mode ?? "exclusive" } as Lock)),
          }
        : {
            request: (name: string, options: LockOptions, cb: (l: Lock | null) => unknown) =>
              navigator.locks.request(name, options, async (lock) => {
                if (!lock) return cb(lock);
                const hold = { name, mode: lock.mode, from: performance.now(), to: Infinity };
                w.held.push(hold);
                try {
                  return await cb(lock);
                } finally {
                  hold.to = performance.now();
                }
              }),
          };
  }, manager);
}

/** Every write of the library, with its readwrite transaction's lifetime and the instances it wrote; returns lock violations. */
async function writesHoldTheirLocks(
  page: Tab,
  db: string,
  manager: Manager,
): Promise<{ violations: string[]; transactions: number }> {
  await installManager(page, manager);
  return page.evaluate(async (db) => {
    const { openAttrmap, lockName } = window.attrmap;
    const w = window as unknown as { lockManager: never; held: Array<{ name: string; mode: string; from: number; to: number }> };
    const txs: Array<{ from: number; to: number; keys: Array<[string, string]> }> = [];
    const original = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (
      this: IDBDatabase,
      stores: string | string[],
      mode?: IDBTransactionMode,
      opts?: IDBTransactionOptions,
    ) {
      const tx = original.call(this, stores, mode, opts);
      if (mode === "readwrite" && this.name === db) {
        const entry = { from: performance.now(), to: Infinity, keys: [] as Array<[string, string]> };
        txs.push(entry);
        const store = tx.objectStore.bind(tx);
        tx.objectStore = (name: string) => {
          const s = store(name);
          if (name !== "instances") return s;
          for (const op of ["put", "add", "delete"] as const) {
            const f = s[op].bind(s) as (...a: unknown[]) => IDBRequest;
            (s as unknown as Record<string, unknown>)[op] = (...a: unknown[]) => {
              const key = op === "delete" ? a[0] : a[1];
              if (Array.isArray(key)) entry.keys.push(key as [string, string]);
              else if (key instanceof IDBKeyRange) entry.keys.push([(key.lower as string[])[0]!, "*range*"]);
              return f(...a);
            };
          }
          return s;
        };
        tx.addEventListener("complete", () => (entry.to = performance.now()));
      }
      return tx;
    };
    const store = openAttrmap({ name: db, locks: w.lockManager });
    const map = await store.partitionedMap<number>("m", { partitionCount: 8 });
    const log = await store.chunkedLog<number>("l", { chunkSize: 3 });
    await map.upsert("a", 1);
    await map.upsertMany(Array.from({ length: 20 }, (_, i) => [`k${i}`, i] as [string, number]));
    await map.update("a", (v) => (v ?? 0) + 1);
    await map.deleteMany(["k1", "k2"]);
    await log.appendMany([1, 2, 3, 4, 5, 6, 7]);
    await log.changeChunkSize(2);
    await log.append(8);
    await log.dropArchivesBefore("00000000000000000004");
    await map.resize(5);
    await map.clear();
    IDBDatabase.prototype.transaction = original;
    const violations: string[] = [];
    const covered = (lock: string, modes: string[], tx: { from: number; to: number }) =>
      w.held.some((h) => h.name === lock && modes.includes(h.mode) && h.from <= tx.from && h.to >= tx.to);
    for (const tx of txs) {
      for (const [map, instance] of tx.keys) {
        // A log's one lock (on "current") stands for all its instances; a partition's own
        // lock, or the map's exclusive lock (clear), stands for a partition.
        const ok =
          map === "l"
            ? covered(lockName({ database: db, map, instance: "current" }), ["exclusive"], tx)
            : covered(lockName({ database: db, map, instance }), ["exclusive"], tx) ||
              covered(lockName({ database: db, map }), ["exclusive"], tx);
        if (!ok) violations.push(`${map}/${instance} written without its lock held for the whole transaction`);
      }
    }
    return { violations, transactions: txs.length };
  }, db);
}

test("each write holds the exclusive lock of every instance it writes, from before its transaction to its commit", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const real = await writesHoldTheirLocks(page, freshDb(), "web-locks");
  assert.deepEqual(real.violations, []);
  assert.ok(real.transactions >= 10, `only ${real.transactions} write transactions seen`);
  const control = await writesHoldTheirLocks(page, freshDb(), "no-op");
  assert.ok(control.violations.length >= real.transactions, `the control found only ${control.violations.length} violations`);
  await page.close();
});

/** Another tab holds `lock`; returns a function that releases it. */
async function holdInOtherTab(lock: string): Promise<{ release(): Promise<void>; page: Tab }> {
  const page = await openPage(env.browser, env.server.origin);
  return { page, release: await holdLock(page, lock) };
}

/** Starts a write in `page` and reports whether it was still waiting when the lock manager showed its request queued. */
async function startWaitingWrite(page: Tab, db: string, options: { abort?: boolean }): Promise<"queued" | "settled"> {
  return page.evaluate(
    async ({ db, abort }) => {
      const w = window as unknown as { lockManager: never; write: Promise<string>; controller: AbortController };
      const dir = await window.attrmap.openAttrmap({ name: db, locks: w.lockManager }).customerDirectory();
      w.controller = new AbortController();
      let settled = false;
      w.write = dir
        .upsertProfile({ emailAddress: "held@example.com", fullName: "after" }, abort ? { signal: w.controller.signal } : {})
        .then(
          () => "ok",
          (e: { code?: string }) => e.code ?? String(e),
        )
        .finally(() => (settled = true));
      // Until the write is queued behind the other tab's lock, or has finished.
      for (;;) {
        if (settled) return "settled";
        const { pending = [] } = await navigator.locks.query();
        if (pending.some((p) => p.name?.includes("held") || p.name?.includes("partition-"))) return "queued";
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    { db, ...options },
  );
}

async function waitingScenario(
  manager: Manager,
  abort: boolean,
): Promise<{ queued: string; outcome: string; stored: string | undefined }> {
  const db = freshDb();
  const writer = await openPage(env.browser, env.server.origin);
  await installManager(writer, manager);
  const lock = await writer.evaluate(async (db) => {
    const { openAttrmap, lockName, emailPartition } = window.attrmap;
    await (await openAttrmap({ name: db }).customerDirectory()).upsertProfile({
      emailAddress: "held@example.com",
      fullName: "before",
    });
    return lockName({
      database: db,
      map: "CustomerProfilesByEmailPartition",
      instance: emailPartition("held@example.com").partitionName,
    });
  }, db);
  const holder = await holdInOtherTab(lock);
  const queued = await startWaitingWrite(writer, db, { abort });
  if (abort) await writer.evaluate(() => (window as unknown as { controller: AbortController }).controller.abort());
  else if (queued === "queued") {
    // Still waiting while the other tab holds the lock: it has not written.
    const meanwhile = await writer.evaluate(
      async (db) =>
        (await (await window.attrmap.openAttrmap({ name: db }).customerDirectory()).getProfile("held@example.com"))?.fullName,
      db,
    );
    assert.equal(meanwhile, "before");
  }
  const outcome = abort ? await writer.evaluate(() => (window as unknown as { write: Promise<string> }).write) : "";
  await holder.release();
  const result = abort ? outcome : await writer.evaluate(() => (window as unknown as { write: Promise<string> }).write);
  const stored = await writer.evaluate(
    async (db) =>
      (await (await window.attrmap.openAttrmap({ name: db }).customerDirectory()).getProfile("held@example.com"))?.fullName,
    db,
  );
  await holder.page.close();
  await writer.close();
  return { queued, outcome: result, stored };
}

test("a waiting writer stays queued while another tab holds the lock, then writes after it", async () => {
  assert.deepEqual(await waitingScenario("web-locks", false), { queued: "queued", outcome: "ok", stored: "after" });
  // Control: without locks the write goes straight through while the other tab holds the lock.
  assert.equal((await waitingScenario("no-op", false)).queued, "settled");
});

test("an abort during a real Web Locks wait gives aborted and writes nothing", async () => {
  assert.deepEqual(await waitingScenario("web-locks", true), { queued: "queued", outcome: "aborted", stored: "before" });
  const control = await waitingScenario("no-op", true);
  assert.deepEqual([control.queued, control.stored], ["settled", "after"]);
});

test("two tabs writing overlapping partitions in opposite orders never deadlock and lose nothing", async () => {
  const db = freshDb();
  const [a, b] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
  const run = (page: Tab, order: string[], tag: string) =>
    page.evaluate(
      async ({ db, order, tag }) => {
        const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m", { partitionCount: 16 });
        for (let round = 0; round < 25; round++)
          await map.upsertMany(order.map((k) => [k, `${tag}${round}`] as [string, string]));
      },
      { db, order, tag },
    );
  await Promise.all([run(a, keys, "a"), run(b, [...keys].reverse(), "b")]);
  const values = await a.evaluate(
    async ({ db, keys }) => {
      const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m");
      return [...(await map.getMany(keys)).values()];
    },
    { db, keys },
  );
  // Every key holds one tab's last round: each batch was applied whole.
  assert.equal(values.length, keys.length);
  assert.ok(values.every((v) => v === "a24") || values.every((v) => v === "b24"), values.join(","));
  await a.close();
  await b.close();
});
