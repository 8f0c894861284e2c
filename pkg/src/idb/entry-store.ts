// Storing a write's index entries (index-entries.ts says what they are) in its transaction,
// after checking that the values a unique index gives are each held by one owner, and merging
// the entries of the writes a group commit batches. Loaded with a map's first index.
import type { EntryWrites, UniqueCheck } from "./index-entries.js";
import { type EntryKey, inRange, type KeyBounds, type Owner, ownerOf } from "./keys.js";
import { attempt, request } from "./requests.js";
import { ENTRIES } from "./schema.js";

/** Entries' keys as strings, to find one in a list. */
const keyId = (key: EntryKey) => JSON.stringify(key);

/**
 * Checks `writes.unique` (against the stored entries, as `writes` leaves them, and against each
 * other), then issues the deletes and puts of `writes` in `tx`, adding the requests to `issued`
 * for the caller to await (pushed one by one: a write may issue more requests than a call
 * takes arguments). Throws a check's conflict before anything is issued.
 */
export async function storeEntries(
  tx: IDBTransaction,
  writes: EntryWrites,
  keyRange: typeof IDBKeyRange,
  doing: string,
  issued: IDBRequest[],
): Promise<void> {
  const store = tx.objectStore(ENTRIES);
  const bound = (r: KeyBounds) => keyRange.bound(r.lower, r.upper, r.lowerOpen, r.upperOpen);
  if (writes.unique.length > 0) {
    const owners = new Map<string, Owner>();
    for (const check of writes.unique) {
      const first = owners.get(check.id);
      if (first !== undefined && first !== check.owner) throw check.conflict(first);
      owners.set(check.id, check.owner);
    }
    const deleted = new Set(writes.delete.map(keyId));
    const stored = await Promise.all(
      writes.unique.map((c) => request(store.getAllKeys(bound(c.range)), doing) as Promise<EntryKey[]>),
    );
    writes.unique.forEach((check, i) => {
      for (const key of stored[i]!) {
        const owner = ownerOf(key);
        const gone = deleted.has(keyId(key)) || writes.deleteRanges.some((r) => inRange(key, r));
        if (owner !== check.owner && !gone) throw check.conflict(owner);
      }
    });
  }
  attempt(doing, () => {
    for (const r of writes.deleteRanges) issued.push(store.delete(bound(r)));
    for (const key of writes.delete) issued.push(store.delete(key));
    for (const [key, value] of writes.put) issued.push(store.put(value, key));
  });
}

/** The index entries a batch writes: each entry's last state, and the unique checks of the entries it puts. */
export class BatchEntries {
  private readonly state = new Map<string, { key: EntryKey; put: boolean; value?: unknown }>();
  private readonly checks = new Map<string, UniqueCheck>();
  private any = false;

  /**
   * Adds one write's entries, unless a value it gives a unique index is held by another owner
   * after the writes before it: then it throws that check's conflict, and the write fails alone.
   */
  add(w: EntryWrites): void {
    const undone = new Set(w.delete.map(keyId));
    for (const check of w.unique) {
      for (const held of this.checks.values()) {
        const id = keyId(held.key);
        if (held.id === check.id && held.owner !== check.owner && this.state.get(id)?.put && !undone.has(id))
          throw check.conflict(held.owner);
      }
    }
    this.any = true;
    for (const key of w.delete) this.state.set(keyId(key), { key, put: false });
    for (const [key, value] of w.put) this.state.set(keyId(key), { key, put: true, value });
    for (const check of w.unique) this.checks.set(keyId(check.key), check);
  }

  writes(): EntryWrites | undefined {
    if (!this.any) return undefined;
    const all = [...this.state.values()];
    return {
      put: all.filter((e) => e.put).map((e) => [e.key, e.value] as const),
      delete: all.filter((e) => !e.put).map((e) => e.key),
      deleteRanges: [],
      unique: [...this.checks].filter(([id]) => this.state.get(id)!.put).map(([, c]) => c),
    };
  }
}
