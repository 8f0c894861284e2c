// Pages a UI can use: `log.page({ before, after, limit })` and `map.page({ after, limit })`,
// checked against a plain model of what they must hold (sequences are 1, 2, 3, ... in append
// order; a map's order is partition index, then key), and by the chunks they read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
import { refFnv } from "../shared/reference.js";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const seqs = (records: Array<{ sequence: number }>) => records.map((r) => r.sequence);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => (e instanceof AttrmapError ? e.code : `not an AttrmapError: ${e}`),
  );

test("log pages walk older and newer by cursor, any limit, across chunk boundaries", async () => {
  const log = await fresh().chunkedLog<number>("audit", { chunkSize: 7 });
  await log.appendMany(range(1, 40)); // chunks 1-7 .. 29-35, current 36-40
  const newest = await log.page({ limit: 12 });
  assert.deepEqual(seqs(newest.records), range(29, 40).reverse());
  assert.deepEqual([newest.older, newest.newer], [29, null]);
  // Older, page after page, down to the first record, then nothing older.
  const walked: number[] = [...seqs(newest.records)];
  for (let page = newest; page.older !== null; ) {
    page = await log.page({ before: page.older, limit: 12 });
    walked.push(...seqs(page.records));
    if (page.older === null) assert.equal(page.records.at(-1)?.sequence, 1);
  }
  assert.deepEqual(walked, range(1, 40).reverse());
  // Newer from an old cursor: the next `limit` records above it, newest first.
  const up = await log.page({ after: 3, limit: 5 });
  assert.deepEqual(seqs(up.records), [8, 7, 6, 5, 4]);
  assert.deepEqual([up.older, up.newer], [4, 8]);
  const top = await log.page({ after: 35, limit: 100 });
  assert.deepEqual([seqs(top.records), top.newer, top.older], [range(36, 40).reverse(), null, 36]);
  assert.deepEqual(seqs((await log.page({ before: 1, limit: 3 })).records), []);
  assert.deepEqual(seqs((await log.page({ after: 40, limit: 3 })).records), []);
  assert.deepEqual(seqs((await log.page({ before: 9, limit: 1 })).records), [8]);
});

test("log pages hold what retention kept and see appends made between pages", async () => {
  const log = await fresh().chunkedLog<string>("msgs", { chunkSize: 5 });
  await log.appendMany(range(1, 23).map(String));
  await log.dropArchivesBefore("00000000000000000011"); // 1-10 gone
  const old = await log.page({ before: 14, limit: 10 });
  assert.deepEqual([seqs(old.records), old.older], [[13, 12, 11], null]);
  const first = await log.page({ limit: 4 });
  await log.appendMany(["24", "25", "26"]); // `current` (21-25) is archived on the way
  const newer = await log.page({ after: first.records[0]!.sequence, limit: 10 });
  assert.deepEqual([seqs(newer.records), newer.newer], [[26, 25, 24], null]);
  const archive = await fresh().subscriberArchive({ chunkSize: 2 });
  await archive.registerSubscribers(range(1, 5).map((i) => ({ subscriberId: `s${i}`, deliveryAddress: `s${i}@x` })));
  assert.deepEqual(
    (await archive.page({ before: 5, limit: 3 })).records.map((s) => s.subscriberId),
    ["s4", "s3", "s2"],
  );
});

test("a log page reads only the chunks that hold it", async () => {
  const factory = new IDBFactory();
  const store = openAttrmap({ indexedDB: factory, IDBKeyRange, locks: new InProcessLocks() });
  const log = await store.chunkedLog<number>("big", { chunkSize: 10 });
  await log.appendMany(range(1, 1000));
  const read: string[] = [];
  // Count the instance reads of the page: every get of the instances store names its key.
  const get = IDBObjectStore.prototype.get;
  IDBObjectStore.prototype.get = function (this: IDBObjectStore, key: IDBValidKey) {
    if (this.name === "instances" && Array.isArray(key)) read.push(String(key[1]));
    return get.call(this, key);
  };
  try {
    const page = await log.page({ before: 505, limit: 15 });
    assert.deepEqual(seqs(page.records), range(490, 504).reverse());
    assert.deepEqual(read.sort(), ["00000000000000000481", "00000000000000000491", "00000000000000000501"]);
  } finally {
    IDBObjectStore.prototype.get = get;
  }
});

test("map pages list every entry once in partition, then key, order; the cursor is the last key", async () => {
  const map = await fresh().partitionedMap<number>("m", { partitionCount: 8 });
  const keys = Array.from({ length: 57 }, (_, i) => `key-${i}`).concat(["__proto__", "", "é"]);
  await map.upsertMany(keys.map((k, i) => [k, i]));
  // FNV-1a over the key's UTF-8 bytes.
  const order = (k: string) => [refFnv(k) % 8, k] as const;
  const expected = [...keys].sort((a, b) => {
    const [pa, ka] = order(a);
    const [pb, kb] = order(b);
    return pa - pb || (ka < kb ? -1 : ka > kb ? 1 : 0);
  });
  for (const limit of [1, 7, 60, 100]) {
    const listed: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await map.page(after === undefined ? { limit } : { after, limit });
      listed.push(...page.entries.map(([k]) => k));
      assert.ok(page.entries.length <= limit);
      if (page.next === null) break;
      assert.equal(page.next, page.entries.at(-1)![0]);
      after = page.next;
    }
    assert.deepEqual(listed, expected, `limit ${limit}`);
  }
  const dir = await fresh().customerDirectory({ partitionCount: 4 });
  await dir.upsertProfiles([{ emailAddress: "A@x.io" }, { emailAddress: "b@x.io" }]);
  const page = await dir.page({ limit: 1 });
  const rest = await dir.page({ after: page.next!, limit: 5 });
  assert.deepEqual([...page.entries, ...rest.entries].map(([k]) => k).sort(), ["a@x.io", "b@x.io"]);
  assert.equal(rest.next, null);
});

test("page arguments are checked and name themselves", async () => {
  const store = fresh();
  const log = await store.chunkedLog("l");
  const map = await store.partitionedMap("m");
  for (const bad of [{}, { limit: 0 }, { limit: 10_001 }, { limit: 1.5 }, { limit: 5, before: -1 }, { limit: 5, after: "3" }])
    assert.equal(await codeOf(log.page(bad as { limit: number })), "invalid_argument", JSON.stringify(bad));
  await assert.rejects(log.page({ limit: 5, before: 3, after: 1 }), /options\.before and options\.after/);
  await assert.rejects(log.page({ limit: "5" } as never), /options\.limit must be a number, got string/);
  await assert.rejects(map.page({ limit: 5, after: 3 } as never), /options\.after must be a string, got number/);
  assert.equal(await codeOf(map.page({ limit: 0 })), "invalid_argument");
});
