// Indexes over fake-indexeddb (docs/indexes.md): random writes of every kind to an indexed map,
// with every query checked after each round against a plain model written here from the
// contract (what a key path finds, which values are indexable, their order, ties by key), and
// unique indexes' refusals checked call by call. The engines' own IndexedDB runs the same
// library in tests/browser/indexes.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { inspect } from "node:util";
import { AttrmapError, InProcessLocks, openAttrmap, type PartitionedMap, type Query } from "attrmap";
import { exportText, importData } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { seeded } from "../shared/random.js";
import { rawGet, rawPut, rawWrite } from "../shared/raw-idb.js";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const code = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => (e instanceof AttrmapError ? e.code : String(e)),
  );

// ---- the model: docs/indexes.md, "What an index holds" -------------------------------------

type Element = null | boolean | number | string | Date;
interface Def {
  name: string;
  keyPath: string | string[];
  unique?: boolean;
  multiEntry?: boolean;
}

function found(value: unknown, path: string): unknown {
  let at = value;
  for (const step of path.split(".")) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

function indexable(v: unknown): v is Element {
  if (v === null || typeof v === "boolean" || typeof v === "string") return true;
  if (typeof v === "number") return Number.isFinite(v);
  return v instanceof Date && !Number.isNaN(v.getTime());
}

/** null < false < true < numbers < dates < strings; strings by UTF-16 code units. */
function compareElements(a: Element, b: Element): number {
  const rank = (v: Element) =>
    v === null ? 0 : v === false ? 1 : v === true ? 2 : typeof v === "number" ? 3 : v instanceof Date ? 4 : 5;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  return x! < y! ? -1 : x! > y! ? 1 : 0;
}

function compareValues(a: Element[], b: Element[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareElements(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** The values (each a list of elements) `value` has in `def`. */
function valuesIn(def: Def, value: unknown): Element[][] {
  if (Array.isArray(def.keyPath)) {
    const elements = def.keyPath.map((p) => found(value, p));
    return elements.every(indexable) ? [elements as Element[]] : [];
  }
  const v = found(value, def.keyPath);
  if (def.multiEntry && Array.isArray(v)) {
    const distinct: Element[][] = [];
    for (const e of v) if (indexable(e) && !distinct.some((d) => compareElements(d[0]!, e) === 0)) distinct.push([e]);
    return distinct;
  }
  return indexable(v) ? [[v]] : [];
}

/** An owner: a map's key or a log's sequence. */
type Owner = string | number;
type Row = { value: Element[]; key: Owner };

function rows(def: Def, model: Map<Owner, unknown>): Row[] {
  const out: Row[] = [];
  for (const [key, v] of model) for (const value of valuesIn(def, v)) out.push({ value, key });
  return out.sort((a, b) => compareValues(a.value, b.value) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// ---- random values and writes ----------------------------------------------------------------

const strings = ["", "a", "ab", "abc", "b", "Acme", "acme", "\uffff", "a\uffff", "\ud800", "Ä", "__proto__", "1"];
const elements: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  -1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  new Date(0),
  new Date(-1),
  new Date(Number.NaN),
  undefined,
  {},
  ...strings,
];
const keys = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "__proto__", "constructor", "", "Ä"];

const defs: Def[] = [
  { name: "byCompany", keyPath: "company" },
  { name: "byTier", keyPath: "tier" },
  { name: "byTag", keyPath: "tags", multiEntry: true },
  { name: "byCity", keyPath: "address.city" },
  { name: "byPair", keyPath: ["company", "tier"] },
];

function randomValue(next: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const value: Record<string, unknown> = { company: pick(strings), tier: pick(elements) };
  if (next() < 0.7) value.tags = Array.from({ length: Math.floor(next() * 4) }, () => pick(elements));
  if (next() < 0.6) value.address = next() < 0.8 ? { city: pick(elements) } : pick(elements);
  if (next() < 0.1) delete value.company;
  return value;
}

/** What is queried: a map (entries `[key, value]`) or a log (records, owned by their sequences). */
interface Queried {
  where(index: string): Query<unknown, Owner>;
  /** The entry a query gives for an owner whose value is `value`. */
  entryOf(owner: Owner, value: unknown): unknown;
  /** The owner of an entry a query gave. */
  ownerOf(entry: unknown): Owner;
}

const mapQueried = (map: PartitionedMap<unknown>): Queried => ({
  where: (index) => map.where(index),
  entryOf: (key, value) => [key, value],
  ownerOf: (entry) => (entry as [string, unknown])[0],
});

/** Every query of every index in `indexes`, against the model. */
async function checkQueries(map: Queried, model: Map<Owner, unknown>, next: () => number, round: string, indexes = defs) {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const bound = () => pick(elements.filter(indexable));
  for (const def of indexes) {
    const all = rows(def, model);
    const compound = Array.isArray(def.keyPath);
    const arg = (e: Element[]) => (compound ? e : e[0]!);
    const draw = (): Element[] => (compound ? [pick(strings), bound()] : [bound()]);
    const where = `${round}, index ${def.name}`;
    const same = async (q: Query<unknown, Owner>, expected: Row[], what: string) => {
      assert.deepEqual(
        await q.keys(),
        expected.map((r) => r.key),
        `${where}: ${what}`,
      );
      assert.equal(await q.count(), expected.length, `${where}: count of ${what}`);
      assert.deepEqual(await q.reverse().keys(), expected.map((r) => r.key).reverse(), `${where}: ${what}, reversed`);
    };
    await same(map.where(def.name), all, "every entry");
    const pairs = await map.where(def.name).toArray();
    // As text: a failure's report cannot print an invalid Date.
    assert.equal(
      inspect(pairs, { depth: 5 }),
      inspect(
        all.map((r) => map.entryOf(r.key, model.get(r.key))),
        { depth: 5 },
      ),
      `${where}: entries with values`,
    );
    const eq = draw();
    await same(
      map.where(def.name).equals(arg(eq)),
      all.filter((r) => compareValues(r.value, eq) === 0),
      `equals ${String(eq)}`,
    );
    let [lo, hi] = [draw(), draw()];
    if (compareValues(lo, hi) > 0) [lo, hi] = [hi, lo];
    const [lowerOpen, upperOpen] = [next() < 0.5, next() < 0.5];
    await same(
      map.where(def.name).between(arg(lo), arg(hi), { lowerOpen, upperOpen }),
      all.filter((r) => {
        const a = compareValues(r.value, lo);
        const b = compareValues(r.value, hi);
        return (lowerOpen ? a > 0 : a >= 0) && (upperOpen ? b < 0 : b <= 0);
      }),
      `between ${String(lo)} and ${String(hi)} (${lowerOpen}, ${upperOpen})`,
    );
    const cut = draw();
    await same(
      map.where(def.name).above(arg(cut)),
      all.filter((r) => compareValues(r.value, cut) > 0),
      `above ${String(cut)}`,
    );
    await same(
      map.where(def.name).below(arg(cut)),
      all.filter((r) => compareValues(r.value, cut) < 0),
      `below ${String(cut)}`,
    );
    const any = [draw(), draw(), draw()];
    await same(
      map.where(def.name).anyOf(any.map(arg)),
      all.filter((r) => any.some((v) => compareValues(r.value, v) === 0)),
      "anyOf",
    );
    if (compound) {
      const first = pick(strings);
      await same(
        map.where(def.name).startsWith([first]),
        all.filter((r) => r.value[0] === first),
        `startsWith [${first}]`,
      );
    } else {
      const prefix = pick(["", "a", "A", "\uffff", "ab", "\ud800"]);
      await same(
        map.where(def.name).startsWith(prefix),
        all.filter((r) => typeof r.value[0] === "string" && r.value[0].startsWith(prefix)),
        `startsWith ${JSON.stringify(prefix)}`,
      );
    }
    // Keyset pages of 3, forward and back, give the whole index once.
    for (const reverse of [false, true]) {
      const q = reverse ? map.where(def.name).reverse() : map.where(def.name);
      const paged: Owner[] = [];
      let after: string | null = null;
      do {
        const page = await q.page({ limit: 3, after });
        paged.push(...page.entries.map(map.ownerOf));
        after = page.next;
      } while (after !== null);
      const expected = all.map((r) => r.key);
      assert.deepEqual(paged, reverse ? expected.reverse() : expected, `${where}: pages of 3${reverse ? ", reversed" : ""}`);
    }
  }
}

test("random writes of every kind keep every index equal to the model, in every query", async () => {
  const next = seeded(20261203);
  const map = await fresh().partitionedMap<unknown>("people", {
    partitionCount: 3,
    indexes: { byCompany: "company", byTier: "tier", byTag: { keyPath: "tags", multiEntry: true } },
  });
  const model = new Map<Owner, unknown>();
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  for (let round = 0; round < 60; round++) {
    if (round === 5) {
      // Two more indexes built over the entries there.
      await map.createIndex("byCity", "address.city");
      await map.createIndex("byPair", ["company", "tier"]);
    }
    const op = next();
    if (round >= 5 && op < 0.05) {
      await map.clear();
      model.clear();
    } else if (round >= 5 && op < 0.1) {
      await map.resize(1 + Math.floor(next() * 5));
    } else if (op < 0.3) {
      const batch = Array.from({ length: 1 + Math.floor(next() * 6) }, () => [pick(keys), randomValue(next)] as const);
      await map.upsertMany(batch);
      for (const [k, v] of batch) model.set(k, v);
    } else if (op < 0.45) {
      const gone = [pick(keys), pick(keys)];
      await map.deleteMany(gone);
      for (const k of gone) model.delete(k);
    } else {
      // Writes started together: one group-commit batch, applied in call order.
      const calls = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
        const k = pick(keys);
        const r = next();
        if (r < 0.5) {
          const v = randomValue(next);
          model.set(k, v);
          return map.upsert(k, v);
        }
        if (r < 0.75) {
          model.delete(k);
          return map.delete(k);
        }
        const v = randomValue(next);
        model.set(k, v);
        return map.update(k, () => v);
      });
      await Promise.all(calls);
    }
    if (round >= 5) await checkQueries(mapQueried(map), model, next, `round ${round}`);
  }
});

test("a unique index refuses a second holder (constraint_violation names index, value, keys); nothing of it stored", async () => {
  const map = await fresh().partitionedMap<{ email?: string; n?: number }>("users", { partitionCount: 4 });
  await map.upsertMany([
    ["u1", { email: "a@x.org" }],
    ["u2", { email: "b@x.org" }],
    ["u3", {}],
  ]);
  await map.createIndex("byEmail", "email", { unique: true });
  await assert.rejects(map.upsert("u4", { email: "a@x.org" }), (e: unknown) => {
    assert.ok(e instanceof AttrmapError);
    assert.equal(e.code, "constraint_violation");
    assert.equal(e.message, 'index "byEmail" of map "users": value "a@x.org" is held by "u1", so "u4" cannot hold it');
    return true;
  });
  assert.equal(await map.get("u4"), undefined);
  // A batch: only the refused call fails; the others land, in order (u5 takes c@, u6 is refused).
  const outcomes = await Promise.all([
    code(map.upsert("u5", { email: "c@x.org" })),
    code(map.upsert("u6", { email: "c@x.org" })),
    code(map.upsert("u2", { email: "d@x.org" })),
    code(map.upsert("u7", { email: "b@x.org" })), // b@ was freed by the call before it
    code(
      map.upsertMany([
        ["u8", { email: "a@x.org" }],
        ["u9", { email: "e@x.org" }],
      ]),
    ),
  ]);
  assert.deepEqual(outcomes, ["ok", "constraint_violation", "ok", "ok", "constraint_violation"]);
  assert.equal(await map.get("u6"), undefined);
  assert.equal(await map.get("u9"), undefined, "nothing of a refused upsertMany is stored");
  assert.deepEqual(await map.where("byEmail").keys(), ["u1", "u7", "u5", "u2"]);
  // A key may keep its own value, and take one another key has just given up.
  await map.upsert("u1", { email: "a@x.org", n: 1 });
  await map.update("u1", () => ({ email: "f@x.org" }));
  await map.upsert("u4", { email: "a@x.org" });
  assert.deepEqual(await map.where("byEmail").equals("a@x.org").keys(), ["u4"]);
  // Two keys of one upsertMany with one value.
  assert.equal(
    await code(
      map.upsertMany([
        ["v1", { email: "z@x.org" }],
        ["v2", { email: "z@x.org" }],
      ]),
    ),
    "constraint_violation",
  );
  // Building a unique index over values that break it adds nothing.
  await map.upsert("u3", { email: "g@x.org", n: 1 });
  await map.upsert("u10", { n: 1 });
  assert.equal(await code(map.createIndex("byN", "n", { unique: true })), "constraint_violation");
  assert.deepEqual(
    (await map.indexes()).map((i) => i.name),
    ["byEmail"],
  );
  assert.equal(await code(map.where("byN").count()), "invalid_argument");
});

test("definitions: indexes() lists them, the option builds a missing one and refuses another definition, dropIndex", async () => {
  const store = fresh();
  const map = await store.partitionedMap<{ a?: unknown; b?: unknown }>("m", { indexes: { byA: "a" } });
  await map.upsertMany([
    ["x", { a: 1, b: "one" }],
    ["y", { a: 2, b: "two" }],
  ]);
  assert.deepEqual(await map.indexes(), [{ name: "byA", keyPath: "a", unique: false, multiEntry: false }]);
  const layoutBefore = map.layoutVersion;
  // Opened elsewhere with one more index: built at open, over the entries there; the stored one kept.
  const again = await store.partitionedMap<{ a?: unknown; b?: unknown }>("m", {
    indexes: { byB: { keyPath: "b", unique: true } },
  });
  assert.deepEqual(await again.where("byB").keys(), ["x", "y"]);
  assert.deepEqual(
    (await map.indexes()).map((i) => i.name),
    ["byA", "byB"],
  );
  assert.ok(map.layoutVersion > layoutBefore, "an index changes the layout version");
  assert.equal(await code(store.partitionedMap("m", { indexes: { byA: "b" } })), "layout_mismatch");
  assert.equal(await code(map.createIndex("byA", ["a", "b"])), "already_exists");
  await map.createIndex("byA", "a"); // the same definition: nothing to do
  assert.equal(await map.dropIndex("byA"), true);
  assert.equal(await map.dropIndex("byA"), false);
  assert.equal(await code(map.where("byA").toArray()), "invalid_argument");
  // Bad definitions and bounds are errors that name the argument.
  for (const [call, message] of [
    [() => map.createIndex("", "a"), /name must be 1 to 256 characters/],
    [() => map.createIndex("c", "a..b" as never), /keyPath must be a dotted path/],
    [() => map.createIndex("c", []), /keyPath must name at least one path/],
    [() => map.createIndex("c", ["a", "b"], { multiEntry: true }), /cannot be multiEntry/],
    [
      () =>
        map
          .where("byB")
          .equals({} as never)
          .toArray(),
      /value must be null, a boolean, a finite number/,
    ],
    [() => map.where("byB").between("z", "a").toArray(), /lower is above upper/],
    [() => map.where("byB").page({ limit: 2, after: "nonsense" }), /options.after must be the next cursor/],
  ] as const) {
    await assert.rejects(
      call(),
      (e: unknown) => e instanceof AttrmapError && e.code === "invalid_argument" && message.test(e.message),
    );
  }
});

test("an aborted build adds nothing; a build reports progress", async () => {
  const map = await fresh().partitionedMap<{ n: number }>("m", { partitionCount: 64 });
  await map.upsertMany(Array.from({ length: 500 }, (_, i) => [`k${i}`, { n: i % 7 }] as const));
  const controller = new AbortController();
  const seen: number[] = [];
  const outcome = await code(
    map.createIndex("byN", "n", {
      signal: controller.signal,
      onProgress: ({ done }) => {
        seen.push(done);
        controller.abort();
      },
    }),
  );
  assert.equal(outcome, "aborted");
  assert.deepEqual(await map.indexes(), []);
  const steps: Array<[number, number]> = [];
  await map.createIndex("byN", "n", { onProgress: ({ done, total }) => steps.push([done, total]) });
  assert.equal(steps.at(-1)![0], 64);
  assert.ok(steps.every(([, total]) => total === 64));
  assert.equal(await map.where("byN").equals(3).count(), 71);
});

test("layoutVersion: one more per index created or dropped, none for a create refused or aborted, map and log", async () => {
  // docs/indexes.md: a created index raises layoutVersion by one, dropIndex too, and a createIndex
  // that does not happen leaves it. Read from the object and from one opened after each step.
  const store = fresh();
  const map = await store.partitionedMap<{ n: number }>("m", { partitionCount: 16 });
  await map.upsertMany(Array.from({ length: 100 }, (_, i) => [`k${i}`, { n: i % 3 }] as const));
  const log = await store.chunkedLog<{ n: number }>("l", { chunkSize: 4 });
  await log.appendMany(Array.from({ length: 40 }, (_, i) => ({ n: i % 3 })));
  for (const [target, reopen] of [
    [map, () => store.partitionedMap("m")],
    [log, () => store.chunkedLog("l")],
  ] as const) {
    const versions = async () => [target.layoutVersion, (await reopen()).layoutVersion];
    assert.deepEqual(await versions(), [1, 1]);
    await target.createIndex("byN", "n");
    assert.deepEqual(await versions(), [2, 2]);
    assert.equal(await code(target.createIndex("uniqueN", "n", { unique: true })), "constraint_violation");
    assert.deepEqual(await versions(), [2, 2]);
    const controller = new AbortController();
    const aborted = target.createIndex("again", "n", { signal: controller.signal, onProgress: () => controller.abort() });
    assert.equal(await code(aborted), "aborted");
    assert.deepEqual(await versions(), [2, 2]);
    assert.equal(await target.dropIndex("byN"), true);
    assert.deepEqual(await versions(), [3, 3]);
    assert.deepEqual(await target.indexes(), []);
  }
});

test("a map object that saw one build keeps the next one's index when a failed build's version is used again", async () => {
  // A failed createIndex gives its layout version back (docs/indexes.md), so one version can
  // name two index sets: a map object that saw the first must not write the first's entries.
  const indexedDB = new IDBFactory();
  const name = "reused-version";
  const x = await openAttrmap({ name, indexedDB, IDBKeyRange, locks: new InProcessLocks() }).partitionedMap<{
    n: number;
    m: number;
  }>("m", { partitionCount: 4 });
  await x.upsert("a", { n: 1, m: 1 });
  const meta = (await rawGet(name, "maps", "m", indexedDB)) as Record<string, unknown>;
  // What a build stores when it starts (docs/indexes.md): its definition flagged building, the version one more.
  const building = (index: string, keyPath: string) => ({
    ...meta,
    layoutVersion: 2,
    indexes: [{ name: index, keyPath, unique: false, multiEntry: false, building: { after: null } }],
  });
  await rawPut(name, "maps", "m", building("byN", "n"), indexedDB);
  await x.upsert("b", { n: 2, m: 2 }); // x now knows version 2 with byN
  await rawPut(name, "maps", "m", meta, indexedDB); // that build failed: version 1 again
  await rawPut(name, "maps", "m", building("byM", "m"), indexedDB); // another build: version 2, byM
  await x.upsert("c", { n: 3, m: 3 });
  const keys: unknown[][] = [];
  await rawWrite(
    name,
    "entries",
    (entries) => {
      const all = entries.openKeyCursor();
      all.onsuccess = () => {
        if (!all.result) return;
        keys.push(all.result.key as unknown[]);
        all.result.continue();
      };
    },
    indexedDB,
  );
  // docs/storage.md, "Index entries": [map, index, kind, payload, owner].
  const ofC = keys.filter((k) => k.at(-1) === "c").map((k) => k[1]);
  assert.deepEqual(ofC, ["byM"]);
});

test("export carries the definitions, import rebuilds the entries, and the round trip is byte-identical", async () => {
  const source = fresh();
  const map = await source.partitionedMap<{ c: string; id: number }>("m", { partitionCount: 5 });
  await map.upsertMany(Array.from({ length: 40 }, (_, i) => [`k${i}`, { c: `c${i % 3}`, id: i }] as const));
  await map.createIndex("byC", "c");
  await map.createIndex("byId", "id", { unique: true });
  const text = await exportText(source);
  assert.match(text, /"indexes":\[\{"name":"byC","keyPath":"c","unique":false,"multiEntry":false\}/);
  const target = fresh();
  await importData(target, text);
  assert.equal(await exportText(target), text);
  const copy = await target.partitionedMap<{ c: string; id: number }>("m");
  assert.deepEqual(await copy.where("byC").equals("c1").keys(), await map.where("byC").equals("c1").keys());
  // Replacing a map replaces its entries too.
  const other = fresh();
  const old = await other.partitionedMap<{ c: string }>("m", { partitionCount: 5 });
  await old.upsert("stale", { c: "c1" });
  await old.createIndex("byC", "c");
  await importData(other, text, { replace: true });
  assert.equal((await old.where("byC").equals("c1").keys()).includes("stale"), false);
  // A file whose values break a unique index is refused, naming the line.
  const broken = text.replace('"id":7}', '"id":8}');
  assert.notEqual(broken, text);
  await assert.rejects(importData(fresh(), broken), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "constraint_violation");
    assert.match(
      e.message,
      /^line \d+: index "byId" of map "m": value 8 is held by "k\d+" \(line \d+\), so "k\d+" cannot hold it$/,
    );
    return true;
  });
});

// ---- logs: the same indexes on records' values, owned by sequences ---------------------------

test("a log's indexes follow appends, batches, retention and chunk-size changes, in every query", async () => {
  const next = seeded(20261204);
  const log = await fresh().chunkedLog<unknown>("events", {
    chunkSize: 4,
    indexes: { byCompany: "company", byTier: "tier", byTag: { keyPath: "tags", multiEntry: true } },
  });
  // The retained records: sequence to value. Retention keeps whole chunks from an archive's
  // token on, and a token is the 20 digits of its chunk's first sequence (docs/chunked-log.md).
  const model = new Map<Owner, unknown>();
  const queried: Queried = {
    where: (index) => log.where(index),
    entryOf: (sequence, value) => ({ sequence, value }),
    ownerOf: (record) => (record as { sequence: number }).sequence,
  };
  for (let round = 0; round < 40; round++) {
    if (round === 4) {
      await log.createIndex("byCity", "address.city");
      await log.createIndex("byPair", ["company", "tier"]);
    }
    const op = next();
    if (op < 0.35) {
      const values = Array.from({ length: 1 + Math.floor(next() * 9) }, () => randomValue(next));
      const records = await log.appendMany(values);
      for (const [i, r] of records.entries()) model.set(r.sequence, values[i]);
    } else if (op < 0.75) {
      // Appends started together: one group-commit batch.
      const values = Array.from({ length: 1 + Math.floor(next() * 5) }, () => randomValue(next));
      const records = await Promise.all(values.map((v) => log.append(v)));
      for (const [i, r] of records.entries()) model.set(r.sequence, values[i]);
    } else if (op < 0.85) {
      await log.changeChunkSize(1 + Math.floor(next() * 6));
    } else if (model.size > 0) {
      const sequences = [...model.keys()] as number[];
      const token = await log.pageOf(sequences[Math.floor(next() * sequences.length)]!);
      if (token !== "current") {
        await log.dropArchivesBefore(token);
        for (const s of sequences) if (s < Number(token)) model.delete(s);
      }
    }
    await checkQueries(queried, model, next, `round ${round}`, round >= 4 ? defs : defs.slice(0, 3));
  }
  assert.ok(model.size < (await log.state()).nextSequence - 1, "retention dropped records on the way");
});

test("a log's unique index, the archive's indexes option, and a log's export round trip", async () => {
  const store = fresh();
  const archive = await store.subscriberArchive({
    chunkSize: 3,
    indexes: { bySubscriber: { keyPath: "subscriberId", unique: true } },
  });
  const ids = Array.from({ length: 10 }, (_, i) => `s${i}`);
  await archive.registerSubscribers(ids.map((subscriberId) => ({ subscriberId, deliveryAddress: `${subscriberId}@x.org` })));
  assert.deepEqual(await archive.where("bySubscriber").equals("s7").first(), {
    sequence: 8,
    subscriberId: "s7",
    deliveryAddress: "s7@x.org",
  });
  await assert.rejects(archive.registerSubscriber({ subscriberId: "s3", deliveryAddress: "again@x.org" }), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "constraint_violation");
    assert.equal(
      e.message,
      'index "bySubscriber" of log "SubscriberChunks": value "s3" is held by record 4, so record 11 cannot hold it',
    );
    return true;
  });
  assert.equal(await archive.count(), 10, "nothing of a refused append is stored");
  // In a batch, only the refused call fails; the next sequence goes to the next append that lands.
  const outcomes = await Promise.all([
    code(archive.registerSubscriber({ subscriberId: "n1", deliveryAddress: "a" })),
    code(archive.registerSubscriber({ subscriberId: "n1", deliveryAddress: "b" })),
    code(archive.registerSubscriber({ subscriberId: "n2", deliveryAddress: "c" })),
  ]);
  assert.deepEqual(outcomes, ["ok", "constraint_violation", "ok"]);
  assert.deepEqual(
    (await archive.where("bySubscriber").startsWith("n").toArray()).map((s) => [s.sequence, s.subscriberId]),
    [
      [11, "n1"],
      [12, "n2"],
    ],
  );
  // Retention takes the entries of the records it drops: s0 to s5 were in the first two chunks.
  await archive.log.dropArchivesBefore(await archive.log.pageOf(7));
  assert.deepEqual(await archive.where("bySubscriber").between("s0", "s5").keys(), []);
  assert.equal(await archive.where("bySubscriber").count(), 6);
  // Export carries the definition; import rebuilds the entries; the round trip is byte-identical.
  const text = await exportText(store);
  assert.match(text, /"kind":"chunked".*"indexes":\[\{"name":"bySubscriber","keyPath":"subscriberId","unique":true/);
  const copy = fresh();
  await importData(copy, text);
  assert.equal(await exportText(copy), text);
  assert.deepEqual(
    await (await copy.subscriberArchive()).where("bySubscriber").keys(),
    await archive.where("bySubscriber").keys(),
  );
  const broken = text.replace('"subscriberId":"s9"', '"subscriberId":"s8"');
  assert.notEqual(broken, text);
  await assert.rejects(importData(fresh(), broken), (e: unknown) => {
    assert.ok(e instanceof AttrmapError && e.code === "constraint_violation", String(e));
    assert.match(e.message, /^line \d+: index "bySubscriber" of map "SubscriberChunks": value "s8" is held by 9 \(line \d+\)/);
    return true;
  });
});

test("a log object that saw an index being built keeps it with its appends, and never undoes the build", async () => {
  const store = fresh();
  const log = () => store.chunkedLog<{ k: string }>("shared", { chunkSize: 1 });
  const [builder, other] = [await log(), await log()];
  await other.appendMany(Array.from({ length: 40 }, (_, i) => ({ k: i % 2 ? "a" : "b" })));
  // `other` appends between the build's steps: it then knows the index as being built.
  let during: Promise<unknown> | undefined;
  await builder.createIndex("byK", "k", { onProgress: () => void (during ??= other.append({ k: "a" })) });
  await during;
  await other.append({ k: "a" }); // after the build: `other` must not store its old copy of the build's state
  assert.equal(await builder.where("byK").equals("a").count(), 22);
  assert.deepEqual(
    (await other.indexes()).map((i) => i.name),
    ["byK"],
  );
  assert.deepEqual((await other.where("byK").equals("a").keys()).slice(-2), [41, 42]);
});

test("an index entry that is not what an index holds is corrupt_data naming the index and its map", async () => {
  const indexedDB = new IDBFactory();
  const store = openAttrmap({ name: "corrupt-entry", indexedDB, IDBKeyRange, locks: new InProcessLocks() });
  const map = await store.partitionedMap<{ company: string }>("m", { indexes: { byCompany: "company" } });
  await map.upsert("ada", { company: "Acme" });
  const log = await store.chunkedLog<{ company: string }>("l", { indexes: { byCompany: "company" } });
  await log.append({ company: "Acme" });
  // docs/storage.md, "Index entries": each entry holds [owner, value]; put something else in each.
  await rawWrite(
    "corrupt-entry",
    "entries",
    (entries) => {
      const all = entries.openCursor();
      all.onsuccess = () => {
        const cursor = all.result;
        if (!cursor) return;
        cursor.update("not an entry");
        cursor.continue();
      };
    },
    indexedDB,
  );
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => "ok",
      (e: AttrmapError) => `${e.code}: ${e.message}`,
    );
  assert.equal(
    await failure(map.where("byCompany").equals("Acme").toArray()),
    'corrupt_data: index "byCompany" of map "m": an entry is not a [key, value] pair',
  );
  assert.equal(
    await failure(log.where("byCompany").equals("Acme").toArray()),
    'corrupt_data: index "byCompany" of map "l": an entry is not a [sequence, record] pair',
  );
});

test("a write, a query and a page of more entries than a call takes arguments store and give them all", () => {
  // Spreading that many requests or results into one call overflowed the stack (RangeError):
  // past about 120,000 in Chromium and Node. A Node with a small stack meets the same limit at
  // 20,000, which this test passes with 25,000 entries in one write, one query and one page.
  const script = `
    import { InProcessLocks, openAttrmap } from "attrmap";
    import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
    const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
    const map = await store.partitionedMap("many", { partitionCount: 1, indexes: { byN: "n" } });
    const count = 25_000;
    const written = await map.upsertMany(Array.from({ length: count }, (_, i) => ["k" + i, { n: i }]));
    const found = await map.where("byN").above(-1).toArray();
    const page = await map.page({ limit: 10 });
    console.log(JSON.stringify([written, found.length, found.at(-1), page.entries.length]));
    store.close();`;
  const out = execFileSync(process.execPath, ["--stack-size=150", "--input-type=module", "-e", script], {
    cwd: import.meta.dirname,
    encoding: "utf8",
  });
  assert.deepEqual(JSON.parse(out), [25_000, 25_000, ["k24999", { n: 24_999 }], 10]);
});

test("a page's cursor is the stored key: an index made again elsewhere, a value that does not give its key", async () => {
  const indexedDB = new IDBFactory();
  const store = openAttrmap({ name: "cursors", indexedDB, IDBKeyRange, locks: new InProcessLocks() });
  const pages = async (q: Query<unknown, string | number>) => {
    const seen: unknown[] = [];
    let after: string | null = null;
    do {
      const page: { entries: unknown[]; next: string | null } = await q.page({ limit: 2, after });
      seen.push(...page.entries);
      after = page.next;
    } while (after !== null);
    return seen;
  };
  // Two objects of one log; the second drops the index and makes it again on another path. The
  // first pages with the definition it read (ordered by k), which the stored entries no longer follow.
  const open = () => store.chunkedLog<{ k: string; j: string }>("l", { chunkSize: 4 });
  const [a, b] = [await open(), await open()];
  await a.appendMany(Array.from({ length: 6 }, (_, i) => ({ k: "fedcba"[i]!, j: "abcdef"[i]! })));
  await a.createIndex("by", "k");
  await a.where("by").first();
  await b.dropIndex("by");
  await b.createIndex("by", "j");
  const sequences = (rs: unknown[]) => rs.map((r) => (r as { sequence: number }).sequence);
  assert.deepEqual(sequences(await pages(a.where("by"))), [1, 2, 3, 4, 5, 6]);
  // docs/storage.md, "Index entries": a map's entry holds [key, value]. One whose value lacks the
  // indexed field (as a version that read non-enumerable properties could store) still pages.
  const map = await store.partitionedMap<{ c?: string }>("m", { indexes: { byC: "c" } });
  await map.upsertMany([
    ["x", { c: "A" }],
    ["y", { c: "B" }],
    ["z", { c: "C" }],
  ]);
  await rawWrite(
    "cursors",
    "entries",
    (entries) => {
      const all = entries.openCursor(IDBKeyRange.bound(["m"], ["m", []]));
      all.onsuccess = () => {
        const cursor = all.result;
        if (!cursor) return;
        const [owner] = cursor.value as [string];
        if (owner === "x") cursor.update([owner, {}]);
        cursor.continue();
      };
    },
    indexedDB,
  );
  assert.deepEqual(await pages(map.where("byC")), [
    ["x", {}],
    ["y", { c: "B" }],
    ["z", { c: "C" }],
  ]);
  store.close();
});

test("an index reads what IndexedDB stores: a non-enumerable property is not indexed", async () => {
  // Structured clone drops it; indexing it would key an entry the next write could not find
  // again (the entry stayed after the value changed).
  const store = fresh();
  const map = await store.partitionedMap<{ c?: string }>("m", { indexes: { byC: "c" } });
  const hidden = (c: string) => Object.defineProperty({}, "c", { value: c, enumerable: false });
  await map.upsert("a", hidden("A"));
  await map.upsert("b", { c: "B" });
  assert.deepEqual(await map.where("byC").above("").toArray(), [["b", { c: "B" }]]);
  await map.upsert("a", { c: "Z" });
  assert.deepEqual(await map.where("byC").equals("A").toArray(), []);
  assert.deepEqual(await map.where("byC").equals("Z").keys(), ["a"]);
  store.close();
});
