// The transaction bench's page side (make bench): writes that span two maps, or two accounts and a
// ledger, done as one step by attrmap's store.transaction, by plain IndexedDB (one transaction
// over two object stores, under Web Locks: the floor), by Dexie (db.transaction over two tables),
// and by attrmap without a transaction (one single write per map: what an application does
// today, with no all-or-nothing). Each contender gets a fresh database per round; single
// operations take turns in blocks (interleaved).
import type * as Attrmap from "attrmap";
import type { Dexie as DexieClass } from "dexie";
import { type BenchResult, completion, interleaved, promisify } from "./storage-bench.js";

export type TransactionContender = "attrmap" | "singles" | "raw" | "dexie";

export interface TransactionLibraries {
  attrmap: typeof Attrmap;
  Dexie: typeof DexieClass;
}

export interface TransactionOptions {
  /** Sequential operations per timed row. */
  ops: number;
  /** Transfers started at once. */
  concurrent: number;
  /** Accounts they move money between. */
  accounts: number;
  round: number;
}

/** The rows' names, in the order they are printed. */
export const TRANSACTION_ROWS = {
  pair: "one entry of each of two maps",
  transfer: "transfer: read 2 accounts, write 2, log 1",
  concurrent: "transfers started together (per transfer)",
} as const;

const START = 1_000_000;
const account = (i: number) => `account-${i}`;

/** What a contender does for each row. */
interface Work {
  /** Writes `value` under `key` in two maps, as one step where the contender can. */
  pair(key: string, value: number): Promise<unknown>;
  /** Moves `amount` from one account to another and records it in the ledger. */
  transfer(from: string, to: string, amount: number): Promise<unknown>;
  /** Every account's balance, and the ledger's length. */
  totals(): Promise<{ sum: number; ledger: number }>;
  close(): void;
}

/** The `i`th transfer of a row: two distinct accounts of `n`, spread over them. */
function transferOf(i: number, n: number): [string, string] {
  const from = (i * 7) % n;
  return [account(from), account((from + 1 + (i % (n - 1))) % n)];
}

/**
 * One round: each contender of `order` gets a fresh database; the sequential rows run
 * interleaved, then each contender's concurrent row in `order`. Money is checked after each
 * contender's rows (none made or lost, a ledger record per transfer): a contender that lost
 * some throws, and the bench stops.
 */
export async function runTransactionRound(
  libs: TransactionLibraries,
  order: TransactionContender[],
  o: TransactionOptions,
): Promise<Record<string, BenchResult>> {
  const setUp = { attrmap: setUpAttrmap, singles: setUpSingles, raw: setUpRaw, dexie: setUpDexie };
  const works: Array<readonly [TransactionContender, Work]> = [];
  for (const who of order) works.push([who, await setUp[who](libs, `tx-${who}-${o.round}`, o)]);
  const results = new Map<TransactionContender, BenchResult>(order.map((who) => [who, {}]));
  const each = (op: (w: Work) => (i: number) => Promise<unknown>) => works.map(([who, w]) => [who, op(w)] as const);
  await interleaved(
    results,
    TRANSACTION_ROWS.pair,
    o.ops,
    each((w) => (i) => w.pair(`key-${i}`, i)),
  );
  await interleaved(
    results,
    TRANSACTION_ROWS.transfer,
    o.ops,
    each((w) => (i) => w.transfer(...transferOf(i, o.accounts), 1)),
  );
  for (const [who, work] of works) {
    const before = await work.totals();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: o.concurrent }, (_, i) => work.transfer(...transferOf(i, o.accounts), 1)));
    results.get(who)![TRANSACTION_ROWS.concurrent] = (performance.now() - t0) / o.concurrent;
    const after = await work.totals();
    if (after.sum !== before.sum || after.ledger !== before.ledger + o.concurrent)
      throw new Error(`${who}: ${JSON.stringify(before)} became ${JSON.stringify(after)} after ${o.concurrent} transfers`);
    work.close();
  }
  return Object.fromEntries(results);
}

async function openAttrmapWork({ attrmap }: TransactionLibraries, name: string, o: TransactionOptions) {
  const store = attrmap.openAttrmap({ name });
  const [left, right, accounts] = await Promise.all([
    store.partitionedMap<number>("left"),
    store.partitionedMap<number>("right"),
    store.partitionedMap<number>("accounts"),
  ]);
  const ledger = await store.chunkedLog<{ from: string; to: string; amount: number }>("ledger");
  await accounts.upsertMany(Array.from({ length: o.accounts }, (_, i) => [account(i), START] as [string, number]));
  const totals = async () => {
    const all = await accounts.getMany(Array.from({ length: o.accounts }, (_, i) => account(i)));
    return { sum: [...all.values()].reduce((a, b) => a + b, 0), ledger: await ledger.count() };
  };
  return { store, left, right, accounts, ledger, totals };
}

/** attrmap's store.transaction: the two writes, or the transfer's, land together. */
async function setUpAttrmap(libs: TransactionLibraries, name: string, o: TransactionOptions): Promise<Work> {
  const { store, left, right, accounts, ledger, totals } = await openAttrmapWork(libs, name, o);
  return {
    pair: (key, value) =>
      store.transaction([left.at(key), right.at(key)], async (tx) => {
        await Promise.all([tx.upsert(left, key, value), tx.upsert(right, key, value)]);
      }),
    transfer: (from, to, amount) =>
      store.transaction([accounts.at(from), accounts.at(to), ledger], async (tx) => {
        const balances = await tx.getMany(accounts, [from, to]);
        await Promise.all([
          tx.upsert(accounts, from, balances.get(from)! - amount),
          tx.upsert(accounts, to, balances.get(to)! + amount),
          tx.append(ledger, { from, to, amount }),
        ]);
      }),
    totals,
    close: () => store.close(),
  };
}

/** attrmap without a transaction: one single write per map (a crash between them leaves half). */
async function setUpSingles(libs: TransactionLibraries, name: string, o: TransactionOptions): Promise<Work> {
  const { store, left, right, accounts, ledger, totals } = await openAttrmapWork(libs, name, o);
  return {
    pair: async (key, value) => {
      await left.upsert(key, value);
      await right.upsert(key, value);
    },
    transfer: async (from, to, amount) => {
      await accounts.update(from, (v) => v! - amount);
      await accounts.update(to, (v) => v! + amount);
      await ledger.append({ from, to, amount });
    },
    totals,
    close: () => store.close(),
  };
}

/**
 * The floor: one readwrite transaction over two object stores, under the Web Locks of what it
 * writes (taken in name order, as attrmap takes them), records keyed by their own keys.
 */
async function setUpRaw(_: TransactionLibraries, name: string, o: TransactionOptions): Promise<Work> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => {
      for (const store of ["left", "right", "accounts"]) open.result.createObjectStore(store);
      open.result.createObjectStore("ledger", { autoIncrement: true });
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const locked = (names: string[], body: () => Promise<void>): Promise<void> => {
    const sorted = [...new Set(names)].sort();
    const take = async (i: number): Promise<void> => {
      if (i === sorted.length) return body();
      await navigator.locks.request(`${name}:${sorted[i]}`, () => take(i + 1));
    };
    return take(0);
  };
  const setup = db.transaction("accounts", "readwrite");
  for (let i = 0; i < o.accounts; i++) setup.objectStore("accounts").put(START, account(i));
  await completion(setup);
  return {
    pair: (key, value) =>
      locked([`left/${key}`, `right/${key}`], async () => {
        const tx = db.transaction(["left", "right"], "readwrite");
        tx.objectStore("left").put(value, key);
        tx.objectStore("right").put(value, key);
        tx.commit();
        await completion(tx);
      }),
    transfer: (from, to, amount) =>
      locked([`accounts/${from}`, `accounts/${to}`, "ledger"], async () => {
        const tx = db.transaction(["accounts", "ledger"], "readwrite");
        const store = tx.objectStore("accounts");
        const [a, b] = await Promise.all([promisify(store.get(from)), promisify(store.get(to))]);
        store.put((a as number) - amount, from);
        store.put((b as number) + amount, to);
        tx.objectStore("ledger").add({ from, to, amount });
        tx.commit();
        await completion(tx);
      }),
    totals: async () => {
      const tx = db.transaction(["accounts", "ledger"]);
      const [all, ledger] = await Promise.all([
        promisify(tx.objectStore("accounts").getAll()),
        promisify(tx.objectStore("ledger").count()),
      ]);
      return { sum: (all as number[]).reduce((x, y) => x + y, 0), ledger };
    },
    close: () => db.close(),
  };
}

/** Dexie's db.transaction("rw", ...) over two tables. */
async function setUpDexie({ Dexie }: TransactionLibraries, name: string, o: TransactionOptions): Promise<Work> {
  const db = new Dexie(name);
  db.version(1).stores({ left: "", right: "", accounts: "", ledger: "++" });
  const [left, right, accounts, ledger] = ["left", "right", "accounts", "ledger"].map((t) => db.table(t));
  await accounts!.bulkPut(
    Array.from({ length: o.accounts }, () => START),
    Array.from({ length: o.accounts }, (_, i) => account(i)),
  );
  return {
    pair: (key, value) =>
      db.transaction("rw", left!, right!, async () => {
        await Promise.all([left!.put(value, key), right!.put(value, key)]);
      }),
    transfer: (from, to, amount) =>
      db.transaction("rw", accounts!, ledger!, async () => {
        const [a, b] = (await accounts!.bulkGet([from, to])) as number[];
        await Promise.all([accounts!.put(a! - amount, from), accounts!.put(b! + amount, to), ledger!.add({ from, to, amount })]);
      }),
    totals: async () => ({
      sum: ((await accounts!.toArray()) as number[]).reduce((x, y) => x + y, 0),
      ledger: await ledger!.count(),
    }),
    close: () => db.close(),
  };
}
