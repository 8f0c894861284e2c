// Live queries and workers in real Chromium: a query runs again when what it read is written
// by this page, another tab, a dedicated worker or the service worker, not for other writes,
// and not after unsubscribing; a module worker and a page share data and locks; export and
// import round-trip through real IndexedDB; the change feed stays gapless across contexts, and
// increments to the engine taken while others write add up to a full export.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { refPartition } from "../shared/reference.js";
import { openPage, SHARED_PATH, type Tab, useProfile } from "./harness.js";

const env = useProfile();

/** Runs `code` (a module body with `attrmap` imported) in a dedicated module worker of `page`; resolves with what it posts. */
function inWorker<T>(page: Tab, code: string): Promise<T> {
  return page.evaluate(
    ({ origin, code }) =>
      new Promise<T>((resolve, reject) => {
        const source = [
          `import * as attrmap from "${origin}/attrmap/dist/index.js";`,
          `try {\n${code}\n} catch (e) { postMessage({ crash: String(e) }); }`,
        ].join("\n");
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => {
          worker.terminate();
          if (e.data?.crash) reject(new Error(e.data.crash));
          else resolve(e.data as T);
        };
        worker.onerror = (e) => reject(new Error(e.message));
      }),
    { origin: env.server.origin, code },
  );
}

/** Waits until the page's `window.results` holds `n` values; returns them. */
async function results(page: Tab, n: number): Promise<unknown[]> {
  for (;;) {
    const seen = await page.evaluate(() => (window as unknown as { results: unknown[] }).results);
    if (seen.length >= n) return seen;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("a live query runs again for writes of this page, another tab, a worker and the service worker; for no others", async () => {
  const page = await openPage(env.browser, env.server.origin);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
    if (!navigator.serviceWorker.controller)
      await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    await fetch("/patterns/hash-partitioned-attribute-map/start", { method: "POST" });
    const w = window as unknown as { results: unknown[]; subscription: { unsubscribe(): void; closed: boolean } };
    w.results = [];
    const store = window.attrmap.openAttrmap();
    w.subscription = store
      .liveQuery(async (s) => (await (await s.customerDirectory()).getProfile("watched@example.com"))?.fullName ?? null)
      .subscribe((v) => w.results.push(v));
  });
  assert.deepEqual(await results(page, 1), [null], "the first run finds nothing");
  const write = (p: Tab, name: string) =>
    p.evaluate(
      async (name) =>
        (await window.attrmap.openAttrmap().customerDirectory()).upsertProfile({
          emailAddress: "watched@example.com",
          fullName: name,
        }),
      name,
    );
  await write(page, "from this page");
  assert.deepEqual((await results(page, 2)).at(-1), "from this page");
  const other = await openPage(env.browser, env.server.origin);
  await write(other, "from another tab");
  assert.deepEqual((await results(page, 3)).at(-1), "from another tab");
  await inWorker(
    page,
    `const d = await attrmap.openAttrmap().customerDirectory();
     await d.upsertProfile({ emailAddress: "watched@example.com", fullName: "from a worker" });
     postMessage("done");`,
  );
  assert.deepEqual((await results(page, 4)).at(-1), "from a worker");
  await page.evaluate(() =>
    fetch("/patterns/hash-partitioned-attribute-map/customer-profile", {
      method: "PUT",
      body: JSON.stringify({ emailAddress: "watched@example.com", fullName: "from the service worker" }),
    }),
  );
  assert.deepEqual((await results(page, 5)).at(-1), "from the service worker");
  // A write to a partition the query never read does not run it: the next result is the next relevant write's.
  const unrelated = await page.evaluate(() => {
    const { emailPartition } = window.attrmap;
    const watched = emailPartition("watched@example.com").partitionName;
    for (let i = 0; ; i++) if (emailPartition(`other${i}@example.com`).partitionName !== watched) return `other${i}@example.com`;
  });
  await other.evaluate(
    async (email) =>
      (await window.attrmap.openAttrmap().customerDirectory()).upsertProfile({ emailAddress: email, fullName: "x" }),
    unrelated,
  );
  await write(other, "after an unrelated write");
  const seen = await results(page, 6);
  assert.deepEqual(seen, [
    null,
    "from this page",
    "from another tab",
    "from a worker",
    "from the service worker",
    "after an unrelated write",
  ]);
  const closed = await page.evaluate(() => {
    const { subscription } = window as unknown as { subscription: { unsubscribe(): void; closed: boolean } };
    const before = subscription.closed;
    subscription.unsubscribe();
    return [before, subscription.closed];
  });
  assert.deepEqual(closed, [false, true]);
  await write(other, "after unsubscribing");
  // Another live query sees that write; the stopped one must not have run again by then.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        window.attrmap
          .openAttrmap()
          .liveQuery(async (s) => (await (await s.customerDirectory()).getProfile("watched@example.com"))?.fullName)
          .subscribe((v) => v === "after unsubscribing" && resolve());
      }),
  );
  assert.equal((await results(page, 6)).length, 6);
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test("a live query over a log page and a count runs again on appends; an error goes to its error callback", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const got = await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "live-log" });
    const archive = await store.subscriberArchive({ chunkSize: 2 });
    const seen: string[] = [];
    const errors: string[] = [];
    let resolveFirst: () => void;
    let resolveDone: () => void;
    const first = new Promise<void>((r) => (resolveFirst = r));
    const done = new Promise<void>((r) => (resolveDone = r));
    // The observer form, as Dexie's and RxJS's observables take it.
    const subscription = store
      .liveQuery(async (s) => {
        const a = await s.subscriberArchive();
        const count = await a.count();
        if (count === 2) throw new Error("two is refused");
        return `${count}:${(await a.getSubscriberPage("")).subscribers.map((x) => x.subscriberId).join(",")}`;
      })
      .subscribe({
        next(v) {
          seen.push(v);
          resolveFirst();
          if (v.startsWith("3:")) resolveDone();
        },
        error: (e) => errors.push(String(e)),
      });
    // The first run reads before any append, so it sees the empty log.
    await first;
    // Each append waits for the run it caused (an error at two): a run still going when the next
    // append lands would read two records twice and report the error twice.
    const ran = (ok: () => boolean) =>
      new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (!ok()) return;
          clearInterval(poll);
          resolve();
        }, 5);
      });
    for (const [i, id] of ["a", "b", "c"].entries()) {
      await archive.registerSubscriber({ subscriberId: id, deliveryAddress: "x" });
      await ran(() => (i === 1 ? errors.length > 0 : seen.some((v) => v.startsWith(`${i + 1}:`))));
    }
    await done;
    subscription(); // the subscription is also the function that stops it
    const closed = subscription.closed;
    return { seen, errors, closed };
  });
  assert.equal(got.closed, true);
  assert.deepEqual(got.seen.at(0), "0:");
  assert.deepEqual(got.seen.at(-1), "3:c");
  assert.deepEqual(got.errors, ["Error: two is refused"]);
  assert.deepEqual(page.errors, []);
});

test("changes() and changesCheckpoint() in a live query run it again when any context adds to the feed", async () => {
  // docs/change-feed.md: one change record per map a write changes instances of, numbered 1, 2, ...
  // without gaps; a "not yet moved" badge is such a query.
  const name = `feed-live-${Date.now()}`; // the profile outlives a run
  const [page, other] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  await page.evaluate(async (name) => {
    const w = window as unknown as { results: unknown[] };
    w.results = [];
    const store = window.attrmap.openAttrmap({ name });
    await store.partitionedMap("m"); // opening writes a layout, not a change record
    store
      .liveQuery(async (s) => [(await s.changes({ after: 0 })).changes.length, await s.changesCheckpoint()])
      .subscribe((v) => w.results.push(v));
  }, name);
  assert.deepEqual(await results(page, 1), [[0, 0]]);
  await page.evaluate(async (name) => {
    await (await window.attrmap.openAttrmap({ name }).partitionedMap("m")).upsert("a", 1);
  }, name);
  assert.deepEqual((await results(page, 2)).at(-1), [1, 1], "a write of this page");
  await other.evaluate(async (name) => {
    await (await window.attrmap.openAttrmap({ name }).chunkedLog("l")).append("x");
  }, name);
  assert.deepEqual((await results(page, 3)).at(-1), [2, 2], "an append in another tab");
  assert.deepEqual([page.errors, other.errors], [[], []]);
  await Promise.all([page.close(), other.close()]);
});

test("a module worker and a page share data and locks: each reads what the other wrote", async () => {
  const page = await openPage(env.browser, env.server.origin);
  await page.evaluate(async () => {
    const archive = await window.attrmap.openAttrmap({ name: "shared" }).subscriberArchive({ chunkSize: 5 });
    await archive.registerSubscribers(Array.from({ length: 7 }, (_, i) => ({ subscriberId: `page-${i}`, deliveryAddress: "p" })));
  });
  const fromWorker = await inWorker<{ seen: number; sequences: number[] }>(
    page,
    `const archive = await attrmap.openAttrmap({ name: "shared" }).subscriberArchive();
     const seen = await archive.count();
     const news = Array.from({ length: 6 }, (_, i) => ({ subscriberId: "worker-" + i, deliveryAddress: "w" }));
     const added = await archive.registerSubscribers(news);
     postMessage({ seen, sequences: added.map((s) => s.sequence) });`,
  );
  assert.deepEqual(fromWorker, { seen: 7, sequences: [8, 9, 10, 11, 12, 13] });
  // Both at once: the worker and the page append 50 each; sequences 14..113, each once.
  const [workerSeqs, pageSeqs] = await Promise.all([
    inWorker<number[]>(
      page,
      `const archive = await attrmap.openAttrmap({ name: "shared" }).subscriberArchive();
       const one = (i) => archive.registerSubscriber({ subscriberId: "w" + i, deliveryAddress: "w" });
       const got = await Promise.all(Array.from({ length: 50 }, (_, i) => one(i)));
       postMessage(got.map((s) => s.sequence));`,
    ),
    page.evaluate(async () => {
      const archive = await window.attrmap.openAttrmap({ name: "shared" }).subscriberArchive();
      const got = await Promise.all(
        Array.from({ length: 50 }, (_, i) => archive.registerSubscriber({ subscriberId: `p${i}`, deliveryAddress: "p" })),
      );
      return got.map((s) => s.sequence);
    }),
  ]);
  assert.deepEqual(
    [...workerSeqs, ...pageSeqs].sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i + 14),
  );
  const pageSees = await page.evaluate(async () =>
    (await window.attrmap.openAttrmap({ name: "shared" }).subscriberArchive()).count(),
  );
  assert.equal(pageSees, 113);
  assert.deepEqual(page.errors, []);
});

test("export and import through real IndexedDB: a round trip gives the same bytes, and a bad file changes nothing", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const result = await page.evaluate(async () => {
    const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();
    const source = window.attrmap.openAttrmap({ name: "export-source" });
    const dir = await source.customerDirectory();
    await dir.upsertProfiles(
      Array.from({ length: 500 }, (_, i) => ({ emailAddress: `u${i}@example.com`, fullName: `User ${i}` })),
    );
    const archive = await source.subscriberArchive({ chunkSize: 30 });
    await archive.registerSubscribers(Array.from({ length: 100 }, (_, i) => ({ subscriberId: `s${i}`, deliveryAddress: "d" })));
    const exported = await text(window.attrmap.exportData(source));
    const target = window.attrmap.openAttrmap({ name: "export-target" });
    const summary = await window.attrmap.importData(target, new Blob([exported]));
    const again = await text(window.attrmap.exportData(target));
    const broken = exported.replace('"u1@example.com"', '"U1@example.com"');
    const other = window.attrmap.openAttrmap({ name: "export-other" });
    const refused = await window.attrmap.importData(other, broken).then(
      () => "ok",
      (e) => `${e.code}: ${e.message}`,
    );
    return { summary, same: again === exported, refused, maps: await text(window.attrmap.exportData(other)) };
  });
  assert.deepEqual(result.summary, { maps: 2, instances: result.summary.instances, entries: 600 });
  assert.equal(result.same, true);
  assert.match(
    result.refused,
    /^invalid_argument: line \d+: key "U1@example.com" is not a canonical email \(key-not-canonical\)$/,
  );
  assert.equal(result.maps, '{"format":"attrmap-export","version":1}\n', "nothing was imported");
  assert.deepEqual(page.errors, []);
});

test("the change feed is gapless and in commit order across two tabs and a worker writing, and past an abort", async () => {
  const [a, b] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  const N = 15;
  const write = (page: Tab, who: string) =>
    page.evaluate(
      async ({ who, n }) => {
        const map = await window.attrmap.openAttrmap({ name: "fed" }).partitionedMap<number>("feed");
        for (let i = 0; i < n; i++) await map.upsert(`${who}-${i}`, i);
      },
      { who, n: N },
    );
  const worker = inWorker(
    a,
    `const map = await attrmap.openAttrmap({ name: "fed" }).partitionedMap("feed");
     for (let i = 0; i < ${N}; i++) await map.upsert("w-" + i, i);
     postMessage("done");`,
  );
  await Promise.all([write(a, "a"), write(b, "b"), worker]);
  // A transaction that numbered a change record and then aborted, as a write that fails after its
  // puts does: the engine winds the feed's key generator back, and the next write follows on.
  await a.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("fed");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    await new Promise<void>((resolve) => {
      const tx = db.transaction("changes", "readwrite");
      tx.objectStore("changes").put({ map: "feed", instances: [], at: 0 }).onsuccess = () => tx.abort();
      tx.onabort = () => resolve();
    });
    db.close();
    await (await window.attrmap.openAttrmap({ name: "fed" }).partitionedMap<number>("feed")).upsert("z-after-abort", 0);
  });
  const feed = await b.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "fed" });
    const { changes } = await store.changes();
    return { changes, checkpoint: await store.changesCheckpoint() };
  });
  const keys = [...["a", "b", "w"].flatMap((who) => Array.from({ length: N }, (_, i) => `${who}-${i}`)), "z-after-abort"];
  assert.equal(feed.checkpoint, keys.length, "one record per write");
  assert.deepEqual(
    feed.changes.map((r) => r.seq),
    keys.map((_, i) => i + 1),
    "gapless, in order",
  );
  assert.ok(feed.changes.every((r) => r.map === "feed" && r.instances.length === 1));
  // Each record names the partition of one key written (placed here by the contract's rule).
  assert.deepEqual(feed.changes.map((r) => r.instances[0]).sort(), keys.map((k) => refPartition(k, 1000).name).sort());
  // Commit order is time order: `at` never goes back by more than clock skew between contexts of one browser.
  assert.ok(feed.changes.every((r, i) => i === 0 || r.at >= feed.changes[i - 1]!.at - 50));
  await Promise.all([a.close(), b.close()]);
});

test("the change feed keeps its bound in a real engine: the oldest records go, an older checkpoint has expired", async () => {
  const page = await openPage(env.browser, env.server.origin);
  const seen = await page.evaluate(async () => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const store = openAttrmap({ name: "bounded-feed", maxChanges: 5 });
    const map = await store.partitionedMap<number>("m");
    for (let i = 0; i < 12; i++) await map.upsert(`k${i}`, i);
    const { changes, oldest } = await store.changes({ after: 7 });
    const expired = await store.changes({ after: 6 }).then(
      () => "ok",
      (e) => (e instanceof AttrmapError ? e.code : String(e)),
    );
    return { seqs: changes.map((r) => r.seq), oldest, checkpoint: await store.changesCheckpoint(), expired };
  });
  // 12 writes, 5 kept (docs/change-feed.md): 8 to 12; after 6, record 7 is gone.
  assert.deepEqual(seen, { seqs: [8, 9, 10, 11, 12], oldest: 8, checkpoint: 12, expired: "checkpoint_expired" });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("increments to the engine, taken while two tabs and a worker write, add up to a full export at the end", async () => {
  const [a, b] = [await openPage(env.browser, env.server.origin), await openPage(env.browser, env.server.origin)];
  await a.evaluate(async () => {
    // The maps as the model makes them, before the other writers open them with what is stored.
    const store = window.attrmap.openAttrmap({ name: "moved" });
    await store.partitionedMap("people", { partitionCount: 5 });
    await store.chunkedLog("events", { chunkSize: 3 });
  });
  const model = a.evaluate(async (path) => {
    const shared = (await import(`${path}increments.js`)) as typeof import("../shared/increments.js");
    const { seeded } = (await import(`${path}random.js`)) as typeof import("../shared/random.js");
    const { openAttrmap } = window.attrmap;
    let sources = 0;
    return shared.incrementsAgree(
      window.attrmap, // every entry of the package
      openAttrmap({ name: "moved" }),
      openAttrmap({ name: "moved" }),
      () => openAttrmap({ name: `source-${sources++}` }),
      seeded(20261204),
      80,
      // The writers of the other tab and the worker are done (the test says so).
      () =>
        new Promise((done) => {
          const poll = setInterval(() => {
            if (!(window as unknown as { writersDone?: boolean }).writersDone) return;
            clearInterval(poll);
            done(undefined);
          }, 10);
        }),
    );
  }, SHARED_PATH);
  // Meanwhile another tab and a worker write to the same maps.
  const tab = b.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "moved" });
    const [people, events] = [
      await store.partitionedMap<{ n: number }>("people"),
      await store.chunkedLog<{ n: number }>("events"),
    ];
    for (let i = 0; i < 40; i++) {
      await people.upsert(`tab-${i % 7}`, { n: i });
      await events.append({ n: -i - 1 });
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  const worker = inWorker(
    b,
    `const people = await attrmap.openAttrmap({ name: "moved" }).partitionedMap("people");
     for (let i = 0; i < 40; i++) {
       if (i % 3 === 0) await people.delete("worker-" + ((i + 1) % 5));
       else await people.upsert("worker-" + (i % 5), { n: i });
       await new Promise((r) => setTimeout(r, 5));
     }
     postMessage("done");`,
  );
  await Promise.all([tab, worker]);
  await a.evaluate(() => void ((window as unknown as { writersDone: boolean }).writersDone = true));
  const { problems, increments } = await model;
  assert.deepEqual(problems, []);
  assert.ok(increments >= 8, `${increments} increments`);
  assert.deepEqual(a.errors, []);
  await Promise.all([a.close(), b.close()]);
});
