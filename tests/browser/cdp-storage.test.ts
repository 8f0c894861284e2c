// Chromium only, through CDP: a real quota error (the origin's quota shrunk) and site data
// cleared under an open connection. The other engines offer neither to a test.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./page-types.js";
import { openTab, useChromiumProfile } from "./harness.js";

const env = useChromiumProfile();

test("a real quota error: the upsert fails with quota_exceeded and the stored data stays intact", async () => {
  const page = await openTab(env.context, env.server.origin);
  // Chromium reads an origin's quota when IndexedDB is first used, so shrink it before that.
  const cdp = await env.context.newCDPSession(page);
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.server.origin, quotaSize: 256 * 1024 });
  const result = await page.evaluate(async () => {
    const { openAttrmap, AttrmapError } = window.attrmap;
    const dir = await openAttrmap({ name: "quota" }).customerDirectory({ partitionCount: 1 });
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
      kept: await dir.getProfile("kept@example.com"),
      big: await dir.getProfile("big@example.com"),
    };
  });
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.server.origin });
  assert.deepEqual(result, {
    upsert: "quota_exceeded",
    kept: { emailAddress: "kept@example.com", fullName: "Kept", companyName: "", customerTier: "" },
    big: undefined,
  });
});

test("a connection the browser closes (site data cleared) is reopened by the next call", async () => {
  const page = await openTab(env.context, env.server.origin);
  await page.evaluate(async () => {
    const w = window as unknown as {
      dir: Awaited<ReturnType<ReturnType<typeof window.attrmap.openAttrmap>["customerDirectory"]>>;
    };
    w.dir = await window.attrmap.openAttrmap({ name: "cleared" }).customerDirectory();
    await w.dir.upsertProfile({ emailAddress: "before@example.com" });
  });
  // Clearing IndexedDB force-closes every open connection of the origin.
  const cdp = await env.context.newCDPSession(page);
  await cdp.send("Storage.clearDataForOrigin", { origin: env.server.origin, storageTypes: "indexeddb" });
  const after = await page.evaluate(async () => {
    const w = window as unknown as {
      dir: { upsertProfile(p: object): Promise<unknown>; getProfile(e: string): Promise<{ emailAddress: string } | undefined> };
    };
    await w.dir.upsertProfile({ emailAddress: "after@example.com" });
    return {
      before: await w.dir.getProfile("before@example.com"),
      after: (await w.dir.getProfile("after@example.com"))?.emailAddress,
    };
  });
  assert.deepEqual(after, { before: undefined, after: "after@example.com" });
  assert.deepEqual(page.errors, []);
});
