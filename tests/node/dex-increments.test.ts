// Moving data to the engine a little at a time (docs/change-feed.md, docs/dex-import.md): the
// model of tests/shared/increments.ts on the Node path, and what one increment holds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { exportDexRequests } from "attrmap/dex";
import { exportText, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { applyExport, INCREMENT_NAMES, incrementsAgree } from "../shared/increments.js";
import { seeded } from "../shared/random.js";

const fresh = (maxChanges?: number) =>
  openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks(), maxChanges });
const m = { exportDexRequests, exportText, importData };

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
