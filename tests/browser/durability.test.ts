// What a browser's storage does around the package: reads that must touch one instance of a
// big map or log, and another tab upgrading the database under an open connection.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { openPage, type Tab, useProfile } from "./harness.js";

const env = useProfile();

/** Counts IndexedDB requests by operation and object store, from the moment it is installed. */
async function instrument(page: Tab): Promise<void> {
  await page.evaluate(() => {
    const log = (window.__idb = { requests: [], transactions: [] } as NonNullable<Window["__idb"]>);
    for (const op of [
      "get",
      "getAll",
      "getAllKeys",
      "getKey",
      "put",
      "add",
      "delete",
      "clear",
      "count",
      "openCursor",
      "openKeyCursor",
    ] as const) {
      const original = IDBObjectStore.prototype[op] as (...args: unknown[]) => IDBRequest;
      (IDBObjectStore.prototype as unknown as Record<string, unknown>)[op] = function (this: IDBObjectStore, ...args: unknown[]) {
        log.requests.push({ op, store: this.name, key: args[0] === undefined ? undefined : JSON.stringify(args[0]) });
        return original.apply(this, args);
      };
    }
  });
}

test("reads touch exactly one instance: a lookup among 10,000 profiles, a page of a 10,000-record log", async () => {
  const page = await openPage(env.browser, env.server.origin);
  await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "big" });
    const dir = await store.customerDirectory();
    await dir.upsertProfiles(
      Array.from({ length: 10_000 }, (_, i) => ({ emailAddress: `user${i}@example.com`, fullName: `User ${i}` })),
    );
    const archive = await store.subscriberArchive();
    await archive.registerSubscribers(
      Array.from({ length: 10_000 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: `s${i}@example.com` })),
    );
  });
  await instrument(page);
  const result = await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "big" });
    const dir = await store.customerDirectory();
    const archive = await store.subscriberArchive();
    const log = window.__idb!;
    const measure = async (f: () => Promise<unknown>) => {
      log.requests.length = 0;
      const value = await f();
      return { value, requests: log.requests.map((r) => `${r.op} ${r.store} ${r.key}`) };
    };
    return {
      lookup: await measure(async () => (await dir.getProfile("User4242@Example.com"))?.fullName),
      current: await measure(async () => (await archive.getSubscriberPage("")).subscribers.length),
      archived: await measure(async () => (await archive.getSubscriberPage("00000000000000005001")).subscribers[0]?.sequence),
      partition: window.attrmap.emailPartition("user4242@example.com").partitionName,
    };
  });
  // Each read gets the one instance it needs, and the map's small layout record beside it.
  assert.deepEqual(result.lookup, {
    value: "User 4242",
    requests: [
      'get maps "CustomerProfilesByEmailPartition"',
      `get instances ["CustomerProfilesByEmailPartition","${result.partition}"]`,
    ],
  });
  assert.deepEqual(result.current, {
    value: 100,
    requests: ['get maps "SubscriberChunks"', 'get instances ["SubscriberChunks","current"]'],
  });
  assert.deepEqual(result.archived, {
    value: 5100,
    requests: ['get maps "SubscriberChunks"', 'get instances ["SubscriberChunks","00000000000000005001"]'],
  });
});

test("another tab upgrading the database: this tab lets go, reopens, and a newer schema is version_conflict", async () => {
  const [ours, other] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  await ours.evaluate(async () => {
    const w = window as unknown as {
      dir: Awaited<ReturnType<ReturnType<typeof window.attrmap.openAttrmap>["customerDirectory"]>>;
    };
    w.dir = await window.attrmap.openAttrmap({ name: "versions" }).customerDirectory();
    await w.dir.upsertProfile({ emailAddress: "a@example.com" });
  });
  // The other tab upgrades to a schema this library does not know (its version plus one); it is not blocked by us.
  const upgraded = await other.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const req = indexedDB.open("versions", 7);
        req.onblocked = () => resolve("blocked");
        req.onsuccess = () => {
          req.result.close();
          resolve("upgraded");
        };
        req.onerror = () => resolve(`error ${req.error?.name}`);
      }),
  );
  assert.equal(upgraded, "upgraded");
  const after = await ours.evaluate(async () => {
    const { AttrmapError } = window.attrmap;
    const w = window as unknown as { dir: { getProfile(e: string): Promise<unknown> } };
    return w.dir.getProfile("a@example.com").then(
      () => "ok",
      (e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : `${e}`),
    );
  });
  assert.match(after, /^version_conflict: opening database "versions" at version 6 failed: VersionError/);
  assert.deepEqual(ours.errors, []);
});
