// The search bench's page side (make bench): finding profiles by company, the same way in
// attrmap (an index of the customer directory), plain IndexedDB (an object store of profiles
// with a native index, the floor) and Dexie (a table with an indexed field). Each contender gets
// a fresh database per round; single operations take turns in blocks (interleaved).
import type * as Attrmap from "attrmap";
import type { Dexie as DexieClass } from "dexie";
import { type BenchResult, completion, interleaved, type Profile, promisify, RELEASED } from "./storage-bench.js";

export type SearchContender = "attrmap" | typeof RELEASED | "raw" | "dexie";

export interface SearchLibraries {
  attrmap: typeof Attrmap;
  /** The last release, from its tarball: what this version's reads and writes changed. */
  released: typeof Attrmap;
  Dexie: typeof DexieClass;
}

export interface SearchOptions {
  /** Profiles stored, spread over 100 companies. */
  size: number;
  /** Operations per timed row. */
  ops: number;
  round: number;
}

const COMPANIES = 100;
const company = (i: number) => `Company ${i % COMPANIES}`;
const profile = (i: number): Profile => ({
  emailAddress: `user${i}@example.com`,
  fullName: `User ${i}`,
  companyName: company(i),
  customerTier: "gold",
});

/** The rows' names, in the order they are printed. */
export const SEARCH_ROWS = {
  equals: "equals: one company's profiles (1%)",
  first: "equals, first 10",
  prefix: "startsWith, a page of 50",
  count: "count of one company",
  range: "between: ten companies (10%)",
  upsert: "upsert of an indexed profile",
} as const;

/** How a contender does each kind of work. */
interface Search {
  equals(company: string): Promise<unknown[]>;
  first(company: string, n: number): Promise<unknown[]>;
  /** The first `n` profiles of the companies whose names start with `prefix`. */
  prefix(prefix: string, n: number): Promise<unknown[]>;
  count(company: string): Promise<number>;
  /** Profiles of the companies from `lo` to `hi`, both included. */
  range(lo: string, hi: string): Promise<unknown[]>;
  upsert(p: Profile): Promise<unknown>;
  close(): void;
}

async function setUpAttrmap({ attrmap }: SearchLibraries, name: string, size: number): Promise<Search> {
  const store = attrmap.openAttrmap({ name });
  const dir = await store.customerDirectory({ indexes: { byCompany: "companyName" } });
  await dir.upsertProfiles(Array.from({ length: size }, (_, i) => profile(i)));
  const q = () => dir.where("byCompany");
  return {
    equals: (c) => q().equals(c).toArray(),
    first: (c, n) => q().equals(c).toArray({ limit: n }),
    prefix: async (p, n) => (await q().startsWith(p).page({ limit: n })).entries,
    count: (c) => q().equals(c).count(),
    range: (lo, hi) => q().between(lo, hi).toArray(),
    upsert: (p) => dir.upsertProfile(p),
    close: () => store.close(),
  };
}

async function setUpRaw(_: SearchLibraries, name: string, size: number): Promise<Search> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => req.result.createObjectStore("profiles").createIndex("company", "companyName");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const index = () => db.transaction("profiles", "readonly", { durability: "relaxed" }).objectStore("profiles").index("company");
  const put = async (ps: Profile[]) => {
    const tx = db.transaction("profiles", "readwrite");
    for (const p of ps) tx.objectStore("profiles").put(p, p.emailAddress);
    await completion(tx);
  };
  await put(Array.from({ length: size }, (_, i) => profile(i)));
  return {
    equals: (c) => promisify(index().getAll(c)),
    first: (c, n) => promisify(index().getAll(c, n)),
    prefix: (p, n) => promisify(index().getAll(IDBKeyRange.bound(p, `${p}\uffff`), n)),
    count: (c) => promisify(index().count(c)),
    range: (lo, hi) => promisify(index().getAll(IDBKeyRange.bound(lo, hi))),
    upsert: (p) => put([p]),
    close: () => db.close(),
  };
}

async function setUpDexie({ Dexie }: SearchLibraries, name: string, size: number): Promise<Search> {
  const db = new Dexie(name);
  db.version(1).stores({ profiles: "emailAddress, companyName" });
  const profiles = db.table<Profile, string>("profiles");
  await profiles.bulkPut(Array.from({ length: size }, (_, i) => profile(i)));
  return {
    equals: (c) => profiles.where("companyName").equals(c).toArray(),
    first: (c, n) => profiles.where("companyName").equals(c).limit(n).toArray(),
    prefix: (p, n) => profiles.where("companyName").startsWith(p).limit(n).toArray(),
    count: (c) => profiles.where("companyName").equals(c).count(),
    range: (lo, hi) => profiles.where("companyName").between(lo, hi, true, true).toArray(),
    upsert: (p) => profiles.put(p),
    close: () => db.close(),
  };
}

/** One round: every contender of `order` on a fresh database `search-<who>-<round>`; each row interleaved. */
export async function runSearchRound(
  libs: SearchLibraries,
  order: SearchContender[],
  o: SearchOptions,
): Promise<Record<string, BenchResult>> {
  const setUp = {
    attrmap: setUpAttrmap,
    [RELEASED]: (libs: SearchLibraries, name: string, size: number) =>
      setUpAttrmap({ ...libs, attrmap: libs.released }, name, size),
    raw: setUpRaw,
    dexie: setUpDexie,
  };
  const works: Array<readonly [SearchContender, Search]> = [];
  for (const who of order) works.push([who, await setUp[who](libs, `search-${who}-${o.round}`, o.size)]);
  // Every contender's answer is checked against the others' before anything is timed.
  const answers = await Promise.all(
    works.map(([, w]) => Promise.all([w.equals(company(7)), w.range("Company 10", "Company 19"), w.prefix("Company 4", 50)])),
  );
  const sizes = answers.map(([e, r, p]) => `${e.length}/${r.length}/${p.length}`);
  if (new Set(sizes).size !== 1 || answers[0]![0].length !== o.size / COMPANIES)
    throw new Error(`the contenders found different profiles: ${sizes.join(", ")}`);
  const results = new Map<SearchContender, BenchResult>(order.map((who) => [who, {}]));
  const each = (op: (w: Search) => (i: number) => Promise<unknown>) => works.map(([who, w]) => [who, op(w)] as const);
  await interleaved(
    results,
    SEARCH_ROWS.equals,
    o.ops,
    each((w) => (i) => w.equals(company(i * 37))),
  );
  await interleaved(
    results,
    SEARCH_ROWS.first,
    o.ops,
    each((w) => (i) => w.first(company(i * 37), 10)),
  );
  await interleaved(
    results,
    SEARCH_ROWS.prefix,
    o.ops,
    // "Company 1" to "Company 9": each the start of 11 companies' names (one digit, then ten of two).
    each((w) => (i) => w.prefix(company(10 + ((i * 37) % 90)).slice(0, -1), 50)),
  );
  await interleaved(
    results,
    SEARCH_ROWS.count,
    o.ops,
    each((w) => (i) => w.count(company(i * 37))),
  );
  const decade = (i: number) => `Company ${1 + (i % 9)}`;
  await interleaved(
    results,
    SEARCH_ROWS.range,
    Math.ceil(o.ops / 5),
    each((w) => (i) => w.range(`${decade(i)}0`, `${decade(i)}9`)),
  );
  await interleaved(
    results,
    SEARCH_ROWS.upsert,
    o.ops,
    each((w) => (i) => w.upsert({ ...profile(i * 7919), fullName: `Renamed ${i}` })),
  );
  for (const [, w] of works) w.close();
  return Object.fromEntries(results);
}
