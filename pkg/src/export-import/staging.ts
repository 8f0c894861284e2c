// What only export and import do to the database: list its maps; stage checked instances under
// map names of their own, move them into place in one transaction, and clear the staging area.
// Functions over the instances of maps, here so that a page that never imports does not load them.
import { storeEntries } from "../idb/entry-store.js";
import { deletingAll, type EntryWrites, noEntryWrites } from "../idb/index-entries.js";
import { attempt, request } from "../idb/requests.js";
import { INSTANCES, MAPS } from "../idb/schema.js";
import type { Instances } from "../instances/instances.js";

/** One map an import moves into place: from its staged name to its own, with its metadata record. */
export interface Move {
  from: string;
  to: string;
  meta: object;
  replace: boolean;
  /** Adds to `out` the index entries of one instance moved (a map without indexes has none). */
  entries?: ((instance: string, value: unknown, out: EntryWrites) => void) | undefined;
}

/** Instances the final transaction reads per request as it moves them into place. */
const MOVE_PAGE = 100;

/** The names of every map of the database (each has a metadata record), in name order. */
export function mapNames(instances: Instances): Promise<string[]> {
  return instances.transaction("readonly", "listing the maps", (tx) =>
    request(tx.objectStore(MAPS).getAllKeys(), "listing the maps"),
  ) as Promise<string[]>;
}

/** Puts instances under map names of their own (no metadata, no announcement): the staging area. */
export function stage(
  instances: Instances,
  writes: ReadonlyArray<readonly [map: string, instance: string, value: unknown]>,
  doing: string,
): Promise<void> {
  return instances.transaction(
    "readwrite",
    doing,
    async (tx) => {
      const instances = tx.objectStore(INSTANCES);
      const last = attempt(doing, () => writes.map(([map, instance, value]) => instances.put(value, [map, instance])).at(-1));
      if (last) await request(last, doing);
    },
    { seen: false },
  );
}

/** Deletes every instance of the maps whose names start with `prefix` (the staging area). */
export function dropPrefix(instances: Instances, prefix: string, doing: string): Promise<void> {
  return instances.transaction(
    "readwrite",
    doing,
    async (tx) => {
      await request(tx.objectStore(INSTANCES).delete(instances.instancesUnder(prefix)), doing);
    },
    { seen: false },
  );
}

/**
 * In one readwrite transaction, for each move: refuses (with `refuse`) a target map that
 * exists unless `replace`; removes the target's instances, index entries and metadata when it
 * does; moves every instance of `from` to `to`, MOVE_PAGE at a time, with its index entries
 * (a unique index's conflict throws); and stores `to`'s metadata. All or none.
 */
export async function moveMaps(
  instances: Instances,
  moves: readonly Move[],
  doing: string,
  refuse: (map: string) => Error,
): Promise<void> {
  const changed = new Map<string, { instances: string[]; removed: string[] }>();
  await instances.transaction("readwrite", doing, async (tx) => {
    const stored = tx.objectStore(INSTANCES);
    const maps = tx.objectStore(MAPS);
    const issued: IDBRequest[] = [];
    for (const { from, to, meta, replace, entries } of moves) {
      const names: string[] = [];
      const replaced = new Set<string>();
      if ((await request(maps.get(to), doing)) !== undefined) {
        if (!replace) throw refuse(to);
        for (const key of await request(stored.getAllKeys(instances.instancesOf(to)), doing))
          replaced.add((key as [string, string])[1]);
        for (const instance of replaced) names.push(instance);
        issued.push(stored.delete(instances.instancesOf(to)));
        const cleared = deletingAll([to]);
        await storeEntries(tx, cleared, instances.connection.keyRange, doing, issued);
      }
      // A page of instances per round trip (a cursor took one for each), then one range delete.
      for (let after: string | undefined; ; ) {
        const page = instances.instancesOf(from, after);
        const [keys, values] = await Promise.all([
          request(stored.getAllKeys(page, MOVE_PAGE), doing),
          request(stored.getAll(page, MOVE_PAGE), doing),
        ]);
        const indexed = noEntryWrites();
        keys.forEach((key, i) => {
          const instance = (key as [string, string])[1];
          issued.push(attempt(doing, () => stored.put(values[i], [to, instance])));
          entries?.(instance, instances.connection.toThisRealm(values[i]), indexed);
          names.push(instance);
          replaced.delete(instance);
        });
        await storeEntries(tx, indexed, instances.connection.keyRange, doing, issued);
        if (keys.length < MOVE_PAGE) break;
        after = (keys.at(-1) as [string, string])[1];
      }
      issued.push(stored.delete(instances.instancesOf(from)));
      attempt(doing, () => void issued.push(maps.put(meta, to)));
      changed.set(to, { instances: names, removed: [...replaced] });
    }
    // One change record per map imported: the instances it replaced and those it wrote.
    await instances.settled(
      tx,
      issued,
      [...changed].map(([map, c]) => [map, c.instances] as const),
      doing,
    );
  });
  instances.announceChanged([...changed].map(([map, c]) => ({ map, ...c })));
}
