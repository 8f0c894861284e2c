// Each bad input found in 0.1, answered now: counts, waits, retries, bytes, messages and key
// rules, in Node against the packed package (storage over fake-indexeddb).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AttrmapError,
  emailPartition,
  fnv1a32,
  InProcessLocks,
  keyPartition,
  type LockManagerLike,
  openAttrmap,
  partitionName,
  placeCustomerProfile,
  retryOnConflict,
} from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";

const fresh = (locks?: LockManagerLike) => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks });

/** `code: message` of what `f` throws or rejects with, or "ok". */
async function outcome(f: () => unknown): Promise<string> {
  try {
    await f();
    return "ok";
  } catch (e) {
    return e instanceof AttrmapError ? `${e.code}: ${e.message}` : `not an AttrmapError: ${String(e)}`;
  }
}

test('counts and sizes are numbers, never coerced: "10", true, [5] and null are invalid_argument', async () => {
  const store = fresh();
  assert.equal(
    await outcome(() => store.partitionedMap("m", { partitionCount: "10" as never })),
    "invalid_argument: options.partitionCount must be a number, got string",
  );
  assert.equal(
    await outcome(() => store.partitionedMap("m", { partitionCount: true as never })),
    "invalid_argument: options.partitionCount must be a number, got boolean",
  );
  assert.equal(
    await outcome(() => store.chunkedLog("l", { chunkSize: [5] as never })),
    "invalid_argument: options.chunkSize must be a number, got array",
  );
  assert.equal(
    await outcome(() => store.chunkedLog("l", { chunkSize: 1_000_001 })),
    "invalid_argument: chunkSize must be an integer from 1 to 1000000, got 1000001",
  );
  assert.equal(await outcome(() => partitionName(null as never)), "invalid_argument: index must be a number, got null");
  assert.equal(
    await outcome(() => partitionName(7, 0)),
    "invalid_argument: partitionCount must be an integer from 1 to 4294967295, got 0",
  );
  assert.equal(
    await outcome(() => emailPartition(12345 as never)),
    "invalid_argument: emailAddress must be a string, got number",
  );
  assert.equal(
    await outcome(() => emailPartition({ toString: () => "a@b" } as never)),
    "invalid_argument: emailAddress must be a string, got object",
  );
  // Nothing was stored by the refused opens: the map opens later with the count it is given.
  assert.equal((await store.partitionedMap("m", { partitionCount: 10 })).partitionCount, 10);
});

test("lock waits: Infinity waits, anything outside 0..2^31-1 is refused before waiting", async () => {
  const locks = new InProcessLocks();
  const map = await fresh(locks).partitionedMap<number>("m", { partitionCount: 1 });
  for (const bad of [2 ** 31, 3e9, NaN, -1, "abc", -Infinity]) {
    assert.match(
      await outcome(() => map.upsert("k", 1, { timeoutMs: bad as number })),
      /^invalid_argument: options\.timeoutMs must be a number/,
    );
  }
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((r) => (held = r));
  void locks.request('attrmap:["attrmap","m","partition-0"]', {}, () => {
    held();
    return new Promise<void>((r) => {
      release = r;
    });
  });
  await holding;
  let done = false;
  const waiting = map.upsert("k", 1, { timeoutMs: Infinity }).then(() => (done = true));
  // Let every pending timer and task run: with Infinity, the write is still waiting.
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false);
  release();
  await waiting;
  assert.equal(await map.get("k"), 1);
});

test("retryOnConflict refuses attempts and delays that would retry forever or spin", async () => {
  const op = async () => 1;
  for (const attempts of [NaN, Infinity, 0, 1.5, "3"]) {
    assert.match(
      await outcome(() => retryOnConflict(op, { attempts: attempts as number })),
      /^invalid_argument: options\.attempts must be/,
    );
  }
  for (const baseDelayMs of [NaN, -1, Infinity]) {
    assert.match(await outcome(() => retryOnConflict(op, { baseDelayMs })), /^invalid_argument: options\.baseDelayMs must be/);
  }
  assert.equal(
    await outcome(() => retryOnConflict("not a function" as never)),
    "invalid_argument: operation must be a function, got string",
  );
});

/** FNV-1a written here from the published definition. */
function referenceFnv(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

test("fnv1a32 takes a Uint8Array only, of any length, hashed in pieces", async () => {
  for (const bad of [
    new ArrayBuffer(3),
    new DataView(new ArrayBuffer(3)),
    7,
    {},
    "foobar",
    new Uint16Array([1, 2]),
    [102, 111],
  ]) {
    assert.match(await outcome(() => fnv1a32(bad as never)), /^invalid_argument: bytes must be a Uint8Array, got /);
  }
  // A plain object dressed up as a Uint8Array is not one.
  const fake = { [Symbol.toStringTag]: "Uint8Array", length: 2 ** 31, byteLength: 2 ** 31, buffer: new ArrayBuffer(8) };
  assert.match(await outcome(() => fnv1a32(fake as never)), /^invalid_argument/);
  assert.equal(fnv1a32(Buffer.from("foobar")), 0xbf9cf968);
  const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) & 0xff);
  assert.equal(fnv1a32(big), referenceFnv(big));
  assert.equal(fnv1a32(big.subarray(5, 2_000_005)), referenceFnv(big.subarray(5, 2_000_005)));
});

test('profiles: a missing email is "required", absent text fields are empty, wrong types name the field', async () => {
  for (const email of [null, undefined]) {
    assert.equal(
      await outcome(() => placeCustomerProfile({ emailAddress: email as never })),
      "invalid_email: emailAddress is required",
    );
  }
  assert.deepEqual(placeCustomerProfile({ emailAddress: "A@B", fullName: undefined }).profile, {
    emailAddress: "a@b",
    fullName: "",
    companyName: "",
    customerTier: "",
  });
  assert.equal(
    await outcome(() => placeCustomerProfile({ emailAddress: "a@b", companyName: 5 as never })),
    "invalid_argument: profile.companyName must be a string, got number",
  );
  // Text is kept exactly: a lone surrogate is not turned into U+FFFD.
  assert.equal(placeCustomerProfile({ emailAddress: "a@b", fullName: "\ud800x" }).profile.fullName, "\ud800x");
  const placed = placeCustomerProfile({ emailAddress: " Alice@Example.COM " }, 1000);
  assert.deepEqual(
    [placed.canonicalEmail, placed.hash, placed.partitionName],
    ["alice@example.com", 2493822278, "partition-278"],
  );
  // keyPartition hashes a key as it is: the canonical email gives the SPEC golden value.
  assert.deepEqual(keyPartition("alice@example.com"), { hash: 2493822278, partitionIndex: 278, partitionName: "partition-278" });
  assert.equal(keyPartition(" Alice@Example.COM ").hash === 2493822278, false);
});

test("generic maps take any string key by default; the key rule is stored and checked on reopen", async () => {
  const store = fresh();
  const settings = await store.partitionedMap<string>("settings");
  assert.equal(settings.keyRule, "exact");
  await settings.upsert("Theme", "dark");
  await settings.upsert(" Theme ", "spaced");
  assert.deepEqual(
    [await settings.get("Theme"), await settings.get(" Theme "), await settings.get("theme")],
    ["dark", "spaced", undefined],
  );
  const emails = await store.partitionedMap<number>("by-email", { keyRule: "email" });
  await emails.upsert(" A@B ", 1);
  assert.equal(await emails.get("a@b"), 1);
  assert.match(
    await outcome(() => store.partitionedMap("settings", { keyRule: "email" })),
    /^layout_mismatch: map "settings" is stored as .*key rule "exact".*key rule "email"/,
  );
  assert.match(await outcome(() => store.partitionedMap("by-email", { keyRule: "exact" })), /^layout_mismatch/);
  // Omitted, the stored rule is used.
  assert.equal((await store.partitionedMap("by-email")).keyRule, "email");
  const lower = (k: string) => k.toLowerCase();
  const named = await store.partitionedMap<number>("lowered", { canonicalizeKey: lower, keyRule: "lowercase" });
  await named.upsert("MiXeD", 1);
  assert.equal(await named.get("mixed"), 1);
  assert.match(
    await outcome(() => store.partitionedMap("lowered")),
    /^layout_mismatch: .*pass the canonicalizeKey of key rule "lowercase"/,
  );
  assert.match(
    await outcome(() => store.partitionedMap("lowered", { canonicalizeKey: lower })),
    /^layout_mismatch: .*key rule "custom"/,
  );
  assert.equal((await store.partitionedMap("lowered", { canonicalizeKey: lower, keyRule: "lowercase" })).keyRule, "lowercase");
  assert.equal((await store.partitionedMap("anonymous", { canonicalizeKey: lower })).keyRule, "custom");
  assert.match(
    await outcome(() => store.partitionedMap("x", { keyRule: "made-up" })),
    /^invalid_argument: keyRule "made-up" is not built in/,
  );
  assert.match(
    await outcome(() => store.partitionedMap("x", { keyRule: "email", canonicalizeKey: lower })),
    /^invalid_argument: keyRule "email" is built in/,
  );
  assert.match(
    await outcome(() => store.partitionedMap("y", { canonicalizeKey: () => 5 as never }).then((m) => m.upsert("k", 1))),
    /^invalid_argument: canonicalizeKey must return a string, got number/,
  );
});

test("map names: any string but those that begin with U+0000, which are attrmap's own (an import's staging area)", async () => {
  const store = fresh();
  for (const name of ["", "__proto__", "a\u0000b", "é/🙂"]) {
    await (await store.partitionedMap<number>(name)).upsert("k", 1);
  }
  const reserved = /^invalid_argument: (name|options\.mapName) "\\u0000attrmap-import\/x" begins with U\+0000/;
  assert.match(await outcome(() => store.partitionedMap("\u0000attrmap-import/x")), reserved);
  assert.match(await outcome(() => store.chunkedLog("\u0000attrmap-import/x")), reserved);
  assert.match(await outcome(() => store.customerDirectory({ mapName: "\u0000attrmap-import/x" })), reserved);
  assert.match(await outcome(() => store.subscriberArchive({ mapName: "\u0000attrmap-import/x" })), reserved);
});

test("update: an error thrown by the caller's function comes back as it is, and nothing is written", async () => {
  const map = await fresh().partitionedMap<number>("counters");
  await map.upsert("n", 1);
  const mine = new RangeError("my own error");
  await assert.rejects(
    map.update("n", () => {
      throw mine;
    }),
    (e) => e === mine,
  );
  assert.equal(await map.get("n"), 1);
  // Concurrent updates of one key through the lock: none lost.
  await Promise.all(Array.from({ length: 50 }, () => map.update("n", (v) => (v ?? 0) + 1)));
  assert.equal(await map.get("n"), 51);
});

test("with no IndexedDB (server rendering, Node) the store opens; each operation is unavailable, saying why", async () => {
  assert.equal(typeof (globalThis as { indexedDB?: unknown }).indexedDB, "undefined");
  const store = openAttrmap({ name: "nowhere" });
  // docs/errors.md: the message names the database and says what to do on a server and in Node.
  const unavailable = new RegExp(
    '^unavailable: no IndexedDB for database "nowhere": under server-side rendering, call the store in the browser' +
      ".*in Node, pass openAttrmap\\(\\{ indexedDB, IDBKeyRange \\}\\)",
  );
  for (const call of [
    () => store.partitionedMap("m").then((m) => m.get("k")),
    () => store.chunkedLog("l").then((l) => l.count()),
    () => store.customerDirectory().then((d) => d.getProfile("a@example.com")),
    () => store.identity(),
  ])
    assert.match(await outcome(call), unavailable);
  // A live query tells its error handler, and a watcher can be set and stopped.
  let stop = () => {};
  const seen = await new Promise<unknown>((told) => {
    stop = store.liveQuery((s) => s.partitionedMap("m")).subscribe({ error: told });
  });
  stop();
  assert.match(await outcome(() => Promise.reject(seen)), unavailable);
  store.watch(() => {})();
});

test("openAttrmap checks an IndexedDB it is given, and its IDBKeyRange", async () => {
  assert.match(
    await outcome(() => openAttrmap({ indexedDB: new IDBFactory() })),
    /^invalid_argument: options\.IDBKeyRange must be the IDBKeyRange class/,
  );
  assert.match(
    await outcome(() => openAttrmap({ indexedDB: {} as never, IDBKeyRange })),
    /^invalid_argument: options\.indexedDB must be an IDBFactory/,
  );
});
