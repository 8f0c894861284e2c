// Stored data that breaks the rules (written straight into IndexedDB by "another program"),
// the end of the sequence space, exact text, and change notifications, in real Chromium
// with an on-disk profile. Each test uses its own database.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { openPage, SHARED_PATH, type Tab, uniqueNames, useProfile } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("hardening");

type Raw = typeof import("../shared/raw-idb.js");
/** Runs `body` in a fresh tab with the raw IndexedDB helpers; returns its result. */
async function inTab<A, R>(body: (raw: Raw, arg: A) => Promise<R>, arg: A): Promise<{ result: R; page: Tab }> {
  const page = await openPage(env.browser, env.server.origin);
  const result = await page.evaluate(
    async ({ src, path, arg }) => {
      const raw = (await import(`${path}raw-idb.js`)) as Raw;
      // biome-ignore lint/security/noGlobalEval: the test's own function, sent into the page as text
      return globalThis.eval(`(${src})`)(raw, arg) as Promise<R>;
    },
    { src: body.toString(), path: SHARED_PATH, arg },
  );
  return { result, page };
}

test("a stored partition or entry of the wrong shape is corrupt_data, naming map and instance; others still read", async () => {
  const { result } = await inTab(async ({ rawPut, rawGet, codeOf }, db) => {
    const { openAttrmap, emailPartition } = window.attrmap;
    const dir = await openAttrmap({ name: db }).customerDirectory();
    const map = "CustomerProfilesByEmailPartition";
    // Two emails that share a partition: one is corrupted, the other must still read.
    const kept = emailPartition("kept@example.com").partitionName;
    let sibling = "";
    for (let i = 0; sibling === ""; i++)
      if (emailPartition(`sibling${i}@example.com`).partitionName === kept) sibling = `sibling${i}@example.com`;
    await dir.upsertProfile({ emailAddress: "kept@example.com", fullName: "Kept" });
    await dir.upsertProfile({ emailAddress: sibling, fullName: "Sibling" });
    const before = (await rawGet(db, "instances", [map, kept])) as Map<string, unknown>;
    await rawPut(db, "instances", [map, kept], before.set(sibling, 12345));
    const entry = await codeOf(dir.getProfile(sibling));
    const stillRead = (await dir.getProfile("kept@example.com"))?.fullName;
    // A whole partition that is not a Map.
    await rawPut(db, "instances", [map, kept], 12345);
    return {
      entry,
      stillRead,
      get: await codeOf(dir.getProfile("kept@example.com")),
      upsert: await codeOf(dir.upsertProfile({ emailAddress: "kept@example.com", fullName: "New" })),
      unchanged: await rawGet(db, "instances", [map, kept]),
      kept,
      sibling,
    };
  }, freshDb());
  assert.equal(
    result.entry,
    `corrupt_data: instance "${result.kept}" of map "CustomerProfilesByEmailPartition": ` +
      `the entry for "${result.sibling}" is number, not a profile`,
  );
  assert.equal(result.stillRead, "Kept");
  assert.equal(
    result.get,
    `corrupt_data: instance "${result.kept}" of map "CustomerProfilesByEmailPartition": a partition must be a Map, found number`,
  );
  assert.equal(result.upsert, result.get);
  assert.equal(result.unchanged, 12345, "the failed upsert wrote nothing");
});

test("stored chunks and log state that break the rules are corrupt_data; nothing is written over them", async () => {
  const { result } = await inTab(async ({ rawPut, rawGet, codeOf }, db) => {
    const { openAttrmap, createHandler } = window.attrmap;
    const store = openAttrmap({ name: db });
    const archive = await store.subscriberArchive({ chunkSize: 3 });
    await archive.registerSubscribers(Array.from({ length: 7 }, (_, i) => ({ subscriberId: `s${i + 1}`, deliveryAddress: "x" })));
    const map = "SubscriberChunks";
    const first = "00000000000000000001";
    await rawPut(db, "instances", [map, first], [1, 2, 3]);
    const numbers = await codeOf(archive.getSubscriberPage(first));
    const long = Array.from({ length: 5 }, (_, i) => ({ sequence: i + 1, subscriberId: "s", deliveryAddress: "x" }));
    await rawPut(db, "instances", [map, first], long);
    const tooLong = await codeOf(archive.getSubscriberPage(first));
    await rawPut(
      db,
      "instances",
      [map, first],
      [3, 2, 1].map((sequence) => ({ sequence, subscriberId: "s", deliveryAddress: "x" })),
    );
    const reversed = await codeOf(archive.getSubscriberPage(first));
    await rawPut(db, "instances", [map, "current"], [{ sequence: 7, subscriberId: 42, deliveryAddress: "x" }]);
    const wrongField = await codeOf(archive.getSubscriberPage(""));
    await rawPut(db, "instances", [map, "current"], "not an array");
    const notArray = await codeOf(archive.getSubscriberPage(""));
    await rawPut(db, "instances", [map, "current"], [{ sequence: 7, subscriberId: 42, deliveryAddress: "x" }]);
    const handle = createHandler(store);
    const call = (method: string, path: string) => handle(new Request(`${location.origin}${path}`, { method }));
    await call("POST", "/patterns/sequentially-chunked-attribute-map/start");
    const http = await call("GET", "/patterns/sequentially-chunked-attribute-map/subscribers");
    const meta = (await rawGet(db, "maps", map)) as Record<string, unknown>;
    await rawPut(db, "maps", map, { ...meta, state: { nextSequence: "x", latestArchivedChunkToken: "" } });
    const state = await codeOf(archive.log.state());
    const append = await codeOf(archive.registerSubscriber({ subscriberId: "late", deliveryAddress: "x" }));
    return {
      numbers,
      tooLong,
      reversed,
      wrongField,
      notArray,
      http: [http.status, ((await http.json()) as { error: string }).error],
      state,
      append,
      current: await rawGet(db, "instances", [map, "current"]),
    };
  }, freshDb());
  const at = (instance: string) => `corrupt_data: instance "${instance}" of map "SubscriberChunks": `;
  assert.equal(result.numbers, `${at("00000000000000000001")}record 0 is not a subscriber record: it is number`);
  assert.equal(result.tooLong, `${at("00000000000000000001")}it holds 5 records, more than any chunk of this log (3)`);
  assert.equal(result.reversed, 'corrupt_data: subscriber page "00000000000000000001": record 0 has sequence 3 where 1 belongs');
  assert.equal(
    result.wrongField,
    `${at("current")}record 0 is not a subscriber record: subscriberId is number, not a non-empty string`,
  );
  assert.equal(result.notArray, `${at("current")}a chunk must be an array, found string`);
  assert.deepEqual(result.http, [
    500,
    `${at("current").slice("corrupt_data: ".length)}record 0 is not a subscriber record: ` +
      "subscriberId is number, not a non-empty string",
  ]);
  assert.match(result.state, /^corrupt_data: map "SubscriberChunks": the log's layout record is not/);
  assert.equal(result.append, result.state);
  assert.deepEqual(result.current, [{ sequence: 7, subscriberId: 42, deliveryAddress: "x" }], "the failed append wrote nothing");
});

test("layout records that are not layouts are corrupt_data; a layout version is any count of changes from 1", async () => {
  const { result } = await inTab(async ({ rawPut, codeOf }, db) => {
    const store = window.attrmap.openAttrmap({ name: db });
    await store.partitionedMap("m", { partitionCount: 4 });
    const good = { kind: "partitioned", layoutVersion: 1, partitionCount: 4, keyRule: "exact" };
    const open = async (record: unknown) => {
      await rawPut(db, "maps", "m", record);
      return codeOf(window.attrmap.openAttrmap({ name: db }).partitionedMap("m"));
    };
    return {
      null: await open(null),
      kind: await open({ ...good, kind: "other" }),
      version0: await open({ ...good, layoutVersion: 0 }),
      versionText: await open({ ...good, layoutVersion: "x" }),
      count: await open({ ...good, partitionCount: 0 }),
      rule: await open({ ...good, keyRule: 7 }),
      version99: await open({ ...good, layoutVersion: 99 }),
    };
  }, freshDb());
  assert.equal(result.null, 'corrupt_data: map "m": the layout record is null');
  assert.equal(result.kind, 'corrupt_data: map "m": the layout record has kind "other"');
  assert.equal(result.version0, 'corrupt_data: map "m": layoutVersion must be an integer from 1 to 9007199254740991, got 0');
  assert.match(result.versionText, /^corrupt_data: map "m": the layout record has a layoutVersion of type string/);
  assert.equal(result.count, 'corrupt_data: map "m": partitionCount must be an integer from 1 to 4294967295, got 0');
  assert.match(result.rule, /^corrupt_data: map "m": .*keyRule of type number/);
  assert.equal(result.version99, "ok");
});

test("the last safe sequence is given, then the log is full: sequence_exhausted, HTTP 507", async () => {
  const { result } = await inTab(async ({ rawPut, codeOf }, db) => {
    const { openAttrmap, createHandler, archiveChunkToken } = window.attrmap;
    const store = openAttrmap({ name: db });
    await store.subscriberArchive({ chunkSize: 1 });
    // A log whose current chunk holds sequence 2^53 - 2: the next record is the last safe one.
    const last = Number.MAX_SAFE_INTEGER;
    await rawPut(db, "maps", "SubscriberChunks", {
      kind: "chunked",
      layoutVersion: 1,
      segments: [{ fromSequence: 1, chunkSize: 1 }],
      state: { nextSequence: last, latestArchivedChunkToken: archiveChunkToken(last - 2) },
      retainedFrom: last - 1,
    });
    await rawPut(
      db,
      "instances",
      ["SubscriberChunks", "current"],
      [{ sequence: last - 1, subscriberId: "s", deliveryAddress: "x" }],
    );
    const archive = await store.subscriberArchive();
    const lastOne = await archive.registerSubscriber({ subscriberId: "last", deliveryAddress: "x" });
    const full = await codeOf(archive.registerSubscriber({ subscriberId: "one too many", deliveryAddress: "x" }));
    const handle = createHandler(store);
    const call = (method: string, path: string, body?: unknown) =>
      handle(new Request(`${location.origin}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) }));
    await call("POST", "/patterns/sequentially-chunked-attribute-map/start");
    const http = await call("POST", "/patterns/sequentially-chunked-attribute-map/register", {
      subscriberId: "http",
      deliveryAddress: "x",
    });
    const page = await archive.getSubscriberPage("");
    return {
      lastOne: lastOne.sequence,
      full,
      http: http.status,
      state: await archive.log.state(),
      page: page.subscribers.map((s) => s.sequence),
      count: await archive.count(),
    };
  }, freshDb());
  assert.equal(result.lastOne, 2 ** 53 - 1);
  assert.match(result.full, /^sequence_exhausted: the log is full: sequences may not pass 9007199254740991/);
  assert.equal(result.http, 507);
  assert.equal(result.state.nextSequence, 2 ** 53);
  assert.deepEqual(result.page, [2 ** 53 - 1]);
  assert.equal(result.count, 2);
});

test("text is stored exactly: lone surrogates and NUL in profile and subscriber fields come back unchanged", async () => {
  const { result } = await inTab(async (_, db) => {
    const store = window.attrmap.openAttrmap({ name: db });
    const dir = await store.customerDirectory();
    const text = "\ud800 lone \udfff and \u0000 NUL";
    await dir.upsertProfile({ emailAddress: "exact@example.com", fullName: text, companyName: text, customerTier: text });
    const archive = await store.subscriberArchive();
    const saved = await archive.registerSubscriber({ subscriberId: text, deliveryAddress: text });
    const read = (await archive.getSubscriberPage("")).subscribers[0]!;
    const profile = (await dir.getProfile("exact@example.com"))!;
    return [
      profile.fullName,
      profile.companyName,
      profile.customerTier,
      saved.subscriberId,
      read.subscriberId,
      read.deliveryAddress,
    ].map((t) => t === text);
  }, freshDb());
  assert.deepEqual(result, [true, true, true, true, true, true]);
});

test("a map of 4294967295 partitions answers partitionSizes and count from what is stored", async () => {
  const { result } = await inTab(async (_, db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<number>("huge", { partitionCount: 4294967295 });
    await map.upsertMany([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    return { sizes: [...(await map.partitionSizes())], count: await map.count() };
  }, freshDb());
  assert.equal(result.count, 3);
  assert.equal(result.sizes.length, 3);
  for (const [name, size] of result.sizes) {
    assert.match(name, /^partition-\d{10}$/);
    assert.equal(size, 1);
  }
});

test("change notifications: writes arrive by name; layout-only and failed writes, junk and unsubscribed do not", async () => {
  const db = freshDb();
  const watcher = await openPage(env.browser, env.server.origin);
  await watcher.evaluate((db) => {
    const w = window as unknown as { seen: unknown[]; second: unknown[]; stop: () => void };
    w.seen = [];
    w.second = [];
    const store = window.attrmap.openAttrmap({ name: db });
    w.stop = store.watch((c) => w.seen.push(c));
    store.watch((c) => w.second.push(c));
  }, db);
  const writer = await openPage(env.browser, env.server.origin);
  await writer.evaluate(async (db) => {
    const store = window.attrmap.openAttrmap({ name: db });
    const map = await store.partitionedMap<unknown>("m", { partitionCount: 4 }); // stores a layout only
    await map.upsert("bad", () => 1).catch(() => undefined); // a function cannot be stored: fails
    const channel = new BroadcastChannel(`attrmap:${db}`);
    for (const junk of [
      null,
      "x",
      7,
      { database: db, map: 5, instances: [] },
      { database: "other", map: "m", instances: [] },
      { database: db, map: "m", instances: [1] },
      {
        database: db,
        map: "m",
        instances: [],
        maps: [
          { map: "m", instances: [] },
          { map: 5, instances: [] },
        ],
      },
    ])
      channel.postMessage(junk);
    channel.close();
    await map.upsert("k", 1);
  }, db);
  const waitFor = async (expr: string, n: number) => {
    while ((await watcher.evaluate((e) => ((window as unknown as Record<string, unknown[]>)[e] ?? []).length, expr)) < n)
      await watcher.evaluate(() => new Promise((r) => setTimeout(r, 10)));
  };
  await waitFor("seen", 1);
  const first = await watcher.evaluate(() => (window as unknown as { seen: unknown[] }).seen);
  const partition = await writer.evaluate(() => window.attrmap.keyPartition("k", 4).partitionName);
  assert.deepEqual(first, [{ database: db, map: "m", instances: [partition], maps: [{ map: "m", instances: [partition] }] }]);
  await watcher.evaluate(() => (window as unknown as { stop: () => void }).stop());
  await writer.evaluate(
    async (db) => (await window.attrmap.openAttrmap({ name: db }).partitionedMap<number>("m")).upsert("k", 2),
    db,
  );
  await waitFor("second", 2);
  assert.equal(
    (await watcher.evaluate(() => (window as unknown as { seen: unknown[] }).seen)).length,
    1,
    "no change after unsubscribing",
  );
  assert.deepEqual(watcher.errors, []);
});
