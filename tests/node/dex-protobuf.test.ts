// SetAttributes requests read by the engine's own generated protobuf classes (dex_pb2.py of the
// dex-python-sdk wheel, with the protobuf runtime it was generated for: `make test` installs
// both in build/dex-pb), as its CLI reads a request file; and the indexes of docs/indexes.md
// ("The index in the engine's layout") checked against a placement computed here from the
// contract's text: canonical JSON, FNV-1a of its UTF-8 bytes, partition names.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { type DexExportOptions, type DexRequest, exportDexRequests } from "attrmap/dex";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { refFnv, refPartitionName } from "../shared/reference.js";

const repo = new URL("../../", import.meta.url).pathname;
const DEX_PB2 = join(repo, "build/dex-pb/dex/dexpb/dex_pb2.py");
const PYTHON = join(repo, "build/dex-pb/venv/bin/python");
const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });

interface Parsed {
  flowId: string;
  runId: string;
  requestId: string;
  attributes: Array<{ key: string; kind: string; encoding?: string; payload?: string }>;
}

/** Every request parsed by dex_pb2 in one Python process, in order. */
function parsedByEngine(requests: readonly DexRequest[]): Parsed[] {
  const dir = mkdtempSync(join(tmpdir(), "attrmap-dex-"));
  try {
    const files = requests.map((r, i) => {
      const file = join(dir, `request-${i + 1}.json`);
      writeFileSync(file, r.json);
      return file;
    });
    const out = execFileSync(PYTHON, [join(repo, "tests/dex/parse_requests.py"), DEX_PB2, ...files], { encoding: "utf8" });
    return out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Parsed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function requestsOf(store: ReturnType<typeof fresh>, options: DexExportOptions): Promise<DexRequest[]> {
  const out: DexRequest[] = [];
  for await (const r of exportDexRequests(store, options)) out.push(r);
  return out;
}

/** Every attribute of the parsed requests, key to payload text. */
function attributesOf(parsed: readonly Parsed[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const request of parsed)
    for (const a of request.attributes) {
      assert.deepEqual([a.kind, a.encoding], ["obj_value", "json"], a.key);
      assert.ok(!out.has(a.key), `${a.key} twice`);
      out.set(a.key, a.payload!);
    }
  return out;
}

// ---- the contract's placement, written from its text ----------------------------------------

type Element = null | boolean | number | string;

/** An element's canonical JSON: JSON for null, booleans, safe integers and strings; objects for the rest. */
function canonicalElement(v: Element): string {
  if (typeof v === "number" && !(Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER)) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, v);
    return `{"$f64":"${view.getBigUint64(0).toString(16).padStart(16, "0")}"}`;
  }
  return JSON.stringify(typeof v === "number" ? v + 0 : v);
}

/** The index's attribute map as the engine holds it: instance name to (canonical value to sorted keys). */
function expectedIndex(
  entries: Iterable<[string, Element | Element[] | undefined]>,
  count: number,
): Map<string, Record<string, string[]>> {
  const byValue = new Map<string, string[]>();
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    const canonical = Array.isArray(value) ? `[${value.map(canonicalElement).join(",")}]` : canonicalElement(value);
    byValue.set(canonical, [...(byValue.get(canonical) ?? []), key]);
  }
  const out = new Map<string, Record<string, string[]>>();
  for (const [canonical, keys] of byValue) {
    const name = refPartitionName(refFnv(canonical) % count, count);
    const instance = out.get(name) ?? {};
    instance[canonical] = keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    out.set(name, instance);
  }
  return out;
}

/** The attributes under `attributeMap/`, instance to parsed dictionary. */
function instancesOf(attributes: Map<string, string>, attributeMap: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, payload] of attributes)
    if (key.startsWith(`${attributeMap}/`)) out.set(key.slice(attributeMap.length + 1), JSON.parse(payload));
  return out;
}

const PROFILES = [
  ["ada@example.com", "Ada", "Acme", "gold"],
  ["bob@example.com", "Bob", "Acme", "silver"],
  ["cy@example.com", "Cy", "Zoë GmbH", "gold"],
  ["di@example.com", "Di", "Acme", "bronze"],
  ["__proto__@example.com", "Proto", '\u2028 "quoted" \\ co', "gold"],
] as const;

test("every request, indexes too, parses as the engine's SetAttributesRequest; indexes are placed per the contract", async () => {
  const store = fresh();
  const directory = await store.customerDirectory({
    partitionCount: 10,
    indexes: { byCompany: "companyName", byCompanyTier: ["companyName", "customerTier"] },
  });
  for (const [emailAddress, fullName, companyName, customerTier] of PROFILES)
    await directory.upsertProfile({ emailAddress, fullName, companyName, customerTier });
  // No Date: a value holding one cannot be sent as JSON (the export refuses it), so neither can its index.
  type Doc = { n?: number | null; on?: boolean; tags?: Element[] };
  const docs = await store.partitionedMap<Doc>("docs", {
    partitionCount: 7,
    indexes: { byN: "n", byOn: "on", byTag: { keyPath: "tags", multiEntry: true } },
  });
  const values: Array<[string, Doc]> = [
    ["a", { n: 1, on: true, tags: ["x", "y", "x"] }],
    ["b", { n: 0.5, on: false, tags: [1, null, true, 2.25] }],
    ["c", { n: null, tags: [] }],
    ["__proto__", { n: -(2 ** 60), on: true, tags: ["y"] }],
    ["d", { n: 1e300 }],
    ["e", {}],
  ];
  for (const [k, v] of values) await docs.upsert(k, v);
  await docs.upsert("e", { n: 1, on: false }); // an update moves "e" into two indexes

  const presets = await requestsOf(store, { flowId: "directory-flow", sdk: "python", indexes: true, maps: [directory.map.name] });
  const parsed = parsedByEngine(presets);
  assert.deepEqual(
    parsed.map((p) => [p.flowId, p.runId, p.requestId]),
    presets.map((r) => ["directory-flow", "", r.requestId]),
  );
  const sent = attributesOf(parsed);
  const profiles = PROFILES.map(([email, , company, tier]) => [email, company, tier] as const);
  assert.deepEqual(
    instancesOf(sent, "customer_profiles_by_email_partition_index_byCompany"),
    expectedIndex(
      profiles.map(([email, company]) => [email, company]),
      10,
    ),
  );
  assert.deepEqual(
    instancesOf(sent, "customer_profiles_by_email_partition_index_byCompanyTier"),
    expectedIndex(
      profiles.map(([email, company, tier]) => [email, [company, tier]]),
      10,
    ),
  );
  assert.equal(
    [...sent.keys()].filter((k) => k.startsWith("customer_profiles_by_email_partition/")).length,
    (await directory.map.partitionSizes()).size,
    "the directory's own partitions are sent as before",
  );

  const own = await requestsOf(store, {
    flowId: "docs-flow",
    runId: "run-1",
    maps: ["docs"],
    names: { docs: { attributeMap: "docs_by_partition", indexes: { byTag: "docs_by_tag" } } },
    indexes: { partitionCount: 3 },
  });
  const ownParsed = parsedByEngine(own);
  assert.deepEqual(new Set(ownParsed.map((p) => p.runId)), new Set(["run-1"]));
  const ownSent = attributesOf(ownParsed);
  const final = new Map(values);
  final.set("e", { n: 1, on: false });
  const field = <K extends keyof Doc>(k: K) =>
    [...final].map(([key, v]) => [key, v[k] as Element | undefined] as [string, Element]);
  assert.deepEqual(instancesOf(ownSent, "docs_by_partition_index_byN"), expectedIndex(field("n"), 3));
  assert.deepEqual(instancesOf(ownSent, "docs_by_partition_index_byOn"), expectedIndex(field("on"), 3));
  const tagged = [...final].flatMap(([key, v]) => [...new Set(v.tags ?? [])].map((t) => [key, t] as [string, Element]));
  assert.deepEqual(instancesOf(ownSent, "docs_by_tag"), expectedIndex(tagged, 3));
  assert.equal(instancesOf(ownSent, "docs_by_partition_index_byTag").size, 0, "a named index is sent under its name only");

  const without = attributesOf(
    parsedByEngine(await requestsOf(store, { flowId: "docs-flow", maps: ["docs"], names: { docs: { attributeMap: "d" } } })),
  );
  assert.deepEqual(
    [...without.keys()].filter((k) => !k.startsWith("d/")),
    [],
    "without `indexes`, no index is sent",
  );
});

test("an index instance too large for one request is refused, naming the value; bad index options name the option", async () => {
  const store = fresh();
  const map = await store.partitionedMap<{ company: string }>("big", { indexes: { byCompany: "company" } });
  const prefix = "k".repeat(2000);
  await map.upsertMany(
    Array.from({ length: 6000 }, (_, i) => [`${prefix}${i}`, { company: "Acme" }] as [string, { company: string }]),
  );
  const names = { big: { attributeMap: "big_map" } };
  const error = await requestsOf(store, { flowId: "f", names, indexes: true }).catch((e: unknown) => e);
  assert.ok(error instanceof AttrmapError, String(error));
  assert.equal(error.code, "not_exportable");
  assert.match(error.message, /index "byCompany" of map "big": instance partition-\d{3} is over 15 MiB/);
  assert.match(error.message, /its largest value "Acme" has 6000 keys/);
  const bad = await requestsOf(store, { flowId: "f", names, indexes: { partitionCount: 0 } }).catch((e: unknown) => e);
  assert.ok(bad instanceof AttrmapError && bad.code === "invalid_argument", String(bad));
  assert.match(bad.message, /partitionCount/);
});

test("an increment's requests parse too: a changed instance as its value, one that is gone as the null value", async () => {
  const store = fresh();
  const notes = await store.partitionedMap<string>("notes", { partitionCount: 1 });
  const log = await store.chunkedLog<string>("log", { chunkSize: 2 });
  await notes.upsert("a", "first");
  const names = { notes: { attributeMap: "notes" }, log: { attributeMap: "log_chunks", stateAttribute: "log_state" } };
  const [full] = await requestsOf(store, { flowId: "f", names });
  await notes.delete("a"); // the one partition is gone
  await log.appendMany(["x", "y", "z"]);
  const increment = await requestsOf(store, { flowId: "f", names, since: full!.checkpoint });
  const sent = parsedByEngine(increment).flatMap((p) => p.attributes);
  assert.deepEqual(
    sent.map((a) => [a.key, a.kind, a.payload === undefined ? undefined : JSON.parse(a.payload)]),
    [
      ["log_chunks/00000000000000000001", "obj_value", ["x", "y"].map((value, i) => ({ sequence: i + 1, value }))],
      ["log_chunks/current", "obj_value", [{ sequence: 3, value: "z" }]],
      ["log_state", "obj_value", { nextSequence: 4, latestArchivedChunkToken: "00000000000000000001" }],
      ["notes/partition-0", "null_value", undefined],
    ],
  );
  assert.equal(increment[0]!.checkpoint, full!.checkpoint + 2);
});
