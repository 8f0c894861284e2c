// Moving data to the engine a little at a time (docs/change-feed.md, docs/dex-import.md): random
// writes of every kind, with increments taken at random points. Applying a first full export and
// then each increment, in order, to a plain model of the engine's attributes (a map from key to
// value, where the null value deletes) must give exactly what a full export at the end gives;
// applying an increment a second time must change nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Attrmap, AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { type DexExportOptions, exportDexRequests } from "attrmap/dex";
import { exportText, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { seeded } from "../shared/random.js";

const names: DexExportOptions["names"] = {
  people: { attributeMap: "people_by_partition", valueField: "entries" },
  events: { attributeMap: "event_chunks", stateAttribute: "event_state" },
};

/** The engine's attributes: key to value JSON; a write of the null value deletes. */
type Engine = Map<string, string>;

interface Written {
  key: string;
  value: { objValue?: { encoding: string; payload: string }; nullValue?: null };
}

/** Applies the requests of one export to `engine`; returns its checkpoint. */
async function apply(engine: Engine, store: Attrmap, since?: number): Promise<number> {
  let checkpoint: number | undefined;
  const seen = new Set<string>();
  for await (const r of exportDexRequests(store, { flowId: "f", names, since })) {
    checkpoint ??= r.checkpoint;
    assert.equal(r.checkpoint, checkpoint, "one checkpoint per export");
    for (const a of (JSON.parse(r.json) as { attributes: Written[] }).attributes) {
      assert.ok(!seen.has(a.key), `${a.key} written twice in one export`);
      seen.add(a.key);
      if (a.value.objValue) engine.set(a.key, Buffer.from(a.value.objValue.payload, "base64").toString("utf8"));
      else if ("nullValue" in a.value && a.value.nullValue === null) engine.delete(a.key);
      else assert.fail(`an attribute of neither kind: ${JSON.stringify(a)}`);
    }
  }
  return checkpoint ?? since ?? 0;
}

test("a full export then increments at random points equal a full export at the end; an increment twice, once", async () => {
  const next = seeded(20261203);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const factory = new IDBFactory();
  const open = () => openAttrmap({ indexedDB: factory, IDBKeyRange, locks: new InProcessLocks() });
  const [store, other] = [open(), open()]; // two contexts of one database
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 5 });
  const peopleElsewhere = await other.partitionedMap<{ n: number }>("people");
  const events = await store.chunkedLog<{ n: number }>("events", { chunkSize: 3 });
  const keys = Array.from({ length: 12 }, (_, i) => `k${i}`).concat(["__proto__", "é"]);
  const engine: Engine = new Map();
  let checkpoint = await apply(engine, store);
  let increments = 0;
  for (let round = 0; round < 150; round++) {
    const op = next();
    if (op < 0.25) await people.upsert(pick(keys), { n: round });
    else if (op < 0.35)
      await peopleElsewhere.upsertMany([
        [pick(keys), { n: round }],
        [pick(keys), { n: -round }],
      ]);
    else if (op < 0.45) await people.delete(pick(keys));
    else if (op < 0.5) await people.update(pick(keys), (v) => ({ n: (v?.n ?? 0) + 1 }));
    else if (op < 0.53) await people.resize(1 + Math.floor(next() * 7));
    else if (op < 0.55) await people.clear();
    else if (op < 0.7) await events.appendMany(Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({ n: round })));
    else if (op < 0.73) await events.changeChunkSize(1 + Math.floor(next() * 4));
    else if (op < 0.77) {
      const { records } = await events.stats();
      if (records > 0) {
        const token = await events.pageOf((await events.state()).nextSequence - 1 - Math.floor(next() * records));
        if (token !== "current") await events.dropArchivesBefore(token);
      }
    } else if (op < 0.8) {
      // An import that replaces the map with another's content.
      const source = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
      await (await source.partitionedMap<{ n: number }>("people", { partitionCount: 3 })).upsertMany([
        [pick(keys), { n: 1000 + round }],
        [pick(keys), { n: 2000 + round }],
      ]);
      await importData(store, await exportText(source), { replace: true });
    } else {
      // An increment: applied once, then again (nothing may change).
      checkpoint = await apply(engine, store, checkpoint);
      const once = new Map(engine);
      const again = await apply(engine, store, checkpoint);
      assert.deepEqual(engine, once, `round ${round}: the same increment twice`);
      assert.ok(again >= checkpoint);
      increments++;
    }
  }
  await apply(engine, store, checkpoint);
  const full: Engine = new Map();
  await apply(full, store);
  assert.deepEqual(engine, full);
  assert.ok(increments >= 20, `${increments} increments`);
});

test("an increment names what changed only, deletes with the null value, and refuses an expired checkpoint", async () => {
  const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks(), maxChanges: 5 });
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 1000 });
  await people.upsertMany(Array.from({ length: 300 }, (_, i) => [`k${i}`, { n: i }] as [string, { n: number }]));
  const base: Engine = new Map();
  const at = await apply(base, store);
  await people.upsert("k1", { n: -1 });
  await people.delete("k2");
  const keys: string[] = [];
  let checkpoint = 0;
  for await (const r of exportDexRequests(store, { flowId: "f", names, since: at })) {
    checkpoint = r.checkpoint;
    keys.push(...(JSON.parse(r.json) as { attributes: Written[] }).attributes.map((a) => a.key));
  }
  assert.equal(checkpoint, at + 2);
  assert.equal(keys.length, new Set(keys).size);
  assert.ok(keys.length <= 2, `only the partitions of k1 and k2: ${keys.join()}`);
  for (let i = 0; i < 6; i++) await people.upsert(`x${i}`, { n: i });
  await assert.rejects(exportDexRequests(store, { flowId: "f", names, since: at }).next(), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "checkpoint_expired", String(e));
    return true;
  });
  await assert.rejects(
    exportDexRequests(store, { flowId: "f", names, since: checkpoint + 6, indexes: true }).next(),
    /options\.since cannot be given with options\.indexes/,
  );
});
