// What a base holds (docs/sync.md, "Base"): for each instance, digests of what the engine held of
// it when the store and the engine last exchanged it. A partition's base is its entries' digests
// by key, with the digest of the attribute's payload as the engine holds it when that is known
// (a pull whose payload is the same has nothing new in that partition); a chunk's base is the
// digest of its records, a log's state (under LOG_STATE_BASE) the state itself; null, an instance
// the engine does not hold (no record: nothing is known, as before the first exchange). A digest
// is the Rust core's, of a value's canonical JSON (src/sync.rs): two values with the same data
// have the same digest, whatever order their keys were written in. How a partition's base is
// stored is idb/bases.ts's.

import type { Context } from "../common/context.js";
import { canonicalJson } from "../export-import/exact-json.js";
import { type BaseWrites, readAllBases, readBases, writeBases } from "../idb/bases.js";
import { request } from "../idb/requests.js";
import { recordSent, type SentRecord } from "../idb/sent.js";
import type { MapRead, MapWrites, Snapshot } from "../instances/instances.js";
import type { LogState } from "../maps/layout.js";
import { digestsOf } from "../wasm/verifier-module.js";

export { packBase, type StoredPartitionBase, unpackBase as baseEntries } from "../idb/sent.js";

/** The instance name a log's state is based under (no partition or chunk is named so). */
export const LOG_STATE_BASE = "";

/** The digest of a value JSON cannot represent exactly: equal to no digest of a JSON value. */
const NOT_JSON = "not JSON";

/** The digest of each value (undefined for an absent one). */
export function entryDigests(values: readonly unknown[]): Array<string | undefined> {
  const texts = values.map((v) => (v === undefined ? undefined : canonicalJson(v)));
  const digests = digestsOf(texts.filter((t): t is string => t !== undefined));
  let next = 0;
  return values.map((v, i) => (v === undefined ? undefined : texts[i] === undefined ? NOT_JSON : digests[next++]));
}

/** The digest of each entry of a partition (none: none), by key. */
export function partitionDigests(entries: ReadonlyMap<string, unknown> | undefined): Map<string, string> {
  if (!entries) return new Map();
  const keys = [...entries.keys()];
  const digests = entryDigests(keys.map((k) => entries.get(k)));
  return new Map(keys.map((k, i) => [k, digests[i]!]));
}

/** The digest of each attribute payload (base64 text, as the engine holds and answers it). */
export function payloadDigests(payloads: readonly string[]): string[] {
  return digestsOf(payloads);
}

/** The digest of a chunk's records (undefined: no chunk). */
export function chunkDigest(records: unknown): string | undefined {
  return entryDigests([records])[0];
}

/** Whether two log states are the same. */
export function sameState(a: LogState, b: LogState): boolean {
  return a.nextSequence === b.nextSequence && a.latestArchivedChunkToken === b.latestArchivedChunkToken;
}

/** The bases a read found (see readingBases): the instances' names, and each one's base (undefined: none). */
export interface BasesRead {
  names: string[];
  bases: unknown[];
}

/** `read`, also reading the bases of `which`: these instances, or every instance of the map that has one. */
export function readingBases(read: MapRead, which: readonly string[] | "all"): MapRead {
  return {
    ...read,
    also: (tx, doing, keyRange) =>
      which === "all"
        ? readAllBases(tx, read.map, keyRange, doing)
        : readBases(tx, read.map, which, doing).then((bases) => ({ names: [...which], bases })),
  };
}

/** The bases a `readingBases` read found. */
export const basesRead = (snapshot: Snapshot): BasesRead => snapshot.also as BasesRead;

/** A write's requests to the bases of `map`, issued in its transaction. */
export function writingBases(map: string, writes: BaseWrites): MapWrites["also"] {
  return (tx) => writeBases(tx, map, writes);
}

/** Records what an export at `checkpoint` sent, in a transaction of its own: the bases once it is acknowledged. */
export async function saveSent(
  ctx: Context,
  checkpoint: number,
  sent: ReadonlyArray<readonly [map: string, instance: string, record: SentRecord]>,
  doing: string,
): Promise<void> {
  if (sent.length === 0) return;
  await ctx.instances.transaction(
    "readwrite",
    doing,
    (tx) => Promise.all(recordSent(tx, checkpoint, sent, doing).map((q) => request(q, doing))),
    { seen: false },
  );
}
