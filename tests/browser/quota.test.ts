// A real quota error in Firefox, whose quota a preference fixes (Chromium's is shrunk through
// its DevTools protocol in cdp-storage.test.ts; WebKit offers a test neither): a bulk write that
// runs out of room answers quota_exceeded and changes nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { dispose, ENGINE, launchBrowser } from "./engines.js";
import { openPage, serveWww } from "./harness.js";

/** The origin's fixed quota, in KiB (Firefox's `dom.quotaManager.temporaryStorage.fixedLimit`). */
const QUOTA_KIB = 5 * 1024;

test("Firefox with a 5 MiB quota: a bulk upsert or a transaction past it is quota_exceeded, nothing changes, the feed gapless", {
  skip: ENGINE !== "firefox" && "Firefox alone fixes a quota by preference (Chromium's test is in cdp-storage)",
}, async () => {
  const server = await serveWww();
  const browser = await launchBrowser("firefox", undefined, {
    firefoxPrefs: { "dom.quotaManager.temporaryStorage.fixedLimit": QUOTA_KIB },
  });
  try {
    const page = await openPage(browser, server.origin);
    const result = await page.evaluate(async () => {
      const { openAttrmap, AttrmapError } = window.attrmap;
      const store = openAttrmap({ name: "quota" });
      const dir = await store.customerDirectory({ partitionCount: 4 });
      const log = await store.chunkedLog<string>("audit");
      await dir.upsertProfile({ emailAddress: "kept@example.com", fullName: "Kept" });
      // Random text (storage may compress a repeated one), 64 KiB a profile, 200 of them: 12.5 MiB.
      const noise = () => String.fromCharCode(...crypto.getRandomValues(new Uint8Array(65536)).map((b) => 0x21 + (b % 94)));
      const big = Array.from({ length: 200 }, (_, i) => ({ emailAddress: `big${i}@example.com`, fullName: noise() }));
      const codeOf = (p: Promise<unknown>) =>
        p.then(
          () => "ok",
          (e) => (e instanceof AttrmapError ? e.code : String(e)),
        );
      const outcome = await codeOf(dir.upsertProfiles(big));
      // The same profiles and a small audit record in one transaction: none of it lands.
      const transaction = await codeOf(
        store.transaction([dir, log], async (tx) => {
          await tx.append(log, "imported");
          for (const p of big) await tx.upsert(dir, p.emailAddress, p);
        }),
      );
      const audit = await log.count();
      const kept = await dir.getProfile("kept@example.com");
      const count = await dir.count();
      // The failed write had numbered its change record when the quota stopped it: the next write's follows the first's.
      await dir.upsertProfile({ emailAddress: "next@example.com" });
      const feed = (await openAttrmap({ name: "quota" }).changes()).changes.map((r) => r.seq);
      return { outcome, transaction, audit, kept, count, feed };
    });
    assert.deepEqual(result, {
      outcome: "quota_exceeded",
      transaction: "quota_exceeded",
      audit: 0,
      kept: { emailAddress: "kept@example.com", fullName: "Kept", companyName: "", customerTier: "" },
      count: 1,
      feed: [1, 2],
    });
    assert.deepEqual(page.errors, []);
  } finally {
    await dispose(browser);
    await server.close();
  }
});
