// A whole map rewritten in one transaction, in steps (a map's resize): read every instance,
// then replace them, with progress between requests. Loaded with the resize that uses it.
import { AttrmapError } from "../common/errors.js";
import { attempt, request } from "../idb/requests.js";
import { INSTANCES, MAPS } from "../idb/schema.js";
import { type Instances, readBackCode } from "./instances.js";

/** One whole-map rewrite in progress (see rewriteMap). */
export interface Rewrite {
  meta: unknown;
  /** Every instance of the map, in name order, and their values. */
  names: string[];
  values: unknown[];
  /** Deletes every instance of the map. */
  clear(): void;
  /** Puts one instance; resolves when IndexedDB has done it (the transaction is still open). */
  put(instance: string, value: unknown): Promise<void>;
  putMeta(meta: object): void;
}

/**
 * A transaction that rewrites a whole map, in steps: `body` reads the metadata and every
 * instance, then replaces them, awaiting only the requests it is given (so the transaction
 * stays active: a step may report progress between requests). All of it commits or none.
 */
export async function rewriteMap<T>(
  instances: Instances,
  map: string,
  doing: string,
  body: (tx: Rewrite) => Promise<T>,
): Promise<T> {
  const changed = new Set<string>();
  const put = new Set<string>();
  let cleared = false;
  let before: unknown;
  let after: object | undefined;
  let result: T | undefined;
  const issued: IDBRequest[] = [];
  await instances
    .transaction("readwrite", doing, async (tx) => {
      const store = tx.objectStore(INSTANCES);
      const maps = tx.objectStore(MAPS);
      const [meta, keys, values] = await Promise.all([
        request(maps.get(map), doing),
        request(store.getAllKeys(instances.instancesOf(map)), doing),
        request(store.getAll(instances.instancesOf(map)), doing),
      ]);
      const names = keys.map((key) => (key as [string, string])[1]);
      for (const name of names) changed.add(name);
      before = instances.own(meta);
      result = await body({
        meta: before,
        names,
        values: values.map(instances.own),
        clear: () => {
          cleared = true;
          attempt(doing, () => void issued.push(store.delete(instances.instancesOf(map))));
        },
        put: async (instance, value) => {
          changed.add(instance);
          put.add(instance);
          await request(
            attempt(doing, () => store.put(value, [map, instance])),
            doing,
          );
        },
        putMeta: (value) => {
          after = value;
          attempt(doing, () => void issued.push(maps.put(value, map)));
        },
      });
      await instances.settled(tx, issued, [[map, [...changed]]], doing);
    })
    .catch(async (e: unknown) => {
      // A rewrite stores a new layout version: the metadata alone says whether it landed.
      if (!(e instanceof AttrmapError && e.code === "outcome_unknown") || after === undefined) throw e;
      const { readBack, settleInDoubt } = await readBackCode.load().catch(() => {
        throw e;
      });
      settleInDoubt([await readBack(instances, map, doing, [], { meta: before, values: [] }, { meta: after })], doing, e);
    });
  instances.announceChanged([{ map, instances: [...changed], removed: cleared ? [...changed].filter((i) => !put.has(i)) : [] }]);
  return result as T;
}
