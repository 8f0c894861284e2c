// Group commit over fake-indexeddb: writes of one context to one map that are started
// together share readwrite transactions, and each call keeps its own result and its own error
// as if the calls had run one by one, in the order they were made.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { IDBDatabase, IDBFactory, IDBKeyRange } from "fake-indexeddb";

/** Counts the readwrite transactions every fake-indexeddb database opens from now on. */
function countWrites(): { readonly count: number } {
  const counter = { count: 0 };
  const original = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase["transaction"]>) {
    if (args[1] === "readwrite") counter.count++;
    return original.apply(this, args);
  } as IDBDatabase["transaction"];
  return counter;
}
const writes = countWrites();
const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (e) => ({ error: e instanceof AttrmapError ? e.code : e }),
  );

test("100 appends started together: sequences 1 to 100 in call order, in a few transactions", async () => {
  const log = await fresh().chunkedLog<{ i: number }>("events", { chunkSize: 10 });
  const before = writes.count;
  const records = await Promise.all(Array.from({ length: 100 }, (_, i) => log.append({ i })));
  assert.deepEqual(
    records.map((r) => [r.sequence, r.value.i]),
    Array.from({ length: 100 }, (_, i) => [i + 1, i]),
  );
  assert.ok(writes.count - before <= 3, `${writes.count - before} readwrite transactions for 100 appends`);
  const stored = [];
  for await (const r of log.records({ order: "oldest" })) stored.push([r.sequence, r.value.i]);
  assert.deepEqual(
    stored,
    Array.from({ length: 100 }, (_, i) => [i + 1, i]),
  );
});

test("updates of one key started together each see the one before, as if run one by one", async () => {
  const map = await fresh().partitionedMap<number>("counters", { partitionCount: 1 });
  await map.upsert("n", 0);
  const results = await Promise.all(Array.from({ length: 20 }, () => map.update("n", (v) => (v ?? 0) + 1)));
  assert.deepEqual(
    results,
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  assert.equal(await map.get("n"), 20);
});

test("a write that throws fails alone: the writes before and after it in the batch land", async () => {
  const map = await fresh().partitionedMap<number>("m", { partitionCount: 1 });
  await map.upsert("kept", 1);
  const refused = new Error("refused by the caller");
  const results = await Promise.all([
    outcome(map.upsert("a", 1)),
    outcome(map.update("kept", () => 99)),
    outcome(
      map.update("kept", (v) => {
        throw v === 99 ? refused : new Error(`saw ${v}`); // it sees the write before it
      }),
    ),
    outcome(map.update("kept", (v) => (v ?? 0) + 1)),
    outcome(map.upsert("b", 2)),
  ]);
  assert.deepEqual(results, [{ value: undefined }, { value: 99 }, { error: refused }, { value: 100 }, { value: undefined }]);
  assert.deepEqual(Object.fromEntries(await map.getMany(["a", "b", "kept"])), { a: 1, b: 2, kept: 100 });
});

test("a value IndexedDB cannot store fails its own call only, with the error it has alone", async () => {
  const store = fresh();
  const map = await store.partitionedMap<unknown>("m", { partitionCount: 1 });
  const alone = await outcome(map.upsert("x", () => 1));
  assert.notDeepEqual(alone, { value: undefined });
  const results = await Promise.all([
    outcome(map.upsert("a", 1)),
    outcome(map.upsert("x", () => 1)),
    outcome(map.upsert("b", 2)),
  ]);
  assert.deepEqual(results, [{ value: undefined }, alone, { value: undefined }]);
  assert.deepEqual(Object.fromEntries(await map.getMany(["a", "b", "x"])), { a: 1, b: 2 });
});

test("1000 upserts of distinct keys started together share a few transactions; every one is stored", async () => {
  const dir = await fresh().customerDirectory();
  const before = writes.count;
  await Promise.all(Array.from({ length: 1000 }, (_, i) => dir.upsertProfile({ emailAddress: `u${i}@example.com` })));
  assert.ok(writes.count - before <= 3, `${writes.count - before} readwrite transactions for 1000 upserts`);
  assert.equal((await dir.map.getMany(Array.from({ length: 1000 }, (_, i) => `u${i}@example.com`))).size, 1000);
});

test("a write with a signal or a timeout waits on its own, and its bound still applies", async () => {
  const locks = new InProcessLocks();
  const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks });
  const map = await store.partitionedMap<number>("m", { partitionCount: 1 });
  let release!: () => void;
  const held = locks.request(
    `attrmap:${JSON.stringify([store.name, "m"])}`,
    { mode: "exclusive" },
    () => new Promise<void>((r) => (release = r)),
  );
  const timed = outcome(map.upsert("a", 1, { timeoutMs: 50 }));
  assert.deepEqual(await timed, { error: "lock_timeout" });
  release();
  await held;
  await map.upsert("a", 2);
  assert.equal(await map.get("a"), 2);
});
