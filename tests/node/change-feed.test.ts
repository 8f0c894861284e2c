// The change feed over fake-indexeddb (docs/change-feed.md): one record per committed write,
// gapless, in commit order, naming the instances the write put or deleted (computed here from
// the contract: a key's partition by FNV-1a, a chunk's token by its first sequence); nothing
// for a failed write; acknowledged and bounded, and a checkpoint past what is kept is
// `checkpoint_expired`, never a silent gap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, type Change, type ChangeRecord, InProcessLocks, openAttrmap } from "attrmap";
import { exportText, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { refPartition } from "../shared/reference.js";

const fresh = (maxChanges?: number) =>
  openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks(), maxChanges });
const code = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => (e instanceof AttrmapError ? e.code : String(e)),
  );
/** A chunk's token: its first sequence, 20 digits. */
const token = (first: number) => String(first).padStart(20, "0");
const partition = (key: string, count: number) => refPartition(key, count).name;
/** The records as [map, sorted instances], in order; and their sequences must be 1, 2, 3, ... from `from`. */
function shape(records: ChangeRecord[], from = 1): Array<[string, string[]]> {
  assert.deepEqual(
    records.map((r) => r.seq),
    records.map((_, i) => from + i),
    "gapless, in order",
  );
  for (const r of records) assert.ok(Number.isFinite(r.at) && r.at > 1.7e12, `at: ${r.at}`);
  return records.map((r) => [r.map, [...r.instances].sort()]);
}

test("every committed write is one record naming what it put or deleted; a failed write none", async () => {
  const store = fresh();
  assert.equal(await store.changesCheckpoint(), 0);
  assert.deepEqual(await store.changes(), { changes: [], next: 0, oldest: 0 });
  const map = await store.partitionedMap<{ email?: string }>("m", { partitionCount: 7 });
  await map.upsert("a", {});
  await map.upsertMany([
    ["b", {}],
    ["c", {}],
  ]);
  await Promise.all([map.upsert("d", {}), map.upsert("e", {}), map.delete("a")]); // one batch: one record
  await map.createIndex("byEmail", "email", { unique: true }); // index entries and layout only: no record
  await map.upsert("f", { email: "x" });
  assert.equal(await code(map.upsert("g", { email: "x" })), "constraint_violation"); // failed: no record
  assert.equal(await code(map.upsert(42 as never, {})), "invalid_argument");
  await map.resize(3);
  await map.clear();
  const log = await store.chunkedLog<number>("log", { chunkSize: 2 });
  await log.appendMany([1, 2, 3, 4, 5]);
  await log.dropArchivesBefore(token(3));
  const p7 = (...keys: string[]) => [...new Set(keys.map((k) => partition(k, 7)))].sort();
  const p3 = (...keys: string[]) => [...new Set(keys.map((k) => partition(k, 3)))].sort();
  const { changes, next, oldest } = await store.changes();
  assert.deepEqual(shape(changes), [
    ["m", p7("a")],
    ["m", p7("b", "c")],
    ["m", p7("d", "e", "a")],
    ["m", p7("f")],
    ["m", [...new Set([...p7("b", "c", "d", "e", "f"), ...p3("b", "c", "d", "e", "f")])].sort()],
    ["m", p3("b", "c", "d", "e", "f")],
    ["log", [token(1), token(3), "current"].sort()],
    ["log", [token(1)]],
  ]);
  assert.equal(next, 8);
  assert.equal(oldest, 1);
  assert.equal(await store.changesCheckpoint(), 8);
  // Pages: `next` continues; the end gives nothing more and keeps its place.
  const first = await store.changes({ limit: 3 });
  assert.deepEqual(
    first.changes.map((r) => r.seq),
    [1, 2, 3],
  );
  const second = await store.changes({ after: first.next, limit: 3 });
  assert.deepEqual(
    second.changes.map((r) => r.seq),
    [4, 5, 6],
  );
  assert.deepEqual(await store.changes({ after: 8 }), { changes: [], next: 8, oldest: 1 });
  // Another context of the same database continues the same sequence.
  const factory = new IDBFactory();
  const [x, y] = [0, 1].map(() => openAttrmap({ indexedDB: factory, IDBKeyRange, locks: new InProcessLocks() }));
  await (await x!.partitionedMap("n")).upsert("k", 1);
  await (await y!.partitionedMap("n")).upsert("k", 2);
  assert.deepEqual(
    (await y!.changes()).changes.map((r) => [r.seq, r.map]),
    [
      [1, "n"],
      [2, "n"],
    ],
  );
});

test("acknowledged and bounded; a checkpoint the feed cannot continue from is checkpoint_expired", async () => {
  const store = fresh(3);
  const map = await store.partitionedMap<number>("m");
  for (let i = 1; i <= 5; i++) await map.upsert(`k${i}`, i);
  // Bounded at 3: records 3, 4, 5 kept.
  const kept = await store.changes({ after: 2 });
  assert.deepEqual(
    kept.changes.map((r) => r.seq),
    [3, 4, 5],
  );
  assert.equal(kept.oldest, 3);
  await assert.rejects(store.changes({ after: 1 }), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "checkpoint_expired");
    assert.match(
      e.message,
      /^checkpoint 1 has expired, since the records after it up to 2 were dropped .*; move the whole database again/,
    );
    return true;
  });
  // Past the end: another database's, said in one sentence.
  await assert.rejects(store.changes({ after: 6 }), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "checkpoint_expired");
    assert.equal(
      e.message,
      "checkpoint 6 is past the end of this feed, 5, so it belongs to another database or another copy of this one; " +
        "move the whole database again (exportDexRequests without since)",
    );
    return true;
  });
  await assert.rejects(store.changes({ limit: 0 }), /options\.limit must be an integer from 1 to 10000, got 0/);
  // Acknowledging drops up to it, but the newest record stays: the next write is 6, not 1.
  assert.equal(await store.acknowledgeChanges(4), 2);
  assert.equal(await store.acknowledgeChanges(5), 0);
  assert.deepEqual(
    (await store.changes({ after: 4 })).changes.map((r) => r.seq),
    [5],
  );
  assert.equal(await code(store.changes({ after: 3 })), "checkpoint_expired");
  await map.upsert("k6", 6);
  assert.equal(await store.changesCheckpoint(), 6);
  for (const bad of [-1, 1.5, "2", Number.NaN]) {
    assert.equal(await code(store.changes({ after: bad as number })), "invalid_argument");
    assert.equal(await code(store.acknowledgeChanges(bad as number)), "invalid_argument");
  }
  assert.equal(await code(store.acknowledgeChanges(7)), "invalid_argument");
  assert.equal(await code(store.changes({ limit: 0 })), "invalid_argument");
  assert.throws(() => fresh(0), /options\.maxChanges must be an integer from 1/);
});

test("an import is one record per map it writes, with the instances it replaced; the feed is not exported", async () => {
  const source = fresh();
  const map = await source.partitionedMap<number>("m", { partitionCount: 5 });
  await map.upsertMany(Array.from({ length: 20 }, (_, i) => [`k${i}`, i] as [string, number]));
  await (await source.chunkedLog<number>("log", { chunkSize: 4 })).appendMany([1, 2, 3, 4, 5]);
  const text = await exportText(source);
  assert.doesNotMatch(text, /"seq"/);
  const target = fresh();
  const old = await target.partitionedMap<number>("m", { partitionCount: 5 });
  await old.upsert("gone", 0);
  await importData(target, text, { replace: true });
  const { changes } = await target.changes({ after: 1 });
  const keys = [...Array.from({ length: 20 }, (_, i) => `k${i}`), "gone"];
  assert.deepEqual(shape(changes, 2), [
    ["log", [token(1), "current"]],
    ["m", [...new Set(keys.map((k) => partition(k, 5)))].sort()],
  ]);
});

test("watch: a change says which instances it removed; an index build changes entries alone", async () => {
  // The README's watch events: `removed` lists the partitions a write left without entries.
  const store = fresh();
  const map = await store.partitionedMap<{ n: number }>("m", { partitionCount: 8 });
  const heard: Change[] = [];
  const stop = store.watch((c) => heard.push(c));
  const next = async (n: number) => {
    for (let i = 0; i < 500 && heard.length < n; i++) await new Promise((r) => setTimeout(r, 2));
    return heard[n - 1]!;
  };
  // "a" and another key share a partition; a third key is alone in its own.
  const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
  const a = partition("a", 8);
  const sharing = keys.find((k) => partition(k, 8) === a)!;
  const alone = keys.find((k) => partition(k, 8) !== a)!;
  await map.upsertMany([
    ["a", { n: 1 }],
    [sharing, { n: 2 }],
    [alone, { n: 3 }],
  ]);
  assert.equal((await next(1)).removed, undefined);
  await map.delete("a"); // its partition keeps `sharing`: rewritten, not removed
  assert.deepEqual([(await next(2)).instances, (await next(2)).removed], [[a], undefined]);
  await map.delete(alone); // the last entry of its partition
  assert.deepEqual([(await next(3)).instances, (await next(3)).removed], [[partition(alone, 8)], [partition(alone, 8)]]);
  await map.createIndex("byN", "n");
  const built = await next(4);
  assert.deepEqual(built.instances, []);
  assert.ok(built.entries !== undefined && built.entries.keys.length + built.entries.ranges.length > 0);
  stop();
});
