// The whole life of the data in real Chromium with on-disk profiles: delete, iterate, count,
// clear, resize (with other tabs writing and reading through it), chunk-size changes and
// retention. Expected placements come from the independent implementation in tests/shared.
import assert from "node:assert/strict";
import { test } from "node:test";
import { refPartition } from "../shared/reference.js";
import "./page-types.js";
import { openPage, SHARED_PATH, type Tab, uniqueNames, useProfile } from "./harness.js";

const env = useProfile();
const freshDb = uniqueNames("lifecycle");

const tab = () => openPage(env.browser, env.server.origin);

test("delete removes any key, __proto__ and constructor too; a partition left empty is removed", async () => {
  const page = await tab();
  const result = await page.evaluate(
    async ({ db, path }) => {
      const { rawGet } = (await import(`${path}raw-idb.js`)) as typeof import("../shared/raw-idb.js");
      const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m", { partitionCount: 1 });
      await map.upsertMany([
        ["__proto__", "p"],
        ["constructor", "c"],
        ["kept", "k"],
      ]);
      const removed = [
        await map.delete("__proto__"),
        await map.delete("__proto__"),
        await map.deleteMany(["constructor", "absent"]),
      ];
      const left = [await map.get("__proto__"), await map.get("constructor"), await map.get("kept"), await map.count()];
      await map.delete("kept");
      return { removed, left, instance: await rawGet(db, "instances", ["m", "partition-0"]), count: await map.count() };
    },
    { db: freshDb(), path: SHARED_PATH },
  );
  assert.deepEqual(result.removed, [true, false, 1]);
  assert.deepEqual(result.left, [undefined, undefined, "k", 1]);
  assert.equal(result.instance, undefined, "the empty partition is gone");
  assert.equal(result.count, 0);
  await page.close();
});

test("entries() walks partition index order, then key order; count and clear; clear keeps the layout", async () => {
  const page = await tab();
  const keys = Array.from({ length: 300 }, (_, i) => `key-${i}`).concat(["", "__proto__", "Zed", "zed", "a"]);
  const result = await page.evaluate(
    async ({ db, keys }) => {
      const store = window.attrmap.openAttrmap({ name: db });
      const map = await store.partitionedMap<number>("m", { partitionCount: 17 });
      await map.upsertMany(keys.map((k, i) => [k, i] as [string, number]));
      const seen: Array<[string, number]> = [];
      for await (const entry of map.entries()) seen.push(entry);
      const values: number[] = [];
      for await (const value of map.values()) values.push(value);
      const count = await map.count();
      await map.clear();
      const again = await store.partitionedMap<number>("m");
      return {
        seen,
        values,
        count,
        after: await map.count(),
        layout: [again.partitionCount, again.keyRule, again.layoutVersion],
      };
    },
    { db: freshDb(), keys },
  );
  const expected = keys
    .map((k, i) => ({ k, i, p: refPartition(k, 17).index }))
    .sort((a, b) => a.p - b.p || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map(({ k, i }) => [k, i]);
  assert.deepEqual(result.seen, expected);
  assert.deepEqual(
    result.values,
    expected.map(([, i]) => i),
  );
  assert.equal(result.count, keys.length);
  assert.equal(result.after, 0);
  assert.deepEqual(result.layout, [17, "exact", 1]);
  await page.close();
});

test("each partition entries() yields is a consistent snapshot while another tab rewrites partitions whole", async () => {
  const db = freshDb();
  const [reader, writer] = [await tab(), await tab()];
  const keys = Array.from({ length: 400 }, (_, i) => `k${i}`);
  await writer.evaluate(
    async ({ db, keys }) => {
      const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<number>("m", { partitionCount: 8 });
      await map.upsertMany(keys.map((k) => [k, 0] as [string, number]));
      // Rewrite every partition whole, generation after generation, until told to stop.
      const w = window as unknown as { stop: boolean };
      void (async () => {
        for (let generation = 1; !w.stop; generation++)
          await map.upsertMany(keys.map((k) => [k, generation] as [string, number]));
      })();
    },
    { db, keys },
  );
  const partitions = await reader.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<number>("m");
    const seen: Array<{ key: string; value: number }> = [];
    for await (const [key, value] of map.entries()) {
      seen.push({ key, value });
      // Let writes land between steps: a task, not a timer (Firefox throttles timers of background tabs).
      await new Promise((r) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = r;
        channel.port2.postMessage(0);
      });
    }
    return seen;
  }, db);
  await writer.evaluate(() => {
    (window as unknown as { stop: boolean }).stop = true;
  });
  assert.equal(partitions.length, keys.length);
  const byPartition = new Map<number, Set<number>>();
  for (const { key, value } of partitions) {
    const p = refPartition(key, 8).index;
    byPartition.set(p, (byPartition.get(p) ?? new Set()).add(value));
  }
  for (const [p, generations] of byPartition)
    assert.equal(generations.size, 1, `partition ${p} mixed generations ${[...generations]}`);
  await reader.close();
  await writer.close();
});

/** In `page`, a map with `n` keys whose values are their index, 16 partitions. */
async function fill(page: Tab, db: string, n: number): Promise<void> {
  await page.evaluate(
    async ({ db, n }) => {
      const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m", { partitionCount: 16 });
      await map.upsertMany(Array.from({ length: n }, (_, i) => [`key-${i}`, `v${i}`] as [string, string]));
    },
    { db, n },
  );
}

test("resize: another tab writes 200 keys during it, a tab that opened the map before keeps answering right", async () => {
  const db = freshDb();
  const [resizer, writer, stale] = [await tab(), await tab(), await tab()];
  await fill(resizer, db, 5000);
  // The stale tab opens its map object (16 partitions) before the resize.
  await stale.evaluate(async (db) => {
    (window as unknown as { map: unknown }).map = await window.attrmap.openAttrmap({ name: db }).partitionedMap("m");
  }, db);
  const resized = resizer.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m");
    const progress: number[] = [];
    await map.resize(61, { onProgress: (p) => progress.push(p.done) });
    return { count: map.partitionCount, version: map.layoutVersion, reports: progress.length, moved: progress.at(-1) ?? 0 };
  }, db);
  const written = writer.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m");
    await Promise.all(Array.from({ length: 200 }, (_, i) => map.upsert(`during-${i}`, `d${i}`)));
  }, db);
  const [after] = await Promise.all([resized, written]);
  assert.deepEqual([after.count, after.version], [61, 2]);
  assert.ok(after.reports >= 2, "progress was reported as partitions were written");
  // Every entry stored when it ran was moved: the 5000, and those of the 200 that came first.
  assert.ok(after.moved >= 5000 && after.moved <= 5200, `moved ${after.moved}`);
  const check = await stale.evaluate(async () => {
    const map = (window as unknown as { map: import("attrmap").PartitionedMap<string> }).map;
    const missing: string[] = [];
    for (let i = 0; i < 5000; i += 7) if ((await map.get(`key-${i}`)) !== `v${i}`) missing.push(`key-${i}`);
    for (let i = 0; i < 200; i++) if ((await map.get(`during-${i}`)) !== `d${i}`) missing.push(`during-${i}`);
    await map.upsert("late", "after the resize");
    const seen = new Map<string, number>();
    for await (const [key] of map.entries()) seen.set(key, (seen.get(key) ?? 0) + 1);
    return {
      missing,
      partitionCount: map.partitionCount,
      total: seen.size,
      doubled: [...seen.values()].filter((n) => n > 1).length,
    };
  });
  assert.deepEqual(check, { missing: [], partitionCount: 61, total: 5201, doubled: 0 });
  const instances = await resizer.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m");
    return [...(await map.partitionSizes()).keys()].filter((n) => !/^partition-\d\d$/.test(n));
  }, db);
  assert.deepEqual(instances, [], "no partition of the old layout is left");
  for (const page of [resizer, writer, stale]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("resize: an iteration across it is layout_changed; an abort changes nothing; ifAvailable writers are refused", async () => {
  const db = freshDb();
  const [resizer, other] = [await tab(), await tab()];
  await fill(resizer, db, 20_000);
  const result = await resizer.evaluate(async (db) => {
    const { openAttrmap } = window.attrmap;
    const map = await openAttrmap({ name: db }).partitionedMap<string>("m");
    const iterating = map.entries();
    await iterating.next(); // started under 16 partitions
    const controller = new AbortController();
    const aborted = await map.resize(32, { signal: controller.signal, onProgress: () => controller.abort() }).then(
      () => "ok",
      (e: { code?: string }) => e.code,
    );
    const afterAbort = [map.partitionCount, map.layoutVersion, await map.count()];
    const w = window as unknown as { progressed: () => void; progress: Promise<void> };
    w.progress = new Promise((r) => (w.progressed = r));
    const resizing = map.resize(32, { onProgress: () => w.progressed() });
    await w.progress;
    return {
      aborted,
      afterAbort,
      resizing: await resizing.then(() => "ok"),
      // The rest of the first partition was read with it; the next partition's read sees the resize.
      iteration: await (async () => {
        try {
          for (let step = await iterating.next(); !step.done; step = await iterating.next());
          return "completed";
        } catch (e) {
          return (e as { code?: string }).code;
        }
      })(),
    };
  }, db);
  assert.deepEqual(result, { aborted: "aborted", afterAbort: [16, 1, 20_000], resizing: "ok", iteration: "layout_changed" });
  // While a whole-map operation holds the map's lock, a fail-fast writer in another tab is
  // refused and one with a bound gives up at it; one that waits without bound does not take
  // the map's lock (IndexedDB orders it against the whole-map transaction, docs/locks.md).
  const conflict = await other.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<string>("m");
    let release = () => {};
    await new Promise<void>((held) =>
      navigator.locks.request(window.attrmap.lockName({ database: db, map: "m" }), () => {
        held();
        return new Promise<void>((r) => (release = r));
      }),
    );
    const outcome = (write: Promise<unknown>) =>
      write.then(
        () => "ok",
        (e: { code?: string }) => e.code,
      );
    const result = {
      ifAvailable: await outcome(map.upsert("x", "y", { lock: "ifAvailable" })),
      timeout: await outcome(map.upsert("x", "y", { timeoutMs: 50 })),
      unbounded: await outcome(map.upsert("x", "z")),
    };
    release();
    return { ...result, stored: await map.get("x") };
  }, db);
  assert.deepEqual(conflict, { ifAvailable: "lock_conflict", timeout: "lock_timeout", unbounded: "ok", stored: "z" });
  await resizer.close();
  await other.close();
});

test("a log across chunk-size changes and retention: pages walk every segment, tokens of both layouts, counts", async () => {
  const page = await tab();
  const result = await page.evaluate(async (db) => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const archive = await openAttrmap({ name: db }).subscriberArchive({ chunkSize: 10 });
    const add = (n: number, from: number) =>
      archive.registerSubscribers(Array.from({ length: n }, (_, i) => ({ subscriberId: `s${from + i}`, deliveryAddress: "x" })));
    await add(25, 1);
    await archive.log.changeChunkSize(3); // archives 21..25 short; chunks of 3 from 26
    await add(10, 26);
    // Another object on the log (another tab's, say) that read it before the drop below.
    const other = await openAttrmap({ name: db }).subscriberArchive();
    await other.getSubscriberPage("00000000000000000011");
    const walk = async (log = archive) => {
      const seqs: number[] = [];
      const tokens: string[] = [];
      for (let token = ""; ; ) {
        const p = await log.getSubscriberPage(token);
        tokens.push(p.pageToken);
        seqs.push(...p.subscribers.map((s) => s.sequence));
        if (!p.nextPageToken) return { seqs, tokens };
        token = p.nextPageToken;
      }
    };
    const codeOf = (token: string) =>
      archive.getSubscriberPage(token).then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? e.code : String(e)),
      );
    const before = await walk();
    const checks = {
      oldLayout: await codeOf("00000000000000000011"),
      shortChunk: await codeOf("00000000000000000021"),
      newLayout: await codeOf("00000000000000000029"),
      offOld: await codeOf("00000000000000000012"),
      offNew: await codeOf("00000000000000000027"),
      pastShort: await codeOf("00000000000000000031"),
    };
    const dropped = await archive.log.dropArchivesBefore("00000000000000000021");
    const afterDrop = await walk();
    return {
      before,
      checks,
      segments: archive.log.segments,
      dropped,
      afterDrop,
      otherAfterDrop: await walk(other),
      otherCount: await other.count(),
      count: await archive.count(),
      stats: await archive.log.stats(),
      gone: await codeOf("00000000000000000001"),
      next: (await archive.registerSubscriber({ subscriberId: "next", deliveryAddress: "x" })).sequence,
    };
  }, freshDb());
  assert.deepEqual(
    result.before.seqs,
    Array.from({ length: 35 }, (_, i) => 35 - i),
  );
  assert.deepEqual(result.before.tokens, [
    "current",
    "00000000000000000032",
    "00000000000000000029",
    "00000000000000000026",
    "00000000000000000021",
    "00000000000000000011",
    "00000000000000000001",
  ]);
  assert.deepEqual(result.checks, {
    oldLayout: "ok",
    shortChunk: "ok",
    newLayout: "ok",
    offOld: "invalid_page_token",
    offNew: "invalid_page_token",
    pastShort: "invalid_page_token",
  });
  assert.deepEqual(result.segments, [
    { fromSequence: 1, chunkSize: 10 },
    { fromSequence: 26, chunkSize: 3 },
  ]);
  assert.equal(result.dropped, 2);
  assert.deepEqual(
    result.afterDrop.seqs,
    Array.from({ length: 15 }, (_, i) => 35 - i),
  );
  assert.equal(result.afterDrop.tokens.at(-1), "00000000000000000021", "the oldest retained page ends the walk");
  assert.deepEqual(result.otherAfterDrop, result.afterDrop, "an object that read the log before the drop sees it too");
  assert.equal(result.otherCount, 15);
  assert.equal(result.count, 15);
  assert.deepEqual(result.stats, { records: 15, currentRecords: 1, archivedChunks: 4, chunkSize: 3, nextSequence: 36 });
  assert.equal(result.gone, "not_found");
  assert.equal(result.next, 36, "sequences are never reused");
  await page.close();
});

test("two tabs import different files into one database at once: one after the other, each whole, nothing mixed", async () => {
  const db = freshDb();
  const [a, b] = [await tab(), await tab()];
  // Each tab makes its own export of a map "shared": 2000 entries keyed by the tab's letter.
  const make = (page: Tab, letter: string) =>
    page.evaluate(
      async ({ db, letter }) => {
        const source = window.attrmap.openAttrmap({ name: `${db}-source-${letter}` });
        const map = await source.partitionedMap<number>("shared", { partitionCount: 64 });
        await map.upsertMany(Array.from({ length: 2000 }, (_, i) => [`${letter}-${i}`, i] as [string, number]));
        const reader = window.attrmap.exportData(source).getReader();
        let text = "";
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
        (window as unknown as { file: string }).file = text;
      },
      { db, letter },
    );
  await Promise.all([make(a, "a"), make(b, "b")]);
  const importing = (page: Tab) =>
    page.evaluate(async (db) => {
      const store = window.attrmap.openAttrmap({ name: db });
      const file = (window as unknown as { file: string }).file;
      // The first and the last progress report: both happen while the import holds its lock.
      let first: number | undefined;
      let last = 0;
      const onProgress = () => {
        first ??= Date.now();
        last = Date.now();
      };
      const summary = await window.attrmap.importData(store, file, { replace: true, onProgress });
      return { first: first!, last, entries: summary.entries };
    }, db);
  const [fromA, fromB] = await Promise.all([importing(a), importing(b)]);
  assert.deepEqual([fromA.entries, fromB.entries], [2000, 2000]);
  // One at a time: the one that ran second started after the first had finished.
  const [earlier, later] = fromA.first < fromB.first ? [fromA, fromB] : [fromB, fromA];
  assert.ok(later.first >= earlier.last, `imports overlapped: ${JSON.stringify([earlier, later])}`);
  const keys = await a.evaluate(async (db) => {
    const map = await window.attrmap.openAttrmap({ name: db }).partitionedMap<number>("shared");
    const found: string[] = [];
    for await (const key of map.keys()) found.push(key);
    return found;
  }, db);
  const winner = later === fromA ? "a" : "b";
  assert.equal(keys.length, 2000);
  assert.ok(
    keys.every((k) => k.startsWith(`${winner}-`)),
    "the map is the later import's, whole",
  );
  assert.deepEqual([...a.errors, ...b.errors], []);
});
