// The storage bench's page side (make bench): the same work done by attrmap, by the fastest
// correct plain-IndexedDB code (the floor), and by Dexie and idb-keyval where they can do it.
// Each contender gets a fresh database per round, all of them deleted before the next round;
// within a round the contenders take turns, so they run in the same storage at the same time.
// It imports no library: they are passed in.
import type * as Attrmap from "attrmap";
import type { Dexie as DexieClass } from "dexie";
import type * as IdbKeyval from "idb-keyval";
import { refCanonical, refPartition } from "./reference.js";

/** The last release, whose tarball tests/fixtures keeps: a bench's "before". */
export const RELEASED = "0.5.0";

export type Contender = "attrmap" | typeof RELEASED | "raw" | "dexie" | "idb-keyval";

export interface BenchLibraries {
  attrmap: typeof Attrmap;
  /** The last release (its tarball in tests/fixtures), doing the same work: what this package changed. */
  released: typeof Attrmap;
  Dexie: typeof DexieClass;
  idbKeyval: typeof IdbKeyval;
}

export interface BenchOptions {
  /** Profiles (and subscribers) stored before the timed operations. */
  size: number;
  /** Sequential operations per timed row. */
  ops: number;
  /** Profiles of the one-call bulk import (0 to leave it out). */
  bulk: number;
  /** Upserts started at once from the page. */
  concurrent: number;
  round: number;
}

/** Milliseconds per operation, by row; rows a contender cannot do are absent. */
export type BenchResult = Record<string, number>;

const PARTITIONS = 1000;
const CHUNK = 100;

export interface Profile {
  emailAddress: string;
  fullName: string;
  companyName: string;
  customerTier: string;
}

const profile = (i: number): Profile => ({
  emailAddress: `user${i}@example.com`,
  fullName: `User ${i}`,
  companyName: "Example",
  customerTier: "gold",
});
const subscriber = (i: number) => ({ subscriberId: `sub-${i}`, deliveryAddress: `sub-${i}@example.com` });
// Spread over the stored keys, the same for every contender.
const storedIndex = (i: number, size: number) => (i * 7919) % size;
const token = (chunk: number) => String(chunk * CHUNK + 1).padStart(20, "0");

/** A request's result as a promise. */
export function promisify<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** A transaction's completion as a promise. */
export function completion(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
}

async function timed(out: BenchResult, row: string, n: number, work: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await work();
  out[row] = (performance.now() - t0) / n;
}

/** Operations run before each sequential row is timed: every contender's code is compiled and warm when timing starts. */
const WARM_UP = 20;
/** Sequential operations a contender runs in one turn of an interleaved row. */
const BLOCK = 50;

/**
 * Times `ops` sequential operations of each contender, each awaited before the next, after
 * WARM_UP untimed ones (a contender's `op` gets 0 to WARM_UP + ops - 1). The contenders take
 * turns in blocks of BLOCK operations, the order of the turns rotating, so that whatever the
 * machine does meanwhile (disk flushes, compaction, another process) falls on all of them alike;
 * a block is long enough for each one's code to run warm.
 */
export async function interleaved<C extends string = Contender>(
  results: Map<C, BenchResult>,
  row: string,
  ops: number,
  contenders: Array<readonly [C, (i: number) => Promise<unknown>]>,
): Promise<void> {
  const spent = new Map<C, number>();
  for (const [, op] of contenders) for (let i = 0; i < WARM_UP; i++) await op(i);
  for (let block = 0; block * BLOCK < ops; block++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const [who, op] = contenders[(turn + block) % contenders.length]!;
      const from = WARM_UP + block * BLOCK;
      const t0 = performance.now();
      for (let i = from; i < from + BLOCK; i++) await op(i);
      spent.set(who, (spent.get(who) ?? 0) + performance.now() - t0);
    }
  }
  for (const [who, time] of spent) results.get(who)![row] = time / (Math.ceil(ops / BLOCK) * BLOCK);
}

/** The rows' names, in the order they are printed. */
export const ROWS = {
  upsert: "single upsert",
  get: "get",
  register: "register (log append)",
  page: "archived page",
  concurrent: "concurrent upserts from one page",
  bulk: "bulk import in one call (per record)",
} as const;

/** How a contender does each kind of work; a contender without a log leaves those out. */
interface Work {
  upsert(p: Profile): Promise<unknown>;
  get(email: string): Promise<unknown>;
  /** Stores many profiles in one call. */
  putMany(ps: Profile[]): Promise<unknown>;
  register?(s: ReturnType<typeof subscriber>): Promise<unknown>;
  page?(token: string): Promise<unknown>;
  /** Closes the contender's connection (idb-keyval cannot: the caller deletes its database once the tab is gone). */
  close(): void;
}

/**
 * One round: every contender of `order` gets a fresh database `bench-<who>-<round>` holding
 * `o.size` profiles (and subscribers); the sequential rows run interleaved, then each
 * contender's concurrent row and then each one's bulk row, one contender after another in `order`.
 */
export async function runRound(libs: BenchLibraries, order: Contender[], o: BenchOptions): Promise<Record<string, BenchResult>> {
  const setUp = {
    attrmap: setUpAttrmap,
    [RELEASED]: (libs: BenchLibraries, name: string, o: BenchOptions) =>
      setUpAttrmap({ ...libs, attrmap: libs.released }, name, o),
    raw: setUpRaw,
    dexie: setUpDexie,
    "idb-keyval": setUpIdbKeyval,
  };
  const works: Array<readonly [Contender, Work]> = [];
  for (const who of order) works.push([who, await setUp[who](libs, `bench-${who}-${o.round}`, o)]);
  const results = new Map<Contender, BenchResult>(order.map((who) => [who, {}]));
  const each = (op: (w: Work) => ((i: number) => Promise<unknown>) | undefined) =>
    works.flatMap(([who, w]) => {
      const f = op(w);
      return f ? [[who, f] as const] : [];
    });
  await interleaved(
    results,
    ROWS.upsert,
    o.ops,
    each((w) => (i) => w.upsert(profile(o.size + i))),
  );
  await interleaved(
    results,
    ROWS.get,
    o.ops,
    each((w) => (i) => w.get(`user${storedIndex(i, o.size)}@example.com`)),
  );
  await interleaved(
    results,
    ROWS.register,
    o.ops,
    each((w) => w.register && ((i) => w.register!(subscriber(o.size + i)))),
  );
  const chunks = Math.floor(o.size / CHUNK);
  await interleaved(
    results,
    ROWS.page,
    o.ops,
    each((w) => w.page && ((i) => w.page!(token(storedIndex(i, chunks))))),
  );
  const base = o.size + WARM_UP + o.ops;
  const records = Array.from({ length: o.bulk }, (_, i) => profile(1_000_000 + i));
  // Every concurrent row before any bulk one: a bulk import leaves the storage busy for a while.
  for (const [who, work] of works)
    await timed(results.get(who)!, ROWS.concurrent, o.concurrent, () =>
      Promise.all(Array.from({ length: o.concurrent }, (_, i) => work.upsert(profile(base + i)))),
    );
  for (const [who, work] of works) {
    if (o.bulk > 0) await timed(results.get(who)!, ROWS.bulk, o.bulk, () => work.putMany(records));
    work.close();
  }
  return Object.fromEntries(results);
}

async function setUpAttrmap({ attrmap }: BenchLibraries, name: string, o: BenchOptions): Promise<Work> {
  const store = attrmap.openAttrmap({ name });
  const dir = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  await dir.upsertProfiles(Array.from({ length: o.size }, (_, i) => profile(i)));
  await archive.registerSubscribers(Array.from({ length: o.size }, (_, i) => subscriber(i)));
  return {
    upsert: (p) => dir.upsertProfile(p),
    get: (email) => dir.getProfile(email),
    putMany: (ps) => dir.upsertProfiles(ps),
    register: (sub) => archive.registerSubscriber(sub),
    page: (t) => archive.getSubscriberPage(t),
    close: () => store.close(),
  };
}

/** The floor's database: a store "partitions" (Maps under partition names) and a store "log". */
export function openRawDatabase(name: string): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => {
      open.result.createObjectStore("partitions");
      open.result.createObjectStore("log");
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/**
 * The floor's profiles in `partitions` partitions of `db`, placed by the tests' reference
 * rules: a Web Lock (named after `locks`) around each read-modify-write, one around a bulk
 * write, and gets that resolve at their request's success.
 */
export function rawProfiles(db: IDBDatabase, locks: string, partitions: number) {
  const partitionOf = (email: string) => refPartition(refCanonical(email), partitions).name;
  const putMany = async (profiles: Profile[]) => {
    const byPartition = new Map<string, Profile[]>();
    for (const p of profiles) {
      const part = partitionOf(p.emailAddress);
      let list = byPartition.get(part);
      if (!list) byPartition.set(part, (list = []));
      list.push(p);
    }
    await navigator.locks.request(`${locks}:bulk`, async () => {
      const tx = db.transaction("partitions", "readwrite");
      const store = tx.objectStore("partitions");
      const names = [...byPartition.keys()];
      const stored = await Promise.all(names.map((n) => promisify(store.get(n) as IDBRequest<Map<string, Profile> | undefined>)));
      names.forEach((n, k) => {
        const partition = stored[k] ?? new Map<string, Profile>();
        for (const p of byPartition.get(n)!) partition.set(refCanonical(p.emailAddress), p);
        store.put(partition, n);
      });
      await completion(tx);
    });
  };
  const upsert = (p: Profile) => {
    const part = partitionOf(p.emailAddress);
    return navigator.locks.request(`${locks}:${part}`, async () => {
      const tx = db.transaction("partitions", "readwrite");
      const store = tx.objectStore("partitions");
      const partition = (await promisify(store.get(part) as IDBRequest<Map<string, Profile> | undefined>)) ?? new Map();
      partition.set(refCanonical(p.emailAddress), p);
      store.put(partition, part);
      tx.commit();
      await completion(tx);
    });
  };
  const get = async (email: string) => {
    const part = partitionOf(email);
    const partition = await promisify(db.transaction("partitions").objectStore("partitions").get(part));
    return (partition as Map<string, Profile> | undefined)?.get(refCanonical(email));
  };
  return { putMany, upsert, get };
}

/**
 * The floor: the same layout by hand (partitions as Maps keyed by partition name, the log as
 * a state record, a `current` array and archived arrays under their tokens), the same rules
 * from the test's reference implementation, a Web Lock around each read-modify-write, and
 * reads that resolve at their request's success.
 */
async function setUpRaw(_: BenchLibraries, name: string, o: BenchOptions): Promise<Work> {
  const db = await openRawDatabase(name);
  const { putMany: putProfiles, upsert, get } = rawProfiles(db, name, PARTITIONS);
  interface State {
    nextSequence: number;
    latest: string;
  }
  type Row = { sequence: number; subscriberId: string; deliveryAddress: string };
  const append = (subscribers: Array<{ subscriberId: string; deliveryAddress: string }>) =>
    navigator.locks.request(`${name}:log`, async () => {
      const tx = db.transaction("log", "readwrite");
      const log = tx.objectStore("log");
      const [state, current] = await Promise.all([
        promisify(log.get("state") as IDBRequest<State | undefined>),
        promisify(log.get("current") as IDBRequest<Row[] | undefined>),
      ]);
      const s = state ?? { nextSequence: 1, latest: "" };
      let chunk = current ?? [];
      for (const sub of subscribers) {
        if (chunk.length === CHUNK) {
          s.latest = String(chunk[0]!.sequence).padStart(20, "0");
          log.add(chunk, s.latest);
          chunk = [];
        }
        chunk.push({ sequence: s.nextSequence++, ...sub });
      }
      log.put(chunk, "current");
      log.put(s, "state");
      tx.commit();
      await completion(tx);
    });
  const page = async (t: string) => promisify(db.transaction("log").objectStore("log").get(t));
  await putProfiles(Array.from({ length: o.size }, (_, i) => profile(i)));
  await append(Array.from({ length: o.size }, (_, i) => subscriber(i)));
  return { upsert, get, putMany: putProfiles, register: (sub) => append([sub]), page, close: () => db.close() };
}

/** Dexie as its users would store profiles: one record per canonical email. */
async function setUpDexie({ Dexie }: BenchLibraries, name: string, o: BenchOptions): Promise<Work> {
  const db = new Dexie(name);
  db.version(1).stores({ profiles: "" });
  const profiles = db.table<Profile, string>("profiles");
  const keyed = (ps: Profile[]) => ps.map((p) => refCanonical(p.emailAddress));
  const initial = Array.from({ length: o.size }, (_, i) => profile(i));
  await profiles.bulkPut(initial, keyed(initial));
  return {
    upsert: (p) => profiles.put(p, refCanonical(p.emailAddress)),
    get: (email) => profiles.get(email),
    putMany: (ps) => profiles.bulkPut(ps, keyed(ps)),
    close: () => db.close(),
  };
}

/** idb-keyval: one key per canonical email in its own database. */
async function setUpIdbKeyval({ idbKeyval }: BenchLibraries, name: string, o: BenchOptions): Promise<Work> {
  const store = idbKeyval.createStore(name, "keyval");
  const entries = (ps: Profile[]) => ps.map((p) => [refCanonical(p.emailAddress), p] as [string, Profile]);
  await idbKeyval.setMany(entries(Array.from({ length: o.size }, (_, i) => profile(i))), store);
  return {
    upsert: (p) => idbKeyval.set(refCanonical(p.emailAddress), p, store),
    get: (email) => idbKeyval.get(email, store),
    putMany: (ps) => idbKeyval.setMany(entries(ps), store),
    close: () => {},
  };
}
