// Every cross-SDK vector, through the package as a user imports it.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AttrmapError,
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  openAttrmap,
  validatePageToken,
} from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { rawPut } from "../shared/raw-idb.js";
import { emailInput, emailVectors, expand, fnvInput, fnvVectors, segmentedVectors, tokenVectors } from "../vectors.js";

function thrown(f: () => unknown): AttrmapError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof AttrmapError, `expected AttrmapError, got ${String(e)}`);
    return e;
  }
  assert.fail("expected an error");
}

test("fnv1a32 matches every FNV vector", () => {
  assert.ok(fnvVectors.cases.length >= 30);
  for (const c of fnvVectors.cases) {
    assert.equal(fnv1a32(fnvInput(c)), c.hash, c.id);
    assert.equal(`0x${c.hash.toString(16).padStart(8, "0")}`, c.hashHex, c.id);
  }
});

test("emailPartition matches every email vector", () => {
  assert.equal(emailVectors.partitionCount, 1000);
  assert.ok(emailVectors.cases.length >= 50);
  for (const c of emailVectors.cases) {
    const input = emailInput(c);
    if ("error" in c.expect) {
      const e = thrown(() => emailPartition(input));
      assert.equal(e.code, "invalid_email", c.id);
      assert.equal(e.message, c.expect.error, c.id);
      assert.equal(thrown(() => canonicalEmailAddress(input)).message, c.expect.error, c.id);
      continue;
    }
    const canonical = c.expect.canonicalEmailRepeat ? expand(c.expect.canonicalEmailRepeat) : c.expect.canonicalEmail;
    const got = emailPartition(input);
    assert.ok(got.canonicalEmail === canonical, `${c.id}: canonical email`);
    assert.equal(got.hash, c.expect.hash, c.id);
    assert.equal(got.partitionIndex, c.expect.partitionIndex, c.id);
    assert.equal(got.partitionName, c.expect.partitionName, c.id);
    assert.ok(canonicalEmailAddress(input) === canonical, c.id);
  }
});

test("validatePageToken matches every token vector", () => {
  assert.equal(tokenVectors.chunkSize, 100);
  assert.ok(tokenVectors.cases.length >= 40);
  for (const c of tokenVectors.cases) {
    if ("error" in c.expect) {
      const e = thrown(() => validatePageToken(c.token));
      assert.equal(e.code, "invalid_page_token", c.id);
      assert.equal(e.message, c.expect.error, c.id);
    } else {
      assert.equal(validatePageToken(c.token), c.expect.pageToken, c.id);
    }
  }
});

test("archiveChunkToken matches every archive-token vector, as bigint and as safe number", () => {
  assert.ok(tokenVectors.archiveTokenCases.length >= 8);
  for (const c of tokenVectors.archiveTokenCases) {
    const big = BigInt(c.firstSequence);
    const asNumber = big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : undefined;
    if ("error" in c.expect) {
      const code = c.expect.error;
      assert.equal(thrown(() => archiveChunkToken(big)).code, code, c.firstSequence);
      if (asNumber !== undefined) assert.equal(thrown(() => archiveChunkToken(asNumber)).code, code);
    } else {
      assert.equal(archiveChunkToken(big), c.expect.token, c.firstSequence);
      if (asNumber !== undefined) assert.equal(archiveChunkToken(asNumber), c.expect.token);
    }
  }
});

test("validatePageToken with segments matches every segmented-log token vector", () => {
  assert.ok(segmentedVectors.cases.length >= 60);
  for (const c of segmentedVectors.cases) {
    if ("error" in c.expect) assert.equal(thrown(() => validatePageToken(c.token, c.segments)).message, c.expect.error, c.id);
    else assert.equal(validatePageToken(c.token, c.segments), c.expect.pageToken, c.id);
  }
});

test("a stored log of every segmented page vector pages as the vector says", async () => {
  assert.ok(segmentedVectors.pageCases.length >= 12);
  const indexedDB = new IDBFactory();
  const store = openAttrmap({ name: "vectors", indexedDB, IDBKeyRange });
  for (const c of segmentedVectors.pageCases) {
    await store.chunkedLog(c.id, { chunkSize: c.segments[0]!.chunkSize }); // creates the database and the log
    // The layout and state of the vector, and the chunk it asks for, written as a server would store them.
    const meta = {
      kind: "chunked",
      layoutVersion: c.segments.length,
      segments: c.segments,
      state: c.state,
      retainedFrom: c.retainedFrom,
    };
    await rawPut("vectors", "maps", c.id, meta, indexedDB);
    const first = c.expect.firstSequence;
    const segment = c.segments.filter((s) => s.fromSequence <= first).at(-1)!;
    const nextFrom = c.segments.find((s) => s.fromSequence > first)?.fromSequence ?? Number.POSITIVE_INFINITY;
    const length = c.token === "current" ? c.state.nextSequence - first : Math.min(segment.chunkSize, nextFrom - first);
    const records = Array.from({ length }, (_, i) => ({ sequence: first + i, value: i }));
    await rawPut("vectors", "instances", [c.id, c.token], records, indexedDB);
    const log = await store.chunkedLog(c.id);
    const page = await log.page(c.token);
    assert.equal(page.nextPageToken, c.expect.nextPageToken, c.id);
    assert.deepEqual(
      page.records.map((r) => r.sequence),
      records.map((r) => r.sequence).reverse(),
      c.id,
    );
  }
});
