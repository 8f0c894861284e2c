// The IndexedDB error codes, each provoked for real in Chromium: a transaction the browser
// aborts, a connection closed under the store (retried once, then connection_closed), a
// database another program left without attrmap's object stores, the HTTP handler's answers
// to lock waits, and an import or a chunk-size change whose late wasm module does not arrive.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { holdLock, openTab, useChromiumProfile } from "./harness.js";

const env = useChromiumProfile();

test("transaction_aborted: a big write aborted by clearing the site's data; acknowledged, the store goes on", async () => {
  const page = await openTab(env.context, env.server.origin);
  const cdp = await env.context.newCDPSession(page);
  let armed = false;
  await page.exposeFunction("writeStarted", async () => {
    if (!armed) return;
    armed = false;
    await cdp.send("Storage.clearDataForOrigin", { origin: env.server.origin, storageTypes: "indexeddb" });
  });
  const seen: string[] = [];
  // Whether the clear lands in the commit (AbortError) or on the closing connection
  // (UnknownError, storage_error) is the browser's timing: try until the abort is seen.
  for (let round = 0; round < 8 && !seen.includes("transaction_aborted"); round++) {
    armed = true;
    const result = await page.evaluate(async (round) => {
      const store = window.attrmap.openAttrmap({ name: `aborted-${round}` });
      const map = await store.partitionedMap<string>("m", { partitionCount: 2000 });
      const original = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase["transaction"]>) {
        const tx = original.apply(this, args);
        if (args[1] === "readwrite") void (window as unknown as { writeStarted: () => Promise<void> }).writeStarted();
        return tx;
      };
      const big = "y".repeat(2000);
      const outcome = await map.upsertMany(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, big] as [string, string])).then(
        () => "ok",
        (e: { code?: string }) => e.code ?? String(e),
      );
      IDBDatabase.prototype.transaction = original;
      // The clear lost the store's database, which it says until it is acknowledged.
      const lost = await map.upsert("after", "works").then(
        () => "ok",
        (e: { code?: string }) => e.code,
      );
      store.acknowledgeDataLoss();
      await map.upsert("after", "works");
      return { outcome, lost, after: await map.get("after"), count: await map.count() };
    }, round);
    seen.push(result.outcome);
    assert.deepEqual(
      [result.lost, result.after, result.count],
      ["data_lost", "works", 1],
      "after the failure the store says data_lost, then works once acknowledged, and nothing of the batch is there",
    );
  }
  assert.ok(seen.includes("transaction_aborted"), seen.join(", "));
  await page.close();
});

test("a connection closed under the store is reopened once; if every one closes at once, connection_closed", async () => {
  const page = await openTab(env.context, env.server.origin);
  const result = await page.evaluate(async () => {
    const { openAttrmap } = window.attrmap;
    const opened: IDBDatabase[] = [];
    const open = IDBFactory.prototype.open;
    let closeAtOnce = false;
    IDBFactory.prototype.open = function (this: IDBFactory, ...args: Parameters<IDBFactory["open"]>) {
      const req = open.apply(this, args);
      // Registered before the library's own handler, so it runs first.
      req.addEventListener("success", () => {
        opened.push(req.result);
        if (closeAtOnce) req.result.close();
      });
      return req;
    };
    const dir = await openAttrmap({ name: "closing" }).customerDirectory();
    await dir.upsertProfile({ emailAddress: "a@example.com" });
    opened.at(-1)!.close(); // as a browser shutting the connection would, without telling the store
    const retried = await dir.upsertProfile({ emailAddress: "b@example.com" }).then(
      () => "ok",
      (e: { code?: string }) => e.code,
    );
    const reopened = opened.length;
    opened.at(-1)!.close();
    closeAtOnce = true;
    const failed = await dir.getProfile("a@example.com").then(
      () => "ok",
      (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
    );
    IDBFactory.prototype.open = open;
    closeAtOnce = false;
    return { retried, reopened, failed, later: (await dir.getProfile("b@example.com"))?.emailAddress };
  });
  assert.equal(result.retried, "ok");
  assert.equal(result.reopened, 2);
  assert.match(result.failed, /^connection_closed: reading .* failed: InvalidStateError/);
  assert.equal(result.later, "b@example.com");
  await page.close();
});

test("storage_error: another program's database of the same name, left untouched", async () => {
  const page = await openTab(env.context, env.server.origin);
  const result = await page.evaluate(async () => {
    // Another program's database, at the schema version attrmap uses, with other stores.
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open("someone-else", 2);
      req.onupgradeneeded = () => req.result.createObjectStore("their-things");
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
      req.onerror = () => reject(req.error);
    });
    const outcome = await window.attrmap
      .openAttrmap({ name: "someone-else" })
      .partitionedMap("m")
      .then(
        () => "ok",
        (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
      );
    const db = await new Promise<IDBDatabase>((resolve) => {
      const req = indexedDB.open("someone-else");
      req.onsuccess = () => resolve(req.result);
    });
    db.close();
    return { outcome, after: { version: db.version, stores: Array.from(db.objectStoreNames) } };
  });
  assert.match(
    result.outcome,
    /^storage_error: opening database "someone-else" at version 6 failed: it is another program's database/,
  );
  assert.deepEqual(result.after, { version: 2, stores: ["their-things"] }, "the other program's database is left as it was");
  await page.close();
});

test('the HTTP handler: lock: "wait" queues and succeeds, a timed-out wait is 409, ifAvailable is 409 at once', async () => {
  const [holder, page] = [await openTab(env.context, env.server.origin), await openTab(env.context, env.server.origin)];
  const lock = await page.evaluate(async () => {
    const { openAttrmap, lockName, emailPartition, createHandler } = window.attrmap;
    const store = openAttrmap({ name: "http-locks" });
    await createHandler(store)(
      new Request(`${location.origin}/patterns/hash-partitioned-attribute-map/start`, { method: "POST" }),
    );
    return lockName({
      database: "http-locks",
      map: "CustomerProfilesByEmailPartition",
      instance: emailPartition("busy@example.com").partitionName,
    });
  });
  const release = await holdLock(holder, lock);
  const answers = await page.evaluate(async () => {
    const { openAttrmap, createHandler } = window.attrmap;
    const store = openAttrmap({ name: "http-locks" });
    const put = (options: Parameters<typeof createHandler>[1]) =>
      createHandler(
        store,
        options,
      )(
        new Request(`${location.origin}/patterns/hash-partitioned-attribute-map/customer-profile`, {
          method: "PUT",
          body: JSON.stringify({ emailAddress: "busy@example.com", fullName: JSON.stringify(options) }),
        }),
      );
    const conflict = await put({});
    const timeout = await put({ lock: "wait", timeoutMs: 30 });
    const w = window as unknown as { waiting: Promise<Response> };
    w.waiting = put({ lock: "wait" });
    return [conflict.status, (await conflict.json()).error, timeout.status, (await timeout.json()).error];
  });
  assert.equal(answers[0], 409);
  assert.match(answers[1], /is locked by another writer/);
  assert.equal(answers[2], 409);
  assert.match(answers[3], /^timed out after 30 ms waiting for/);
  await release();
  const waited = await page.evaluate(async () => {
    const response = await (window as unknown as { waiting: Promise<Response> }).waiting;
    return [response.status, ((await response.json()) as { fullName: string }).fullName];
  });
  assert.deepEqual(waited, [200, JSON.stringify({ lock: "wait" })]);
  await holder.close();
  await page.close();
});

/** A tab where the wasm module `name` and its inlined copy, fetched at a first call, do not arrive until `online()`. */
async function withoutModule(name: string) {
  const page = await openTab(env.context, env.server.origin);
  const offline = new RegExp(`${name}_(bg\\.wasm|inline\\.js)$`);
  await page.route(offline, (route) => route.abort("internetdisconnected"));
  return { page, online: () => page.unroute(offline) };
}

test("an import whose verifier module cannot load is storage_error and changes nothing; the next import loads it", async () => {
  const { page, online } = await withoutModule("attrmap_verifier");
  const run = () =>
    page.evaluate(async () => {
      const { openAttrmap, exportText, importData } = window.attrmap;
      const source = openAttrmap({ name: "offline-source" });
      await (await source.partitionedMap<number>("m")).upsert("k", 1);
      const target = openAttrmap({ name: "offline-target" });
      const outcome = await importData(target, await exportText(source)).then(
        (summary) => summary,
        (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`,
      );
      return { outcome, target: await exportText(target) };
    });
  const header = '{"format":"attrmap-export","version":1}\n'; // docs/export-format.md: a database with no maps
  const refused = await run();
  assert.match(String(refused.outcome), /^storage_error: the export verifier's wasm module did not load/);
  assert.equal(refused.target, header);
  await online();
  const imported = await run();
  assert.deepEqual(imported.outcome, { maps: 1, instances: 1, entries: 1 });
  assert.notEqual(imported.target, header);
  await page.close();
});

test("a chunk-size change whose maintenance module cannot load: storage_error, no change; the next one loads it", async () => {
  const { page, online } = await withoutModule("attrmap_maintenance");
  const run = () =>
    page.evaluate(async () => {
      const log = await window.attrmap.openAttrmap({ name: "offline-maintenance" }).chunkedLog<number>("l");
      if ((await log.count()) === 0) await log.appendMany([1, 2, 3]);
      const outcome = await log.changeChunkSize(2).then(
        () => "changed",
        (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`,
      );
      return { outcome, stats: await log.stats() };
    });
  const refused = await run();
  assert.match(refused.outcome, /^storage_error: the maintenance wasm module did not load/);
  // As before the call: three records in current, the default chunk size (docs/chunked-log.md).
  assert.deepEqual(refused.stats, { records: 3, currentRecords: 3, archivedChunks: 0, chunkSize: 100, nextSequence: 4 });
  await online();
  const changed = await run();
  assert.equal(changed.outcome, "changed");
  assert.deepEqual(changed.stats, { records: 3, currentRecords: 0, archivedChunks: 1, chunkSize: 2, nextSequence: 4 });
  await page.close();
});
