// The package against an independent implementation of SPEC.md written here, on generated
// inputs: emails, partition counts, page tokens and log appends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, emailPartition, openAttrmap, partitionName, validatePageToken } from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { seeded } from "../shared/random.js";
import { refCanonical, refFnv, refPartitionName, refToken } from "../shared/reference.js";

// ---- generated inputs, from a seeded generator so failures reproduce --------------------
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
    return `ok:${f()}`;
  } catch (e) {
    return `error:${(e as Error).message}`;
  }
}

test("10,000 generated ASCII emails: same canonical form, hash and partition as the reference", () => {
  const r = seeded(20261130);
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
  const r = seeded(7);
  for (let i = 0; i < 2000; i++) {
    const email = asciiString(r) + String.fromCharCode(0x80 + Math.floor(r() * 0xff80)) + asciiString(r);
    assert.equal(
      outcome(() => emailPartition(email).canonicalEmail),
      outcome(() => refCanonical(email)),
      JSON.stringify(email),
    );
  }
});

test("partition names for generated counts and indexes", () => {
  const r = seeded(11);
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
  const r = seeded(42);
  let valid = 0;
  for (let i = 0; i < 10_000; i++) {
    const chunk = pick(r, [1, 2, 3, 7, 100, 100, 100, 1000, 65536]);
    let token: string;
    const kind = i % 5;
    if (kind === 0) token = digits(r, 20);
    else if (kind === 1) {
      // A boundary somewhere in the 20-digit range, or one off it.
      const k = BigInt(`0x${digits(r, 15)}`) % (99999999999999999999n / BigInt(chunk));
      token = String(k * BigInt(chunk) + 1n + BigInt(pick(r, [0, 0, 0, -1, 1]))).padStart(20, "0");
    } else if (kind === 2) token = digits(r, 18 + Math.floor(r() * 5));
    else if (kind === 3) token = digits(r, 19) + pick(r, ["a", " ", "+", "-", "\u0661", "\uff11", "0", "1"]);
    else token = pick(r, ["", "current", "Current", "current ", " "]) + (r() < 0.5 ? "" : digits(r, 3));
    const want = refToken(token, BigInt(chunk));
    const got = outcome(() => validatePageToken(token, chunk));
    assert.equal(
      got,
      want === undefined ? `error:invalid page token "${token}"` : `ok:${want}`,
      `${JSON.stringify(token)} chunk ${chunk}`,
    );
    if (want !== undefined) valid++;
  }
  assert.ok(valid > 1000 && valid < 9000, `valid ${valid}`);
});

/** An independent model of a chunked log with chunk-size segments and retention (SPEC 2 and 5.3). */
class ModelLog {
  segments = [{ from: 1, size: 0 }];
  current: number[] = [];
  archives = new Map<number, number[]>(); // first sequence -> sequences, insertion order = oldest first
  next = 1;
  constructor(size: number) {
    this.segments[0]!.size = size;
  }
  private get size(): number {
    return this.segments.at(-1)!.size;
  }
  private archiveCurrent(): void {
    this.archives.set(this.current[0]!, this.current);
    this.current = [];
  }
  append(n: number): number[] {
    const given: number[] = [];
    for (let i = 0; i < n; i++) {
      if (this.current.length === this.size) this.archiveCurrent();
      this.current.push(this.next);
      given.push(this.next++);
    }
    return given;
  }
  changeChunkSize(size: number): void {
    if (size === this.size) return;
    if (this.current.length > 0) this.archiveCurrent();
    const last = this.segments.at(-1)!;
    if (last.from === this.next) last.size = size;
    else this.segments.push({ from: this.next, size });
  }
  dropBefore(first: number): number {
    let dropped = 0;
    for (const f of [...this.archives.keys()]) if (f < first && this.archives.delete(f)) dropped++;
    return dropped;
  }
  /** Pages newest first: [token, sequences newest first, next token]. */
  pages(): Array<[string, number[], string]> {
    const token = (f: number) => String(f).padStart(20, "0");
    const firsts = [...this.archives.keys()].reverse();
    const out: Array<[string, number[], string]> = [
      ["current", [...this.current].reverse(), firsts[0] === undefined ? "" : token(firsts[0])],
    ];
    for (const [i, f] of firsts.entries()) {
      out.push([token(f), [...this.archives.get(f)!].reverse(), firsts[i + 1] === undefined ? "" : token(firsts[i + 1]!)]);
    }
    return out;
  }
}

test("generated logs with batches, chunk-size changes and retention: every page as an independent model says", async () => {
  const r = seeded(99);
  const indexedDB = new IDBFactory();
  const store = openAttrmap({ indexedDB, IDBKeyRange });
  // Other stores on the same database (other tabs', say), whose log objects last read the
  // layout before any of the changes below: each reads one page (a read refreshes the layout
  // an object holds), which must say the same.
  const elsewhere = Array.from({ length: 16 }, () => openAttrmap({ indexedDB, IDBKeyRange }));
  for (let round = 0; round < 30; round++) {
    const size = 1 + Math.floor(r() * 12);
    const log = await store.chunkedLog<null>(`log-${round}`, { chunkSize: size });
    const stale = await Promise.all(elsewhere.map((other) => other.chunkedLog<null>(`log-${round}`)));
    const model = new ModelLog(size);
    for (let step = 0; step < 12; step++) {
      const what = r();
      if (what < 0.6) {
        // Batches of 0 to 15 records, so rollovers happen inside batches too.
        const n = Math.floor(r() * 16);
        const records = await log.appendMany(Array.from({ length: n }, () => null));
        assert.deepEqual(
          records.map((x) => x.sequence),
          model.append(n),
        );
      } else if (what < 0.85) {
        const next = 1 + Math.floor(r() * 12);
        await log.changeChunkSize(next);
        model.changeChunkSize(next);
      } else if (model.archives.size > 0) {
        const firsts = [...model.archives.keys()];
        const first = firsts[Math.floor(r() * firsts.length)]!;
        assert.equal(await log.dropArchivesBefore(String(first).padStart(20, "0")), model.dropBefore(first));
      }
    }
    const got: Array<[string, number[], string]> = [];
    for (let token = "current"; ; ) {
      const page = await log.page(token);
      got.push([page.pageToken, page.records.map((x) => x.sequence), page.nextPageToken]);
      if (page.nextPageToken === "" || got.length > 1000) break;
      token = page.nextPageToken;
    }
    assert.deepEqual(got, model.pages(), `round ${round}: segments ${JSON.stringify(model.segments)}`);
    for (const [i, [token, sequences, next]] of model.pages().slice(0, stale.length).entries()) {
      const page = await stale[i]!.page(token);
      assert.deepEqual([page.pageToken, page.records.map((x) => x.sequence), page.nextPageToken], [token, sequences, next]);
    }
    const retained = model.pages().flatMap(([, seqs]) => seqs);
    assert.equal(await log.count(), retained.length);
    const oldest: number[] = [];
    for await (const record of log.records({ order: "oldest" })) oldest.push(record.sequence);
    assert.deepEqual(oldest, [...retained].reverse());
    // Every archive token is valid; the sequence after an archive's first is not a boundary.
    for (const [first, seqs] of model.archives) {
      if (seqs.length > 1) {
        const off = String(first + 1).padStart(20, "0");
        await assert.rejects(log.page(off), (e: unknown) => e instanceof AttrmapError && e.code === "invalid_page_token", off);
      }
    }
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
