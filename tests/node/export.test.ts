// Export, import and the engine's SetAttributes requests, on the Node path (fake-indexeddb),
// against the packed package: the conformance export files, byte-identical round trips of
// awkward data, all-or-nothing imports, and requests decoded with protobufjs from the engine's
// message definitions (written below from protos/dex.proto).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type Attrmap, AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { DEX_SAMPLE_NAMES, exportDexRequests } from "attrmap/dex";
import { exportData, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import protobuf from "protobufjs";
import { rawPut } from "../shared/raw-idb.js";
import { refPartition } from "../shared/reference.js";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const vectors = new URL("../conformance/", import.meta.url);
const exportIndex = JSON.parse(readFileSync(new URL("export.json", vectors), "utf8")) as {
  cases: Array<{
    file: string;
    expect: { maps?: number; instances?: number; entries?: number; error?: { line: number; reason: string } };
  }>;
};

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return Buffer.concat(parts).toString("utf8");
    parts.push(value);
  }
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : `not an AttrmapError: ${e}`),
  );

test("each export vector imports with its counts, or is refused at its line for its reason, changing nothing", async () => {
  assert.ok(exportIndex.cases.length >= 15);
  for (const c of exportIndex.cases) {
    const file = readFileSync(new URL(c.file, vectors), "utf8");
    const store = fresh();
    await (await store.partitionedMap("already-here")).upsert("k", "v");
    const before = await text(exportData(store));
    if (c.expect.error) {
      const got = await outcome(importData(store, file));
      assert.ok(got.startsWith(`invalid_argument: line ${c.expect.error.line}: `), `${c.file}: ${got}`);
      assert.ok(got.endsWith(`(${c.expect.error.reason})`), `${c.file}: ${got}`);
      assert.equal(await text(exportData(store)), before, `${c.file} changed the database`);
    } else {
      assert.deepEqual(await importData(store, file), {
        maps: c.expect.maps,
        instances: c.expect.instances,
        entries: c.expect.entries,
      });
      // Exported again, the imported maps are the file, byte for byte.
      const maps = file
        .split("\n")
        .flatMap((line) => (line.includes('"layout"') ? [(JSON.parse(line) as { map: string }).map] : []));
      assert.equal(await text(exportData(store, { maps })), file);
    }
  }
});

/** A database with awkward data: keys like __proto__, rollovers, a chunk-size change, retention, nested JSON. */
async function awkward(store: Attrmap): Promise<void> {
  const map = await store.partitionedMap<unknown>("generic", { partitionCount: 7 });
  await map.upsertMany([
    ["__proto__", { nested: { list: [1, "two", null, true, { deep: [] }] } }],
    ["constructor", 'quotes " and \\ backslashes'],
    ["", "empty key"],
    ["line\nbreak", "a value\nwith\r\nnewlines and \t tabs and \u2028"],
    ["\ud83d\ude00", "astral"],
    ["lone \ud800", "a lone surrogate stays one"],
  ]);
  const dir = await store.customerDirectory({ partitionCount: 50 });
  await dir.upsertProfiles(
    Array.from({ length: 120 }, (_, i) => ({ emailAddress: `User${i}@Example.com`, fullName: `"${i}"\n` })),
  );
  const archive = await store.subscriberArchive({ chunkSize: 7 });
  await archive.registerSubscribers(
    Array.from({ length: 30 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: `a${i}@x` })),
  );
  await archive.log.changeChunkSize(4);
  await archive.registerSubscribers(Array.from({ length: 9 }, (_, i) => ({ subscriberId: `t${i}`, deliveryAddress: "b@x" })));
  await archive.log.dropArchivesBefore("00000000000000000008");
  const log = await store.chunkedLog<unknown>("events", { chunkSize: 3 });
  await log.appendMany([{ a: 1 }, [1, [2, [3]]], "text", 0, -1.5, 1e-7, null, false]);
}

test("export, import into an empty database, export again: identical bytes", async () => {
  const first = fresh();
  await awkward(first);
  const exported = await text(exportData(first));
  assert.ok(exported.split("\n").length > 40);
  const second = fresh();
  const summary = await importData(second, exported);
  assert.equal(summary.maps, 4);
  assert.equal(await text(exportData(second)), exported);
  // The imported data reads back through the API.
  assert.deepEqual(await (await second.partitionedMap("generic")).get("__proto__"), {
    nested: { list: [1, "two", null, true, { deep: [] }] },
  });
  assert.equal(await (await second.partitionedMap("generic")).get("lone \ud800"), "a lone surrogate stays one");
  const archive = await second.subscriberArchive();
  assert.equal(await archive.count(), 39 - 7);
  assert.deepEqual(archive.log.segments, [
    { fromSequence: 1, chunkSize: 7 },
    { fromSequence: 31, chunkSize: 4 },
  ]);
  assert.equal((await archive.getSubscriberPage("00000000000000000008")).nextPageToken, "");
  assert.equal((await archive.registerSubscriber({ subscriberId: "next", deliveryAddress: "n@x" })).sequence, 40);
  // From a Blob and from a stream, too.
  assert.equal((await importData(fresh(), new Blob([exported]))).instances, summary.instances);
  assert.equal((await importData(fresh(), new Blob([exported]).stream())).entries, summary.entries);
});

test("a value JSON cannot hold exactly fails the export naming map, instance and key, before that instance's line", async () => {
  for (const [value, what] of [
    [new Date(0), "a Date"],
    [new Map([["a", 1]]), "a Map"],
    [undefined, "undefined"],
    [Number.NaN, "NaN"],
    [-0, "-0"],
    [10n, "bigint"],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    [{ inner: [1, , 3] }, "an array with holes"],
  ] as const) {
    const store = fresh();
    const map = await store.partitionedMap<unknown>("m", { partitionCount: 1 });
    await map.upsert("good", 1);
    await map.upsert("bad key", { wrapper: value });
    const reader = exportData(store).getReader();
    const lines: string[] = [];
    const got = await (async () => {
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done) return "ok";
        lines.push(Buffer.from(chunk).toString("utf8"));
      }
    })().catch((e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : String(e)));
    assert.match(got, /^not_exportable: map "m", instance "partition-0", key "bad key"\.wrapper(\.inner)?: /, what);
    assert.ok(got.includes(what), `${got} names ${what}`);
    assert.ok(!lines.some((l) => l.includes('"instance"')), "nothing of the instance was written");
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const store = fresh();
  await (await store.chunkedLog<unknown>("log")).append(cyclic);
  assert.match(
    await outcome(text(exportData(store))),
    /^not_exportable: map "log", instance "current", record \[0\]\.value\.self: a cycle/,
  );
});

test("values deeper than the fast check export as the data they are", async () => {
  let deep: unknown = "bottom";
  for (let i = 0; i < 150; i++) deep = i % 2 ? [deep] : { ["__proto__"]: 1, next: deep };
  const store = fresh();
  await (await store.partitionedMap<unknown>("m", { partitionCount: 1 })).upsert("k", deep);
  const exported = await text(exportData(store));
  // The exported line holds the value as JSON.parse gives it back.
  const line = exported.split("\n").find((l) => l.includes('"instance"'))!;
  assert.deepEqual((JSON.parse(line) as { value: unknown }).value, { k: deep });
});

test("import: already_exists unless replace; replace replaces; an abort before the commit changes nothing", async () => {
  const source = fresh();
  await awkward(source);
  const exported = await text(exportData(source));
  const target = fresh();
  await (await target.partitionedMap<string>("generic", { partitionCount: 3 })).upsert("old", "value");
  assert.match(await outcome(importData(target, exported)), /^already_exists: line \d+: map "generic" exists already/);
  assert.equal(await (await target.partitionedMap<string>("generic")).get("old"), "value");
  const controller = new AbortController();
  const aborted = await outcome(
    importData(target, exported, { replace: true, signal: controller.signal, onProgress: () => controller.abort() }),
  );
  assert.match(aborted, /^aborted: /);
  assert.equal(await (await target.partitionedMap<string>("generic")).get("old"), "value", "nothing changed");
  const phases: string[] = [];
  await importData(target, exported, { replace: true, onProgress: (p) => phases.push(p.phase) });
  assert.deepEqual([...new Set(phases)], ["checking", "committing"]);
  const replaced = await target.partitionedMap<string>("generic");
  assert.equal(replaced.partitionCount, 7);
  assert.equal(await replaced.get("old"), undefined);
  assert.equal(await text(exportData(target)), exported);
  assert.match(
    await outcome(importData(fresh(), 42 as never)),
    /^invalid_argument: source must be a ReadableStream, a Blob or a string, got number/,
  );
  assert.match(await outcome(importData(fresh(), "")), /^invalid_argument: line 1: the export is empty \(bad-header\)/);
});

// The engine's messages, from protos/dex.proto (Value, EncodedObject, AttributeWrite, SetAttributesRequest).
const DEX_PROTO = `
syntax = "proto3";
package dex;
enum NullValue { NULL_VALUE = 0; }
message EncodedObject { string encoding = 1; bytes payload = 2; }
message Value {
  oneof kind {
    string internal_blob_id_for_string_value = 1;
    string internal_blob_id_for_obj_value = 2;
    string string_value = 3;
    EncodedObject obj_value = 4;
    int64 int_value = 5;
    double double_value = 6;
    bool bool_value = 7;
    NullValue null_value = 8;
  }
}
message AttributeWrite { string key = 1; Value value = 2; }
message SetAttributesRequest {
  string flow_id = 1;
  string run_id = 2;
  repeated AttributeWrite attributes = 3;
  string request_id = 4;
}
`;

test("SetAttributes requests parse as the engine's messages and decode to exactly the stored instances, per SDK", async () => {
  const root = protobuf.parse(DEX_PROTO).root;
  const Request = root.lookupType("dex.SetAttributesRequest");
  const store = fresh();
  await awkward(store);
  const stored = new Map<string, unknown>();
  for (const line of (await text(exportData(store, { maps: ["CustomerProfilesByEmailPartition", "SubscriberChunks"] })))
    .trim()
    .split("\n")
    .slice(1)) {
    const parsed = JSON.parse(line) as { map: string; instance?: string; value?: unknown; state?: unknown };
    if (parsed.instance !== undefined) stored.set(`${parsed.map}/${parsed.instance}`, parsed.value);
    else if (parsed.state !== undefined) stored.set(`${parsed.map}#state`, parsed.state);
  }
  for (const sdk of ["python", "typescript", "go", "java", "rust"] as const) {
    const names = DEX_SAMPLE_NAMES[sdk];
    const requests = [];
    for await (const r of exportDexRequests(store, {
      flowId: "flow-1",
      sdk,
      maps: ["CustomerProfilesByEmailPartition", "SubscriberChunks"],
    }))
      requests.push(r);
    const again = [];
    for await (const r of exportDexRequests(store, {
      flowId: "flow-1",
      sdk,
      maps: ["CustomerProfilesByEmailPartition", "SubscriberChunks"],
    }))
      again.push(r.requestId);
    assert.deepEqual(
      again,
      requests.map((r) => r.requestId),
      "request IDs are deterministic",
    );
    const decoded = new Map<string, unknown>();
    for (const r of requests) {
      assert.ok(Buffer.byteLength(r.json) < 16 * 1024 * 1024);
      const json = JSON.parse(r.json) as Record<string, unknown>;
      assert.equal(Request.verify(json), null, "not a well-formed SetAttributesRequest");
      const message = Request.toObject(Request.fromObject(json), { bytes: String, defaults: false }) as {
        flowId: string;
        requestId: string;
        attributes: Array<{ key: string; value: { objValue: { encoding: string; payload: string } } }>;
      };
      assert.deepEqual([message.flowId, message.requestId, message.attributes.length], ["flow-1", r.requestId, r.attributeCount]);
      assert.equal(r.attributes, r.attributeCount, "the 0.5 name of the count, kept");
      for (const a of message.attributes) {
        assert.equal(a.value.objValue.encoding, "json");
        decoded.set(a.key, JSON.parse(Buffer.from(a.value.objValue.payload, "base64").toString("utf8")));
      }
    }
    // Undo the SDK's names and wrapping; what is left must be exactly what is stored.
    const undone = new Map<string, unknown>();
    const rename = (v: unknown, fields: Readonly<Record<string, string>> = {}) => {
      const back = Object.fromEntries(Object.entries(fields).map(([ours, theirs]) => [theirs, ours]));
      return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [back[k] ?? k, x]));
    };
    for (const [key, value] of decoded) {
      const [attribute, instance] = key.split("/") as [string, string | undefined];
      const [map, target] = Object.entries(names).find(
        ([, n]) => n.attributeMap === attribute || n.stateAttribute === attribute,
      )!;
      if (instance === undefined) {
        undone.set(
          `${map}#state`,
          rename(value, {
            nextSequence: target.stateFields!.nextSequence,
            latestArchivedChunkToken: target.stateFields!.latestArchivedChunkToken,
          }),
        );
        continue;
      }
      const inner = (value as Record<string, unknown>)[target.valueField!];
      undone.set(
        `${map}/${instance}`,
        Array.isArray(inner)
          ? inner.map((r) => rename(r, target.recordFields))
          : Object.fromEntries(Object.entries(inner as object).map(([k, v]) => [k, rename(v, target.recordFields)])),
      );
    }
    assert.deepEqual(undone, stored, sdk);
    if (sdk === "python") {
      const [key, value] = [...decoded].find(([k]) => k.startsWith("customer_profiles_by_email_partition/partition-"))!;
      assert.match(key, /^customer_profiles_by_email_partition\/partition-\d\d$/);
      const [email, profile] = Object.entries((value as { profiles_by_canonical_email: object }).profiles_by_canonical_email)[0]!;
      assert.deepEqual(Object.keys(profile), ["email_address", "full_name", "company_name", "customer_tier"]);
      assert.equal((profile as { email_address: string }).email_address, email);
    }
  }
});

test("SetAttributes requests stay under 16 MiB each: a big map is split, every attribute once", async () => {
  const store = fresh();
  const map = await store.partitionedMap<string>("big", { partitionCount: 40 });
  const value = "x".repeat(50_000);
  await map.upsertMany(Array.from({ length: 600 }, (_, i) => [`k${i}`, value] as [string, string]));
  const requests = [];
  for await (const r of exportDexRequests(store, { flowId: "f", names: { big: { attributeMap: "big_map" } } })) requests.push(r);
  assert.ok(requests.length >= 2, `${requests.length} requests`);
  for (const r of requests) assert.ok(Buffer.byteLength(r.json) < 16 * 1024 * 1024);
  const keys = requests.flatMap((r) =>
    (JSON.parse(r.json) as { attributes: Array<{ key: string }> }).attributes.map((a) => a.key),
  );
  assert.equal(keys.length, new Set(keys).size);
  assert.equal(keys.length, (await map.partitionSizes()).size);
  assert.match(
    await outcome(exportDexRequests(store, { flowId: "f", sdk: "go" }).next()),
    /^invalid_argument: there are no Dex names for map "big"/,
  );
  assert.match(
    await outcome(exportDexRequests(store, { flowId: "f" }).next()),
    /^invalid_argument: pass exactly one of options\.sdk/,
  );
});

test("Dex names are the caller's own fields only: no preset or map name reaches a prototype", async () => {
  const store = fresh();
  for (const sdk of ["__proto__", "constructor", "toString"]) {
    assert.match(
      await outcome(exportDexRequests(store, { flowId: "f", sdk: sdk as "go" }).next()),
      /^invalid_argument: options\.sdk must be "python", "typescript", "go", "java" or "rust"/,
    );
  }
  await (await store.partitionedMap<number>("toString")).upsert("k", 1);
  assert.match(
    await outcome(exportDexRequests(store, { flowId: "f", names: {} }).next()),
    /^invalid_argument: there are no Dex names for map "toString"/,
  );
  await (await store.partitionedMap<number>("__proto__")).upsert("k", 2);
  const names = JSON.parse('{"__proto__": {"attributeMap": "proto_map"}, "toString": {"attributeMap": "ts", "valueField": 5}}');
  assert.match(
    await outcome(exportDexRequests(store, { flowId: "f", names }).next()),
    /^invalid_argument: options\.names\["toString"\]\.valueField must be a string, got number/,
  );
  names.toString = { attributeMap: "ts" };
  const keys = [];
  for await (const r of exportDexRequests(store, { flowId: "f", names }))
    keys.push(...(JSON.parse(r.json) as { attributes: Array<{ key: string }> }).attributes.map((a) => a.key));
  const partition = refPartition("k", 1000).name;
  assert.deepEqual(keys.sort(), [`proto_map/${partition}`, `ts/${partition}`]);
});

test("a map of 0.1 (no key rule stored) is not exportable until it is opened once", async () => {
  const indexedDB = new IDBFactory();
  const store = openAttrmap({ indexedDB, IDBKeyRange, locks: new InProcessLocks() });
  await (await store.partitionedMap<number>("old")).upsert("k", 1);
  store.close();
  // What 0.1 stored: a layout record without keyRule (docs/storage.md), written here by hand.
  await rawPut("attrmap", "maps", "old", { kind: "partitioned", layoutVersion: 1, partitionCount: 1000 }, indexedDB);
  assert.match(await outcome(text(exportData(store))), /^not_exportable: map "old" was written by attrmap 0\.1/);
  await store.partitionedMap("old");
  assert.match(await text(exportData(store)), /"keyRule":"exact"/);
});
