// The index-cost bench's page side (make bench): what building an index and writing an indexed
// map cost, beside what IndexedDB itself does with the same work, to tell the library's cost from
// the floor of its stored layout (docs/storage.md, "Index entries": one record per entry) and from
// the floor of the layout issue 49 considers (sorted pages of entries, many per record).
// Every figure is milliseconds; each round runs in a fresh tab on fresh databases.
import type * as Attrmap from "attrmap";
import type { Dexie as DexieClass } from "dexie";
import { completion, type Profile, promisify } from "./storage-bench.js";

/** What the page gives the bench: the package under test and Dexie. */
export interface IndexCostLibraries {
  attrmap: typeof Attrmap;
  Dexie: typeof DexieClass;
}

/** The rows of the build table, by contender; the first is the one the others are compared with. */
export const BUILD_ROWS = {
  dexie: "Dexie: a version upgrade adding the index",
  attrmap: "attrmap: createIndex",
  walk: "attrmap's partitions, read as a build walks them",
  perEntry: "raw: one record per entry, one transaction",
  pages32: "raw: sorted pages of 32 entries",
  pages100: "raw: sorted pages of 100 entries",
} as const;

/** What an index adds to the site's storage per entry, from `navigator.storage.estimate()` before and after its build. */
export const BYTES = { attrmap: "bytes per entry: attrmap", dexie: "bytes per entry: Dexie" } as const;

/** The rows of the write table; the first is the one the others are compared with. */
export const WRITE_ROWS = {
  none: "attrmap upsert, no index",
  one: "attrmap upsert, 1 index",
  two: "attrmap upsert, 2 indexes",
  four: "attrmap upsert, 4 indexes",
  rawNone: "raw: partition read and put",
  rawEntry: "raw: and 1 entry put",
  rawEntries: "raw: and 2 entry puts",
  rawPage: "raw: and 1 page of 32 read and put",
  rawPages: "raw: and 2 pages of 32 read and put",
} as const;

const MAP = "people";
type Indexed = Profile & { city: string; age: number };
const profile = (i: number): Indexed => ({
  emailAddress: `user${i}@example.com`,
  fullName: `User ${i}`,
  companyName: `Company ${i % 100}`,
  customerTier: i % 2 ? "gold" : "silver",
  city: `City ${i % 37}`,
  age: i % 90,
});
/** The field each index of the raw layouts holds (both text: kind 5 in an entry key). */
const FIELDS = { byCompany: "companyName", byTier: "customerTier" } as const;
type RawIndex = keyof typeof FIELDS;
/** An entry key as the library stores one of `index`. */
const entryKey = (p: Profile, index: RawIndex = "byCompany") => [MAP, index, 5, p[FIELDS[index]], p.emailAddress];
/** `profiles` in the order of their entries in `index`. */
const sortedBy = (profiles: Profile[], index: RawIndex = "byCompany") =>
  [...profiles].sort((a, b) => {
    const [x, y] = [a[FIELDS[index]], b[FIELDS[index]]];
    return x < y ? -1 : x > y ? 1 : a.emailAddress < b.emailAddress ? -1 : 1;
  });

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

function openRaw(name: string, stores: string[]): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => {
      for (const s of stores) req.result.createObjectStore(s);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Puts the entries of `sorted` (in `index`'s order) in `store` as pages of `size`, each under the key of its last entry. */
function putPages(tx: IDBTransaction, store: string, sorted: Profile[], size: number, index: RawIndex = "byCompany"): void {
  for (let i = 0; i < sorted.length; i += size) {
    const page = sorted.slice(i, i + size);
    const keys = page.map((p) => entryKey(p, index).slice(2));
    tx.objectStore(store).put({ keys, values: page }, entryKey(page.at(-1)!, index));
  }
}

/** What an index adds to the site's storage; NaN where the engine does not say (WebKitGTK's driverless MiniBrowser). */
async function used(): Promise<number> {
  return (await navigator.storage?.estimate().catch(() => undefined))?.usage ?? Number.NaN;
}

/** attrmap's build of index "byCompany" over `all`, then its partitions read raw as the build's steps read them. */
async function buildAttrmap(attrmap: typeof Attrmap, all: Profile[], round: number, out: Record<string, number>) {
  const store = attrmap.openAttrmap({ name: `index-cost-${round}` });
  const map = await store.partitionedMap<Profile>(MAP, { partitionCount: 1000 });
  await map.upsertMany(all.map((p) => [p.emailAddress, p] as const));
  const before = await used();
  out[BUILD_ROWS.attrmap] = await timed(() => map.createIndex("byCompany", "companyName"));
  out[BYTES.attrmap] = ((await used()) - before) / all.length;
  store.close();
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(`index-cost-${round}`);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  out[BUILD_ROWS.walk] = await timed(async () => {
    for (let after: IDBValidKey = [MAP]; ; ) {
      const range = IDBKeyRange.bound(after, [MAP, []], true);
      const instances = db.transaction("instances", "readonly").objectStore("instances");
      const [keys] = await Promise.all([promisify(instances.getAllKeys(range, 16)), promisify(instances.getAll(range, 16))]);
      if (keys.length < 16) break;
      after = keys.at(-1)!;
    }
  });
  db.close();
}

/**
 * The raw floors: `all`'s entries in one transaction, one record each, and in sorted pages (the
 * sort timed too: a build reads in hash order).
 */
async function buildRaw(all: Profile[], round: number, out: Record<string, number>) {
  const raw = await openRaw(`index-cost-raw-${round}`, ["entries", "pages32", "pages100"]);
  out[BUILD_ROWS.perEntry] = await timed(() => {
    const tx = raw.transaction("entries", "readwrite");
    for (const p of all) tx.objectStore("entries").put([p.emailAddress, p], entryKey(p));
    return completion(tx);
  });
  for (const [row, size, name] of [
    [BUILD_ROWS.pages32, 32, "pages32"],
    [BUILD_ROWS.pages100, 100, "pages100"],
  ] as const)
    out[row] = await timed(() => {
      const tx = raw.transaction(name, "readwrite");
      putPages(tx, name, sortedBy(all), size);
      return completion(tx);
    });
  raw.close();
}

/** Dexie adding an index on companyName to a table of `all` by a version upgrade (the open that runs it, timed). */
async function buildDexie(Dexie: typeof DexieClass, all: Profile[], round: number, out: Record<string, number>) {
  const name = `index-cost-dexie-${round}`;
  const unindexed = new Dexie(name);
  unindexed.version(1).stores({ profiles: "emailAddress" });
  await unindexed.table("profiles").bulkPut(all);
  unindexed.close();
  const indexed = new Dexie(name);
  indexed.version(1).stores({ profiles: "emailAddress" });
  indexed.version(2).stores({ profiles: "emailAddress, companyName" });
  const before = await used();
  out[BUILD_ROWS.dexie] = await timed(() => indexed.open());
  out[BYTES.dexie] = ((await used()) - before) / all.length;
  indexed.close();
}

/**
 * One round of the build table with `size` profiles, in databases named after `round`; each round
 * starts with another contender.
 */
export async function runBuildRound({ attrmap, Dexie }: IndexCostLibraries, size: number, round: number) {
  const all = Array.from({ length: size }, (_, i) => profile(i));
  const out: Record<string, number> = {};
  const contenders = [
    () => buildAttrmap(attrmap, all, round, out),
    () => buildRaw(all, round, out),
    () => buildDexie(Dexie, all, round, out),
  ];
  for (let i = 0; i < contenders.length; i++) await contenders[(i + round) % contenders.length]!();
  return out;
}

/** The index sets of the write table's attrmap rows. */
const INDEX_SETS: Array<[string, Record<string, keyof Indexed>]> = [
  [WRITE_ROWS.none, {}],
  [WRITE_ROWS.one, { byCompany: "companyName" }],
  [WRITE_ROWS.two, { byCompany: "companyName", byTier: "customerTier" }],
  [WRITE_ROWS.four, { byCompany: "companyName", byTier: "customerTier", byCity: "city", byAge: "age" }],
];

/**
 * One round of the write table: `size` profiles in `size / 100` partitions (100 profiles each, as
 * 100,000 in 1000); `ops` upserts of stored profiles per row (a new name, the indexed fields
 * kept), rows taking turns in blocks of 50.
 */
export async function runWriteRound({ attrmap }: IndexCostLibraries, size: number, ops: number, round: number) {
  const partitions = size / 100;
  const all = Array.from({ length: size }, (_, i) => profile(i));
  // The four maps share one database (in databases of their own, Firefox timed whichever was
  // filled first the slowest, indexes or not), filled in another order each round.
  const store = attrmap.openAttrmap({ name: `index-write-${round}` });
  const writers: Array<[string, (p: Profile) => Promise<unknown>]> = [];
  for (let i = 0; i < INDEX_SETS.length; i++) {
    const set = (i + round) % INDEX_SETS.length;
    const [row, indexes] = INDEX_SETS[set]!;
    const map = await store.partitionedMap<Indexed>(`${MAP}-${set}`, { partitionCount: partitions, indexes });
    await map.upsertMany(all.map((p) => [p.emailAddress, p] as const));
    writers.push([row, (p) => map.upsert(p.emailAddress, p as Indexed)]);
  }
  // The floor, raw: a readwrite transaction reads a partition of 100 profiles and puts it
  // back, as an upsert does, and does what each layout asks of an index beside it (the page is
  // found by the new value, as it is when the indexed fields are unchanged; a write that changes
  // them reads the partition first to find the old value's page, a round trip not counted here).
  const db = await openRaw(`index-write-raw-${round}`, ["partitions", "entries", "pages"]);
  const setUp = db.transaction(["partitions", "entries", "pages"], "readwrite");
  for (let i = 0; i < partitions; i++) setUp.objectStore("partitions").put(all.slice(i * 100, (i + 1) * 100), i);
  for (const index of ["byCompany", "byTier"] as const) {
    for (const p of all) setUp.objectStore("entries").put([p.emailAddress, p], entryKey(p, index));
    putPages(setUp, "pages", sortedBy(all, index), 32, index);
  }
  await completion(setUp);
  const rawWrite = (index: (tx: IDBTransaction, p: Profile) => Promise<unknown>) => async (p: Profile) => {
    const tx = db.transaction(["partitions", "entries", "pages"], "readwrite");
    const partition = Number(p.emailAddress.slice(4, -12)) % partitions;
    const [value] = await Promise.all([promisify(tx.objectStore("partitions").get(partition)), index(tx, p)]);
    tx.objectStore("partitions").put(value, partition);
    return completion(tx);
  };
  const rewritePage = async (tx: IDBTransaction, key: IDBValidKey) => {
    const pages = tx.objectStore("pages");
    const [[page], [at]] = await Promise.all([
      promisify(pages.getAll(IDBKeyRange.lowerBound(key), 1)),
      promisify(pages.getAllKeys(IDBKeyRange.lowerBound(key), 1)),
    ]);
    if (at !== undefined) pages.put(page, at);
  };
  writers.push(
    [WRITE_ROWS.rawNone, rawWrite(async () => undefined)],
    [WRITE_ROWS.rawEntry, rawWrite(async (tx, p) => tx.objectStore("entries").put([p.emailAddress, p], entryKey(p)))],
    [
      WRITE_ROWS.rawEntries,
      rawWrite(async (tx, p) => {
        tx.objectStore("entries").put([p.emailAddress, p], entryKey(p));
        tx.objectStore("entries").put([p.emailAddress, p], entryKey(p, "byTier"));
      }),
    ],
    [WRITE_ROWS.rawPage, rawWrite((tx, p) => rewritePage(tx, entryKey(p)))],
    [
      WRITE_ROWS.rawPages,
      rawWrite((tx, p) => Promise.all([rewritePage(tx, entryKey(p)), rewritePage(tx, entryKey(p, "byTier"))])),
    ],
  );
  const times = new Map<string, number[]>(writers.map(([row]) => [row, []]));
  const BLOCK = 50;
  // Each block starts one row later: no row always follows the same one (its commits, its garbage).
  for (let done = 0, block = 0; done < ops; done += BLOCK, block++)
    for (const [row, write] of [...writers.slice(block % writers.length), ...writers.slice(0, block % writers.length)]) {
      const t0 = performance.now();
      for (let i = done; i < done + BLOCK; i++) {
        const p = all[(i * 7919) % size]!;
        await write({ ...p, fullName: `Renamed ${i}` });
      }
      times.get(row)!.push((performance.now() - t0) / BLOCK);
    }
  store.close();
  db.close();
  return Object.fromEntries([...times].map(([row, xs]) => [row, xs.reduce((a, b) => a + b, 0) / xs.length]));
}
