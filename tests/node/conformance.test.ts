// Every cross-SDK vector, through the package as a user imports it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  AttrmapError,
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  openAttrmap,
  partitionName,
  placeCustomerProfile,
  validatePageToken,
} from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { rawPut } from "../shared/raw-idb.js";
import {
  archiveInput,
  type Divergence,
  divergenceClasses,
  emailInput,
  emailVectors,
  expand,
  fnvInput,
  fnvVectors,
  formattingVectors,
  segmentedVectors,
  tokenVectors,
} from "../vectors.js";

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
  assert.ok(tokenVectors.archiveTokenCases.length >= 12);
  for (const c of tokenVectors.archiveTokenCases) {
    const given = archiveInput(c);
    const asNumber = Number(c.firstSequence);
    const inputs = Number.isSafeInteger(asNumber) || !Number.isInteger(asNumber) ? [given, asNumber] : [given];
    for (const input of inputs) {
      if ("error" in c.expect) assert.equal(thrown(() => archiveChunkToken(input)).code, c.expect.error, c.firstSequence);
      else assert.equal(archiveChunkToken(input), c.expect.token, c.firstSequence);
    }
  }
});

test("formatting vectors: partition names and tokens are ASCII digits", () => {
  assert.ok(formattingVectors.partitionNameCases.length >= 7 && formattingVectors.tokenCases.length >= 3);
  for (const c of formattingVectors.partitionNameCases)
    assert.equal(partitionName(c.index, c.partitionCount), c.expect.partitionName, `${c.index} of ${c.partitionCount}`);
  for (const c of formattingVectors.tokenCases) assert.equal(archiveChunkToken(c.firstSequence), c.expect.token);
});

test("under LANG=ar_EG.UTF-8 (Intl's default locale ar-EG) every name and token keeps its ASCII digits", () => {
  // A child Node whose ICU default locale comes from LANG; it reports the locale it took, then
  // runs the formatting vectors and every email and archive-token vector through the package.
  const env = { ...process.env, LANG: "ar_EG.UTF-8", LC_ALL: "ar_EG.UTF-8" };
  const script = fileURLToPath(new URL("../shared/formatting-check.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script], { env, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { locale: "ar-EG", digits: "\u0662\u0667\u0668", wrong: [] });
});

test("profile bodies whose email is null, missing or empty are emailAddress is required", () => {
  assert.ok(emailVectors.profileBodyCases.length >= 3);
  for (const c of emailVectors.profileBodyCases) {
    const e = thrown(() => placeCustomerProfile(c.body as { emailAddress: string }));
    assert.deepEqual([e.code, e.message], ["invalid_email", c.expect.error], c.id);
  }
});

test("a null page token is refused as not a string; a valid token with no chunk is the contract's not-found", async () => {
  for (const c of tokenVectors.nullTokenCases)
    assert.equal(thrown(() => validatePageToken(c.token as unknown as string)).code, c.expect.error, c.id);
  const store = openAttrmap({ name: "not-found", indexedDB: new IDBFactory(), IDBKeyRange });
  const archive = await store.subscriberArchive();
  for (const c of tokenVectors.notFoundCases) {
    const e = await archive.getSubscriberPage(c.token).then(
      () => assert.fail(`${c.id} was found`),
      (e: unknown) => e as AttrmapError,
    );
    assert.deepEqual([e.code, e.message], ["not_found", c.expect.error], c.id);
  }
});

/** Every mark of every vector file, with the case it sits on. */
function allMarks(): Array<{ mark: Divergence; where: string }> {
  const files = { emailVectors, tokenVectors, formattingVectors };
  const out: Array<{ mark: Divergence; where: string }> = [];
  const walk = (value: unknown, where: string) => {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, `${where}[${i}]`);
    else if (typeof value === "object" && value !== null)
      for (const [k, v] of Object.entries(value)) {
        if (k === "divergences") for (const mark of v as Divergence[]) out.push({ mark, where });
        else walk(v, `${where}.${k}`);
      }
  };
  for (const [name, doc] of Object.entries(files)) walk(doc, name);
  return out;
}

test("every divergence mark names a known SDK, class and evidence; the vertical tab is Rust's alone", () => {
  const marks = allMarks();
  assert.ok(marks.length >= 100, `${marks.length} marks`);
  for (const { mark, where } of marks) {
    assert.ok(divergenceClasses.sdks.includes(mark.sdk), where);
    assert.ok(mark.class in divergenceClasses.classes, where);
    assert.ok(["run", "read", "range"].includes(mark.evidence), where);
  }
  const byClass = (cls: string) => new Set(marks.filter((m) => m.mark.class === cls).map((m) => m.mark.sdk));
  assert.deepEqual([...byClass("vertical-tab")], ["rust"]);
  assert.deepEqual([...byClass("locale-digits")], ["java"]);
  assert.ok(
    Object.keys(divergenceClasses.classes).every((cls) => byClass(cls).size > 0),
    "a class with no mark",
  );
});

// The TypeScript reference SDK's own steps, as measured: it reads a token's 20 digits into a
// float64 and tests (n - 1) % 100 on it, and writes an archive token as String(n) padded to 20.
const tsSdkToken = (token: string) => {
  if (token === "" || token === "current") return "current";
  const n = Number(token);
  return /^[0-9]{20}$/.test(token) && n >= 1 && (n - 1) % 100 === 0 ? token : undefined;
};
const tsSdkArchive = (first: string) => String(Number(first)).padStart(20, "0");

test("the TypeScript marks are exactly where the TypeScript SDK's own steps depart from the vectors", () => {
  for (const c of tokenVectors.cases) {
    const mark = c.divergences?.find((d) => d.sdk === "typescript");
    const sdk = tsSdkToken(c.token);
    const sdkAnswer = sdk === undefined ? { error: `invalid page token "${c.token}"` } : { pageToken: sdk };
    assert.deepEqual(sdkAnswer, mark ? mark.actual : c.expect, c.id);
  }
  for (const c of tokenVectors.archiveTokenCases) {
    const mark = c.divergences?.find((d) => d.sdk === "typescript");
    const sdk = { token: tsSdkArchive(c.firstSequence) };
    assert.deepEqual(sdk, mark ? mark.actual : c.expect, c.firstSequence);
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
