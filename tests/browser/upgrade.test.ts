// SPEC 6.4 in every engine: data written by each released package (its packed tarball, kept in
// tests/fixtures/) opens in the current package with every key, value, page, count, layout and
// next sequence intact, and writes go on. The expected data is made here, not read from either
// package: profiles, subscribers and records are numbered, and the log's pages follow SPEC 2.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import "./page-types.js";
import { refPartition } from "../shared/reference.js";
import { openPage, useProfile } from "./harness.js";

const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));
const RELEASES = readdirSync(FIXTURES)
  .map((f) => /^attrmap-(\d+\.\d+\.\d+)\.tgz$/.exec(f)?.[1])
  .filter((v): v is string => v !== undefined);

/** Whether `version` wrote a change feed (stored format 5, from 0.4.0). */
const hadFeed = (version: string) => {
  const [major, minor] = version.split(".").map(Number) as [number, number];
  return major > 0 || minor >= 4;
};

const PROFILES = 300;
const SUBSCRIBERS = 250;
const CHUNK = 10;
const ENTRIES = 50;
const RECORDS = 30;
const RECORD_CHUNK = 7;

/** Serves the JavaScript of each release's tarball at /__releases__/<version>/ (the inlined-wasm entry needs nothing else). */
const unpacked = mkdtempSync(join(tmpdir(), "attrmap-releases-"));
const env = useProfile(async ({ server }) => {
  for (const version of RELEASES) {
    const dir = join(unpacked, version);
    execFileSync("mkdir", ["-p", dir]);
    execFileSync("tar", ["xzf", join(FIXTURES, `attrmap-${version}.tgz`), "-C", dir]);
    const walk = (at: string): string[] =>
      readdirSync(at).flatMap((f) => (statSync(join(at, f)).isDirectory() ? walk(join(at, f)) : [join(at, f)]));
    for (const file of walk(join(dir, "package")).filter((f) => f.endsWith(".js")))
      server.files.set(`/__releases__/${version}/${relative(join(dir, "package"), file)}`, {
        type: "text/javascript; charset=utf-8",
        body: readFileSync(file, "utf8"),
      });
  }
});
after(() => rmSync(unpacked, { recursive: true, force: true }));

test("the fixtures hold the released tarballs", () => {
  assert.ok(RELEASES.includes("0.1.0"), `releases found: ${RELEASES.join(", ")}`);
});

for (const version of RELEASES)
  test(`data written by ${version} opens in this package intact, and writes go on`, async () => {
    const name = `written-by-${version}`;
    const old = await openPage(env.browser, env.server.origin);
    // Written with the API every release has had since 0.1.0.
    await old.evaluate(
      async ({ version, name, n }) => {
        const pkg = await import(`/__releases__/${version}/dist/index.js`);
        const store = pkg.openAttrmap({ name });
        const dir = await store.customerDirectory({ partitionCount: 16 });
        for (let i = 0; i < n.profiles; i += 50)
          await Promise.all(
            Array.from({ length: 50 }, (_, k) =>
              dir.upsertProfile({ emailAddress: ` User${i + k}@Example.COM `, fullName: `User ${i + k}`, customerTier: "gold" }),
            ),
          );
        const archive = await store.subscriberArchive({ chunkSize: n.chunk });
        for (let i = 1; i <= n.subscribers; i++)
          await archive.registerSubscriber({ subscriberId: `s-${i}`, deliveryAddress: `s${i}@example.com` });
        const users = await store.partitionedMap("users", { partitionCount: 8, canonicalizeKey: (k: string) => k });
        await users.upsertMany(Array.from({ length: n.entries }, (_, i) => [i === 0 ? "__proto__" : `Key ${i}`, { i }]));
        const audit = await store.chunkedLog("audit", { chunkSize: n.recordChunk });
        for (let i = 1; i <= n.records; i++) await audit.append({ n: i });
        store.close();
      },
      {
        version,
        name,
        n: {
          profiles: PROFILES,
          chunk: CHUNK,
          subscribers: SUBSCRIBERS,
          entries: ENTRIES,
          records: RECORDS,
          recordChunk: RECORD_CHUNK,
        },
      },
    );
    await old.close();

    const page = await openPage(env.browser, env.server.origin);
    const seen = await page.evaluate(
      async ({ name, n }) => {
        const { openAttrmap } = window.attrmap;
        const store = openAttrmap({ name });
        const code = (p: Promise<unknown>) =>
          p.then(
            () => "ok",
            (e: { code?: string }) => e.code,
          );
        const dir = await store.customerDirectory();
        const profiles = [];
        for (let i = 0; i < n.profiles; i++) profiles.push(await dir.getProfile(`user${i}@example.com`));
        const archive = await store.subscriberArchive();
        const pages: Array<{ pageToken: string; first: number; last: number; length: number; nextPageToken: string }> = [];
        for (let token = "", more = true; more; ) {
          const p = await archive.getSubscriberPage(token);
          const seqs = p.subscribers.map((s) => s.sequence);
          pages.push({
            pageToken: p.pageToken,
            first: seqs[0]!,
            last: seqs.at(-1)!,
            length: seqs.length,
            nextPageToken: p.nextPageToken,
          });
          const ids = p.subscribers.every(
            (s) => s.subscriberId === `s-${s.sequence}` && s.deliveryAddress === `s${s.sequence}@example.com`,
          );
          if (!ids) throw new Error(`page ${p.pageToken} holds another subscriber`);
          token = p.nextPageToken;
          more = token !== "";
        }
        // Written with a canonicalizer of its own: 0.1.0 stored no key rule (the map takes the one
        // it is next opened with), later versions store "custom"; the same canonicalizer opens both.
        const users = await store.partitionedMap<{ i: number }>("users", { canonicalizeKey: (k: string) => k });
        const entries: Array<[string, number]> = [];
        for await (const [k, v] of users.entries()) entries.push([k, v.i]);
        // An index over the data the old version wrote (format 4 adds the store entries live in).
        await users.createIndex("byI", "i");
        const indexed = await users.where("byI").between(1, 3).keys();
        const audit = await store.chunkedLog<{ n: number }>("audit");
        const records: number[] = [];
        for await (const r of audit.records({ order: "oldest" })) records.push(r.sequence * 1000 + r.value.n);
        return {
          profiles,
          counts: { profiles: await dir.count(), subscribers: await archive.count(), users: await users.count() },
          pages,
          state: await archive.log.state(),
          entries: entries.sort(([a], [b]) => (a < b ? -1 : 1)),
          indexed,
          records,
          auditStats: await audit.stats(),
          layouts: {
            otherCount: await code(store.customerDirectory({ partitionCount: 17 })),
            sameCount: await code(store.customerDirectory({ partitionCount: 16 })),
            otherChunk: await code(store.subscriberArchive({ chunkSize: 11 })),
          },
          identity: (await store.identity()).id,
          next: {
            subscriber: (await archive.registerSubscriber({ subscriberId: "after", deliveryAddress: "a@example.com" })).sequence,
            record: (await audit.append({ n: 0 })).sequence,
            profile: (await dir.upsertProfile({ emailAddress: "new@example.com" })).emailAddress,
            count: await dir.count(),
          },
          // Format 6's bases start empty: every profile the feed names is an entry change (sync.md).
          entryChanges: (
            await window.attrmap.exportDexEntryChanges(store, {
              since: 0,
              sdk: "typescript",
              maps: ["CustomerProfilesByEmailPartition"],
            })
          ).changes.length,
          // The change feed, in full (the limit is above what any version's writes here make).
          feed: (await store.changes({ limit: 10_000 })).changes.map((r: { seq: number; map: string }) => [r.seq, r.map]),
        };
      },
      { name, n: { profiles: PROFILES } },
    );
    // Expected, from SPEC 1 and 2 alone.
    assert.deepEqual(
      seen.profiles,
      Array.from({ length: PROFILES }, (_, i) => ({
        emailAddress: `user${i}@example.com`,
        fullName: `User ${i}`,
        companyName: "",
        customerTier: "gold",
      })),
    );
    assert.deepEqual(seen.counts, { profiles: PROFILES, subscribers: SUBSCRIBERS, users: ENTRIES });
    const token = (first: number) => String(first).padStart(20, "0");
    const expectedPages = [{ pageToken: "current", first: 250, last: 241, length: 10, nextPageToken: token(231) }];
    for (let first = 231; first >= 1; first -= CHUNK)
      expectedPages.push({
        pageToken: token(first),
        first: first + CHUNK - 1,
        last: first,
        length: CHUNK,
        nextPageToken: first > 1 ? token(first - CHUNK) : "",
      });
    assert.deepEqual(seen.pages, expectedPages);
    assert.deepEqual(seen.state, { nextSequence: SUBSCRIBERS + 1, latestArchivedChunkToken: token(231) });
    assert.deepEqual(
      seen.entries,
      Array.from({ length: ENTRIES }, (_, i) => [i === 0 ? "__proto__" : `Key ${i}`, i] as [string, number]).sort(([a], [b]) =>
        a < b ? -1 : 1,
      ),
    );
    assert.deepEqual(seen.indexed, ["Key 1", "Key 2", "Key 3"]);
    assert.deepEqual(
      seen.records,
      Array.from({ length: RECORDS }, (_, i) => (i + 1) * 1000 + i + 1),
    );
    assert.equal(seen.auditStats.chunkSize, RECORD_CHUNK);
    assert.deepEqual(seen.layouts, { otherCount: "layout_mismatch", sameCount: "ok", otherChunk: "layout_mismatch" });
    assert.match(seen.identity, /^[0-9a-f]{32}$/);
    assert.deepEqual(seen.next, {
      subscriber: SUBSCRIBERS + 1,
      record: RECORDS + 1,
      profile: "new@example.com",
      count: PROFILES + 1,
    });
    // Format 5's feed (0.4.0) starts empty at an upgrade from before it: the three writes above are
    // then its only records. A database that had a feed keeps it, and they follow on, gapless.
    const feed = seen.feed as Array<[number, string]>;
    assert.deepEqual(
      feed.map(([seq]) => seq),
      feed.map((_, i) => i + 1),
    );
    assert.deepEqual(
      feed.slice(-3).map(([, map]) => map),
      ["SubscriberChunks", "audit", "CustomerProfilesByEmailPartition"],
    );
    if (hadFeed(version)) assert.ok(feed.length > 3 + SUBSCRIBERS, `${version}'s own writes are in the feed`);
    else assert.equal(feed.length, 3);
    // Nothing was exchanged before format 6: every profile of a partition the feed names is a change
    // (all of them where the old version kept a feed; else those beside the one profile saved since).
    const home = refPartition("new@example.com", 16).name;
    const beside = Array.from({ length: PROFILES }, (_, i) => `user${i}@example.com`).filter(
      (email) => refPartition(email, 16).name === home,
    ).length;
    assert.equal(seen.entryChanges, hadFeed(version) ? PROFILES + 1 : beside + 1);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
