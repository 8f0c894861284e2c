// importDexAttributes (docs/sync.md) against a model of the engine's attribute store whose
// requests and answers go through the engine's own protobuf classes (shared/engine-model.ts):
// a restore gives back the engine's copy byte for byte; a value the engine has not loaded, or
// an attribute out of place, writes nothing; every merge case of the three-way rule, from a
// table computed here from the rule's text; logs taken, kept or refused whole.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { type Attrmap, AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { type DexMapNames, type DexRequest, exportDexEntryChanges, exportDexRequests, importDexAttributes } from "attrmap/dex";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { EngineModel } from "../shared/engine-model.js";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const engines: EngineModel[] = [];
const engine = () => {
  const e = new EngineModel();
  engines.push(e);
  return e;
};
after(() => {
  for (const e of engines) e.close();
});

const FLOW = "flow-1";
/** The reference samples' two maps under the Python SDK's names, and a map of our own. */
const NAMES: Record<string, DexMapNames> = {
  CustomerProfilesByEmailPartition: {
    attributeMap: "customer_profiles_by_email_partition",
    valueField: "profiles_by_canonical_email",
    recordFields: {
      emailAddress: "email_address",
      fullName: "full_name",
      companyName: "company_name",
      customerTier: "customer_tier",
    },
  },
  SubscriberChunks: {
    attributeMap: "subscriber_chunks",
    valueField: "subscribers",
    recordFields: { subscriberId: "subscriber_id", deliveryAddress: "delivery_address" },
    stateAttribute: "subscriber_archive_state",
    stateFields: { nextSequence: "next_sequence", latestArchivedChunkToken: "latest_archived_chunk_token" },
  },
  notes: { attributeMap: "notes" },
};

async function requests(store: Attrmap, maps?: string[]): Promise<DexRequest[]> {
  const out: DexRequest[] = [];
  for await (const r of exportDexRequests(store, { flowId: FLOW, names: NAMES, ...(maps ? { maps } : {}) })) out.push(r);
  return out;
}

/** A store with profiles, 250 subscribers (two archives and current) and notes, one of them large and one keyed `__proto__`. */
async function filled(): Promise<Attrmap> {
  const store = fresh();
  const directory = await store.customerDirectory();
  for (let i = 0; i < 40; i++)
    await directory.upsertProfile({
      emailAddress: `p${i}@example.com`,
      fullName: `P ${i}`,
      companyName: `C${i % 3}`,
      customerTier: "gold",
    });
  const archive = await store.subscriberArchive();
  await archive.registerSubscribers(
    Array.from({ length: 250 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: `${i} Main St` })),
  );
  const notes = await store.partitionedMap<unknown>("notes");
  await notes.upsert("__proto__", { text: "not a prototype" });
  await notes.upsert("big", { text: "x".repeat(3000) });
  await notes.upsert("ünïcode ✓", [1, 2.5, null, true]);
  return store;
}

test("a restore makes an empty store the engine's copy: its export right after is the engine's bytes", async () => {
  const a = await filled();
  const e = engine();
  await e.set(await requests(a));
  const b = fresh();
  const result = await importDexAttributes(b, await e.get(), { names: NAMES, layouts: { SubscriberChunks: { chunkSize: 100 } } });
  assert.deepEqual(result.conflicts, []);
  assert.deepEqual(result.ignored, []);
  const again = engine();
  await again.set(await requests(b));
  assert.deepEqual(await again.payloads(), await e.payloads());
  assert.equal(result.applied.SubscriberChunks, 3);
  // The log goes on after the engine's last sequence; the profiles and the odd keys read back.
  const archive = await b.subscriberArchive();
  assert.equal((await archive.registerSubscriber({ subscriberId: "new", deliveryAddress: "x" })).sequence, 251);
  assert.equal((await (await b.customerDirectory()).getProfile("P7@Example.com"))?.fullName, "P 7");
  const notes = await b.partitionedMap<{ text: string }>("notes");
  assert.deepEqual(await notes.get("__proto__"), { text: "not a prototype" });
  assert.equal(Object.getPrototypeOf(await notes.get("__proto__")), Object.prototype);
  a.close();
  b.close();
});

/** A filled store, and an engine holding its notes. */
async function notesOnEngine(): Promise<{ a: Attrmap; e: EngineModel }> {
  const a = await filled();
  const e = engine();
  await e.set(await requests(a, ["notes"]));
  return { a, e };
}

test("a value the engine answers as a blob ID is refused, naming it, and nothing is written", async () => {
  const { a, e } = await notesOnEngine();
  const b = fresh();
  await assert.rejects(
    importDexAttributes(b, await e.get({ hydrate: false }), { names: NAMES }),
    (err: unknown) =>
      err instanceof AttrmapError &&
      err.code === "invalid_argument" &&
      /attribute "notes\/partition-\d{3}" holds a blob ID/.test(err.message) &&
      err.message.includes("LoadBlobs"),
  );
  assert.equal(await (await b.partitionedMap("notes")).count(), 0);
  a.close();
  b.close();
});

/** A GetAttributes answer of the given attributes, each value's JSON as an export writes it. */
function answer(attributes: Record<string, unknown>): string {
  return JSON.stringify({
    attributes: Object.entries(attributes).map(([key, value]) => ({
      key,
      value: { objValue: { encoding: "json", payload: Buffer.from(JSON.stringify(value)).toString("base64") } },
    })),
  });
}

test("an attribute out of place is refused, naming it, before anything is written", async () => {
  const b = fresh();
  const notes = await b.partitionedMap<string>("notes", { partitionCount: 4 });
  await notes.upsert("kept", "as it was");
  const partitionOf = async (key: string) => {
    const probe = fresh();
    const m = await probe.partitionedMap<number>("p", { partitionCount: 4 });
    await m.upsert(key, 1);
    const [name] = (await m.partitionSizes()).keys();
    probe.close();
    return name!;
  };
  const home = await partitionOf("a");
  const elsewhere = ["partition-0", "partition-1", "partition-2", "partition-3"].find((p) => p !== home)!;
  const bad = answer({ [`notes/${home}`]: { a: 1 }, [`notes/${elsewhere}`]: { a: 2 } });
  await assert.rejects(
    importDexAttributes(b, bad, { names: NAMES }),
    (err: unknown) =>
      err instanceof AttrmapError &&
      err.code === "invalid_argument" &&
      err.message.includes(`attribute "notes/${elsewhere}"`) &&
      err.message.includes("hashes to another partition"),
  );
  assert.deepEqual(await notes.getMany(["kept", "a"]), new Map([["kept", "as it was"]]));
  b.close();
});

// ---- every case of the three-way rule, with no base yet (nothing exchanged before) --------------

type Side = "absent" | "x" | "y";
const SIDES: Side[] = ["absent", "x", "y"];
/** The rule's text, case by case: equal needs nothing; a side still at the base (absent) takes the other; else a conflict. */
function expected(local: Side, remote: Side): { keeps: Side; conflict: boolean } {
  if (local === remote) return { keeps: local, conflict: false };
  if (local === "absent") return { keeps: remote, conflict: false };
  if (remote === "absent") return { keeps: local, conflict: false };
  return { keeps: remote, conflict: true }; // the engine's value, without onConflict
}

test("each entry merges by the three-way rule, conflicts reported with both values", async () => {
  const value = (side: Side, key: string) => (side === "absent" ? undefined : { side, key });
  const b = fresh();
  const notes = await b.partitionedMap<unknown>("notes", { partitionCount: 1 });
  const engineCopy: Record<string, unknown> = {};
  for (const local of SIDES)
    for (const remote of SIDES) {
      const key = `${local}-${remote}`;
      if (local !== "absent") await notes.upsert(key, value(local, key));
      if (remote !== "absent") engineCopy[key] = value(remote, key);
    }
  // Key order inside a value does not make a difference: equal values are equal as canonical JSON.
  await notes.upsert("reordered", { b: 1, a: [1, { d: 2, c: 3 }] });
  engineCopy.reordered = { a: [1, { c: 3, d: 2 }], b: 1 };
  const result = await importDexAttributes(b, answer({ "notes/partition-0": engineCopy }), { names: NAMES });
  for (const local of SIDES)
    for (const remote of SIDES) {
      const key = `${local}-${remote}`;
      const want = expected(local, remote);
      assert.deepEqual(await notes.get(key), value(want.keeps, key), key);
      const reported = result.conflicts.find((c) => c.kind === "entry" && c.key === key);
      assert.equal(reported !== undefined, want.conflict, `${key} reported`);
      if (reported?.kind === "entry") {
        assert.deepEqual([reported.map, reported.local, reported.remote], ["notes", value(local, key), value(remote, key)]);
        assert.deepEqual(reported.kept, value(remote, key));
      }
    }
  assert.deepEqual(await notes.get("reordered"), { b: 1, a: [1, { d: 2, c: 3 }] });
  assert.equal(result.conflicts.length, SIDES.flatMap((l) => SIDES.filter((r) => expected(l, r).conflict)).length);
  b.close();
});

test("onConflict chooses the value kept, may delete it, and is told both sides", async () => {
  const b = fresh();
  const notes = await b.partitionedMap<number>("notes", { partitionCount: 1 });
  await notes.upsertMany([
    ["keep-local", 1],
    ["delete", 1],
  ]);
  const asked: unknown[] = [];
  const result = await importDexAttributes(b, answer({ "notes/partition-0": { "keep-local": 2, delete: 2 } }), {
    names: NAMES,
    onConflict: async (c) => {
      asked.push([c.key, c.local, c.remote]);
      return c.key === "delete" ? undefined : c.local;
    },
  });
  assert.deepEqual(asked.sort(), [
    ["delete", 1, 2],
    ["keep-local", 1, 2],
  ]);
  assert.deepEqual(await notes.getMany(["keep-local", "delete"]), new Map([["keep-local", 1]]));
  const kept = result.conflicts.map((c) => (c.kind === "entry" ? [c.key, c.kept] : []));
  assert.deepEqual(kept.sort(), [
    ["delete", undefined],
    ["keep-local", 1],
  ]);
  b.close();
});

test("a log is taken when the store has none, kept when the engine has none, and refused whole when both appended", async () => {
  const a = fresh();
  await (await a.subscriberArchive()).registerSubscribers(
    Array.from({ length: 120 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: "a" })),
  );
  const e = engine();
  await e.set(await requests(a, ["SubscriberChunks"]));
  // Both appended since nothing was exchanged: a conflict naming the log, and the store's log untouched.
  const b = fresh();
  const mine = await b.subscriberArchive();
  await mine.registerSubscriber({ subscriberId: "mine", deliveryAddress: "b" });
  const result = await importDexAttributes(b, await e.get(), { names: NAMES });
  assert.deepEqual(result.conflicts, [
    {
      kind: "log",
      map: "SubscriberChunks",
      local: { nextSequence: 2, latestArchivedChunkToken: "" },
      remote: { nextSequence: 121, latestArchivedChunkToken: "00000000000000000001" },
    },
  ]);
  assert.equal(await mine.count(), 1);
  // The same copy again into a store that holds it already: nothing to do.
  const same = await importDexAttributes(a, await e.get(), { names: NAMES });
  assert.deepEqual([same.applied, same.unchanged, same.conflicts], [{}, { SubscriberChunks: 2 }, []]);
  a.close();
  b.close();
});

// ---- bases: what the engine held at the last exchange ---------------------------------------------

/** Every entry the engine holds of map `attributeMap` (no value field), by key. */
async function engineEntries(e: EngineModel, attributeMap: string): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const [key, payload] of await e.payloads())
    if (key.startsWith(`${attributeMap}/`)) for (const [k, v] of Object.entries(JSON.parse(payload) as object)) out.set(k, v);
  return out;
}

async function increment(store: Attrmap, since: number): Promise<DexRequest[]> {
  const out: DexRequest[] = [];
  for await (const r of exportDexRequests(store, { flowId: FLOW, names: NAMES, maps: ["notes"], since })) out.push(r);
  return out;
}

test("what a pull wrote is not sent back; a local change after it is", async () => {
  const { a, e } = await notesOnEngine();
  const b = fresh();
  const before = await b.changesCheckpoint();
  await importDexAttributes(b, await e.get(), { names: NAMES });
  assert.deepEqual(await increment(b, before), [], "the pulled partitions equal the engine's");
  await (await b.partitionedMap<unknown>("notes")).upsert("__proto__", { text: "changed here" });
  const sent = await increment(b, before);
  assert.equal(
    sent.reduce((n, r) => n + r.attributeCount, 0),
    1,
  );
  await e.set(sent);
  assert.deepEqual((await engineEntries(e, "notes")).get("__proto__"), { text: "changed here" });
  a.close();
  b.close();
});

test("two devices changing different entries of one partition both keep theirs, through entry changes and the base", async () => {
  const e = engine();
  const a = fresh();
  const notes = await a.partitionedMap<number>("notes", { partitionCount: 1 });
  await notes.upsertMany([
    ["k1", 1],
    ["k2", 2],
  ]);
  const full = await requests(a, ["notes"]);
  await e.set(full);
  await a.acknowledgeChanges(full[0]!.checkpoint);
  const b = fresh();
  await importDexAttributes(b, await e.get(), { names: NAMES, layouts: { notes: { partitionCount: 1 } } });
  const since = { a: full[0]!.checkpoint, b: await b.changesCheckpoint() };
  // A changes k1 and sends it as an entry change; B changes k2 meanwhile, then pulls.
  await notes.upsert("k1", 10);
  const fromA = await exportDexEntryChanges(a, { since: since.a, names: NAMES });
  assert.deepEqual(fromA.changes, [{ attributeMap: "notes", instance: "partition-0", key: "k1", value: 10 }]);
  await e.rpc(fromA.changes);
  await a.acknowledgeChanges(fromA.checkpoint);
  const bNotes = await b.partitionedMap<number>("notes");
  await bNotes.upsert("k2", 20);
  const pulled = await importDexAttributes(b, await e.get(), { names: NAMES });
  assert.deepEqual(pulled.conflicts, []);
  assert.deepEqual(
    await bNotes.getMany(["k1", "k2"]),
    new Map([
      ["k1", 10],
      ["k2", 20],
    ]),
  );
  // B sends only its own entry; the engine then holds both changes, and A gets B's at its pull.
  const fromB = await exportDexEntryChanges(b, { since: since.b, names: NAMES });
  assert.deepEqual(fromB.changes, [{ attributeMap: "notes", instance: "partition-0", key: "k2", value: 20 }]);
  await e.rpc(fromB.changes);
  await b.acknowledgeChanges(fromB.checkpoint);
  assert.deepEqual(
    await engineEntries(e, "notes"),
    new Map([
      ["k1", 10],
      ["k2", 20],
    ]),
  );
  const back = await importDexAttributes(a, await e.get(), { names: NAMES });
  assert.deepEqual([back.conflicts, await notes.get("k2")], [[], 20]);
  // Nothing left to send on either side.
  for (const [store, after] of [
    [a, fromA.checkpoint],
    [b, fromB.checkpoint],
  ] as const)
    assert.deepEqual((await exportDexEntryChanges(store, { since: after, names: NAMES })).changes, []);
  a.close();
  b.close();
});

test("a GetFlowState answer is read like GetAttributes'; progress is told, and an abort writes nothing", async () => {
  const { a, e } = await notesOnEngine();
  const attributes = (JSON.parse(await e.get()) as { attributes: Array<{ key: string; value: unknown }> }).attributes;
  const flowState = { flowConfig: { flowType: "notes" }, attributes, completedSteps: [] };
  const phases: string[] = [];
  const controller = new AbortController();
  const b = fresh();
  await assert.rejects(
    importDexAttributes(b, flowState, {
      names: NAMES,
      signal: controller.signal,
      onProgress: ({ phase }) => {
        phases.push(phase);
        if (phase === "committing") controller.abort(new Error("changed my mind"));
      },
    }),
    (err: unknown) => err instanceof AttrmapError && err.code === "aborted" && /nothing was written/.test(err.message),
  );
  assert.deepEqual(phases, ["merging", "committing"]);
  assert.equal(await (await b.partitionedMap("notes")).count(), 0);
  const done = await importDexAttributes(b, JSON.stringify(flowState), { names: NAMES });
  assert.deepEqual(done.conflicts, []);
  assert.equal(await (await b.partitionedMap("notes")).count(), 3);
  a.close();
  b.close();
});

/** A log's attributes as an export writes them: its state and its chunks, records renamed for the Python sample. */
function logAnswer(state: object, chunks: Record<string, Array<{ sequence: number }>>): string {
  const attributes: Record<string, unknown> = { subscriber_archive_state: state };
  for (const [token, records] of Object.entries(chunks))
    attributes[`subscriber_chunks/${token}`] = {
      subscribers: records.map((r) => ({ ...r, subscriber_id: `s${r.sequence}`, delivery_address: "x" })),
    };
  return answer(attributes);
}

test("chunks out of place, or a state they do not bear out, are refused naming the attribute; nothing is written", async () => {
  const records = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ sequence: from + i }));
  const token = (n: number) => String(n).padStart(20, "0");
  const cases: Array<[string, string, RegExp]> = [
    [
      "a chunk at no boundary",
      logAnswer(
        { next_sequence: 103, latest_archived_chunk_token: token(1) },
        {
          [token(2)]: records(2, 101),
          current: records(101, 102),
        },
      ),
      /attribute "subscriber_chunks\/00000000000000000002": .*(bad-token)/,
    ],
    [
      "a state ahead of its records",
      logAnswer({ next_sequence: 5, latest_archived_chunk_token: "" }, { current: records(1, 2) }),
      /attribute "subscriber_chunks\/current": .*\(bad-chunk\)/,
    ],
    [
      "chunks without a state",
      answer({ "subscriber_chunks/current": { subscribers: [] } }),
      /holds chunks of log "SubscriberChunks" but not its state \(attribute "subscriber_archive_state"\)/,
    ],
  ];
  for (const [what, source, message] of cases) {
    const b = fresh();
    const archive = await b.subscriberArchive();
    await assert.rejects(
      importDexAttributes(b, source, { names: NAMES }),
      (err: unknown) => err instanceof AttrmapError && err.code === "invalid_argument" && message.test(err.message),
      what,
    );
    assert.equal(await archive.count(), 0, what);
    b.close();
  }
});

test("a log the engine has no appends in since the base is kept, and goes on after its own records", async () => {
  const a = fresh();
  const archive = await a.subscriberArchive();
  await archive.registerSubscribers(Array.from({ length: 3 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: "a" })));
  const e = engine();
  await e.set(await requests(a, ["SubscriberChunks"]));
  await importDexAttributes(a, await e.get(), { names: NAMES }); // the base: the engine holds what the store does
  await archive.registerSubscriber({ subscriberId: "later", deliveryAddress: "a" });
  const result = await importDexAttributes(a, await e.get(), { names: NAMES });
  assert.deepEqual([result.conflicts, result.applied], [[], {}]);
  assert.equal(await archive.count(), 4);
  a.close();
});

test("options.maps naming a map without names is refused, as an export refuses it", async () => {
  const b = fresh();
  await assert.rejects(
    importDexAttributes(b, answer({}), { names: NAMES, maps: ["elsewhere"] }),
    (err: unknown) =>
      err instanceof AttrmapError &&
      err.code === "invalid_argument" &&
      err.message === 'there are no Dex names for map "elsewhere": pass them in options.names',
  );
  b.close();
});
