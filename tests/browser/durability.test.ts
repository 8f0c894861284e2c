// What real browsers do to storage: quota, other tabs upgrading the schema, tabs closed and
// browsers killed mid-write, and reads that must touch one instance of a big map or log.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import "./page-types.js";
import { CHROMIUM_ARGS, openTab, persistentContext, type StaticServer, serveWww } from "./harness.js";

let server: StaticServer;
before(async () => {
  server = await serveWww();
});
after(async () => {
  await server?.close();
});

/** Counts IndexedDB requests by operation and object store, from the moment it is installed. */
async function instrument(page: Page): Promise<void> {
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

/** Every invariant a chunked log keeps, checked from its stored instances after the fact. */
async function logInvariants(page: Page, db: string, chunkSize: number): Promise<{ problems: string[]; total: number }> {
  return page.evaluate(
    async ({ db, chunkSize }) => {
      const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize });
      const state = await archive.log.state();
      const problems: string[] = [];
      const seen: number[] = [];
      let token = "";
      let pages = 0;
      do {
        const p = await archive.getSubscriberPage(token);
        const seqs = p.subscribers.map((s) => s.sequence);
        if (p.pageToken === "current" && seqs.length === 0 && state.nextSequence !== 1)
          problems.push("current is empty but the log is not");
        if (p.pageToken === "current" && (seqs.length < 1 ? state.nextSequence !== 1 : seqs.length > chunkSize))
          problems.push(`current holds ${seqs.length}`);
        if (p.pageToken !== "current" && seqs.length !== chunkSize) problems.push(`archive ${p.pageToken} holds ${seqs.length}`);
        if (p.pageToken !== "current" && BigInt(p.pageToken) !== BigInt(seqs.at(-1) ?? -1))
          problems.push(`archive ${p.pageToken} starts at ${seqs.at(-1)}`);
        seen.push(...seqs);
        token = p.nextPageToken;
      } while (token !== "" && ++pages < 10_000);
      const total = state.nextSequence - 1;
      const expected = Array.from({ length: total }, (_, i) => total - i);
      if (JSON.stringify(seen) !== JSON.stringify(expected))
        problems.push(`records are not ${total}..1 newest first: ${seen.slice(0, 5)}...`);
      const latest =
        total > chunkSize ? String(Math.floor((total - 1) / chunkSize) * chunkSize - chunkSize + 1).padStart(20, "0") : "";
      if (state.latestArchivedChunkToken !== latest)
        problems.push(`latest archive ${state.latestArchivedChunkToken}, expected ${latest}`);
      return { problems, total };
    },
    { db, chunkSize },
  );
}

function processesUsing(profileDir: string): boolean {
  return spawnSync("pgrep", ["-f", profileDir]).status === 0;
}

/** Starts a stream of single appends (with rollovers every 10) that runs until the tab dies; returns once 45 have committed. */
async function startAppendStream(page: Page, db: string): Promise<void> {
  await page.evaluate((db) => {
    void (async () => {
      const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize: 10 });
      for (let i = 0; ; i++) await archive.registerSubscriber({ subscriberId: `s${i}`, deliveryAddress: "x".repeat(2000) });
    })();
  }, db);
  const appended = () =>
    page.evaluate(
      async (db) =>
        (await (await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize: 10 })).log.state()).nextSequence -
        1,
      db,
    );
  while ((await appended()) < 45) await new Promise((r) => setTimeout(r, 20));
}

test("reads touch exactly one instance: a lookup among 10,000 profiles, a page of a 10,000-record log", async (t) => {
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const page = await openTab(browser.context, server.origin);
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

test("a real quota error: the upsert fails with quota_exceeded and the stored data stays intact", async (t) => {
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const page = await openTab(browser.context, server.origin);
  // Chromium reads an origin's quota when IndexedDB is first used, so shrink it before that.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.origin, quotaSize: 256 * 1024 });
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
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: server.origin });
  assert.deepEqual(result, {
    upsert: "quota_exceeded",
    kept: { emailAddress: "kept@example.com", fullName: "Kept", companyName: "", customerTier: "" },
    big: undefined,
  });
});

test("another tab upgrading the database: this tab lets go, reopens, and a newer schema is version_conflict", async (t) => {
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const [ours, other] = [await openTab(browser.context, server.origin), await openTab(browser.context, server.origin)];
  await ours.evaluate(async () => {
    const w = window as unknown as {
      dir: Awaited<ReturnType<ReturnType<typeof window.attrmap.openAttrmap>["customerDirectory"]>>;
    };
    w.dir = await window.attrmap.openAttrmap({ name: "versions" }).customerDirectory();
    await w.dir.upsertProfile({ emailAddress: "a@example.com" });
  });
  // The other tab upgrades to a schema this library does not know; it is not blocked by us.
  const upgraded = await other.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const req = indexedDB.open("versions", 3);
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
  assert.match(after, /^version_conflict: opening database "versions" at version 2 failed: VersionError/);
  assert.deepEqual(ours.errors, []);
});

test("a connection the browser closes (site data cleared) is reopened by the next call", async (t) => {
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const page = await openTab(browser.context, server.origin);
  await page.evaluate(async () => {
    const w = window as unknown as {
      dir: Awaited<ReturnType<ReturnType<typeof window.attrmap.openAttrmap>["customerDirectory"]>>;
    };
    w.dir = await window.attrmap.openAttrmap({ name: "cleared" }).customerDirectory();
    await w.dir.upsertProfile({ emailAddress: "before@example.com" });
  });
  // Clearing IndexedDB force-closes every open connection of the origin.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Storage.clearDataForOrigin", { origin: server.origin, storageTypes: "indexeddb" });
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

test("a tab closed in the middle of a stream of appends and rollovers leaves a valid log", async (t) => {
  const browser = await persistentContext();
  t.after(() => browser.dispose());
  const writer = await openTab(browser.context, server.origin);
  await startAppendStream(writer, "closed-tab");
  await writer.close(); // no beforeunload: the tab just goes, transactions in flight included
  const checker = await openTab(browser.context, server.origin);
  const { problems, total } = await logInvariants(checker, "closed-tab", 10);
  assert.deepEqual(problems, []);
  assert.ok(total >= 45, `only ${total} appends landed`);
});

/** A Chromium of our own on `profileDir`, in its own process group, so a SIGKILL takes every process of it at once. */
async function launchKillable(profileDir: string): Promise<{ context: BrowserContext; kill(): Promise<void> }> {
  const proc = spawn(
    "/usr/bin/chromium",
    ["--headless=new", ...CHROMIUM_ARGS, `--user-data-dir=${profileDir}`, "--remote-debugging-port=0", "about:blank"],
    {
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    },
  );
  const wsEndpoint = await new Promise<string>((resolve, reject) => {
    let seen = "";
    proc.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]!);
    });
    proc.on("exit", () => reject(new Error(`chromium exited: ${seen}`)));
  });
  const cdpBrowser = await chromium.connectOverCDP(wsEndpoint);
  return {
    context: cdpBrowser.contexts()[0]!,
    async kill() {
      const exited = new Promise((r) => proc.on("exit", r));
      process.kill(-proc.pid!, "SIGKILL"); // no shutdown at all
      await exited;
      // Reopen only once no process of the killed browser holds the profile's files.
      while (processesUsing(profileDir)) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

test("a browser killed in the middle of a stream of appends leaves a valid log on reopen", async (t) => {
  const profileDir = mkdtempSync(join(tmpdir(), "attrmap-kill-"));
  const killable = await launchKillable(profileDir);
  const writer = await openTab(killable.context, server.origin);
  await startAppendStream(writer, "killed");
  await killable.kill();
  const reopened = await persistentContext(profileDir);
  t.after(() => reopened.dispose());
  const checker = await openTab(reopened.context, server.origin);
  const { problems, total } = await logInvariants(checker, "killed", 10);
  assert.deepEqual(problems, []);
  assert.ok(total >= 45, `only ${total} appends survived`);
});

test("a browser killed three times while resizing 20,000 entries: every entry once, right, a later resize works", async (t) => {
  const profileDir = mkdtempSync(join(tmpdir(), "attrmap-kill-resize-"));
  const ENTRIES = 20_000;
  const setup = await persistentContext(profileDir);
  await (await openTab(setup.context, server.origin)).evaluate(async (n) => {
    const map = await window.attrmap.openAttrmap({ name: "resized" }).partitionedMap<string>("m", { partitionCount: 1000 });
    await map.upsertMany(Array.from({ length: n }, (_, i) => [`key-${i}`, `value-${i}`] as [string, string]));
  }, ENTRIES);
  await setup.context.close();
  let partitions = 1000;
  const outcomes: string[] = [];
  // Killed as the resize starts (reading), half way through its writes, and after its last write (committing).
  for (const [round, killAt] of [0, 0.5, 1].entries()) {
    const target = partitions + 500 + round;
    const killable = await launchKillable(profileDir);
    const page = await openTab(killable.context, server.origin);
    await page.evaluate(
      ({ target }) => {
        const w = window as unknown as { progress: number; failed: string };
        w.progress = -1;
        window.attrmap
          .openAttrmap({ name: "resized" })
          .partitionedMap<string>("m")
          .then((map) => {
            w.progress = 0;
            return map.resize(target, { onProgress: (p) => (w.progress = p.done / p.total) });
          })
          .catch((e) => (w.failed = String(e)));
      },
      { target },
    );
    for (;;) {
      const { progress, failed } = await page.evaluate(() => {
        const w = window as unknown as { progress: number; failed?: string };
        return { progress: w.progress, failed: w.failed };
      });
      assert.equal(failed, undefined, `round ${round}: the resize failed`);
      if (progress >= killAt) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    await killable.kill();
    const reopened = await persistentContext(profileDir);
    const check = await (await openTab(reopened.context, server.origin)).evaluate(async (n) => {
      const map = await window.attrmap.openAttrmap({ name: "resized" }).partitionedMap<string>("m");
      const seen = new Map<string, string>();
      let doubled = 0;
      for await (const [key, value] of map.entries()) {
        if (seen.has(key)) doubled++;
        seen.set(key, value);
      }
      let wrong = 0;
      for (let i = 0; i < n; i++) if (seen.get(`key-${i}`) !== `value-${i}`) wrong++;
      const partitionCount = map.partitionCount;
      const count = await map.count();
      await map.resize(partitionCount + 1); // a later resize succeeds
      return { partitionCount, count, doubled, wrong, size: seen.size, afterResize: await map.count() };
    }, ENTRIES);
    await reopened.context.close();
    // As before the resize or as after it, never a mix: every entry once, with its value.
    assert.ok([partitions, target].includes(check.partitionCount), `round ${round}: ${check.partitionCount} partitions`);
    const whole = { count: ENTRIES, doubled: 0, wrong: 0, size: ENTRIES, afterResize: ENTRIES };
    assert.deepEqual({ ...check, partitionCount: undefined }, { ...whole, partitionCount: undefined }, `round ${round}`);
    outcomes.push(check.partitionCount === target ? "after" : "before");
    partitions = check.partitionCount + 1;
  }
  t.diagnostic(`the killed resizes were found: ${outcomes.join(", ")}`);
});
