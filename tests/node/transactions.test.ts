// store.transaction over fake-indexeddb with the in-process lock manager (docs/transactions.md):
// what a work sees, what lands and what does not, on every way a transaction can end. Expected
// values come from a plain model of the same transfers kept by the test, and from the contract
// (SPEC section 9), never from the package. Locks across tabs, workers and killed browsers are
// the browser suite's (tests/browser/transactions.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Attrmap, AttrmapError, type Change, InProcessLocks, lockName, openAttrmap } from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { seeded } from "../shared/random.js";
import { refPartition } from "../shared/reference.js";

let databases = 0;
/** A fresh database, and a second store on it (another context's view: its own connection). */
function fresh(locks = new InProcessLocks()): { store: Attrmap; other: Attrmap; locks: InProcessLocks; name: string } {
  const indexedDB = new IDBFactory();
  const name = `transactions-${++databases}`;
  return {
    store: openAttrmap({ name, indexedDB, IDBKeyRange, locks }),
    other: openAttrmap({ name, indexedDB, IDBKeyRange, locks }),
    locks,
    name,
  };
}

const code = (e: unknown) => (e instanceof AttrmapError ? e.code : e);
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (e: unknown) => ({ error: code(e) }),
  );

async function bank(store: Attrmap, accounts: number, start = 100) {
  const map = await store.partitionedMap<number>("accounts", { partitionCount: 7 });
  const ledger = await store.chunkedLog<{ from: string; to: string; amount: number }>("ledger", { chunkSize: 4 });
  await map.upsertMany(Array.from({ length: accounts }, (_, i) => [`acct-${i}`, start] as [string, number]));
  return { map, ledger };
}

/** Everything stored, as plain data: a failed transaction must leave it exactly as before. */
async function everything(store: Attrmap) {
  const map = await store.partitionedMap<unknown>("accounts");
  const ledger = await store.chunkedLog<unknown>("ledger");
  const entries = [];
  for await (const e of map.entries()) entries.push(e);
  const records = [];
  for await (const r of ledger.records({ order: "oldest" })) records.push(r);
  return { entries, records, state: await ledger.state(), feed: await store.changesCheckpoint() };
}

test("a transfer lands whole: both accounts, one ledger record, a change record per map with consecutive sequences", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 2);
  const before = await store.changesCheckpoint();
  const heard: Change[] = [];
  const stop = store.watch((c) => heard.push(c));
  const sequence = await store.transaction([map.at("acct-0"), map.at("acct-1"), ledger], async (tx) => {
    const balances = await tx.getMany(map, ["acct-0", "acct-1"]);
    await tx.upsert(map, "acct-0", balances.get("acct-0")! - 30);
    await tx.upsert(map, "acct-1", balances.get("acct-1")! + 30);
    return (await tx.append(ledger, { from: "acct-0", to: "acct-1", amount: 30 })).sequence;
  });
  assert.equal(sequence, 1);
  assert.deepEqual(Object.fromEntries(await map.getMany(["acct-0", "acct-1"])), { "acct-0": 70, "acct-1": 130 });
  assert.deepEqual(
    (await ledger.page()).records.map((r) => [r.sequence, r.value]),
    [[1, { from: "acct-0", to: "acct-1", amount: 30 }]],
  );
  const { changes } = await store.changes({ after: before });
  assert.deepEqual(
    changes.map((c) => [c.seq, c.map]),
    [
      [before + 1, "accounts"],
      [before + 2, "ledger"],
    ],
  );
  await new Promise((r) => setTimeout(r, 50));
  stop();
  // One announcement names both maps.
  assert.equal(heard.length, 1);
  assert.deepEqual(
    heard[0]!.maps.map((m) => m.map),
    ["accounts", "ledger"],
  );
});

test("the work reads committed data and its own writes; nobody else sees its writes before the commit", async () => {
  const { store, other } = fresh();
  const { map } = await bank(store, 3);
  const otherMap = await other.partitionedMap<number>("accounts");
  const seen: unknown[] = [];
  await store.transaction([map.at("acct-0"), map.at("acct-9")], async (tx) => {
    seen.push(await tx.get(map, "acct-0"));
    await tx.upsert(map, "acct-0", 1);
    await tx.upsert(map, "acct-9", 2);
    await tx.delete(map, "acct-0");
    seen.push(await tx.get(map, "acct-0"), await tx.get(map, "acct-9"));
    seen.push(Object.fromEntries(await tx.getMany(map, ["acct-0", "acct-1", "acct-9", "nobody"])));
    // Outside the transaction, from another connection: nothing of it yet.
    seen.push(await otherMap.get("acct-0"), await otherMap.get("acct-9"));
  });
  assert.deepEqual(seen, [100, undefined, 2, { "acct-1": 100, "acct-9": 2 }, 100, undefined]);
  assert.deepEqual(Object.fromEntries(await otherMap.getMany(["acct-0", "acct-9"])), { "acct-9": 2 });
});

test("a value is copied when it is staged: changing the caller's object later changes nothing stored", async () => {
  const { store } = fresh();
  const map = await store.partitionedMap<{ n: number }>("m");
  const value = { n: 1 };
  await store.transaction([map.at("k")], async (tx) => {
    await tx.upsert(map, "k", value);
    value.n = 2;
    const read = await tx.get(map, "k");
    read!.n = 3; // a value read is a copy too
    assert.deepEqual(await tx.get(map, "k"), { n: 1 });
  });
  assert.deepEqual(await map.get("k"), { n: 1 });
});

test("the work's own error is what the transaction rejects with, and nothing is written", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 2);
  const before = await everything(store);
  const mine = new RangeError("insufficient funds");
  await assert.rejects(
    store.transaction([map.at("acct-0"), map.at("acct-1"), ledger], async (tx) => {
      await tx.upsert(map, "acct-0", 0);
      await tx.append(ledger, { from: "acct-0", to: "acct-1", amount: 100 });
      throw mine;
    }),
    (e) => e === mine,
  );
  assert.deepEqual(await everything(store), before);
});

test("a write outside the scope fails the whole transaction, even when the work catches it", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 2);
  const other = await store.chunkedLog<number>("other");
  const before = await everything(store);
  // Two partitions of 7, by the tests' own FNV-1a.
  assert.notEqual(refPartition("acct-0", 7).name, refPartition("acct-1", 7).name);
  const caught: string[] = [];
  const result = await outcome(
    store.transaction([map.at("acct-0")], async (tx) => {
      await tx.upsert(map, "acct-0", 1);
      for (const write of [
        () => tx.upsert(map, "acct-1", 1),
        () => tx.append(other, 1),
        () => tx.append(ledger, { from: "", to: "", amount: 0 }),
      ])
        await write().catch((e: AttrmapError) => caught.push(e.message));
      return "done";
    }),
  );
  assert.deepEqual(result, { error: "invalid_argument" });
  assert.match(caught[0]!, /instance "partition-\d+" of map "accounts" is not in the transaction's scope/);
  assert.match(caught[1]!, /log "other" is not in the transaction's scope/);
  assert.match(caught[2]!, /log "ledger" is not in the transaction's scope/);
  assert.deepEqual(await everything(store), before);
});

test("a unique index that refuses a value fails the transaction with constraint_violation, and nothing is written", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 2);
  const users = await store.partitionedMap<{ email: string }>("users", {
    indexes: { byEmail: { keyPath: "email", unique: true } },
  });
  await users.upsert("u1", { email: "a@example.com" });
  const before = await everything(store);
  const result = await outcome(
    store.transaction([users.at("u2"), map.at("acct-0"), ledger], async (tx) => {
      await tx.upsert(map, "acct-0", 5);
      await tx.append(ledger, { from: "a", to: "b", amount: 1 });
      await tx.upsert(users, "u2", { email: "a@example.com" });
    }),
  );
  assert.deepEqual(result, { error: "constraint_violation" });
  assert.deepEqual(await everything(store), before);
  assert.equal(await users.get("u2"), undefined);
  assert.equal(await users.where("byEmail").equals("a@example.com").count(), 1);
});

test("a value that cannot be stored, or one the directory or the archive refuses, fails the transaction", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 1);
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  const before = await everything(store);
  const attempts: Array<(tx: Parameters<Parameters<Attrmap["transaction"]>[1]>[0]) => Promise<unknown>> = [
    (tx) => tx.upsert(map, "acct-0", (() => 1) as unknown as number),
    (tx) => tx.upsert(directory, "ann@example.com", { emailAddress: "bob@example.com" }),
    (tx) => tx.upsert(directory, "not ascii é", {}),
    (tx) => tx.append(archive, { subscriberId: "", deliveryAddress: "x" }),
  ];
  for (const attempt of attempts) {
    const result = await outcome(
      store.transaction([map.at("acct-0"), directory.at("ann@example.com"), archive, ledger], async (tx) => {
        await tx.append(ledger, { from: "x", to: "y", amount: 1 });
        await attempt(tx).catch(() => undefined);
      }),
    );
    assert.notDeepEqual(result, { value: undefined }, String(attempt));
  }
  assert.deepEqual(await everything(store), before);
  assert.equal(await directory.count(), 0);
  assert.equal(await archive.count(), 0);
});

test("the directory's and archive's records: a profile under its canonical email, a subscriber with its sequence", async () => {
  const { store } = fresh();
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive({ chunkSize: 3 });
  const out = await store.transaction([directory.at(" Ann@Example.COM "), archive], async (tx) => {
    const saved = await tx.upsert(directory, " Ann@Example.COM ", { fullName: "Ann" });
    const again = await tx.upsert(directory, "ann@example.com", { emailAddress: "ANN@example.com ", fullName: "Ann B" });
    const subs = [];
    for (let i = 0; i < 5; i++) subs.push(await tx.append(archive, { subscriberId: `s${i}`, deliveryAddress: `s${i}@x` }));
    return { saved, again, sequences: subs.map((s) => s.sequence), read: await tx.get(directory, "ANN@EXAMPLE.COM") };
  });
  const profile = { emailAddress: "ann@example.com", fullName: "Ann B", companyName: "", customerTier: "" };
  assert.deepEqual(out.saved, { ...profile, fullName: "Ann" });
  assert.deepEqual(out.again, profile);
  assert.deepEqual(out.read, profile);
  assert.deepEqual(out.sequences, [1, 2, 3, 4, 5]);
  assert.deepEqual(await directory.getProfile("ann@example.com"), profile);
  // Five appends in one transaction, chunks of 3: `current` holds 4..5, the archive 1..3 (docs/chunked-log.md).
  const page = await archive.getSubscriberPage();
  assert.deepEqual(
    page.subscribers.map((s) => s.sequence),
    [5, 4],
  );
  assert.equal(page.nextPageToken, "00000000000000000001");
  assert.deepEqual(
    (await archive.getSubscriberPage(page.nextPageToken)).subscribers.map((s) => s.sequence),
    [3, 2, 1],
  );
});

test("a write through a map's own methods to an instance this context's running transaction holds fails at once", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 2);
  const seen: unknown[] = [];
  await store.transaction([map.at("acct-0"), ledger], async (tx) => {
    seen.push(await outcome(map.upsert("acct-0", 1)));
    seen.push(await outcome(ledger.append({ from: "a", to: "b", amount: 1 })));
    seen.push(await outcome(map.clear()));
    await tx.upsert(map, "acct-0", 2);
  });
  assert.deepEqual(seen, [{ error: "invalid_argument" }, { error: "invalid_argument" }, { error: "invalid_argument" }]);
  // Once it has ended, the same writes go through.
  await map.upsert("acct-0", 3);
  assert.equal(await map.get("acct-0"), 3);
});

test("lock options: ifAvailable, timeoutMs and signal bound the wait as for single writes, and nothing is written", async () => {
  const { store, locks, name } = fresh();
  const { map } = await bank(store, 1);
  // Another holder (a tab, as far as this context knows) holds the map's own lock, as a resize would.
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const holding = locks.request(lockName({ database: name, map: "accounts" }), { mode: "exclusive" }, () => held);
  const work = async (tx: Parameters<Parameters<Attrmap["transaction"]>[1]>[0]) => void (await tx.upsert(map, "acct-0", 0));
  const controller = new AbortController();
  const waits = [
    outcome(store.transaction([map.at("acct-0")], work, { lock: "ifAvailable" })),
    outcome(store.transaction([map.at("acct-0")], work, { timeoutMs: 20 })),
    outcome(store.transaction([map.at("acct-0")], work, { signal: controller.signal })),
  ];
  setTimeout(() => controller.abort(), 20);
  assert.deepEqual(await Promise.all(waits), [{ error: "lock_conflict" }, { error: "lock_timeout" }, { error: "aborted" }]);
  release();
  await holding;
  assert.equal(await map.get("acct-0"), 100);
});

test("a signal aborted while the work runs, or a work past workTimeoutMs: aborted, nothing written, locks free", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 1);
  const before = await everything(store);
  const controller = new AbortController();
  let txSignal: AbortSignal | undefined;
  let late: unknown;
  const aborted = store.transaction(
    [map.at("acct-0"), ledger],
    async (tx) => {
      txSignal = tx.signal;
      await tx.upsert(map, "acct-0", 1);
      await new Promise((r) => setTimeout(r, 100));
      late = await outcome(tx.upsert(map, "acct-0", 2));
    },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 10);
  assert.deepEqual(await outcome(aborted), { error: "aborted" });
  assert.equal(txSignal?.aborted, true);
  const timedOut = await outcome(store.transaction([ledger], () => new Promise(() => {}), { workTimeoutMs: 30 }));
  assert.deepEqual(timedOut, { error: "aborted" });
  // The locks are free at once: a single write does not wait for the abandoned works.
  await map.upsert("acct-0", 7);
  await ledger.append({ from: "a", to: "b", amount: 1 });
  await new Promise((r) => setTimeout(r, 120));
  assert.deepEqual(late, { error: "aborted" });
  assert.equal(await map.get("acct-0"), 7);
  assert.equal((await everything(store)).records.length, before.records.length + 1);
});

test("transfers in random scope orders, started together, never deadlock and neither make nor lose money", async () => {
  const { store } = fresh();
  const N = 8;
  const { map, ledger } = await bank(store, N);
  const random = seeded(45);
  const model = Array.from({ length: N }, () => 100);
  const transfers = Array.from({ length: 60 }, () => {
    const from = Math.floor(random() * N);
    const to = (from + 1 + Math.floor(random() * (N - 1))) % N;
    return { from, to, amount: 1 + Math.floor(random() * 10) };
  });
  await Promise.all(
    transfers.map(({ from, to, amount }, i) => {
      const items = [map.at(`acct-${from}`), map.at(`acct-${to}`), ledger];
      if (i % 2) items.reverse();
      return store.transaction(items, async (tx) => {
        const a = (await tx.get(map, `acct-${from}`))!;
        await new Promise((r) => setTimeout(r, random() * 3));
        const b = (await tx.get(map, `acct-${to}`))!;
        await tx.upsert(map, `acct-${from}`, a - amount);
        await tx.upsert(map, `acct-${to}`, b + amount);
        await tx.append(ledger, { from: `acct-${from}`, to: `acct-${to}`, amount });
      });
    }),
  );
  for (const { from, to, amount } of transfers) {
    model[from]! -= amount;
    model[to]! += amount;
  }
  const stored = await map.getMany(model.map((_, i) => `acct-${i}`));
  assert.deepEqual(
    model.map((_, i) => stored.get(`acct-${i}`)),
    model,
  );
  assert.equal(await ledger.count(), transfers.length);
});

test("a whole map in the scope: every key of it may be written; a single write of this context to it fails at once", async () => {
  const { store } = fresh();
  const { map } = await bank(store, 5);
  const seen = await store.transaction([map], async (tx) => {
    for (let i = 0; i < 5; i++) await tx.delete(map, `acct-${i}`);
    await tx.upsert(map, "new", 1);
    return outcome(map.upsert("acct-9", 1));
  });
  assert.deepEqual(seen, { error: "invalid_argument" });
  assert.equal(await map.count(), 1);
  assert.deepEqual((await map.partitionSizes()).size, 1); // emptied partitions are removed
});

test("bad arguments of store.transaction and of tx are invalid_argument naming the argument", async () => {
  const { store } = fresh();
  const { map, ledger } = await bank(store, 1);
  const elsewhere = await openAttrmap({ name: "another", indexedDB: new IDBFactory(), IDBKeyRange }).partitionedMap("accounts");
  const bad: Array<[() => Promise<unknown>, RegExp]> = [
    [() => store.transaction([], async () => {}), /scope must name at least one/],
    [() => store.transaction([map as never, 1 as never], async () => {}), /scope\[1\] must be map.at\(key\)/],
    [() => store.transaction([map], "work" as never), /work must be a function/],
    [() => store.transaction([map], async () => {}, { workTimeoutMs: -1 }), /options.workTimeoutMs/],
    [() => store.transaction([elsewhere.at("k")], async () => {}), /scope\[0\] is a map of database "another"/],
    [() => store.transaction([map], (tx) => tx.get(ledger as never, "k")), /map must be a partitioned map/],
    [() => store.transaction([map], (tx) => tx.append(map as never, 1)), /log must be a chunked log/],
    [() => store.transaction([map], (tx) => tx.getMany(map, 5 as never)), /keys must be an array or iterable/],
  ];
  for (const [call, message] of bad)
    await assert.rejects(call(), (e) => e instanceof AttrmapError && e.code === "invalid_argument" && message.test(e.message));
});

test("a scope given as a one-shot iterable, over a map another store resized since this one read it: placed again", async () => {
  const { store, other } = fresh();
  const map = await store.partitionedMap<number>("m", { partitionCount: 4 });
  await map.upsertMany([
    ["k", 1],
    ["j", 10],
  ]);
  const theirs = await other.partitionedMap<number>("m");
  await theirs.resize(7);
  const scope = (function* () {
    yield map.at("k");
    yield map.at("j");
  })();
  await store.transaction(scope, async (tx) => {
    const [k, j] = [(await tx.get(map, "k"))!, (await tx.get(map, "j"))!];
    await tx.upsert(map, "k", k + j);
  });
  assert.equal(map.partitionCount, 7);
  assert.deepEqual(Object.fromEntries(await theirs.getMany(["k", "j"])), { k: 11, j: 10 });
});
