// Moving data to the engine a little at a time (docs/change-feed.md, docs/dex-import.md): the
// model of tests/shared/increments.ts on the Node path, and what one increment holds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { exportDexRequests } from "attrmap/dex";
import { exportText, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { EngineModel } from "../shared/engine-model.js";
import { applyExport, INCREMENT_NAMES, incrementsAgree } from "../shared/increments.js";
import { seeded } from "../shared/random.js";

const fresh = (maxChanges?: number) =>
  openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks(), maxChanges });
const m = { exportDexRequests, exportText, importData };

/** Every item of `items` (Node 20 has no Array.fromAsync). */
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

test("a full export then increments at random points equal a full export at the end; an increment twice, once", async () => {
  const factory = new IDBFactory();
  const open = () => openAttrmap({ indexedDB: factory, IDBKeyRange, locks: new InProcessLocks() });
  const { problems, increments } = await incrementsAgree(
    m,
    open(),
    open(),
    () => fresh(),
    seeded(20261203),
    150,
    async () => {},
  );
  assert.deepEqual(problems, []);
  assert.ok(increments >= 20, `${increments} increments`);
});

test("an increment names what changed only, deletes with the null value, and refuses an expired checkpoint", async () => {
  const store = fresh(5);
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 1000 });
  await people.upsertMany(Array.from({ length: 300 }, (_, i) => [`k${i}`, { n: i }] as [string, { n: number }]));
  const at = await applyExport(m, new Map(), store);
  await people.upsert("k1", { n: -1 });
  await people.delete("k2");
  const keys: string[] = [];
  let checkpoint = 0;
  for await (const r of exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, since: at })) {
    checkpoint = r.checkpoint;
    keys.push(...(JSON.parse(r.json) as { attributes: Array<{ key: string }> }).attributes.map((a) => a.key));
  }
  assert.equal(checkpoint, at + 2);
  assert.equal(keys.length, new Set(keys).size);
  assert.ok(keys.length <= 2, `only the partitions of k1 and k2: ${keys.join()}`);
  for (let i = 0; i < 6; i++) await people.upsert(`x${i}`, { n: i });
  await assert.rejects(exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, since: at }).next(), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "checkpoint_expired", String(e));
    return true;
  });
  await assert.rejects(
    exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, since: checkpoint + 6, indexes: true }).next(),
    /options\.since cannot be given with options\.indexes/,
  );
});

test("an increment with no request still gives the checkpoint it reached; the next one starts there", async () => {
  const store = fresh();
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 10 });
  const other = await store.partitionedMap<{ n: number }>("other", { partitionCount: 10 });
  await people.upsert("a", { n: 1 });
  const full = exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, maps: ["people"] });
  assert.equal(full.checkpoint, undefined, "not read yet");
  const sent = await all(full);
  assert.deepEqual(
    sent.map((r) => r.checkpoint),
    [full.checkpoint],
  );
  // docs/change-feed.md: one change record per committed write, numbered without gaps.
  await other.upsert("x", { n: 1 });
  await other.upsert("y", { n: 2 });
  const quiet = exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, maps: ["people"], since: full.checkpoint! });
  assert.deepEqual(await all(quiet), []);
  assert.equal(quiet.checkpoint, full.checkpoint! + 2);
  await people.upsert("b", { n: 2 });
  // A caller that stops before the last request gets no checkpoint: it keeps its old one.
  const stopped = exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, maps: ["people"], since: quiet.checkpoint! });
  for await (const _ of stopped) break;
  assert.equal(stopped.checkpoint, undefined);
  const next = exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, maps: ["people"], since: quiet.checkpoint! });
  const requests = await all(next);
  assert.equal(requests.length, 1);
  assert.equal(next.checkpoint, quiet.checkpoint! + 1);
  assert.equal(requests[0]!.checkpoint, next.checkpoint);
});

test("an older increment sent again after a newer one reverts the engine; one from the last checkpoint does not", async () => {
  // docs/dex-import.md: the engine applies SetAttributes requests as they arrive, and a request's
  // ID does not make a late resend safe. Modelled with the engine's own protobuf classes.
  const store = fresh();
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 1 });
  await people.upsert("a", { n: 0 });
  const send = async (since?: number) => {
    const requests = exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, maps: ["people"], since });
    return { requests: await all(requests), checkpoint: requests.checkpoint! };
  };
  const full = await send();
  await people.upsert("a", { n: 1 });
  const first = await send(full.checkpoint);
  await people.upsert("a", { n: 2 });
  const second = await send(first.checkpoint);
  const valueOfA = async (e: EngineModel) =>
    (JSON.parse([...(await e.payloads()).values()][0]!) as { entries: { a: { n: number } } }).entries.a.n;

  const late = new EngineModel();
  const inOrder = new EngineModel();
  try {
    // A resend of the first increment after the second landed writes its older value back.
    await late.set([...full.requests, ...first.requests, ...second.requests, ...first.requests]);
    assert.equal(await valueOfA(late), 1);
    // The documented way: the second increment failed, so start again from the last checkpoint
    // all of whose requests were sent (the first's): the new increment reads the value now.
    await inOrder.set([...full.requests, ...first.requests]);
    const again = await send(first.checkpoint);
    await inOrder.set(again.requests);
    assert.equal(await valueOfA(inOrder), 2);
    assert.equal(again.checkpoint, second.checkpoint);
  } finally {
    late.close();
    inOrder.close();
  }
});
