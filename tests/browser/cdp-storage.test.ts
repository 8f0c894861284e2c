// Chromium only, through CDP: a real quota error (the origin's quota shrunk) and site data
// cleared under an open connection. The other engines offer neither to a test.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { openTab, until, useChromiumProfile } from "./harness.js";

const env = useChromiumProfile();

test("a real quota error: an upsert and a transaction are quota_exceeded, nothing stored changes, the feed gapless", async () => {
  const page = await openTab(env.context, env.server.origin);
  // Chromium reads an origin's quota when IndexedDB is first used, so shrink it before that.
  const cdp = await env.context.newCDPSession(page);
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.server.origin, quotaSize: 256 * 1024 });
  const result = await page.evaluate(async () => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const store = openAttrmap({ name: "quota" });
    const dir = await store.customerDirectory({ partitionCount: 1 });
    const other = await store.partitionedMap<number>("other", { partitionCount: 1 });
    await dir.upsertProfile({ emailAddress: "kept@example.com", fullName: "Kept" });
    // Random text: Chromium compresses stored values, so a repeated character would fit.
    let big = "";
    for (let i = 0; i < 16; i++)
      big += String.fromCharCode(...crypto.getRandomValues(new Uint8Array(65536)).map((b) => 0x21 + (b % 94)));
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e) => (e instanceof AttrmapError ? e.code : `${e}`),
      );
    return {
      // Into the partition that holds the kept profile: the whole partition is rewritten.
      upsert: await codeOf(dir.upsertProfile({ emailAddress: "big@example.com", fullName: big })),
      // A transaction whose other map's write is small: none of it lands.
      transaction: await codeOf(
        store.transaction([other.at("small"), dir], async (tx) => {
          await tx.upsert(other, "small", 1);
          await tx.upsert(dir, "big@example.com", { fullName: big });
        }),
      ),
      kept: await dir.getProfile("kept@example.com"),
      big: await dir.getProfile("big@example.com"),
      small: await other.get("small"),
    };
  });
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.server.origin });
  assert.deepEqual(result, {
    upsert: "quota_exceeded",
    transaction: "quota_exceeded",
    kept: { emailAddress: "kept@example.com", fullName: "Kept", companyName: "", customerTier: "" },
    big: undefined,
    small: undefined,
  });
  // The failed write had numbered its change record when the quota stopped it: the next write's follows the first's.
  const feed = await page.evaluate(async () => {
    const store = window.attrmap.openAttrmap({ name: "quota" });
    await (await store.customerDirectory({ partitionCount: 1 })).upsertProfile({ emailAddress: "next@example.com" });
    return (await store.changes()).changes.map(({ seq, instances }) => ({ seq, instances }));
  });
  assert.deepEqual(feed, [
    { seq: 1, instances: ["partition-0"] },
    { seq: 2, instances: ["partition-0"] },
  ]);
});

test("site data cleared under two tabs: each store is told data_lost once and writes nothing until acknowledged", async () => {
  const tabs = [await openTab(env.context, env.server.origin), await openTab(env.context, env.server.origin)];
  for (const [i, page] of tabs.entries())
    await page.evaluate(async (i) => {
      const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; lost: string[] };
      w.store = window.attrmap.openAttrmap({ name: "cleared" });
      w.lost = [];
      w.store.on("datalost", (e) => w.lost.push(e.code));
      const archive = await w.store.subscriberArchive();
      await archive.registerSubscriber({ subscriberId: `before-${i}`, deliveryAddress: "p" });
    }, i);
  // Clearing IndexedDB force-closes every open connection of the origin and deletes its databases.
  const cdp = await env.context.newCDPSession(tabs[0]!);
  await cdp.send("Storage.clearDataForOrigin", { origin: env.server.origin, storageTypes: "indexeddb" });
  for (const page of tabs)
    await until("the datalost event", () => page.evaluate(() => (window as unknown as { lost: string[] }).lost.length === 1));
  const [a, b] = await Promise.all(
    tabs.map((page) =>
      page.evaluate(async () => {
        const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; lost: string[] };
        const archive = w.store
          .subscriberArchive()
          .then((a) => a.registerSubscriber({ subscriberId: "x", deliveryAddress: "p" }));
        const code = await archive.then(
          (s) => `sequence ${s.sequence}`,
          (e: { code: string }) => e.code,
        );
        return { code, lost: w.lost, databases: (await indexedDB.databases()).map((d) => d.name) };
      }),
    ),
  );
  // No sequence 1 in a database nobody acknowledged: there is no database at all.
  assert.deepEqual(a, { code: "data_lost", lost: ["data_lost"], databases: [] });
  assert.deepEqual(b, a);
  const again = await tabs[0]!.evaluate(async () => {
    const w = window as unknown as { store: ReturnType<typeof window.attrmap.openAttrmap>; lost: string[] };
    w.store.acknowledgeDataLoss();
    const archive = await w.store.subscriberArchive();
    return {
      sequence: (await archive.registerSubscriber({ subscriberId: "after", deliveryAddress: "p" })).sequence,
      lost: w.lost,
    };
  });
  assert.deepEqual(again, { sequence: 1, lost: ["data_lost"] });
  for (const page of tabs) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});
