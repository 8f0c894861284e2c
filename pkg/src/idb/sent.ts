// What exports sent (docs/sync.md; docs/storage.md, "Bases"): under `[checkpoint, map,
// instance]` in `sent`, what an export sent of an instance, which becomes its base in `bases`
// when the checkpoint is acknowledged; and how a partition's base is stored. Only exports,
// pulls and acknowledgements load it.
import { attempt, request } from "./requests.js";
import { BASES, SENT } from "./schema.js";

/** A partition's stored base: its entries' digests packed as JSON text, and its payload's digest when known. */
export interface StoredPartitionBase {
  /** `[[key, digest], ...]` as JSON: one string, which IndexedDB reads back faster than a Map of them. */
  entries: string;
  payload?: string | undefined;
}

/** A partition's stored base from its entries' digests (none: null, the engine holds none of it). */
export function packBase(entries: ReadonlyMap<string, string>, payload?: string): StoredPartitionBase | null {
  return entries.size === 0 ? null : { entries: JSON.stringify([...entries]), payload };
}

/** The entries' digests of a stored partition base (none or null: no entries). */
export function unpackBase(base: unknown): Map<string, string> {
  const packed = (base as StoredPartitionBase | null | undefined)?.entries;
  return new Map(typeof packed === "string" ? (JSON.parse(packed) as Array<[string, string]>) : []);
}

/**
 * What an export sent of one instance: its whole base (`whole`; null when the instance is gone
 * from the engine), or (entry changes) the digests of some entries of a partition's base
 * (`{ entries }`), null for an entry removed. A base of null says the engine holds no such instance; no base, that
 * nothing is known.
 */
export interface SentRecord {
  whole?: unknown;
  entries?: ReadonlyMap<string, string | null>;
}

/** Records what an export at `checkpoint` sent (`[map, instance, record]` each), in `tx`. */
export function recordSent(
  tx: IDBTransaction,
  checkpoint: number,
  sent: ReadonlyArray<readonly [map: string, instance: string, record: SentRecord]>,
  doing: string,
): IDBRequest[] {
  const store = tx.objectStore(SENT);
  return attempt(doing, () => sent.map(([map, instance, record]) => store.put(record, [checkpoint, map, instance])));
}

/**
 * Makes what exports sent up to checkpoint `upTo` the bases of their instances, oldest first,
 * and forgets it, in `tx`: a whole base replaces the instance's, entries change theirs.
 */
export async function promoteSent(tx: IDBTransaction, upTo: number, keyRange: typeof IDBKeyRange, doing: string): Promise<void> {
  const sent = tx.objectStore(SENT);
  const bases = tx.objectStore(BASES);
  const range = keyRange.upperBound([upTo, []]);
  const [keys, records] = await Promise.all([request(sent.getAllKeys(range), doing), request(sent.getAll(range), doing)]);
  if (keys.length === 0) return;
  const issued: IDBRequest[] = [];
  // Records apply in checkpoint order; the entries of one instance need its base as the ones before left it.
  const latest = new Map<string, unknown>();
  for (const [i, key] of keys.entries()) {
    const [, map, instance] = key as [number, string, string];
    const record = records[i] as SentRecord;
    const id = JSON.stringify([map, instance]);
    if (record.entries === undefined) {
      latest.set(id, record.whole ?? null);
    } else {
      // The engine's payload after entry changes is the backend's to write: only the entries are known.
      const before = latest.has(id) ? latest.get(id) : await request(bases.get([map, instance]), doing);
      const entries = unpackBase(before);
      for (const [k, d] of record.entries) d === null ? entries.delete(k) : entries.set(k, d);
      latest.set(id, packBase(entries));
    }
  }
  for (const [id, base] of latest) {
    const key = JSON.parse(id) as [string, string];
    issued.push(bases.put(base, key));
  }
  issued.push(sent.delete(range));
  await Promise.all(issued.map((r) => request(r, doing)));
}
