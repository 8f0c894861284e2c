// A hash-partitioned map: each key lives in one of N partition instances, a dictionary
// from canonical key to value. A lookup reads one partition; an upsert locks, reads and
// rewrites one partition. Never the whole map. This class is the map's public face; what
// each call does is in the files beside it: placement (map-context.ts), reads (map-reads.ts),
// paging (map-pages.ts), writes and their locks (map-writes.ts), the resize (resize.ts),
// indexes (indexes/).

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { lazyModule } from "../common/lazy-module.js";
import { MAX_BATCH } from "../common/limits.js";
import { type WriteOptions, writeOptions } from "../concurrency/locks.js";
import { type CreateIndexOptions, type IndexDefinition, indexName, type KeyPath } from "../indexes/definition.js";
import { catalogCode, entryWritesFor, indexReader } from "../indexes/index-host.js";
import { Query } from "../indexes/query.js";
import type { MapRules } from "../transactions/participants.js";
import * as wasm from "../wasm/core-module.js";
import { openPartitioned } from "./layout.js";
import { MapContext, StaleLayout } from "./map-context.js";
import * as reads from "./map-reads.js";
import type { EntryKind, MapPage, MapPageOptions, ResizeOptions } from "./map-types.js";
import * as writes from "./map-writes.js";
import { KeyScope } from "./scope.js";

/** @internal A map's iteration and pages. */
export const mapPagesCode = /* @__PURE__ */ lazyModule(
  () => import("./map-pages.js"),
  "a map's entries(), page(), count() and partitionSizes()",
);

/** @internal A map's resize, and the maintenance module it starts. */
export const resizeCode = /* @__PURE__ */ lazyModule(() => import("./resize.js"), "resize()");

/**
 * A hash-partitioned map (docs/partitioned-map.md): values by canonical key, each key in the
 * partition its FNV-1a hash names; a lookup reads one partition, an upsert rewrites one. Get one
 * with `store.partitionedMap(name)`. `N`: the names `where` takes (those the map was opened with,
 * any string if it declared none).
 */
export class PartitionedMap<V, N extends string = string> {
  private constructor(private readonly m: MapContext<V>) {}

  /** @internal Opens the map, storing its layout on first use; `layout_mismatch` if it is stored with another. */
  static async open<V, N extends string = string>(
    ctx: Context,
    name: string,
    options: unknown,
    kind?: EntryKind<V>,
  ): Promise<PartitionedMap<V, N>> {
    const o = args.options("options", options);
    const count = args.optionalNumber("options.partitionCount", args.field("options", o, "partitionCount"));
    const rule = args.field("options", o, "keyRule");
    const fn = args.field("options", o, "canonicalizeKey");
    const canonicalizeKey = fn === undefined ? undefined : args.func<(key: string) => string>("options.canonicalizeKey", fn);
    const keyRule = rule === undefined ? undefined : args.text("options.keyRule", rule);
    if (keyRule !== undefined) wasm.checkKeyRule(keyRule, canonicalizeKey !== undefined);
    const wanted = {
      partitionCount: count === undefined ? undefined : wasm.resolvePartitionCount(count),
      keyRule,
      custom: canonicalizeKey !== undefined,
    };
    // The catalog's code loads only for a map that declares indexes, before anything is stored.
    const spec = args.field("options", o, "indexes");
    const catalog = spec === undefined ? undefined : await catalogCode.load();
    const indexes = catalog?.declared("options.indexes", spec) ?? [];
    const layout = await ctx.instances.openMap(name, `opening map "${name}"`, (meta) => {
      const opened = openPartitioned(name, meta, wanted);
      return { meta: opened.store ? opened.layout : undefined, result: opened.layout };
    });
    await entryWritesFor(layout.indexes);
    const m = new MapContext<V>(ctx, name, layout, canonicalizeKey, kind);
    if (catalog) await catalog.ensureIndexes(m.indexHost, indexes);
    return new PartitionedMap(m);
  }

  /** The map's name. */
  get name(): string {
    return this.m.name;
  }

  /** The partition count of the stored layout, as this object last saw it. */
  get partitionCount(): number {
    return this.m.layout.partitionCount;
  }

  /** The key rule stored with the map. */
  get keyRule(): string {
    return this.m.layout.keyRule;
  }

  /** 1 for a new map, one more after each resize. */
  get layoutVersion(): number {
    return this.m.layout.layoutVersion;
  }

  /**
   * The partition instance that holds `key`, as the scope of a `store.transaction`: the
   * transaction locks it (and writes to any key it holds go through `tx`).
   */
  at(key: string): KeyScope {
    return new KeyScope(this as PartitionedMap<unknown>, args.string("key", key));
  }

  /** @internal The rules a transaction (transactions/) applies to this map: placement, checks, writes; never its storage. */
  transactionRules(): MapRules<V> {
    const m = this.m;
    return {
      kind: "partitioned",
      name: m.name,
      database: m.ctx.instances.name,
      adopt: (raw) => m.adopt(raw),
      place: (key, argument) => m.place(key, m.layout, argument),
      partitionCount: () => m.layout.partitionCount,
      instances: () => Array.from({ length: m.layout.partitionCount }, (_, i) => wasm.partitionName(i, m.layout.partitionCount)),
      entry: (instance, raw, key) => m.entry(instance, m.partition(instance, raw), key),
      input: (key, value, argument) => m.input(key, value, argument),
      writes: (names, snapshot, edits) => {
        try {
          return writes.changes(m, names, m.layout, snapshot, (partition) => {
            for (const [instance, entries] of edits)
              for (const [key, edit] of entries) {
                if ("value" in edit) partition(instance).set(key, edit.value);
                else partition(instance).delete(key);
              }
          });
        } catch (e) {
          if (!(e instanceof StaleLayout)) throw e;
          throw new AttrmapError("layout_changed", `map "${m.name}" changed its layout while a transaction held it`);
        }
      },
    };
  }

  /** The value stored under `key`, or `undefined`. Reads one partition, takes no lock. */
  async get(key: string): Promise<V | undefined> {
    return reads.get(this.m, key);
  }

  /** Values of many keys, by canonical key (absent keys are left out); each partition is read once, in one transaction. */
  async getMany(keys: Iterable<string>): Promise<Map<string, V>> {
    return reads.getMany(this.m, keys);
  }

  /** Stores `value` under `key`: locks, reads and rewrites one partition. Idempotent. */
  async upsert(key: string, value: V, options: WriteOptions = {}): Promise<void> {
    await writes.upsertEach(this.m, [key], ["key"], () => value, writeOptions(options));
  }

  /**
   * Stores many entries: keys are grouped by partition, every partition involved is locked
   * (in name order) and written once, all in one transaction. Returns the number written.
   * At most 1,000,000 entries a call.
   */
  async upsertMany(entries: Iterable<readonly [string, V]>, options: WriteOptions = {}): Promise<number> {
    const opts = writeOptions(options);
    const list = args.list<unknown>("entries", entries, MAX_BATCH).map((e, i) => args.entry<V>(`entries[${i}]`, e));
    const stored = await writes.upsertEach(
      this.m,
      list.map(([k]) => k),
      list.map((_, i) => `entries[${i}][0]`),
      (_, i) => list[i]![1],
      opts,
    );
    return stored.length;
  }

  /**
   * @internal Stores, under each of `keys` (named `names[i]` in messages), the value `value`
   * makes from its canonical form; returns the values stored.
   */
  upsertEach(
    keys: readonly unknown[],
    names: readonly string[],
    value: (canonicalKey: string, i: number) => V,
    options: WriteOptions,
  ): Promise<V[]> {
    return writes.upsertEach(this.m, keys, names, value, options);
  }

  /**
   * Atomically replaces the value of `key` with `change(current)` (`current` is `undefined`
   * when absent) under the partition's lock, and returns the stored value. An error thrown
   * by `change` is passed on as it is, and nothing is written.
   */
  async update(key: string, change: (current: V | undefined) => V, options: WriteOptions = {}): Promise<V> {
    return writes.update(this.m, key, change, writeOptions(options));
  }

  /** Removes `key`; true if it was there. Locks and rewrites one partition (removed when left empty). */
  async delete(key: string, options: WriteOptions = {}): Promise<boolean> {
    return this.deleteMany([key], options).then((n) => n === 1);
  }

  /** Removes many keys in one transaction; returns how many were there. */
  async deleteMany(keys: Iterable<string>, options: WriteOptions = {}): Promise<number> {
    const opts = writeOptions(options);
    return writes.deleteMany(this.m, args.list<unknown>("keys", keys, MAX_BATCH), opts);
  }

  /**
   * Adds an index (docs/indexes.md): `keyPath` is a dotted path into the values, or an array of
   * them for a compound index. Builds its entries over the map as it is, all or nothing (an
   * error or an abort of `signal` adds nothing), reporting progress; writers in any context go
   * on meanwhile and keep it. Needs no version upgrade of the database: no tab is blocked.
   * Nothing if the index exists with this definition; `already_exists` if with another.
   * Resolves to this map, typed to take the new name in `where` too.
   */
  async createIndex<M extends string>(
    name: M,
    keyPath: KeyPath<V> | readonly KeyPath<V>[],
    options: CreateIndexOptions = {},
  ): Promise<PartitionedMap<V, N | M>> {
    await (await catalogCode.load()).createIndex(this.m.indexHost, name, keyPath, options);
    return this;
  }

  /** Removes an index and its entries (after any build of it in progress); whether it was there. */
  async dropIndex(name: string, options: WriteOptions = {}): Promise<boolean> {
    return (await catalogCode.load()).removeIndex(this.m.indexHost, name, options);
  }

  /** The map's indexes, as stored now (an index still being built is not listed). */
  async indexes(): Promise<IndexDefinition[]> {
    return (await catalogCode.load()).listIndexes(this.m.indexHost);
  }

  /**
   * A query of index `name`: `where("byCompany").equals("Acme").toArray()`. Each read is one
   * readonly transaction over the index's entries (which hold their keys' values); no lock.
   */
  where(name: N): Query<[string, V]> {
    return new Query<[string, V]>(indexReader(this.m.indexHost), indexName("name", name));
  }

  /** Entries per stored partition, by partition name (index order). Reads every partition, one at a time, in one transaction. */
  async partitionSizes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    await (await mapPagesCode.load()).scan(this.m, (instance, partition) => void sizes.set(instance, partition.size));
    return sizes;
  }

  /** Entries in the whole map: reads every partition, one at a time, in one transaction. */
  async count(): Promise<number> {
    let total = 0;
    await (await mapPagesCode.load()).scan(this.m, (_, partition) => void (total += partition.size));
    return total;
  }

  /** Removes every entry (every partition instance); the layout stays. Waits for, and holds back, every writer of the map. */
  async clear(options: WriteOptions = {}): Promise<void> {
    await writes.clear(this.m, writeOptions(options));
  }

  /**
   * Moves every entry to the partition its hash names under `partitionCount`, removes the old
   * partitions and stores the new count with `layoutVersion` + 1, all in one transaction:
   * seen from outside (any tab, a crash at any moment) the map is as before or as after.
   * It holds the map's lock alone: writers wait for it (or get `lock_conflict` with
   * `lock: "ifAvailable"`) and are then placed under the new count. Aborting `signal` before
   * the commit changes nothing. The whole map is in memory while it runs.
   */
  async resize(partitionCount: number, options: ResizeOptions = {}): Promise<void> {
    await (await resizeCode.load()).resize(this.m, partitionCount, options);
  }

  /**
   * Every entry, in partition index order and then canonical key order (UTF-16 code units).
   * Reads one partition per step, each a consistent snapshot; takes no lock. A resize that
   * commits while it runs makes it throw `layout_changed` rather than skip or repeat a key.
   */
  async *entries(): AsyncIterableIterator<[string, V]> {
    yield* (await mapPagesCode.load()).entries(this.m);
  }

  /**
   * A page of `limit` entries for a list, in the order of `entries()`: the first, or those after
   * `after` (the `next` of the page before). Reads only the partitions that hold them (and, when
   * a page ends with a partition, whether another follows), with no lock. A resize reorders the
   * map: pages read across one can repeat or miss entries; `layoutVersion` tells.
   */
  async page(options: MapPageOptions): Promise<MapPage<V>> {
    return (await mapPagesCode.load()).page(this.m, options);
  }

  /** Every canonical key, in the order of `entries()`. */
  async *keys(): AsyncIterableIterator<string> {
    for await (const [key] of this.entries()) yield key;
  }

  /** Every value, in the order of `entries()`. */
  async *values(): AsyncIterableIterator<V> {
    for await (const [, value] of this.entries()) yield value;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<[string, V]> {
    return this.entries();
  }
}
