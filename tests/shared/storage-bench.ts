// The storage bench's page side (make bench): the same work done by attrmap, by the fastest
// correct plain-IndexedDB code (the floor), and by Dexie and idb-keyval where they can do it.
// Each contender gets a fresh database per round, deleted before the next one runs, so no
// contender runs in storage another one grew. It imports no library: they are passed in.
import type * as Attrmap from "attrmap";
import type { Dexie as DexieClass } from "dexie";
import type * as IdbKeyval from "idb-keyval";
import { refCanonical, refPartition } from "./reference.js";

export type Contender = "attrmap" | "raw" | "dexie" | "idb-keyval";

export interface BenchLibraries {
  attrmap: typeof Attrmap;
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

function promisify<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function completion(tx: IDBTransaction): Promise<void> {
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

/** Times `n` operations, each awaited before the next, after WARM_UP untimed ones (`op` gets 0 to WARM_UP + n - 1). */
async function sequential(out: BenchResult, row: string, n: number, op: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await op(i);
  await timed(out, row, n, async () => {
    for (let i = WARM_UP; i < WARM_UP + n; i++) await op(i);
  });
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
}

/** Times every row `work` can do, on a store already holding `o.size` profiles (and subscribers). */
async function timeRows(out: BenchResult, o: BenchOptions, work: Work): Promise<void> {
  await sequential(out, ROWS.upsert, o.ops, (i) => work.upsert(profile(o.size + i)));
  await sequential(out, ROWS.get, o.ops, (i) => work.get(`user${storedIndex(i, o.size)}@example.com`));
  const { register, page } = work;
  if (register) await sequential(out, ROWS.register, o.ops, (i) => register(subscriber(o.size + i)));
  const chunks = Math.floor(o.size / CHUNK);
  if (page) await sequential(out, ROWS.page, o.ops, (i) => page(token(storedIndex(i, chunks))));
  const base = o.size + WARM_UP + o.ops;
  await timed(out, ROWS.concurrent, o.concurrent, () =>
    Promise.all(Array.from({ length: o.concurrent }, (_, i) => work.upsert(profile(base + i)))),
  );
  if (o.bulk > 0) {
    const records = Array.from({ length: o.bulk }, (_, i) => profile(1_000_000 + i));
    await timed(out, ROWS.bulk, o.bulk, () => work.putMany(records));
  }
}

/**
 * Runs every row `who` can do, in the database `bench-<who>-<round>`. idb-keyval cannot close
 * its connection, so the caller deletes the database once the tab is gone.
 */
export async function runContender(who: Contender, libs: BenchLibraries, o: BenchOptions): Promise<BenchResult> {
  const out: BenchResult = {};
  const run = { attrmap: runAttrmap, raw: runRaw, dexie: runDexie, "idb-keyval": runIdbKeyval }[who];
  await run(libs, `bench-${who}-${o.round}`, o, out);
  return out;
}

async function runAttrmap({ attrmap }: BenchLibraries, name: string, o: BenchOptions, out: BenchResult): Promise<void> {
  const store = attrmap.openAttrmap({ name });
  const dir = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  await dir.upsertProfiles(Array.from({ length: o.size }, (_, i) => profile(i)));
  await archive.registerSubscribers(Array.from({ length: o.size }, (_, i) => subscriber(i)));
  await timeRows(out, o, {
    upsert: (p) => dir.upsertProfile(p),
    get: (email) => dir.getProfile(email),
    putMany: (ps) => dir.upsertProfiles(ps),
    register: (sub) => archive.registerSubscriber(sub),
    page: (t) => archive.getSubscriberPage(t),
  });
  store.close();
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
async function runRaw(_: BenchLibraries, name: string, o: BenchOptions, out: BenchResult): Promise<void> {
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
  await timeRows(out, o, { upsert, get, putMany: putProfiles, register: (sub) => append([sub]), page });
  db.close();
}

/** Dexie as its users would store profiles: one record per canonical email. */
async function runDexie({ Dexie }: BenchLibraries, name: string, o: BenchOptions, out: BenchResult): Promise<void> {
  const db = new Dexie(name);
  db.version(1).stores({ profiles: "" });
  const profiles = db.table<Profile, string>("profiles");
  const keyed = (ps: Profile[]) => ps.map((p) => refCanonical(p.emailAddress));
  const initial = Array.from({ length: o.size }, (_, i) => profile(i));
  await profiles.bulkPut(initial, keyed(initial));
  await timeRows(out, o, {
    upsert: (p) => profiles.put(p, refCanonical(p.emailAddress)),
    get: (email) => profiles.get(email),
    putMany: (ps) => profiles.bulkPut(ps, keyed(ps)),
  });
  db.close();
}

/** idb-keyval: one key per canonical email in its own database. */
async function runIdbKeyval({ idbKeyval }: BenchLibraries, name: string, o: BenchOptions, out: BenchResult): Promise<void> {
  const store = idbKeyval.createStore(name, "keyval");
  const entries = (ps: Profile[]) => ps.map((p) => [refCanonical(p.emailAddress), p] as [string, Profile]);
  await idbKeyval.setMany(entries(Array.from({ length: o.size }, (_, i) => profile(i))), store);
  await timeRows(out, o, {
    upsert: (p) => idbKeyval.set(refCanonical(p.emailAddress), p, store),
    get: (email) => idbKeyval.get(email, store),
    putMany: (ps) => idbKeyval.setMany(entries(ps), store),
  });
}
