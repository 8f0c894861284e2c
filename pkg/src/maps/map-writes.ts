// How a partitioned map writes: a write places its keys, locks their partitions (in name
// order, and the map's own lock shared when its wait is bounded), then reads, edits and
// rewrites them in one IndexedDB transaction shared with this context's other writes to the
// map (group commit), with the entries of its indexes. A partition left empty is removed.
import * as args from "../common/args.js";
import { lockKey } from "../common/context.js";
import { commit } from "../concurrency/group-commit.js";
import { boundedWait, type LockRequest, type WriteOptions, withLocks } from "../concurrency/locks.js";
import { deletingAll, type EntryWrites, noEntryWrites } from "../idb/index-entries.js";
import type { IndexDefinition } from "../indexes/definition.js";
import { entryWritesCode } from "../indexes/index-host.js";
import type { Snapshot, Writes } from "../instances/instances.js";
import type { PartitionedLayout } from "./layout.js";
import type { MapContext, Placement } from "./map-context.js";
import type { Partition } from "./map-types.js";

/** Edits partitions: `partition(name)` gives a copy to change, written when the edit returns. */
export type EditPartitions<V, T> = (partition: (name: string) => Partition<V>, placed: Placement[]) => T;

/**
 * Locks the partitions `place` names (and, for a bounded wait, the map), then reads, changes
 * and rewrites them in one transaction. `change` edits partitions through `partition(name)`;
 * only those it asked for are written, and a partition left empty is removed.
 */
function edit<V, T>(
  m: MapContext<V>,
  options: WriteOptions,
  place: (layout: PartitionedLayout) => Placement[],
  change: EditPartitions<V, T>,
): Promise<T> {
  return m.withLayout((layout) => {
    const placed = place(layout);
    const names = [...new Set(placed.map((p) => p.partitionName))].sort();
    const requests: LockRequest[] = names.map((n) => ({ key: lockKey(m.ctx, m.name, n), mode: "exclusive" }));
    // A write that may not wait, or only so long, shares the map's lock, to meet a clear or a
    // resize holding it. One that waits without bound needs no second lock (each costs a round
    // trip to the lock manager): IndexedDB runs its transaction before or after the whole-map
    // one, and one that runs after finds the new layout and places its keys again.
    if (options.lock === "ifAvailable" || boundedWait(options)) requests.unshift({ key: lockKey(m.ctx, m.name), mode: "shared" });
    const doing =
      names.length === 1 ? `writing "${names[0]}" of map "${m.name}"` : `writing ${names.length} partitions of map "${m.name}"`;
    return commit(m.ctx, m.name, options, {
      locks: requests,
      instances: names,
      doing,
      compute: (snapshot) => changes(m, names, layout, snapshot, (partitions) => change(partitions, placed)),
    });
  });
}

/**
 * What `change` does to the partitions `names` as `snapshot` has them: checks the layout,
 * lets `change` edit copies (a write of a batch that throws leaves the stored ones as they
 * were), and returns the partitions it edited, removing those it left empty.
 */
export function changes<V, T>(
  m: MapContext<V>,
  names: readonly string[],
  layout: PartitionedLayout,
  { meta, values }: Snapshot,
  change: (partition: (name: string) => Partition<V>) => T,
): Writes<T> {
  m.current(meta, layout);
  const stored = new Map(names.map((n, i) => [n, values[i]]));
  const edited = new Map<string, Partition<V>>();
  const partition = (name: string) => {
    let p = edited.get(name);
    if (!p) edited.set(name, (p = new Map(m.partition(name, stored.get(name)))));
    return p;
  };
  const result = change(partition);
  const put = [...edited].filter(([, p]) => p.size > 0);
  const removed = [...edited].filter(([n, p]) => p.size === 0 && stored.get(n) !== undefined).map(([n]) => n);
  const entries = layout.indexes ? indexWrites(m, layout.indexes, stored, edited) : undefined;
  return { put, delete: removed, meta: meta === undefined ? layout : undefined, entries, result };
}

/** What edits to partitions (`stored` before, `edited` after) do to the entries of `indexes`. */
function indexWrites<V>(
  m: MapContext<V>,
  indexes: readonly IndexDefinition[],
  stored: ReadonlyMap<string, unknown>,
  edited: ReadonlyMap<string, Partition<V>>,
): EntryWrites {
  const out = noEntryWrites();
  const { addEntryWrites, conflictError } = entryWritesCode.now();
  const conflict = conflictError("map", m.name);
  for (const [name, after] of edited) {
    const before = m.partition(name, stored.get(name));
    // An edit copies the stored partition: a value it did not change is the same object.
    for (const [key, value] of after)
      if (!before.has(key) || before.get(key) !== value)
        addEntryWrites(m.name, indexes, key, before.get(key), value, out, conflict);
    for (const [key, value] of before) if (!after.has(key)) addEntryWrites(m.name, indexes, key, value, undefined, out, conflict);
  }
  return out;
}

/** Stores, under each of `keys` (named `names[i]` in messages), the value `value` makes from its canonical form. */
export function upsertEach<V>(
  m: MapContext<V>,
  keys: readonly unknown[],
  names: readonly string[],
  value: (canonicalKey: string, i: number) => V,
  options: WriteOptions,
): Promise<V[]> {
  return edit(
    m,
    options,
    (layout) => keys.map((k, i) => m.place(k, layout, names[i]!)),
    (partition, placed) =>
      placed.map((p, i) => {
        const v = value(p.key, i);
        partition(p.partitionName).set(p.key, v);
        return v;
      }),
  );
}

/** Replaces the value of `key` with `change(current)` under its partition's lock; returns it. */
export function update<V>(m: MapContext<V>, key: unknown, change: unknown, options: WriteOptions): Promise<V> {
  const fn = args.func<(current: V | undefined) => V>("change", change);
  return edit(
    m,
    options,
    (layout) => [m.place(key, layout, "key")],
    (partition, [p]) => {
      const value = fn(m.entry(p!.partitionName, partition(p!.partitionName), p!.key));
      partition(p!.partitionName).set(p!.key, value);
      return value;
    },
  );
}

/** Removes `keys` in one transaction; how many were there. */
export function deleteMany<V>(m: MapContext<V>, keys: readonly unknown[], options: WriteOptions): Promise<number> {
  return edit(
    m,
    options,
    (layout) => keys.map((k, i) => m.place(k, layout, `keys[${i}]`)),
    (partition, placed) => placed.reduce((n, p) => n + (partition(p.partitionName).delete(p.key) ? 1 : 0), 0),
  );
}

/** Removes every partition (and index entry) under the map's own lock; the layout stays. */
export async function clear<V>(m: MapContext<V>, options: WriteOptions): Promise<void> {
  await m.withLayout((layout) =>
    withLocks(m.ctx.locks, [{ key: lockKey(m.ctx, m.name), mode: "exclusive" }], options, () =>
      m.ctx.instances.write({ map: m.name, instances: [], all: "keys" }, `clearing map "${m.name}"`, ({ meta, names }) => {
        m.current(meta, layout);
        const entries = layout.indexes ? deletingAll([m.name]) : undefined;
        return { delete: names, meta: meta === undefined ? layout : undefined, entries, result: undefined };
      }),
    ),
  );
}
