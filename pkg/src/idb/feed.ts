// The change feed (docs/change-feed.md): every committed write appends one record, in its own
// readwrite transaction, to the `changes` object store, keyed by its sequence: one more than the
// last kept, so the sequences are gapless and in commit order (readwrite transactions over the
// store run one at a time). Records leave only from the oldest end (acknowledged, or past the
// bound), and the newest is always kept, so the next sequence is never lost.
import type { ChangeRecord } from "./change-record.js";
import { attempt, request } from "./requests.js";
import { CHANGES } from "./schema.js";

/** The records a feed keeps at most by default: the oldest go first, unless acknowledged before. */
export const DEFAULT_FEED_LIMIT = 100_000;

/**
 * The last sequence of the feed (0 when it has none), read in `tx`: asked with a write's first
 * reads. A write that fails before it awaits this fails its transaction: the error is its.
 */
export function lastSequence(tx: IDBTransaction, doing: string): Promise<number> {
  const last = request(tx.objectStore(CHANGES).openKeyCursor(null, "prev"), doing).then((c) => (c ? (c.key as number) : 0));
  last.catch(() => undefined);
  return last;
}

/** The first sequence the feed keeps (0 when it has none). */
export function firstSequence(tx: IDBTransaction, doing: string): Promise<number> {
  return request(tx.objectStore(CHANGES).openKeyCursor(), doing).then((c) => (c ? (c.key as number) : 0));
}

/**
 * Appends one record per map of `changed` (in its order) after sequence `last`, and drops the
 * oldest records beyond `limit`; returns the requests issued.
 */
export function appendChanges(
  tx: IDBTransaction,
  last: number,
  changed: ReadonlyArray<readonly [map: string, instances: readonly string[]]>,
  limit: number,
  keyRange: typeof IDBKeyRange,
  doing: string,
): IDBRequest[] {
  const store = tx.objectStore(CHANGES);
  const at = Date.now();
  let seq = last;
  return attempt(doing, () => {
    const issued: IDBRequest[] = changed.map(([map, instances]) => {
      seq++;
      const record: ChangeRecord = { seq, map, instances: [...instances], at };
      return store.put(record, seq);
    });
    if (issued.length > 0 && seq > limit) issued.push(store.delete(keyRange.bound(0, seq - limit)));
    return issued;
  });
}
