// The storage layer in Node, where callers pass an IndexedDB implementation (fake-indexeddb
// here) and, before Node 24, navigator.locks is missing: the in-process lock fallback (passed
// explicitly here, so the tests mean the same on every Node from 20 on) serializes writers.
// Browser behaviour is tested in Chromium (tests/browser); this covers the Node path only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap, retryOnConflict } from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => (e instanceof AttrmapError ? e.code : `not an AttrmapError: ${e}`),
  );

test("customer directory and subscriber archive work over a passed-in IndexedDB", async () => {
  const store = fresh();
  const dir = await store.customerDirectory();
  await dir.upsertProfile({ emailAddress: " Bob@Example.com ", fullName: "Bob" });
  assert.equal((await dir.getProfile("bob@example.com"))?.fullName, "Bob");
  const archive = await store.subscriberArchive({ chunkSize: 3 });
  await archive.registerSubscribers([1, 2, 3, 4].map((i) => ({ subscriberId: `s${i}`, deliveryAddress: "x" })));
  assert.deepEqual(await archive.getSubscriberPage(""), {
    pageToken: "current",
    subscribers: [{ sequence: 4, subscriberId: "s4", deliveryAddress: "x" }],
    nextPageToken: "00000000000000000001",
  });
});

test("concurrent upserts to one partition through the fallback lose nothing", async () => {
  const dir = await fresh().customerDirectory({ partitionCount: 1 });
  await Promise.all(Array.from({ length: 50 }, (_, i) => dir.upsertProfile({ emailAddress: `u${i}@x` })));
  const found = await dir.map.getMany(Array.from({ length: 50 }, (_, i) => `u${i}@x`));
  assert.equal(found.size, 50);
});

test("the in-process fallback: ifAvailable conflicts, waits time out or abort, FIFO hand-over", async () => {
  const locks = new InProcessLocks();
  const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks });
  const dir = await store.customerDirectory({ partitionCount: 1 });
  let release!: () => void;
  const held = locks.request(
    'attrmap:["attrmap","CustomerProfilesByEmailPartition","partition-0"]',
    {},
    () => new Promise<void>((r) => (release = r)),
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(await codeOf(dir.upsertProfile({ emailAddress: "a@x" }, { lock: "ifAvailable" })), "lock_conflict");
  assert.equal(await codeOf(dir.upsertProfile({ emailAddress: "a@x" }, { timeoutMs: 30 })), "lock_timeout");
  const controller = new AbortController();
  const aborted = codeOf(dir.upsertProfile({ emailAddress: "a@x" }, { signal: controller.signal }));
  controller.abort();
  assert.equal(await aborted, "aborted");
  const order: number[] = [];
  const waiters = [1, 2, 3].map((i) => dir.upsertProfile({ emailAddress: `w${i}@x` }).then(() => order.push(i)));
  release();
  await held;
  await Promise.all(waiters);
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(await dir.getProfile("a@x"), undefined, "failed writes wrote nothing");
});

test("retryOnConflict retries lock_conflict only, gives up after its attempts, and stops on abort", async () => {
  let calls = 0;
  const conflict = () => new AttrmapError("lock_conflict", "busy");
  assert.equal(
    await retryOnConflict(async () => (++calls < 3 ? Promise.reject(conflict()) : "done"), { baseDelayMs: 1 }),
    "done",
  );
  assert.equal(calls, 3);
  calls = 0;
  assert.equal(
    await codeOf(
      retryOnConflict(
        async () => {
          calls++;
          throw conflict();
        },
        { attempts: 4, baseDelayMs: 1 },
      ),
    ),
    "lock_conflict",
  );
  assert.equal(calls, 4);
  calls = 0;
  assert.equal(
    await codeOf(
      retryOnConflict(async () => {
        calls++;
        throw new AttrmapError("invalid_email", "x");
      }),
    ),
    "invalid_email",
  );
  assert.equal(calls, 1);
  // Aborted while it sleeps before the second attempt (the abort is queued behind that sleep).
  const controller = new AbortController();
  const first = () => {
    setImmediate(() => controller.abort());
    return Promise.reject(conflict());
  };
  assert.equal(await codeOf(retryOnConflict(first, { baseDelayMs: 60_000, signal: controller.signal })), "aborted");
});

test("the HTTP handler runs in Node too: flows, a profile round trip, and other paths to the fallback", async () => {
  const { createHandler } = await import("attrmap/http");
  const handle = createHandler(fresh(), { fallback: async () => new Response("from the network", { status: 299 }) });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await handle(
      new Request(`http://localhost${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    return [r.status, r.status === 299 ? await r.text() : await r.json()];
  };
  assert.deepEqual(await call("GET", "/patterns/hash-partitioned-attribute-map/customer-profile?emailAddress=a@b"), [
    404,
    { error: 'flow "customer-directory" is not started' },
  ]);
  const [status, run] = await call("POST", "/patterns/hash-partitioned-attribute-map/start");
  assert.equal(status, 200);
  assert.deepEqual(await call("POST", "/patterns/hash-partitioned-attribute-map/start"), [200, run]);
  assert.deepEqual(await call("PUT", "/patterns/hash-partitioned-attribute-map/customer-profile", { emailAddress: "A@B" }), [
    200,
    { emailAddress: "a@b", fullName: "", companyName: "", customerTier: "" },
  ]);
  assert.equal((await call("GET", "/patterns/hash-partitioned-attribute-map/customer-profile?emailAddress=a@b"))[0], 200);
  assert.deepEqual(await call("GET", "/elsewhere"), [299, "from the network"]);
  assert.equal(
    handle.handles(new Request("http://localhost/patterns/sequentially-chunked-attribute-map/register", { method: "POST" })),
    true,
  );
  assert.equal(handle.handles(new Request("http://localhost/patterns/unknown")), false);
});
