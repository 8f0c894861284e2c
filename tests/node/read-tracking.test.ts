// Reads are tracked in one place: Instances tells an observer what every read covers
// before it is made, and live queries learn what a query read from it alone. A read path the
// store did not have before (as the cross-field search will add) is tracked with no change to
// the live query. These tests load the shipped modules themselves (dist/), which the package's
// exports map hides from users.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";

const dist = join(dirname(fileURLToPath(import.meta.resolve("attrmap/package.json"))), "dist");
const load = (path: string) => import(pathToFileURL(join(dist, path)).href);
const { Instances } = await load("instances/instances.js");
const { Connection } = await load("idb/connection.js");
const { Announcer } = await load("live/changes.js");
const { request } = await load("idb/requests.js");
const { liveQuery } = await load("live/live-query.js");

type Scope = readonly string[] | "all" | "layout";
type Store = {
  observed(observer: (map: string, scope: Scope) => void): Store;
  reading<T>(map: string, scope: Scope, doing: string, issue: (tx: IDBTransaction) => Promise<T>): Promise<T>;
  read(map: string, instances: readonly string[]): Promise<unknown>;
  readMaps(reads: ReadonlyArray<{ map: string; instances: readonly string[] }>): Promise<unknown>;
  readNext(map: string, after: string | undefined, doing: string): Promise<unknown>;
  scan(map: string, doing: string, visit: () => unknown): Promise<unknown>;
  countRange(map: string, range: readonly [string, string], doing: string): Promise<number>;
  openMap(map: string, doing: string, open: (meta: unknown) => { meta: object | undefined; result: unknown }): Promise<unknown>;
  write(read: { map: string; instances: readonly string[] }, doing: string, compute: () => object): Promise<unknown>;
  close(): void;
};

let databases = 0;
function newStore(): Store {
  const name = `read-tracking-${++databases}`;
  return new Instances(new Connection(name, new IDBFactory(), IDBKeyRange), new Announcer(name)) as Store;
}

/** A read path the store does not have: the value of one instance, read with an IndexedDB request of the test's own. */
function readOne(store: Store, map: string, instance: string): Promise<unknown> {
  return store.reading(map, [instance], `reading "${instance}"`, (tx) =>
    request(tx.objectStore("instances").get([map, instance]), `reading "${instance}"`),
  );
}

function put(store: Store, map: string, instance: string, value: unknown): Promise<unknown> {
  return store.write({ map, instances: [] }, `writing "${instance}"`, () => ({ put: [[instance, value]], result: undefined }));
}

test("every read method of Instances tells the observer what it covers, before it reads", async () => {
  const base = newStore();
  const seen: Array<[string, Scope]> = [];
  const store = base.observed((map, scope) => void seen.push([map, scope]));
  await store.read("m", ["a", "b"]);
  await store.read("log", []);
  await store.readNext("m", undefined, "walking");
  await store.scan("m", "scanning", () => true);
  await store.countRange("m", ["a", "z"], "counting");
  await store.openMap("m", "opening", () => ({ meta: undefined, result: undefined }));
  await readOne(store, "m", "c");
  await store.readMaps([
    { map: "m", instances: ["d"] },
    { map: "log", instances: ["current"] },
  ]);
  assert.deepEqual(seen, [
    ["m", ["a", "b"]],
    ["log", []],
    ["m", "all"],
    ["m", "all"],
    ["m", "all"],
    ["m", "layout"],
    ["m", ["c"]],
    ["m", ["d"]],
    ["log", ["current"]],
  ]);
  // The store it was made from, and its writes, tell nothing.
  await base.read("m", ["a"]);
  await put(store, "m", "a", 1);
  assert.equal(seen.length, 9);
  base.close();
});

test("a live query over a read path the store did not have runs again when what it read changes, and only then", async () => {
  const store = newStore();
  const ctx = { instances: store, locks: undefined };
  const results: unknown[] = [];
  const query = liveQuery(
    ctx,
    (c: { instances: Store }) => readOne(c.instances, "m", "watched"),
    (c: unknown) => c,
  );
  const stop = query.subscribe({ next: (value: unknown) => results.push(value) });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
  await settle();
  await put(store, "m", "other", 1);
  await settle();
  assert.deepEqual(results, [undefined], "a change to another instance does not run it");
  await put(store, "m", "watched", 2);
  await settle();
  assert.deepEqual(results, [undefined, 2]);
  stop();
  store.close();
});
