// importDexAttributes in every engine, on on-disk profiles (docs/sync.md): a pull of the engine's
// copy (written by the engine's own protobuf classes, shared/engine-model.ts) while two tabs write
// the same map. Expected values come from the contract's rule, applied here to what the test
// wrote: the engine's entries taken, the tab's own entries kept, an entry both hold differently
// a conflict (the engine's kept); every write of the other tabs kept; a live query sees all of
// the pull or none of it.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { InProcessLocks, openAttrmap } from "attrmap";
import { exportDexRequests } from "attrmap/dex";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { EngineModel } from "../shared/engine-model.js";
import { openPage, uniqueNames, useProfile, within } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("sync");
const NAMES = { notes: { attributeMap: "notes" } };
const PULLED = 200;
const CONFLICTS = ["c0", "c1", "c2", "c3", "c4"];
const WRITES = 40;

/** The engine's answer for `notes`: PULLED entries of its own and the conflicting keys, as its GetAttributes writes it. */
async function engineAnswer(): Promise<string> {
  const source = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
  const notes = await source.partitionedMap<string>("notes", { partitionCount: 4 });
  await notes.upsertMany([
    ...Array.from({ length: PULLED }, (_, i) => [`e${i}`, `engine ${i}`] as const),
    ...CONFLICTS.map((k) => [k, "engine"] as const),
  ]);
  const e = new EngineModel();
  try {
    const requests = [];
    for await (const r of exportDexRequests(source, { flowId: "f", names: NAMES })) requests.push(r);
    await e.set(requests);
    return await e.get();
  } finally {
    e.close();
    source.close();
  }
}

test("a pull while two tabs write: the rule's result, every write kept, a live query sees all of the pull or none", async () => {
  const answer = await engineAnswer();
  const name = freshDb();
  const [puller, writer] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  await puller.evaluate(
    async ({ name, conflicts, pulled }) => {
      const store = window.attrmap.openAttrmap({ name });
      const notes = await store.partitionedMap<string>("notes", { partitionCount: 4 });
      await notes.upsertMany([...conflicts.map((k) => [k, "local"] as const), ["mine", "local"]]);
      const keys = Array.from({ length: pulled }, (_, i) => `e${i}`);
      const w = window as unknown as { seen: number[]; store: typeof store };
      w.seen = [];
      w.store = store;
      // How many of the engine's entries each snapshot holds: the pull lands whole, or not yet.
      store
        .liveQuery(async (s) => (await (await s.partitionedMap<string>("notes")).getMany(keys)).size)
        .subscribe((n) => w.seen.push(n));
    },
    { name, conflicts: CONFLICTS, pulled: PULLED },
  );
  const writes = async ({ name, tab, n }: { name: string; tab: string; n: number }) => {
    const notes = await window.attrmap.openAttrmap({ name }).partitionedMap<string>("notes");
    for (let i = 0; i < n; i++) await notes.upsert(`${tab}-${i}`, tab);
  };
  const [result] = await within(
    "a pull beside two writing tabs",
    Promise.all([
      puller.evaluate(
        async ({ answer, names }) => {
          const { store } = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap> };
          const r = await window.attrmap.importDexAttributes(store, answer, { names });
          return {
            conflicts: r.conflicts.map((c) => (c.kind === "entry" ? [c.key, c.local, c.kept] : [c.map])),
            applied: r.applied,
          };
        },
        { answer, names: NAMES },
      ),
      puller.evaluate(writes, { name, tab: "t1", n: WRITES }),
      writer.evaluate(writes, { name, tab: "t2", n: WRITES }),
    ]),
    60_000,
  );
  assert.deepEqual(
    result.conflicts.sort(),
    CONFLICTS.map((k) => [k, "local", "engine"]),
  );
  const held = await writer.evaluate(async (name) => {
    const notes = await window.attrmap.openAttrmap({ name }).partitionedMap<string>("notes");
    const out: Record<string, string> = {};
    for await (const [k, v] of notes) out[k] = v;
    return out;
  }, name);
  const expected: Record<string, string> = { mine: "local" };
  for (let i = 0; i < PULLED; i++) expected[`e${i}`] = `engine ${i}`;
  for (const k of CONFLICTS) expected[k] = "engine";
  for (const tab of ["t1", "t2"]) for (let i = 0; i < WRITES; i++) expected[`${tab}-${i}`] = tab;
  assert.deepEqual(held, expected);
  await new Promise((r) => setTimeout(r, 200)); // the last announcements
  const seen = await puller.evaluate(() => (window as unknown as { seen: number[] }).seen);
  assert.deepEqual(
    [...new Set(seen)].sort((a, b) => a - b),
    [0, PULLED],
    "a snapshot holds none or all of the pull",
  );
  assert.deepEqual([puller.errors, writer.errors], [[], []]);
  await Promise.all([puller.close(), writer.close()]);
});
