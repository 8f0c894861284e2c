// SPEC section 6 in every engine: a database's identity, its loss told once and never written
// over, persistence and room, and a database of a newer format left alone. The database is
// lost here the way every engine allows a test to lose it: another tab deletes it.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { ENGINE } from "./engines.js";
import { openPage, type Tab, until, useProfile } from "./harness.js";

const env = useProfile();

/** Opens the store `name` in `page` and in a dedicated worker of it, each counting its `datalost` events. */
async function openEverywhere(page: Tab, name: string): Promise<void> {
  await page.evaluate(
    ({ origin, name }) => {
      type W = { store?: unknown; lost?: number; worker?: Worker; ask?: (q: string) => Promise<unknown> };
      const w = window as unknown as W;
      const store = window.attrmap.openAttrmap({ name });
      w.store = store;
      w.lost = 0;
      store.on("datalost", () => void (w.lost! += 1));
      // The worker answers each question with what its own store object says.
      const source = `import * as attrmap from "${origin}/attrmap/dist/index.js";
        const store = attrmap.openAttrmap({ name: ${JSON.stringify(name)} });
        let lost = 0;
        store.on("datalost", () => lost++);
        const code = (p) => p.then((v) => v, (e) => ({ code: e.code, message: e.message }));
        onmessage = async ({ data }) => {
          const archive = () => store.subscriberArchive();
          const one = (a) => a.registerSubscriber({ subscriberId: "w", deliveryAddress: "w" });
          const answers = {
            register: () => code(archive().then(one).then((s) => s.sequence)),
            identity: () => code(store.identity()),
            lost: async () => lost,
            ack: async () => store.acknowledgeDataLoss(),
            persist: () => code(store.persist()),
            status: () => code(store.storageStatus()),
          };
          postMessage(await answers[data]());
        };`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
      let queue = Promise.resolve() as Promise<unknown>;
      w.ask = (q) =>
        (queue = queue.then(
          () =>
            new Promise((resolve) => {
              worker.onmessage = (e) => resolve(e.data);
              worker.postMessage(q);
            }),
        ));
      w.worker = worker;
    },
    { origin: env.server.origin, name },
  );
}

type Outcome = number | { code: string; message: string };

/** What `register`, `identity` and the loss counter say in the page and in its worker. */
function state(page: Tab): Promise<{ page: { register: Outcome; identity: unknown; lost: number }; worker: unknown }> {
  return page.evaluate(async () => {
    const w = window as unknown as {
      store: ReturnType<typeof window.attrmap.openAttrmap>;
      lost: number;
      ask(q: string): Promise<unknown>;
    };
    const code = <T>(p: Promise<T>) =>
      p.then(
        (v) => v,
        (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
      );
    const register = code(
      w.store
        .subscriberArchive()
        .then((a) => a.registerSubscriber({ subscriberId: "p", deliveryAddress: "p" }))
        .then((s) => s.sequence),
    );
    return {
      page: { register: await register, identity: await code(w.store.identity()), lost: w.lost },
      worker: { register: await w.ask("register"), identity: await w.ask("identity"), lost: await w.ask("lost") },
    };
  });
}

test("a database deleted under two tabs and a worker: data_lost everywhere, told once, nothing written", async () => {
  const name = "loss";
  const [a, b, other] = [
    await openPage(env.browser, env.server.origin),
    await openPage(env.browser, env.server.origin),
    await openPage(env.browser, env.server.origin),
  ];
  await openEverywhere(a, name);
  await openEverywhere(b, name);
  const first = await state(a);
  const second = await state(b);
  // Sequences 1, 2 (tab a, its worker), 3, 4 (tab b, its worker): one database, one identity.
  assert.deepEqual([first.page.register, (first.worker as { register: number }).register], [1, 2]);
  assert.deepEqual([second.page.register, (second.worker as { register: number }).register], [3, 4]);
  const identity = first.page.identity as { id: string; createdAt: number };
  assert.match(identity.id, /^[0-9a-f]{32}$/);
  for (const seen of [second.page.identity, (first.worker as { identity: unknown }).identity]) assert.deepEqual(seen, identity);
  // A live query in tab a, recording what it is told.
  await a.evaluate(async () => {
    const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; told: string[] };
    w.told = [];
    w.store
      .liveQuery(async (s) => (await s.subscriberArchive()).count())
      .subscribe({ next: (n) => w.told.push(`count ${n}`), error: (e) => w.told.push(`error ${(e as { code: string }).code}`) });
  });
  await until("the live query's first result", () =>
    a.evaluate(() => (window as unknown as { told: string[] }).told.includes("count 4")),
  );

  const deleted = await other.evaluate(
    (name) =>
      new Promise<string>((resolve) => {
        const req = indexedDB.deleteDatabase(name);
        req.onsuccess = () => resolve("deleted");
        req.onerror = () => resolve(`error ${req.error?.name}`);
        req.onblocked = () => resolve("blocked"); // the stores must let go of their connections
      }),
    name,
  );
  assert.equal(deleted, "deleted");
  // Each store object is told once, without a call of its own.
  for (const page of [a, b])
    await until("the datalost event in a tab and its worker", () =>
      page.evaluate(
        async () =>
          (window as unknown as { lost: number }).lost === 1 &&
          (await (window as unknown as { ask(q: string): Promise<unknown> }).ask("lost")) === 1,
      ),
    );
  for (const page of [a, b]) {
    const lost = await state(page);
    for (const where of [lost.page, lost.worker as typeof lost.page]) {
      for (const outcome of [where.register, where.identity] as Array<{ code: string; message: string }>) {
        assert.equal(outcome.code, "data_lost");
        assert.match(outcome.message, new RegExp(`^database "${name}" \\(identity ${identity.id}, created .*\\) is gone`));
      }
      assert.equal(where.lost, 1);
    }
  }
  // Nothing wrote the new database: it was never created (WebKit lists an aborted creation at version 0).
  const created = await other.evaluate(
    async (name) => (await indexedDB.databases()).some((d) => d.name === name && (d.version ?? 0) > 0),
    name,
  );
  assert.equal(created, false);
  assert.ok(
    (await a.evaluate(() => (window as unknown as { told: string[] }).told)).includes("error data_lost"),
    "the live query is told",
  );

  // Tab a goes on: a new database, a new identity, the log from sequence 1; its query shows it.
  const after = await a.evaluate(async () => {
    const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; ask(q: string): Promise<unknown> };
    w.store.acknowledgeDataLoss();
    const archive = await w.store.subscriberArchive();
    const sequence = (await archive.registerSubscriber({ subscriberId: "again", deliveryAddress: "p" })).sequence;
    return { sequence, identity: await w.store.identity(), worker: await w.ask("register") };
  });
  assert.equal(after.sequence, 1);
  assert.notEqual(after.identity.id, identity.id);
  assert.equal((after.worker as { code: string }).code, "data_lost", "the worker's store has not acknowledged");
  await until("the live query to show the new database", () =>
    a.evaluate(() => (window as unknown as { told: string[] }).told.at(-1) === "count 1"),
  );
  // Tab b's store found another database than its own: still data_lost until it acknowledges.
  const inB = await b.evaluate(async () => {
    const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; ask(q: string): Promise<unknown> };
    const before = await w.store.identity().then(
      () => "ok",
      (e: { code: string }) => e.code,
    );
    w.store.acknowledgeDataLoss();
    await w.ask("ack");
    const archive = await w.store.subscriberArchive();
    return {
      before,
      page: (await archive.registerSubscriber({ subscriberId: "b", deliveryAddress: "p" })).sequence,
      worker: await w.ask("register"),
      identity: (await w.store.identity()).id,
    };
  });
  assert.deepEqual(inB, { before: "data_lost", page: 2, worker: 3, identity: after.identity.id });
  // Still one event each: acknowledging and the new database are no loss.
  for (const page of [a, b])
    assert.deepEqual(
      await page.evaluate(async () => [
        (window as unknown as { lost: number }).lost,
        await (window as unknown as { ask(q: string): Promise<unknown> }).ask("lost"),
      ]),
      [1, 1],
    );
  for (const page of [a, b, other]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("the identity stays through resize, retention, export, import and a reload; a new database has its own", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const before = Date.now();
  const seen = await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "identity" });
    const ids: string[] = [];
    const note = async () => void ids.push((await store.identity()).id);
    const first = await store.identity();
    const map = await store.partitionedMap<number>("m", { partitionCount: 4 });
    await map.upsertMany(Array.from({ length: 20 }, (_, i) => [`k${i}`, i] as [string, number]));
    await map.resize(8);
    await note();
    const log = await store.chunkedLog<number>("log", { chunkSize: 2 });
    await log.appendMany([1, 2, 3, 4, 5, 6, 7]);
    await log.dropArchivesBefore("00000000000000000005");
    await note();
    const reader = window.attrmap.exportData(store).getReader();
    let text = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    await note();
    await window.attrmap.importData(store, text, { replace: true });
    await note();
    store.close();
    await note();
    const other = await window.attrmap.openAttrmap({ name: "identity-2" }).identity();
    return { first, ids, other };
  });
  const after = Date.now();
  assert.match(seen.first.id, /^[0-9a-f]{32}$/);
  assert.ok(seen.first.createdAt >= before && seen.first.createdAt <= after, `createdAt ${seen.first.createdAt}`);
  assert.deepEqual(seen.ids, Array(5).fill(seen.first.id));
  assert.notEqual(seen.other.id, seen.first.id);
  await page.goto(`${env.server.origin}/__attrmap_test__.html`);
  await until("the reloaded page", () => page.evaluate(() => document.documentElement.dataset.ready === "true"));
  const reloaded = await page.evaluate(async () => window.attrmap.openAttrmap({ name: "identity" }).identity());
  assert.deepEqual(reloaded, seen.first);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("persist() and storageStatus() in a page and a worker answer with what the browser says", async () => {
  const page = await openPage(env.browser, env.server.origin);
  await openEverywhere(page, "status");
  const got = await page.evaluate(async () => {
    const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; ask(q: string): Promise<unknown> };
    // What the browser itself says, asked directly, beside what the store says. WebKitGTK's
    // MiniBrowser has no navigator.storage at all.
    const manager = navigator.storage as StorageManager | undefined;
    const direct = manager && { persisted: await manager.persisted(), quota: (await manager.estimate()).quota };
    const status = await w.store.storageStatus();
    return {
      direct: direct ?? null,
      status,
      // Firefox asks the user, and answers when they do: none does here.
      persist: await Promise.race([w.store.persist(), new Promise((r) => setTimeout(() => r("waiting for the user"), 2000))]),
      worker: await w.ask("status"),
      workerPersist: await w.ask("persist"),
    };
  });
  const worker = got.worker as { persisted: boolean; usage?: number; quota?: number };
  if (got.direct === null) {
    // SPEC 6.1: where the API does not exist, false and undefined, never an error.
    assert.deepEqual(got.status, { persisted: false, usage: undefined, quota: undefined });
    assert.equal(got.persist, false);
    assert.deepEqual(worker, { persisted: false, usage: undefined, quota: undefined });
  } else {
    assert.equal(got.status.persisted, got.direct.persisted);
    assert.equal(typeof got.status.usage, "number");
    assert.equal(got.status.quota, got.direct.quota);
    if (ENGINE === "firefox") assert.equal(got.persist, "waiting for the user");
    else assert.equal(typeof got.persist, "boolean");
    assert.equal(typeof worker.quota, "number");
  }
  // persist() is a window's call: in a worker the store answers false, as SPEC 6.1 says.
  assert.equal(got.workerPersist, false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a database of a newer format than this package knows is version_conflict and left untouched", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const result = await page.evaluate(async () => {
    const open = (version?: number) =>
      new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open("newer", version);
        req.onupgradeneeded = () => {
          for (const store of ["instances", "maps", "database", "future"]) req.result.createObjectStore(store);
          req.transaction!.objectStore("future").put("kept", "k");
        };
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    (await open(99)).close();
    const { AttrmapError } = window.attrmap;
    const outcome = await window.attrmap
      .openAttrmap({ name: "newer" })
      .partitionedMap("m")
      .then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : String(e)),
      );
    const db = await open();
    const kept = await new Promise((resolve) => {
      const req = db.transaction("future").objectStore("future").get("k");
      req.onsuccess = () => resolve(req.result);
    });
    const after = { version: db.version, stores: Array.from(db.objectStoreNames), kept };
    db.close();
    return { outcome, after };
  });
  assert.match(result.outcome, /^version_conflict: opening database "newer" at version 6 failed: VersionError/);
  assert.deepEqual(result.after, { version: 99, stores: ["database", "future", "instances", "maps"], kept: "kept" });
  assert.deepEqual(page.errors, []);
  await page.close();
});
