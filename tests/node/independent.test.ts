// The package against an independent implementation of SPEC.md written here, on generated
// inputs: emails, partition counts, page tokens and log appends.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AttrmapError,
  appendSubscribers,
  emailPartition,
  logPage,
  partitionName,
  validatePageToken,
  type LogState,
  type Subscriber,
} from "attrmap";

// ---- the independent implementation ----------------------------------------------------
const WS = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

function refCanonical(email: string): string {
  for (let i = 0; i < email.length; i++) {
    if (email.charCodeAt(i) > 0x7f) throw new Error("emailAddress must contain only ASCII characters");
  }
  let start = 0;
  let end = email.length;
  while (start < end && WS.has(email.charCodeAt(start))) start++;
  while (end > start && WS.has(email.charCodeAt(end - 1))) end--;
  if (start === end) throw new Error("emailAddress is required");
  let out = "";
  for (let i = start; i < end; i++) {
    const c = email.charCodeAt(i);
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 32 : c);
  }
  return out;
}

function refFnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function refPartitionName(index: number, count: number): string {
  return "partition-" + String(index).padStart(String(count - 1).length, "0");
}

function refToken(token: string, chunk: bigint): string | undefined {
  if (token === "" || token === "current") return "current";
  if (!/^[0-9]{20}$/.test(token)) return undefined;
  const v = BigInt(token);
  return v >= 1n && (v - 1n) % chunk === 0n ? token : undefined;
}

// ---- a seeded generator so failures reproduce ------------------------------------------
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

const EDGE_BYTES = [0x00, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1f, 0x20, 0x40, 0x41, 0x5a, 0x5b, 0x60, 0x61, 0x7a, 0x7b, 0x7f];

function asciiString(r: () => number): string {
  const len = Math.floor(r() * 40);
  let s = "";
  for (let i = 0; i < len; i++) {
    const c = r() < 0.35 ? pick(r, EDGE_BYTES) : Math.floor(r() * 0x80);
    s += String.fromCharCode(c);
  }
  return s;
}

function outcome(f: () => string): string {
  try {
    return "ok:" + f();
  } catch (e) {
    return "error:" + (e as Error).message;
  }
}

test("10,000 generated ASCII emails: same canonical form, hash and partition as the reference", () => {
  const r = rng(20261130);
  let accepted = 0;
  for (let i = 0; i < 10_000; i++) {
    const email = asciiString(r);
    const count = i % 4 === 0 ? 1000 : 1 + Math.floor(r() * 5000);
    const want = outcome(() => {
      const canonical = refCanonical(email);
      const hash = refFnv(canonical);
      return JSON.stringify([canonical, hash, hash % count, refPartitionName(hash % count, count)]);
    });
    const got = outcome(() => {
      const p = emailPartition(email, count);
      return JSON.stringify([p.canonicalEmail, p.hash, p.partitionIndex, p.partitionName]);
    });
    assert.equal(got, want, `email ${JSON.stringify(email)} with ${count} partitions`);
    if (want.startsWith("ok:")) accepted++;
  }
  // The generator must exercise both outcomes to mean anything.
  assert.ok(accepted > 5000 && accepted < 10_000, `accepted ${accepted}`);
});

test("generated non-ASCII emails are rejected like the reference", () => {
  const r = rng(7);
  for (let i = 0; i < 2000; i++) {
    const email = asciiString(r) + String.fromCharCode(0x80 + Math.floor(r() * 0xff80)) + asciiString(r);
    assert.equal(outcome(() => emailPartition(email).canonicalEmail), outcome(() => refCanonical(email)), JSON.stringify(email));
  }
});

test("partition names for generated counts and indexes", () => {
  const r = rng(11);
  for (let i = 0; i < 2000; i++) {
    const count = 1 + Math.floor(r() * (i % 2 ? 100 : 4294967295));
    const index = Math.floor(r() * count);
    assert.equal(partitionName(index, count), refPartitionName(index, count));
  }
});

function digits(r: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String(Math.floor(r() * 10));
  return s;
}

test("10,000 generated page tokens and chunk sizes: same verdict as a BigInt reference", () => {
  const r = rng(42);
  let valid = 0;
  for (let i = 0; i < 10_000; i++) {
    const chunk = pick(r, [1, 2, 3, 7, 100, 100, 100, 1000, 65536]);
    let token: string;
    const kind = i % 5;
    if (kind === 0) token = digits(r, 20);
    else if (kind === 1) {
      // A boundary somewhere in the 20-digit range, or one off it.
      const k = BigInt("0x" + digits(r, 15)) % (99999999999999999999n / BigInt(chunk));
      token = String(k * BigInt(chunk) + 1n + BigInt(pick(r, [0, 0, 0, -1, 1]))).padStart(20, "0");
    } else if (kind === 2) token = digits(r, 18 + Math.floor(r() * 5));
    else if (kind === 3) token = digits(r, 19) + pick(r, ["a", " ", "+", "-", "\u0661", "\uff11", "0", "1"]);
    else token = pick(r, ["", "current", "Current", "current ", " "]) + (r() < 0.5 ? "" : digits(r, 3));
    const want = refToken(token, BigInt(chunk));
    const got = outcome(() => validatePageToken(token, chunk));
    assert.equal(got, want === undefined ? `error:invalid page token "${token}"` : `ok:${want}`, `${JSON.stringify(token)} chunk ${chunk}`);
    if (want !== undefined) valid++;
  }
  assert.ok(valid > 1000 && valid < 9000, `valid ${valid}`);
});

test("generated logs: sequences, rollovers and every page follow SPEC.md", () => {
  const r = rng(99);
  for (let round = 0; round < 40; round++) {
    const chunk = 1 + Math.floor(r() * 12);
    const total = Math.floor(r() * 60);
    let state: LogState | undefined;
    let current: Subscriber[] | undefined;
    const archive = new Map<string, Subscriber[]>();
    for (let n = 1; n <= total; ) {
      // Batches of 1 to 15 records, so rollovers happen inside batches too.
      const size = Math.min(total - n + 1, 1 + Math.floor(r() * 15));
      const inputs = Array.from({ length: size }, (_, i) => ({ subscriberId: `s${n + i}`, deliveryAddress: `d${n + i}` }));
      const step = appendSubscribers(state, current, inputs, chunk);
      assert.deepEqual(step.records.map((s) => s.sequence), inputs.map((_, i) => n + i));
      assert.deepEqual(step.records.map((s) => s.subscriberId), inputs.map((x) => x.subscriberId));
      for (const a of step.archived) {
        assert.equal(a.records.length, chunk);
        assert.equal(a.token, String(a.records[0]!.sequence).padStart(20, "0"));
        assert.ok(!archive.has(a.token), "an archive token is written once");
        archive.set(a.token, a.records);
      }
      ({ state, current } = step);
      n += size;
    }
    // Reference: records 1..total, archived in full chunks except a non-empty tail in current.
    const archivedCount = total === 0 ? 0 : Math.floor((total - 1) / chunk) * chunk;
    assert.equal(archive.size, archivedCount / chunk);
    assert.equal(state?.nextSequence ?? 1, total + 1);
    assert.equal(state?.latestArchivedChunkToken ?? "", archivedCount ? String(archivedCount - chunk + 1).padStart(20, "0") : "");
    const seen: number[] = [];
    let token = "";
    for (let pages = 0; pages <= total + 1; pages++) {
      const page = logPage(token, token === "" ? current : archive.get(token), chunk, "subscriber");
      seen.push(...page.records.map((s) => s.sequence));
      if (page.nextPageToken === "") break;
      token = page.nextPageToken;
    }
    assert.deepEqual(seen, Array.from({ length: total }, (_, i) => total - i), `chunk ${chunk}, ${total} appends`);
  }
});

test("errors from the core are AttrmapError with a code", () => {
  try {
    validatePageToken("nope");
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof AttrmapError && e instanceof Error);
    assert.equal(e.code, "invalid_page_token");
    assert.equal(e.name, "AttrmapError");
  }
});
