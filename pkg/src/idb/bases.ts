// The bases of synced instances (docs/sync.md; docs/storage.md, "Bases"): under `[map,
// instance]` in `bases`, what the engine held of an instance when the store and the engine last
// exchanged it, as digests, read and written in a pull's transaction. What exports sent, and
// how it becomes the bases, is sent.ts's. The digests are opaque here.
import { request } from "./requests.js";
import { BASES } from "./schema.js";

/** The bases of `instances` of `map` (undefined: none), read in `tx`. */
export function readBases(tx: IDBTransaction, map: string, instances: readonly string[], doing: string): Promise<unknown[]> {
  const store = tx.objectStore(BASES);
  return Promise.all(instances.map((i) => request(store.get([map, i]), doing)));
}

/** Every base of `map`, in instance order: its instances' names and their bases. */
export async function readAllBases(
  tx: IDBTransaction,
  map: string,
  keyRange: typeof IDBKeyRange,
  doing: string,
): Promise<{ names: string[]; bases: unknown[] }> {
  const store = tx.objectStore(BASES);
  const range = keyRange.bound([map], [map, []]);
  const [keys, bases] = await Promise.all([request(store.getAllKeys(range), doing), request(store.getAll(range), doing)]);
  return { names: keys.map((k) => (k as [string, string])[1]), bases };
}

/** What a write does to the bases of one map: puts (`[instance, base]`) and deletes. */
export interface BaseWrites {
  put?: ReadonlyArray<readonly [instance: string, base: unknown]>;
  delete?: readonly string[];
}

/** Issues the requests of `writes` to the bases of `map` in `tx`. */
export function writeBases(tx: IDBTransaction, map: string, writes: BaseWrites): IDBRequest[] {
  const store = tx.objectStore(BASES);
  return [
    ...(writes.delete ?? []).map((i) => store.delete([map, i])),
    ...(writes.put ?? []).map(([i, base]) => store.put(base, [map, i])),
  ];
}
