// The storage layer in real headless Chromium with on-disk profiles: IndexedDB, Web Locks,
// several tabs of one browser. Each test uses its own database name.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { holdLock, openPage, uniqueNames, useProfile } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("db");

const tab = () => openPage(env.browser, env.server.origin);

/** Records every IndexedDB transaction `page` begins from now on, in `window.__idb.transactions`. */
function countTransactions(page: Awaited<ReturnType<typeof tab>>): Promise<void> {
  return page.evaluate(() => {
    const log = (window.__idb = { requests: [], transactions: [] } as NonNullable<Window["__idb"]>);
    const tx = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (
      stores: string | string[],
      mode?: IDBTransactionMode,
      opts?: IDBTransactionOptions,
    ) {
      log.transactions.push({ stores: [stores].flat(), mode: mode ?? "readonly" });
      return tx.call(this, stores, mode, opts);
    };
  });
}

test("profiles and any ASCII key round-trip; absent keys and partitions read as undefined", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap } = window.attrmap;
    const store = openAttrmap({ name: db });
    const dir = await store.customerDirectory();
    const saved = await dir.upsertProfile({
      emailAddress: " Alice@Example.COM ",
      fullName: "Alice",
      companyName: "Example",
      customerTier: "gold",
    });
    const exact = await store.partitionedMap<string>("exact", { canonicalizeKey: (k) => k, partitionCount: 3 });
    const keys = [
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "",
      " ",
      "\u0000",
      "a\tb",
      "<img src=x onerror=alert(1)>",
    ];
    for (const k of keys) await exact.upsert(k, `value of ${JSON.stringify(k)}`);
    return {
      saved,
      read: await dir.getProfile("ALICE@example.com\t"),
      missingEmail: await dir.getProfile("nobody@example.com"),
      roundTrip: await Promise.all(keys.map((k) => exact.get(k))),
      keys,
      neverWritten: await exact.get("never"),
    };
  }, freshDb());
  assert.deepEqual(result.saved, {
    emailAddress: "alice@example.com",
    fullName: "Alice",
    companyName: "Example",
    customerTier: "gold",
  });
  assert.deepEqual(result.read, result.saved);
  assert.equal(result.missingEmail, undefined);
  assert.deepEqual(
    result.roundTrip,
    result.keys.map((k) => `value of ${JSON.stringify(k)}`),
  );
  assert.equal(result.neverWritten, undefined);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("bad input is refused with a code before anything is written", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const store = openAttrmap({ name: db });
    const dir = await store.customerDirectory();
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : `other: ${e}`),
      );
    const archive = await store.subscriberArchive();
    return {
      noEmail: await codeOf(dir.upsertProfile({ fullName: "x" } as never)),
      nonAscii: await codeOf(dir.upsertProfile({ emailAddress: "josé@example.com" })),
      lookup: await codeOf(dir.getProfile("   ")),
      noId: await codeOf(archive.registerSubscriber({ subscriberId: "", deliveryAddress: "x" })),
      noAddress: await codeOf(archive.registerSubscriber({ subscriberId: "s", deliveryAddress: "" })),
      badToken: await codeOf(archive.getSubscriberPage("00000000000000000100")),
      missingPage: await codeOf(archive.getSubscriberPage("00000000000000000101")),
      state: await archive.log.state(),
    };
  }, freshDb());
  assert.equal(result.noEmail, "invalid_email: emailAddress is required");
  assert.equal(result.nonAscii, "invalid_email: emailAddress must contain only ASCII characters");
  assert.equal(result.lookup, "invalid_email: emailAddress is required");
  assert.equal(result.noId, "invalid_argument: subscriberId is required");
  assert.equal(result.noAddress, "invalid_argument: deliveryAddress is required");
  assert.equal(result.badToken, 'invalid_page_token: invalid page token "00000000000000000100"');
  assert.equal(result.missingPage, 'not_found: subscriber page "00000000000000000101" not found');
  assert.deepEqual(result.state, { nextSequence: 1, latestArchivedChunkToken: "" });
  await page.close();
});

test("the layout is stored: another partition count, chunk size or kind is layout_mismatch", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? `${e.code}: ${e.message}` : `other: ${e}`),
      );
    const first = openAttrmap({ name: db });
    await (await first.customerDirectory({ partitionCount: 1000 })).upsertProfile({ emailAddress: "a@b" });
    await first.chunkedLog("events", { chunkSize: 10 });
    first.close();
    const again = openAttrmap({ name: db }); // a new connection, as after a reload
    return {
      samePartitions: await codeOf(again.customerDirectory({ partitionCount: 1000 })),
      otherPartitions: await codeOf(again.customerDirectory({ partitionCount: 16 })),
      otherChunk: await codeOf(again.chunkedLog("events", { chunkSize: 100 })),
      otherKind: await codeOf(again.partitionedMap("events")),
      stillThere: await (await again.customerDirectory()).getProfile("a@b"),
    };
  }, freshDb());
  assert.equal(result.samePartitions, "ok");
  assert.match(result.otherPartitions, /^layout_mismatch: .*1000 partitions.*16 partitions/);
  assert.match(result.otherChunk, /^layout_mismatch: .*chunks of 10.*chunks of 100/);
  assert.match(result.otherKind, /^layout_mismatch: map "events" is stored as a chunked log/);
  assert.equal(result.stillThere?.emailAddress, "a@b");
  await page.close();
});

test("SPEC worked example: 250 registrations page back newest first; archives never change", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap } = window.attrmap;
    const archive = await openAttrmap({ name: db }).subscriberArchive();
    const seqs: number[] = [];
    for (let i = 1; i <= 100; i++)
      seqs.push((await archive.registerSubscriber({ subscriberId: `s${i}`, deliveryAddress: `d${i}@x` })).sequence);
    const at100 = await archive.getSubscriberPage("");
    const stateAt100 = await archive.log.state();
    for (let i = 101; i <= 250; i++)
      seqs.push((await archive.registerSubscriber({ subscriberId: `s${i}`, deliveryAddress: `d${i}@x` })).sequence);
    const pages = [];
    let token = "";
    do {
      const p = await archive.getSubscriberPage(token);
      pages.push({
        pageToken: p.pageToken,
        first: p.subscribers[0]?.sequence,
        last: p.subscribers.at(-1)?.sequence,
        count: p.subscribers.length,
        next: p.nextPageToken,
        ids: p.subscribers.map((s) => s.subscriberId),
      });
      token = p.nextPageToken;
    } while (token !== "");
    const again = await archive.getSubscriberPage("00000000000000000101");
    return {
      seqs,
      at100: { count: at100.subscribers.length, next: at100.nextPageToken },
      stateAt100,
      pages,
      again: again.subscribers,
      state: await archive.log.state(),
    };
  }, freshDb());
  assert.deepEqual(
    result.seqs,
    Array.from({ length: 250 }, (_, i) => i + 1),
  );
  assert.deepEqual(result.at100, { count: 100, next: "" });
  assert.deepEqual(result.stateAt100, { nextSequence: 101, latestArchivedChunkToken: "" });
  assert.deepEqual(
    result.pages.map(({ ids: _, ...p }) => p),
    [
      { pageToken: "current", first: 250, last: 201, count: 50, next: "00000000000000000101" },
      { pageToken: "00000000000000000101", first: 200, last: 101, count: 100, next: "00000000000000000001" },
      { pageToken: "00000000000000000001", first: 100, last: 1, count: 100, next: "" },
    ],
  );
  assert.deepEqual(
    result.pages[1]!.ids,
    result.again.map((s) => s.subscriberId),
  );
  assert.deepEqual(result.state, { nextSequence: 251, latestArchivedChunkToken: "00000000000000000101" });
  await page.close();
});

test("no lost update: 4 tabs upsert 100 profiles each into the same few partitions at once", async () => {
  const db = freshDb();
  const tabs = await Promise.all([tab(), tab(), tab(), tab()]);
  // Emails chosen so that all 400 fall into 3 partitions: many writers per partition.
  const emails = await tabs[0]!.evaluate(() => {
    const { emailPartition } = window.attrmap;
    const wanted = new Set(["partition-001", "partition-002", "partition-003"]);
    const out: string[] = [];
    for (let i = 0; out.length < 400; i++)
      if (wanted.has(emailPartition(`user${i}@example.com`).partitionName)) out.push(`user${i}@example.com`);
    return out;
  });
  await Promise.all(
    tabs.map((page, t) =>
      page.evaluate(
        async ({ db, mine, t }) => {
          const dir = await window.attrmap.openAttrmap({ name: db }).customerDirectory();
          await Promise.all(mine.map((email) => dir.upsertProfile({ emailAddress: email, fullName: `tab ${t}` })));
        },
        { db, mine: emails.slice(t * 100, t * 100 + 100), t },
      ),
    ),
  );
  const found = await tabs[0]!.evaluate(
    async ({ db, emails }) => {
      const dir = await window.attrmap.openAttrmap({ name: db }).customerDirectory();
      const all = await Promise.all(emails.map((e) => dir.getProfile(e)));
      return all.map((p) => p?.fullName ?? null);
    },
    { db, emails },
  );
  assert.deepEqual(
    found,
    emails.map((_, i) => `tab ${Math.floor(i / 100)}`),
  );
  for (const page of tabs) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("4 tabs append 50 subscribers each at once: sequences 1..200, each once, pages per SPEC", async () => {
  const db = freshDb();
  const tabs = await Promise.all([tab(), tab(), tab(), tab()]);
  const got = await Promise.all(
    tabs.map((page, t) =>
      page.evaluate(
        async ({ db, t }) => {
          const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive();
          const seqs = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              archive.registerSubscriber({ subscriberId: `t${t}-${i}`, deliveryAddress: `${t}.${i}@x` }),
            ),
          );
          return seqs.map((s) => s.sequence);
        },
        { db, t },
      ),
    ),
  );
  const all = got.flat().sort((a, b) => a - b);
  assert.deepEqual(
    all,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  const walk = await tabs[0]!.evaluate(async (db) => {
    const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive();
    const pages = [];
    let token = "";
    do {
      const p = await archive.getSubscriberPage(token);
      pages.push({
        token: p.pageToken,
        seqs: p.subscribers.map((s) => s.sequence),
        ids: p.subscribers.map((s) => s.subscriberId),
        next: p.nextPageToken,
      });
      token = p.nextPageToken;
    } while (token !== "");
    return { pages, state: await archive.log.state() };
  }, db);
  assert.deepEqual(
    walk.pages.map((p) => [p.token, p.seqs[0], p.seqs.at(-1), p.next]),
    [
      ["current", 200, 201 - 100, "00000000000000000001"],
      ["00000000000000000001", 100, 1, ""],
    ],
  );
  const ids = walk.pages.flatMap((p) => p.ids);
  assert.equal(new Set(ids).size, 200, "every registration stored once");
  assert.deepEqual(walk.state, { nextSequence: 201, latestArchivedChunkToken: "00000000000000000001" });
  for (const page of tabs) await page.close();
});

test("ifAvailable under contention fails with lock_conflict; retryOnConflict turns those into successes", async () => {
  const db = freshDb();
  // 12 writes a tab: the retries wait on timers, which Firefox slows to about one a second in background tabs.
  const WRITES = 12;
  const [holder, ...writers] = await Promise.all([tab(), tab(), tab()]);
  // The holder tab takes the one partition's lock, as a writer in another tab would. (Writes of
  // one tab no longer conflict with each other: they share a transaction, group-commit.ts.)
  const lock = await holder.evaluate((db) => {
    const { lockName, emailPartition } = window.attrmap;
    return lockName({
      database: db,
      map: "CustomerProfilesByEmailPartition",
      instance: emailPartition("any@x", 1).partitionName,
    });
  }, db);
  const run = (retry: boolean) =>
    Promise.all(
      writers.map((page, t) =>
        page.evaluate(
          async ({ db, t, retry, writes }) => {
            const { openAttrmap, retryOnConflict, AttrmapError } = window.attrmap;
            const dir = await openAttrmap({ name: db }).customerDirectory({ partitionCount: 1 });
            const outcomes = await Promise.all(
              Array.from({ length: writes }, (_, i) => {
                const write = () => dir.upsertProfile({ emailAddress: `t${t}-${i}-${retry}@x` }, { lock: "ifAvailable" });
                return (retry ? retryOnConflict(write, { attempts: 200, baseDelayMs: 2, maxDelayMs: 20 }) : write()).then(
                  () => "ok",
                  (e) => (e instanceof AttrmapError ? e.code : String(e)),
                );
              }),
            );
            return outcomes;
          },
          { db, t, retry, writes: WRITES },
        ),
      ),
    );
  await writers[0]!.evaluate(
    async (db) => void (await window.attrmap.openAttrmap({ name: db }).customerDirectory({ partitionCount: 1 })),
    db,
  );
  const release = await holdLock(holder, lock);
  const plain = (await run(false)).flat();
  assert.deepEqual(
    plain,
    plain.map(() => "lock_conflict"),
  );
  const retrying = run(true);
  await new Promise((r) => setTimeout(r, 100));
  await release(); // the retries find the lock free
  const retried = (await retrying).flat();
  assert.deepEqual(
    retried,
    retried.map(() => "ok"),
  );
  const stored = await holder.evaluate(
    async ({ db, n }) => {
      const dir = await window.attrmap.openAttrmap({ name: db }).customerDirectory({ partitionCount: 1 });
      let count = 0;
      for (let t = 0; t < 2; t++)
        for (let i = 0; i < n; i++) {
          if (await dir.getProfile(`t${t}-${i}-true@x`)) count++;
          if (await dir.getProfile(`t${t}-${i}-false@x`)) count += 1000; // a refused write stored nothing
        }
      return count;
    },
    { db, n: WRITES },
  );
  assert.equal(stored, 2 * WRITES);
  for (const page of [holder, ...writers]) await page.close();
});

test("waiting is bounded: timeoutMs gives lock_timeout, an AbortSignal gives aborted, and nothing is written", async () => {
  const db = freshDb();
  const [holder, writer] = await Promise.all([tab(), tab()]);
  const { lock, partitionName } = await writer.evaluate(async (db) => {
    const { openAttrmap, lockName, emailPartition } = window.attrmap;
    await (await openAttrmap({ name: db }).customerDirectory()).upsertProfile({
      emailAddress: "held@example.com",
      fullName: "before",
    });
    const partitionName = emailPartition("held@example.com").partitionName;
    return { lock: lockName({ database: db, map: "CustomerProfilesByEmailPartition", instance: partitionName }), partitionName };
  }, db);
  assert.equal(partitionName.startsWith("partition-"), true);
  // Another tab holds the partition's lock, as a slow writer would.
  const release = await holdLock(holder, lock);
  const outcome = await writer.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const dir = await openAttrmap({ name: db }).customerDirectory();
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? e.code : String(e)),
      );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    return {
      timeout: await codeOf(dir.upsertProfile({ emailAddress: "held@example.com", fullName: "after" }, { timeoutMs: 100 })),
      aborted: await codeOf(
        dir.upsertProfile({ emailAddress: "held@example.com", fullName: "after" }, { signal: controller.signal }),
      ),
      conflict: await codeOf(dir.upsertProfile({ emailAddress: "held@example.com", fullName: "after" }, { lock: "ifAvailable" })),
      // Readers take no lock: a read goes through while the writer's lock is held.
      read: (await dir.getProfile("held@example.com"))?.fullName,
    };
  }, db);
  assert.deepEqual(outcome, { timeout: "lock_timeout", aborted: "aborted", conflict: "lock_conflict", read: "before" });
  // Once released, a waiting writer gets the lock and writes.
  const late = writer.evaluate(async (db) => {
    const dir = await window.attrmap.openAttrmap({ name: db }).customerDirectory();
    await dir.upsertProfile({ emailAddress: "held@example.com", fullName: "after" });
    return (await dir.getProfile("held@example.com"))?.fullName;
  }, db);
  await release();
  assert.equal(await late, "after");
  await holder.close();
  await writer.close();
});

test("a write that fails leaves the stored data exactly as before", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const store = openAttrmap({ name: db });
    const map = await store.partitionedMap<unknown>("things", { canonicalizeKey: (k) => k, partitionCount: 1 });
    await map.upsert("kept", { v: 1 });
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? e.code : String(e)),
      );
    // A function cannot be stored: the whole batch fails, including the valid entry before it.
    const uncloneable = await codeOf(
      map.upsertMany([
        ["fine", 1],
        ["bad", () => 1],
      ]),
    );
    const archive = await store.subscriberArchive({ chunkSize: 2 });
    await archive.registerSubscribers([
      { subscriberId: "a", deliveryAddress: "x" },
      { subscriberId: "b", deliveryAddress: "x" },
    ]);
    const badBatch = await codeOf(
      archive.registerSubscribers([
        { subscriberId: "c", deliveryAddress: "x" },
        { subscriberId: "", deliveryAddress: "x" },
      ]),
    );
    return {
      uncloneable,
      kept: await map.get("kept"),
      fine: await map.get("fine"),
      badBatch,
      state: await archive.log.state(),
      page: (await archive.getSubscriberPage("")).subscribers.map((s) => s.subscriberId),
    };
  }, freshDb());
  assert.deepEqual(result, {
    uncloneable: "invalid_argument",
    kept: { v: 1 },
    fine: undefined,
    badBatch: "invalid_argument",
    state: { nextSequence: 3, latestArchivedChunkToken: "" },
    page: ["b", "a"],
  });
  await page.close();
});

test("an archive is never overwritten: a rollover onto an existing chunk is corrupt_data and writes nothing", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const archive = await openAttrmap({ name: db }).subscriberArchive({ chunkSize: 2 });
    await archive.registerSubscribers([
      { subscriberId: "a", deliveryAddress: "x" },
      { subscriberId: "b", deliveryAddress: "x" },
    ]);
    // Something else has already stored a chunk under the token the next rollover needs.
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(db);
      req.onsuccess = () => {
        const tx = req.result.transaction("instances", "readwrite");
        tx.objectStore("instances").put(
          [{ sequence: 1, subscriberId: "intruder", deliveryAddress: "y" }],
          ["SubscriberChunks", "00000000000000000001"],
        );
        tx.oncomplete = () => {
          req.result.close();
          resolve();
        };
        tx.onabort = () => reject(tx.error);
      };
    });
    const outcome = await archive.registerSubscriber({ subscriberId: "c", deliveryAddress: "x" }).then(
      () => "ok",
      (e) => (e instanceof AttrmapError ? e.code : String(e)),
    );
    return {
      outcome,
      state: await archive.log.state(),
      current: (await archive.getSubscriberPage("")).subscribers.map((s) => s.subscriberId),
      archived: await archive.getSubscriberPage("00000000000000000001").then(
        (p) => p.subscribers.map((s) => s.subscriberId),
        (e) => (e instanceof AttrmapError ? e.code : String(e)),
      ),
    };
  }, freshDb());
  // The log's own state says no archive exists yet, so the intruder is never served as a page.
  assert.deepEqual(result, {
    outcome: "corrupt_data",
    state: { nextSequence: 3, latestArchivedChunkToken: "" },
    current: ["b", "a"],
    archived: "not_found",
  });
  await page.close();
});

test("bulk operations: upsertMany and appendMany write in one transaction; getMany reads each partition once", async () => {
  const page = await tab();
  await countTransactions(page);
  const result = await page.evaluate(async (db) => {
    const { openAttrmap } = window.attrmap;
    const store = openAttrmap({ name: db });
    const dir = await store.customerDirectory({ partitionCount: 10 });
    const log = await store.chunkedLog<number>("numbers", { chunkSize: 100 });
    const before = window.__idb!.transactions.length;
    const profiles = Array.from({ length: 1000 }, (_, i) => ({ emailAddress: `bulk${i}@example.com` }));
    await dir.upsertProfiles(profiles);
    const afterUpsert = window.__idb!.transactions.length;
    const records = await log.appendMany(Array.from({ length: 1050 }, (_, i) => i));
    const afterAppend = window.__idb!.transactions.length;
    const got = await dir.map.getMany(profiles.map((p) => p.emailAddress).concat(["absent@example.com"]));
    const afterGet = window.__idb!.transactions.length;
    return {
      upsertTx: afterUpsert - before,
      appendTx: afterAppend - afterUpsert,
      getTx: afterGet - afterAppend,
      found: got.size,
      firstSeq: records[0]!.sequence,
      lastSeq: records.at(-1)!.sequence,
      state: await log.state(),
      oldest: (await log.page("00000000000000000001")).records.at(-1),
    };
  }, freshDb());
  assert.deepEqual(result, {
    upsertTx: 1,
    appendTx: 1,
    getTx: 1,
    found: 1000,
    firstSeq: 1,
    lastSeq: 1050,
    state: { nextSequence: 1051, latestArchivedChunkToken: "00000000000000000901" },
    oldest: { sequence: 1, value: 0 },
  });
  await page.close();
});

test("pages for a list: another tab's log by cursor both ways, every map key once; reopening is readonly", async () => {
  const [writer, reader] = [await tab(), await tab()];
  const db = freshDb();
  const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`).concat(["__proto__", ""]);
  await writer.evaluate(
    async ({ db, keys }) => {
      const store = window.attrmap.openAttrmap({ name: db });
      await (await store.chunkedLog<number>("activity", { chunkSize: 7 })).appendMany(
        Array.from({ length: 45 }, (_, i) => i + 1),
      );
      await (await store.partitionedMap<number>("m", { partitionCount: 4 })).upsertMany(keys.map((k, i) => [k, i]));
    },
    { db, keys },
  );
  await countTransactions(reader);
  const result = await reader.evaluate(async (db) => {
    const store = window.attrmap.openAttrmap({ name: db });
    const log = await store.chunkedLog<number>("activity");
    const map = await store.partitionedMap<number>("m");
    const opened = window.__idb!.transactions.filter((t) => t.mode === "readwrite").length;
    const older: number[][] = [];
    for (let page = await log.page({ limit: 20 }); ; page = await log.page({ before: page.older, limit: 20 })) {
      older.push(page.records.map((r) => r.sequence));
      if (page.older === null) break;
    }
    const newer = await log.page({ after: 20, limit: 3 });
    const listed: string[] = [];
    for (let page = await map.page({ limit: 9 }); ; page = await map.page({ after: page.next, limit: 9 })) {
      listed.push(...page.entries.map(([k]) => k));
      if (page.next === null) break;
    }
    return {
      opened,
      older,
      newer: { records: newer.records.map((r) => r.sequence), newer: newer.newer, older: newer.older },
      listed,
    };
  }, db);
  const down = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);
  assert.equal(result.opened, 0, "opening an existing log and map wrote nothing");
  assert.deepEqual(result.older, [down(45, 26), down(25, 6), down(5, 1)]);
  assert.deepEqual(result.newer, { records: [23, 22, 21], newer: 23, older: 21 });
  assert.equal(result.listed.length, keys.length);
  assert.deepEqual([...result.listed].sort(), [...keys].sort());
  assert.deepEqual([...writer.errors, ...reader.errors], []);
});
