// Every cross-SDK vector, through the package as a user imports it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, archiveChunkToken, canonicalEmailAddress, emailPartition, fnv1a32, validatePageToken } from "attrmap";
import { emailInput, emailVectors, expand, fnvInput, fnvVectors, tokenVectors } from "../vectors.js";

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
