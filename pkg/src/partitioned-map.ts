// A hash-partitioned map: each key lives in one of N partition instances, a dictionary
// from canonical key to value. A lookup reads one partition; an upsert locks, reads and
// rewrites one partition. Never the whole map.
import { emailPartition, keyPartition, partitionName } from "./core.js";
import type { Context } from "./context.js";
import { instanceLock } from "./context.js";
import { AttrmapError } from "./errors.js";
import { checkLayout, openLayout, type Layout } from "./layout.js";
import { withLocks, type WriteOptions } from "./locks.js";

export interface PartitionedMapOptions {
  /** Number of partitions, fixed when the map is first written (default 1000). */
  partitionCount?: number;
  /**
   * Turns a key into its canonical form, the form that is hashed and stored. The default
   * is the email rule of SPEC.md (ASCII only, outer whitespace trimmed, A-Z lowercased).
   */
  canonicalizeKey?: (key: string) => string;
}

/** Where one key lives. */
export interface Placement {
  key: string;
  partitionName: string;
}

/** A partition instance: canonical key to value. A `Map`, so any string key round-trips (`__proto__` too). */
export type Partition<V> = Map<string, V>;

export const DEFAULT_PARTITION_COUNT = 1000;

function asPartition<V>(map: string, name: string, stored: unknown): Partition<V> {
  if (stored === undefined) return new Map();
  if (stored instanceof Map) return stored as Partition<V>;
  throw new AttrmapError("corrupt_data", `instance "${name}" of map "${map}" is not a partition`);
}

export class PartitionedMap<V> {
  private constructor(
    private readonly ctx: Context,
    readonly name: string,
    readonly partitionCount: number,
    private readonly canonicalizeKey: ((key: string) => string) | undefined,
  ) {}

  /** Opens the map, storing its layout on first use; `layout_mismatch` if stored with another. */
  static async open<V>(ctx: Context, name: string, options: PartitionedMapOptions = {}): Promise<PartitionedMap<V>> {
    const map = new PartitionedMap<V>(ctx, name, options.partitionCount ?? DEFAULT_PARTITION_COUNT, options.canonicalizeKey);
    keyPartition("", map.partitionCount); // checks the count before anything is stored
    await openLayout(ctx.store, name, map.layout);
    return map;
  }

  private get layout(): Layout {
    return { kind: "partitioned", partitionCount: this.partitionCount };
  }

  /** The canonical key and partition of `key`; throws (e.g. `invalid_email`) for a bad key. */
  place(key: string): Placement {
    if (!this.canonicalizeKey) {
      const p = emailPartition(key, this.partitionCount);
      return { key: p.canonicalEmail, partitionName: p.partitionName };
    }
    const canonical = this.canonicalizeKey(key);
    return { key: canonical, partitionName: keyPartition(canonical, this.partitionCount).partitionName };
  }

  /** The value stored under `key`, or `undefined`. Reads one partition, takes no lock. */
  async get(key: string): Promise<V | undefined> {
    return this.getAt(this.place(key));
  }

  /** `get` for a key already placed (see `place`). */
  async getAt(placement: Placement): Promise<V | undefined> {
    const stored = await this.ctx.store.read(this.name, placement.partitionName);
    return asPartition<V>(this.name, placement.partitionName, stored).get(placement.key);
  }

  /** Values of many keys, by canonical key (absent keys are left out); each partition is read once, in one transaction. */
  async getMany(keys: Iterable<string>): Promise<Map<string, V>> {
    const groups = this.group(Array.from(keys, (k) => [this.place(k), undefined] as const));
    const names = [...groups.keys()];
    const partitions = await this.ctx.store.readMany(this.name, names);
    const found = new Map<string, V>();
    names.forEach((name, i) => {
      const partition = asPartition<V>(this.name, name, partitions[i]);
      for (const [placement] of groups.get(name)!) {
        if (partition.has(placement.key)) found.set(placement.key, partition.get(placement.key) as V);
      }
    });
    return found;
  }

  /** Stores `value` under `key`: locks, reads and rewrites one partition. Idempotent. */
  async upsert(key: string, value: V, options: WriteOptions = {}): Promise<void> {
    await this.upsertAt(this.place(key), value, options);
  }

  /** `upsert` for a key already placed (see `place`). */
  upsertAt(placement: Placement, value: V, options: WriteOptions = {}): Promise<void> {
    return this.writeGroups(this.group([[placement, value]]), options);
  }

  /**
   * Stores many entries: keys are grouped by partition, every partition involved is locked
   * (in sorted order) and written once, all in one transaction. Returns the number written.
   */
  async upsertMany(entries: Iterable<readonly [string, V]>, options: WriteOptions = {}): Promise<number> {
    const placed = Array.from(entries, ([k, v]) => [this.place(k), v] as const);
    await this.writeGroups(this.group(placed), options);
    return placed.length;
  }

  /**
   * Atomically replaces the value of `key` with `change(current)` (`current` is `undefined`
   * when absent) under the partition's lock, and returns the stored value.
   */
  async update(key: string, change: (current: V | undefined) => V, options: WriteOptions = {}): Promise<V> {
    const placement = this.place(key);
    let value: V | undefined;
    await this.writePartitions([placement.partitionName], options, (_, partition) => {
      value = change(partition.get(placement.key));
      partition.set(placement.key, value);
    });
    return value as V;
  }

  /** Entries per partition, index order: reads every partition (one transaction). For views and stats, not lookups. */
  async partitionSizes(): Promise<number[]> {
    const names = Array.from({ length: this.partitionCount }, (_, i) => partitionName(i, this.partitionCount));
    const partitions = await this.ctx.store.readMany(this.name, names);
    return partitions.map((p, i) => asPartition<V>(this.name, names[i]!, p).size);
  }

  private group(entries: ReadonlyArray<readonly [Placement, V | undefined]>): Map<string, Array<readonly [Placement, V | undefined]>> {
    const groups = new Map<string, Array<readonly [Placement, V | undefined]>>();
    for (const entry of entries) {
      const list = groups.get(entry[0].partitionName);
      if (list) list.push(entry);
      else groups.set(entry[0].partitionName, [entry]);
    }
    return groups;
  }

  private writeGroups(groups: Map<string, Array<readonly [Placement, V | undefined]>>, options: WriteOptions): Promise<void> {
    return this.writePartitions([...groups.keys()], options, (name, partition) => {
      for (const [placement, value] of groups.get(name)!) partition.set(placement.key, value as V);
    });
  }

  /** Locks `names` (sorted), then reads, changes and rewrites those partitions in one transaction. */
  private writePartitions(names: readonly string[], options: WriteOptions, change: (name: string, partition: Partition<V>) => void): Promise<void> {
    if (names.length === 0) return Promise.resolve();
    const locks = names.map((n) => instanceLock(this.ctx, this.name, n));
    const doing = names.length === 1 ? `writing "${names[0]}" of map "${this.name}"` : `writing ${names.length} partitions of map "${this.name}"`;
    return withLocks(this.ctx.locks, locks, options, () =>
      this.ctx.store.write(this.name, names, doing, (meta, values) => {
        const kept = checkLayout(this.name, meta, this.layout);
        const put = names.map((name, i) => {
          const partition = asPartition<V>(this.name, name, values[i]);
          change(name, partition);
          return [name, partition] as const;
        });
        return { put, meta: meta === undefined ? kept : undefined, result: undefined };
      }),
    );
  }
}
