// The change feed (docs/change-feed.md): every committed write appends one record, in its own
// readwrite transaction, to the `changes` object store. Its sequence comes from the store's key
// generator, which every engine reverts when a transaction aborts (as the IndexedDB specification
// asks): the sequences are gapless, in commit order (readwrite transactions over the object store run one
// at a time), and a write reads nothing first to learn its own. Records leave only from the oldest
// end (acknowledged, or past the bound), and the newest is always kept, so the checkpoint is never lost.

import * as args from "../common/args.js";
import { attempt, request } from "../idb/requests.js";
import { CHANGES } from "../idb/schema.js";
import type { ChangeRecord } from "./change-record.js";

/** The records a feed keeps at most by default: the oldest go first, unless acknowledged before. */
export const DEFAULT_FEED_LIMIT = 100_000;

/** The last sequence of the feed (0 when it has none), read in `tx`. */
export function lastSequence(tx: IDBTransaction, doing: string): Promise<number> {
  return request(tx.objectStore(CHANGES).openKeyCursor(null, "prev"), doing).then((c) => (c ? (c.key as number) : 0));
}

/** The first sequence the feed keeps (0 when it has none). */
export function firstSequence(tx: IDBTransaction, doing: string): Promise<number> {
  return request(tx.objectStore(CHANGES).openKeyCursor(), doing).then((c) => (c ? (c.key as number) : 0));
}

/** Puts one record per map of `changed`, in its order (the key generator numbers them); returns the puts. */
export function appendChanges(
  tx: IDBTransaction,
  changed: ReadonlyArray<readonly [map: string, instances: readonly string[]]>,
  doing: string,
): IDBRequest<IDBValidKey>[] {
  const store = tx.objectStore(CHANGES);
  const at = Date.now();
  return attempt(doing, () =>
    changed.map(([map, instances]) => store.put({ map, instances: [...instances], at } satisfies Omit<ChangeRecord, "seq">)),
  );
}

/**
 * Drops the oldest records beyond `limit`, once the last put of a write has numbered its record
 * `last`. Not awaited: the transaction commits after it; a failure fails the write (or, where an
 * engine lets a request fail after commit(), leaves the drop to the next write).
 */
export function dropBeyond(tx: IDBTransaction, last: number, limit: number, keyRange: typeof IDBKeyRange): void {
  if (last > limit) tx.objectStore(CHANGES).delete(keyRange.bound(0, last - limit));
}

/** @internal `openAttrmap`'s `maxChanges`, checked: the records the feed keeps at most. */
export function feedLimit(value: unknown): number | undefined {
  return value === undefined ? undefined : args.count("options.maxChanges", value, 1);
}
