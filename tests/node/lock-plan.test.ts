// Which Web Locks each kind of write takes (docs/locks.md, "What each write locks"), seen by a
// lock manager that records every request before passing it to an in-process one. Partitions
// are named by the tests' own reference implementation.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InProcessLocks, type LockManagerLike, lockName, openAttrmap } from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { refPartition } from "../shared/reference.js";

const COUNT = 64;
const mapLock = lockName({ database: "db", map: "m" });
const partitionLock = (key: string) => lockName({ database: "db", map: "m", instance: refPartition(key, COUNT).name });

/** The lock requests (name and mode, in order) that `write` makes on a map "m" of 64 partitions. */
async function locksOf(write: (m: import("attrmap").PartitionedMap<number>) => Promise<unknown>): Promise<string[]> {
  const inner = new InProcessLocks();
  const seen: string[] = [];
  let recording = false;
  const locks: LockManagerLike = {
    request(name, options, callback) {
      if (recording) seen.push(`${options.mode ?? "exclusive"} ${name}`);
      return inner.request(name, options, callback);
    },
  };
  const store = openAttrmap({ name: "db", indexedDB: new IDBFactory(), IDBKeyRange, locks });
  const m = await store.partitionedMap<number>("m", { partitionCount: COUNT });
  recording = true;
  await write(m);
  return seen;
}

/** `n` keys that land in `n` distinct partitions, sorted by their lock names. */
function keysInDistinctPartitions(n: number): string[] {
  const byPartition = new Map<string, string>();
  for (let i = 0; byPartition.size < n; i++)
    if (!byPartition.has(partitionLock(`k${i}`))) byPartition.set(partitionLock(`k${i}`), `k${i}`);
  return [...byPartition].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, key]) => key);
}

test("a write that waits without bound takes the exclusive lock of each partition it writes, and no other", async () => {
  const keys = keysInDistinctPartitions(16);
  assert.deepEqual(await locksOf((m) => m.upsert(keys[0]!, 1)), [`exclusive ${partitionLock(keys[0]!)}`]);
  assert.deepEqual(
    await locksOf((m) => m.upsertMany(keys.map((k) => [k, 1]))),
    keys.map((k) => `exclusive ${partitionLock(k)}`),
  );
});

test("a fail-fast or bounded write also shares the map's lock, after its partitions' (name order)", async () => {
  const [key] = keysInDistinctPartitions(1);
  for (const options of [{ lock: "ifAvailable" as const }, { timeoutMs: 1000 }, { signal: new AbortController().signal }])
    assert.deepEqual(
      await locksOf((m) => m.upsert(key!, 1, options)),
      [`exclusive ${partitionLock(key!)}`, `shared ${mapLock}`],
      JSON.stringify(options),
    );
});

test("past 16 partitions a write takes the map's exclusive lock instead: one bulk write or a batch of queued ones", async () => {
  const keys = keysInDistinctPartitions(17);
  assert.deepEqual(await locksOf((m) => m.upsertMany(keys.map((k) => [k, 1]))), [`exclusive ${mapLock}`]);
  assert.deepEqual(
    await locksOf((m) =>
      m.upsertMany(
        keys.map((k) => [k, 1]),
        { lock: "ifAvailable" },
      ),
    ),
    [`exclusive ${mapLock}`],
  );
  // 100 upserts started together run as one batch (group commit): one lock for all of them.
  assert.deepEqual(await locksOf((m) => Promise.all(Array.from({ length: 100 }, (_, i) => m.upsert(`q${i}`, i)))), [
    `exclusive ${mapLock}`,
  ]);
});
