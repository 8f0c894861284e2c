// SPEC 10, "Model-checked": devices (stores, each its own database) write one map at random and
// sync through a model of the engine (shared/engine-model.ts, the engine's own protobuf classes)
// in random, seeded interleavings: a sync is a pull and merge, the entry changes sent through the
// flow's locking RPC, and the acknowledgement. Checked at every sync, against a model kept here
// from the contract's text: the store holds what the three-way rule gives; a conflict is reported
// exactly where both sides changed an entry to different values since the device's last sync; the
// entry changes are the entries that differ from the base; an entry the device wrote is on the
// engine after its sync or named by a conflict. At the end every device equals the engine.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Attrmap, InProcessLocks, openAttrmap, type PartitionedMap } from "attrmap";
import { exportDexEntryChanges, importDexAttributes } from "attrmap/dex";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { EngineModel } from "../shared/engine-model.js";
import { seeded } from "../shared/random.js";

const NAMES = { shared: { attributeMap: "shared" } };
const KEYS = Array.from({ length: 8 }, (_, i) => `k${i}`);
const DEVICES = 3;
const STEPS = Number(process.env.SYNC_MODEL_STEPS ?? 80);
const SEEDS = (process.env.SYNC_MODEL_SEEDS ?? "1,2,3").split(",").map(Number);

type Entries = Map<string, number>;

interface Device {
  store: Attrmap;
  map: PartitionedMap<number>;
  /** What the device holds, as this test expects it. */
  local: Entries;
  /** What the engine held at the device's last exchange (nothing before the first). */
  base: Entries;
  /** The feed checkpoint its entry changes are after. */
  since: number;
  /** The keys it wrote since its last sync, with the last value written (undefined: deleted). */
  wrote: Map<string, number | undefined>;
}

async function engineEntries(e: EngineModel): Promise<Entries> {
  const out: Entries = new Map();
  for (const [key, payload] of await e.payloads())
    if (key.startsWith("shared/"))
      for (const [k, v] of Object.entries(JSON.parse(payload) as Record<string, number>)) out.set(k, v);
  return out;
}

const sorted = (m: ReadonlyMap<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

async function held(d: Device): Promise<Entries> {
  return d.map.getMany(KEYS);
}

/** One sync of `d`, checked against the rule's text at each step. */
async function sync(d: Device, e: EngineModel, where: string): Promise<void> {
  const remote = await engineEntries(e);
  const exchanged = new Map(d.base);
  // The merge, entry by entry, as SPEC 10 states it.
  const expected = new Map(d.local);
  const conflicts = new Set<string>();
  for (const k of new Set([...d.local.keys(), ...remote.keys(), ...d.base.keys()])) {
    const [l, r, b] = [d.local.get(k), remote.get(k), d.base.get(k)];
    if (l === r || r === b) continue;
    if (l !== b) conflicts.add(k); // both changed it: the engine's value is kept, and reported
    if (r === undefined) expected.delete(k);
    else expected.set(k, r);
  }
  const pulled = await importDexAttributes(d.store, await e.get(), { names: NAMES, layouts: { shared: { partitionCount: 2 } } });
  assert.deepEqual(new Set(pulled.conflicts.map((c) => (c.kind === "entry" ? c.key : c.map))), conflicts, `${where}: conflicts`);
  assert.deepEqual(sorted(await held(d)), sorted(expected), `${where}: merged`);
  d.local = expected;
  d.base = remote;
  // The entry changes: what differs from the base, as the engine's RPC then applies it.
  const sent = await exportDexEntryChanges(d.store, { since: d.since, names: NAMES });
  const changed = new Map<string, number | null>();
  for (const k of new Set([...d.local.keys(), ...d.base.keys()]))
    if (d.local.get(k) !== d.base.get(k)) changed.set(k, d.local.get(k) ?? null);
  assert.deepEqual(sorted(new Map(sent.changes.map((c) => [c.key, c.value]))), sorted(changed), `${where}: entry changes`);
  await e.rpc(sent.changes);
  await d.store.acknowledgeChanges(sent.checkpoint);
  d.since = sent.checkpoint;
  for (const [k, v] of changed) v === null ? d.base.delete(k) : d.base.set(k, v);
  // Nothing a device wrote is lost silently: it is on the engine, or a conflict named it (a value
  // written back to what the engine held at the last exchange is no change).
  const now = await engineEntries(e);
  for (const [k, v] of d.wrote)
    assert.ok(now.get(k) === v || conflicts.has(k) || exchanged.get(k) === v, `${where}: ${k} kept or named`);
  d.wrote.clear();
}

for (const seed of SEEDS)
  test(`devices writing one map converge through the engine, every conflict named (seed ${seed})`, async () => {
    const next = seeded(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const e = new EngineModel();
    const devices: Device[] = [];
    for (let i = 0; i < DEVICES; i++) {
      const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
      const map = await store.partitionedMap<number>("shared", { partitionCount: 2 });
      devices.push({ store, map, local: new Map(), base: new Map(), since: 0, wrote: new Map() });
    }
    try {
      for (let step = 0; step < STEPS; step++) {
        const n = Math.floor(next() * DEVICES);
        const d = devices[n]!;
        if (next() < 0.35) {
          await sync(d, e, `seed ${seed}, step ${step}, device ${n}`);
          continue;
        }
        const k = pick(KEYS);
        if (d.local.has(k) && next() < 0.3) {
          await d.map.delete(k);
          d.local.delete(k);
          d.wrote.set(k, undefined);
        } else {
          const v = (d.local.get(k) ?? 0) + 1 + Math.floor(next() * 3);
          await d.map.upsert(k, v);
          d.local.set(k, v);
          d.wrote.set(k, v);
        }
      }
      // Everyone syncs twice: the last changes reach the engine, then every device.
      for (let round = 0; round < 2; round++)
        for (const [n, d] of devices.entries()) await sync(d, e, `seed ${seed}, final round ${round}, device ${n}`);
      const engine = sorted(await engineEntries(e));
      for (const d of devices) assert.deepEqual(sorted(await held(d)), engine);
    } finally {
      e.close();
      for (const d of devices) d.store.close();
    }
  });
