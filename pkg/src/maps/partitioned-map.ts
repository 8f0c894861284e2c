// A hash-partitioned map: each key lives in one of N partition instances, a dictionary
// from canonical key to value. A lookup reads one partition; an upsert locks, reads and
// rewrites one partition. Never the whole map.

import * as args from "../common/args.js";
import { EMAIL_KEYS } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import { MAX_BATCH } from "../common/limits.js";
import { commit } from "../concurrency/group-commit.js";
import { boundedWait, type LockRequest, type WriteOptions, withLocks, writeOptions } from "../concurrency/locks.js";
import { deletingAll, type EntryWrites, noEntryWrites } from "../idb/entry-store.js";
import type { EntryKey, Owner } from "../idb/keys.js";
import {
  createIndex,
  ensureIndexes,
  findIndex,
  type IndexOwner,
  listIndexes,
  queryableIndex,
  removeIndex,
} from "../indexes/catalog.js";
import {
  type CreateIndexOptions,
  declared,
  type IndexDefinition,
  type IndexSpec,
  indexName,
  type KeyPath,
} from "../indexes/definition.js";
import { changeEntries, describeValue } from "../indexes/entries.js";
import { planRanges, Query, type ReadPlan } from "../indexes/query.js";
import type { Snapshot, Writes } from "../instances/instances.js";
import type { MapRules } from "../transactions/participants.js";
import * as wasm from "../wasm/core-module.js";
import * as maintenance from "../wasm/maintenance-module.js";
import { openPartitioned, type PartitionedLayout } from "./layout.js";
import { KeyScope } from "./scope.js";

/** How `store.partitionedMap(name, options)` opens or creates a map of values of type `V`. */
export interface PartitionedMapOptions<V = unknown> {
  /**
   * Partitions of the map. Left out: 1000 for a new map, the stored count for an existing one.
   * Given for an existing map, it must be the stored count: another is `layout_mismatch`
   * (`resize()` changes the count).
   */
  partitionCount?: number | undefined;
  /**
   * How keys become canonical: `"exact"` (default for a new map: any string as it is),
   * `"email"` (the email rule of docs/partitioned-map.md), or the name of `canonicalizeKey`. Stored with the map:
   * opening it with another rule is `layout_mismatch`.
   */
  keyRule?: string | undefined;
  /** Your own canonicalizer (its rule is stored as `keyRule`, `"custom"` if you give no name). Must be stable. */
  canonicalizeKey?: ((key: string) => string) | undefined;
  /**
   * Indexes the map must have (docs/indexes.md): by name, a key path or `{ keyPath, unique,
   * multiEntry }`. A missing one is built as the map opens; one stored with another
   * definition is `layout_mismatch`; stored ones not declared are kept.
   */
  indexes?: Readonly<Record<string, IndexSpec<V>>> | undefined;
}

/** A partition instance: canonical key to value. A `Map`, so any string key round-trips (`__proto__` too). */
export type Partition<V> = Map<string, V>;

/** How far a resize has got: entries written to their new partitions, of all entries. */
export interface ResizeProgress {
  done: number;
  total: number;
}

/** How `map.resize(partitionCount, options)` waits and reports. */
export interface ResizeOptions extends WriteOptions {
  /** Called as entries are written to their new partitions (between IndexedDB requests). */
  onProgress?: ((progress: ResizeProgress) => void) | undefined;
}

/** Which entries `map.page(options)` holds: the first, or those after the `next` cursor of an earlier page. */
export interface MapPageOptions {
  /** The canonical key the page starts after (an earlier page's `next`). */
  after?: string | null | undefined;
  /** Entries on the page, 1 to 10,000. */
  limit: number;
}

/** A page of `map.page(options)`: up to `limit` entries in the order of `entries()`. */
export interface MapPage<V> {
  entries: Array<[string, V]>;
  /** `after` of the next page, or null when this page reaches the last entry. */
  next: string | null;
}

/**
 * @internal What the entries of a map must be (customer profiles are checked; other maps hold
 * any value): why a stored value is not one (undefined when it is), and a caller's value as the
 * map stores it under canonical `key`.
 */
export interface EntryKind<V> {
  problem(key: string, value: unknown): string | undefined;
  input(key: string, value: unknown, argument: string): V;
}

interface Placement {
  key: string;
  partitionName: string;
}

/** Thrown inside a transaction that found another layout stored than the one it placed keys with. */
class StaleLayout {
  constructor(readonly raw: unknown) {}
}

/** How often one call re-places its keys after finding the layout changed under it. */
const LAYOUT_ATTEMPTS = 8;

/**
 * A hash-partitioned map (docs/partitioned-map.md): values by canonical key, each key in the
 * partition its FNV-1a hash names; a lookup reads one partition, an upsert rewrites one. Get one
 * with `store.partitionedMap(name)`.
 */
export class PartitionedMap<V> {
  private constructor(
    private readonly ctx: Context,
    readonly name: string,
    private layout: PartitionedLayout,
    private readonly canonicalizeKey: ((key: string) => string) | undefined,
    private readonly kind: EntryKind<V> | undefined,
  ) {}

  /** @internal Opens the map, storing its layout on first use; `layout_mismatch` if it is stored with another. */
  static async open<V>(ctx: Context, name: string, options: unknown, kind?: EntryKind<V>): Promise<PartitionedMap<V>> {
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
    const indexes = declared("options.indexes", args.field("options", o, "indexes"));
    const layout = await ctx.instances.openMap(name, `opening map "${name}"`, (meta) => {
      const opened = openPartitioned(name, meta, wanted);
      return { meta: opened.store ? opened.layout : undefined, result: opened.layout };
    });
    const map = new PartitionedMap<V>(ctx, name, layout, canonicalizeKey, kind);
    await ensureIndexes(map.catalog, indexes);
    return map;
  }

  /** The partition count of the stored layout, as this object last saw it. */
  get partitionCount(): number {
    return this.layout.partitionCount;
  }

  /** The key rule stored with the map. */
  get keyRule(): string {
    return this.layout.keyRule;
  }

  /** 1 for a new map, one more after each resize. */
  get layoutVersion(): number {
    return this.layout.layoutVersion;
  }

  /** Runs `op` with the layout this object knows; if a transaction finds another stored, reloads it and runs `op` again. */
  private async withLayout<T>(op: (layout: PartitionedLayout) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op(this.layout);
      } catch (e) {
        if (!(e instanceof StaleLayout)) throw e;
        if (attempt === LAYOUT_ATTEMPTS)
          throw new AttrmapError("layout_changed", `map "${this.name}" changed its layout ${attempt} times during one call`);
        this.reloadLayout(e.raw);
      }
    }
  }

  /** Takes the layout stored now (`raw`, found by a transaction) as this object's. */
  private reloadLayout(raw: unknown): void {
    this.layout = openPartitioned(this.name, raw, {
      partitionCount: undefined,
      keyRule: this.layout.keyRule,
      custom: this.canonicalizeKey !== undefined,
    }).layout;
  }

  /** Throws StaleLayout when the stored metadata is not the layout keys were placed with. */
  private current(raw: unknown, layout: PartitionedLayout): void {
    if (raw === undefined) return; // the map's record is gone: nothing is stored, and a write stores it again
    const r = raw as Partial<PartitionedLayout>;
    const same =
      r.kind === "partitioned" &&
      r.layoutVersion === layout.layoutVersion &&
      r.partitionCount === layout.partitionCount &&
      r.keyRule === layout.keyRule;
    if (!same) throw new StaleLayout(raw);
  }

  /** Whether `raw` (stored metadata) is `layout`; if not, takes the stored layout as this object's and says false. */
  private adopt(raw: unknown, layout = this.layout): boolean {
    try {
      this.current(raw, layout);
      return true;
    } catch (e) {
      if (!(e instanceof StaleLayout)) throw e;
      this.reloadLayout(e.raw);
      return false;
    }
  }

  /** The canonical key and partition of a caller's key under `layout`. */
  private place(key: unknown, layout: PartitionedLayout, name: string): Placement {
    let canonical: string;
    if (this.canonicalizeKey) {
      const given = args.string(name, key);
      const out = this.canonicalizeKey(given);
      if (typeof out !== "string")
        throw args.invalid(`canonicalizeKey must return a string, got ${args.describeType(out)} for ${name}`);
      canonical = args.text(`the canonical form of ${name}`, out);
    } else {
      canonical = args.text(name, key);
    }
    const placed = wasm.placeKey(canonical, layout.keyRule === EMAIL_KEYS, layout.partitionCount);
    return { key: placed.key, partitionName: wasm.partitionName(placed.index, layout.partitionCount) };
  }

  private partition(instance: string, stored: unknown): Partition<V> {
    if (stored === undefined) return new Map();
    if (stored instanceof Map) return stored as Partition<V>;
    throw corrupt(this.name, instance, `a partition must be a Map, found ${args.describeType(stored)}`);
  }

  /** The value of `key` in a partition read from storage, checked when this map checks its values. */
  private entry(instance: string, partition: Partition<V>, key: string): V | undefined {
    if (!partition.has(key)) return undefined;
    const value = partition.get(key);
    const problem = this.kind?.problem(key, value);
    if (problem !== undefined) throw corrupt(this.name, instance, problem);
    return value;
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
    return {
      kind: "partitioned",
      name: this.name,
      database: this.ctx.instances.name,
      adopt: (raw) => this.adopt(raw),
      place: (key, argument) => {
        const p = this.place(key, this.layout, argument);
        return { key: p.key, instance: p.partitionName };
      },
      partitionCount: () => this.layout.partitionCount,
      instances: () =>
        Array.from({ length: this.layout.partitionCount }, (_, i) => wasm.partitionName(i, this.layout.partitionCount)),
      entry: (instance, raw, key) => this.entry(instance, this.partition(instance, raw), key),
      input: (key, value, argument) => (this.kind ? this.kind.input(key, value, argument) : (value as V)),
      writes: (names, snapshot, edits) => {
        try {
          return this.changes(names, this.layout, snapshot, (partition) => {
            for (const [instance, entries] of edits)
              for (const [key, edit] of entries) {
                if ("value" in edit) partition(instance).set(key, edit.value);
                else partition(instance).delete(key);
              }
          });
        } catch (e) {
          if (!(e instanceof StaleLayout)) throw e;
          throw new AttrmapError("layout_changed", `map "${this.name}" changed its layout while a transaction held it`);
        }
      },
    };
  }

  /** The value stored under `key`, or `undefined`. Reads one partition, takes no lock. */
  async get(key: string): Promise<V | undefined> {
    return this.withLayout(async (layout) => {
      const p = this.place(key, layout, "key");
      const { meta, values } = await this.ctx.instances.read(this.name, [p.partitionName]);
      this.current(meta, layout);
      return this.entry(p.partitionName, this.partition(p.partitionName, values[0]), p.key);
    });
  }

  /** Values of many keys, by canonical key (absent keys are left out); each partition is read once, in one transaction. */
  async getMany(keys: Iterable<string>): Promise<Map<string, V>> {
    const list = args.list<unknown>("keys", keys, MAX_BATCH);
    return this.withLayout(async (layout) => {
      const placed = list.map((k, i) => this.place(k, layout, `keys[${i}]`));
      const names = [...new Set(placed.map((p) => p.partitionName))];
      const { meta, values } = await this.ctx.instances.read(this.name, names);
      this.current(meta, layout);
      const partitions = new Map(names.map((n, i) => [n, this.partition(n, values[i])]));
      const found = new Map<string, V>();
      for (const p of placed) {
        const partition = partitions.get(p.partitionName)!;
        if (partition.has(p.key)) found.set(p.key, this.entry(p.partitionName, partition, p.key) as V);
      }
      return found;
    });
  }

  /** Stores `value` under `key`: locks, reads and rewrites one partition. Idempotent. */
  async upsert(key: string, value: V, options: WriteOptions = {}): Promise<void> {
    await this.upsertEach([key], ["key"], () => value, writeOptions(options));
  }

  /**
   * Stores many entries: keys are grouped by partition, every partition involved is locked
   * (in name order) and written once, all in one transaction. Returns the number written.
   * At most 1,000,000 entries a call.
   */
  async upsertMany(entries: Iterable<readonly [string, V]>, options: WriteOptions = {}): Promise<number> {
    const opts = writeOptions(options);
    const list = args.list<unknown>("entries", entries, MAX_BATCH).map((e, i) => args.entry<V>(`entries[${i}]`, e));
    const stored = await this.upsertEach(
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
  async upsertEach(
    keys: readonly unknown[],
    names: readonly string[],
    value: (canonicalKey: string, i: number) => V,
    options: WriteOptions,
  ): Promise<V[]> {
    return this.edit(
      options,
      (layout) => keys.map((k, i) => this.place(k, layout, names[i]!)),
      (partition, placed) =>
        placed.map((p, i) => {
          const v = value(p.key, i);
          partition(p.partitionName).set(p.key, v);
          return v;
        }),
    );
  }

  /**
   * Atomically replaces the value of `key` with `change(current)` (`current` is `undefined`
   * when absent) under the partition's lock, and returns the stored value. An error thrown
   * by `change` is passed on as it is, and nothing is written.
   */
  async update(key: string, change: (current: V | undefined) => V, options: WriteOptions = {}): Promise<V> {
    const fn = args.func<(current: V | undefined) => V>("change", change);
    return this.edit(
      writeOptions(options),
      (layout) => [this.place(key, layout, "key")],
      (partition, [p]) => {
        const value = fn(this.entry(p!.partitionName, partition(p!.partitionName), p!.key));
        partition(p!.partitionName).set(p!.key, value);
        return value;
      },
    );
  }

  /** Removes `key`; true if it was there. Locks and rewrites one partition (removed when left empty). */
  async delete(key: string, options: WriteOptions = {}): Promise<boolean> {
    return this.deleteMany([key], options).then((n) => n === 1);
  }

  /** Removes many keys in one transaction; returns how many were there. */
  async deleteMany(keys: Iterable<string>, options: WriteOptions = {}): Promise<number> {
    const opts = writeOptions(options);
    const list = args.list<unknown>("keys", keys, MAX_BATCH);
    return this.edit(
      opts,
      (layout) => list.map((k, i) => this.place(k, layout, `keys[${i}]`)),
      (partition, placed) => placed.reduce((n, p) => n + (partition(p.partitionName).delete(p.key) ? 1 : 0), 0),
    );
  }

  /**
   * Locks the partitions `place` names (and, for a bounded wait, the map), then reads, changes
   * and rewrites them in one transaction. `change` edits partitions through `partition(name)`;
   * only those it asked for are written, and a partition left empty is removed.
   */
  private edit<T>(
    options: WriteOptions,
    place: (layout: PartitionedLayout) => Placement[],
    change: (partition: (name: string) => Partition<V>, placed: Placement[]) => T,
  ): Promise<T> {
    return this.withLayout((layout) => {
      const placed = place(layout);
      const names = [...new Set(placed.map((p) => p.partitionName))].sort();
      const requests: LockRequest[] = names.map((n) => ({ key: lockKey(this.ctx, this.name, n), mode: "exclusive" }));
      // A write that may not wait, or only so long, shares the map's lock, to meet a clear or a
      // resize holding it. One that waits without bound needs no second lock (each costs a round
      // trip to the lock manager): IndexedDB runs its transaction before or after the whole-map
      // one, and one that runs after finds the new layout and places its keys again.
      if (options.lock === "ifAvailable" || boundedWait(options))
        requests.unshift({ key: lockKey(this.ctx, this.name), mode: "shared" });
      const doing =
        names.length === 1
          ? `writing "${names[0]}" of map "${this.name}"`
          : `writing ${names.length} partitions of map "${this.name}"`;
      return commit(this.ctx, this.name, options, {
        locks: requests,
        instances: names,
        doing,
        compute: (snapshot) => this.changes(names, layout, snapshot, (partitions) => change(partitions, placed)),
      });
    });
  }

  /**
   * What `change` does to the partitions `names` as `snapshot` has them: checks the layout,
   * lets `change` edit copies (a write of a batch that throws leaves the stored ones as they
   * were), and returns the partitions it edited, removing those it left empty.
   */
  private changes<T>(
    names: readonly string[],
    layout: PartitionedLayout,
    { meta, values }: Snapshot,
    change: (partition: (name: string) => Partition<V>) => T,
  ): Writes<T> {
    this.current(meta, layout);
    const stored = new Map(names.map((n, i) => [n, values[i]]));
    const edited = new Map<string, Partition<V>>();
    const partition = (name: string) => {
      let p = edited.get(name);
      if (!p) edited.set(name, (p = new Map(this.partition(name, stored.get(name)))));
      return p;
    };
    const result = change(partition);
    const put = [...edited].filter(([, p]) => p.size > 0);
    const removed = [...edited].filter(([n, p]) => p.size === 0 && stored.get(n) !== undefined).map(([n]) => n);
    const entries = layout.indexes ? this.entryChanges(layout.indexes, stored, edited) : undefined;
    return { put, delete: removed, meta: meta === undefined ? layout : undefined, entries, result };
  }

  /** What edits to partitions (`stored` before, `edited` after) do to the entries of `indexes`. */
  private entryChanges(
    indexes: readonly IndexDefinition[],
    stored: ReadonlyMap<string, unknown>,
    edited: ReadonlyMap<string, Partition<V>>,
  ): EntryWrites {
    const out = noEntryWrites();
    for (const [name, after] of edited) {
      const before = this.partition(name, stored.get(name));
      // An edit copies the stored partition: a value it did not change is the same object.
      for (const [key, value] of after)
        if (!before.has(key) || before.get(key) !== value)
          changeEntries(this.name, indexes, key, before.get(key), value, out, this.conflict);
      for (const [key, value] of before)
        if (!after.has(key)) changeEntries(this.name, indexes, key, value, undefined, out, this.conflict);
    }
    return out;
  }

  /** The error of a write that would give unique index `def` value `flat` for `owner` while `other` has it. */
  private conflict = (def: IndexDefinition, flat: ReadonlyArray<string | number>, owner: Owner, other: Owner): AttrmapError =>
    new AttrmapError(
      "constraint_violation",
      `index "${def.name}" of map "${this.name}": value ${describeValue(flat, Array.isArray(def.keyPath))} ` +
        `is held by ${JSON.stringify(other)}, so ${JSON.stringify(owner)} cannot hold it`,
    );

  /** The map as its indexes see it. */
  private get catalog(): IndexOwner {
    return {
      indexed: {
        ctx: this.ctx,
        name: this.name,
        ownersOf: (instance, value) => [...this.partition(instance, value)].map(([k, v]) => [k, v, v] as const),
        conflict: this.conflict,
      },
      stored: () => this.layout.indexes ?? [],
      refresh: () => this.refresh(),
    };
  }

  /** Reads the stored layout again (after a change of indexes, here or in another context). */
  private async refresh(): Promise<void> {
    const { meta } = await this.ctx.instances.read(this.name, []);
    if (meta !== undefined) this.reloadLayout(meta);
  }

  /**
   * Adds an index (docs/indexes.md): `keyPath` is a dotted path into the values, or an array of
   * them for a compound index. Builds its entries over the map as it is, all or nothing (an
   * error or an abort of `signal` adds nothing), reporting progress; writers in any context go
   * on meanwhile and keep it. Needs no version upgrade of the database: no tab is blocked.
   * Nothing if the index exists with this definition; `already_exists` if with another.
   */
  async createIndex(name: string, keyPath: KeyPath<V> | readonly KeyPath<V>[], options: CreateIndexOptions = {}): Promise<void> {
    return createIndex(this.catalog, name, keyPath, options);
  }

  /** Removes an index and its entries (after any build of it in progress); whether it was there. */
  async dropIndex(name: string, options: WriteOptions = {}): Promise<boolean> {
    return removeIndex(this.catalog, name, options);
  }

  /** The map's indexes, as stored now (an index still being built is not listed). */
  async indexes(): Promise<IndexDefinition[]> {
    return listIndexes(this.catalog);
  }

  /**
   * A query of index `name`: `where("byCompany").equals("Acme").toArray()`. Each read is one
   * readonly transaction over the index and the partitions its entries name; no lock.
   */
  where(name: string): Query<[string, V]> {
    const index = indexName("name", name);
    return new Query<[string, V]>(
      { readIndex: (i, plan) => this.readIndex(i, plan), countIndex: (i, plan) => this.countIndex(i, plan) },
      index,
    );
  }

  /** Throws StaleLayout for another layout or when index `name` is gone, and `invalid_argument` while it is being built. */
  private queryable(raw: unknown, layout: PartitionedLayout, name: string): void {
    this.current(raw, layout);
    if (queryableIndex(raw, this.name, name) === undefined) throw new StaleLayout(raw);
  }

  private readIndex(index: string, plan: ReadPlan): Promise<{ keys: EntryKey[]; entries: Array<[string, V]> }> {
    return this.withLayout(async (layout) => {
      const def = await findIndex(this.catalog, index);
      const found = await this.ctx.instances.search(
        this.name,
        planRanges(this.name, def, plan),
        { reverse: plan.reverse, limit: plan.limit, keys: plan.read !== "entries", values: plan.read !== "keys" },
        `reading index "${index}" of map "${this.name}"`,
      );
      this.queryable(found.meta, layout, index);
      const entries = found.values.map((stored): [string, V] => {
        const [owner, value] = isEntry(stored) ? stored : [undefined, undefined];
        if (owner === undefined) throw corrupt(this.name, `index "${index}"`, "an entry is not a [key, value] pair");
        const problem = this.kind?.problem(owner, value);
        if (problem !== undefined) throw corrupt(this.name, `index "${index}"`, problem);
        return [owner, value as V];
      });
      return { keys: found.keys, entries };
    });
  }

  private countIndex(index: string, plan: ReadPlan): Promise<number> {
    return this.withLayout(async (layout) => {
      const def = await findIndex(this.catalog, index);
      const { meta, count } = await this.ctx.instances.countEntries(
        this.name,
        planRanges(this.name, def, plan),
        `counting index "${index}" of map "${this.name}"`,
      );
      this.queryable(meta, layout, index);
      return count;
    });
  }

  /** Entries per stored partition, by partition name (index order). Reads every partition, one at a time, in one transaction. */
  async partitionSizes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    await this.scan((instance, partition) => void sizes.set(instance, partition.size));
    return sizes;
  }

  /** Entries in the whole map: reads every partition, one at a time, in one transaction. */
  async count(): Promise<number> {
    let total = 0;
    await this.scan((_, partition) => void (total += partition.size));
    return total;
  }

  private async scan(visit: (instance: string, partition: Partition<V>) => void): Promise<void> {
    await this.ctx.instances.scan(this.name, `reading the partitions of map "${this.name}"`, (_, instance, value) =>
      visit(instance, this.partition(instance, value)),
    );
  }

  /** Removes every entry (every partition instance); the layout stays. Waits for, and holds back, every writer of the map. */
  async clear(options: WriteOptions = {}): Promise<void> {
    const opts = writeOptions(options);
    await this.withLayout((layout) =>
      withLocks(this.ctx.locks, [{ key: lockKey(this.ctx, this.name), mode: "exclusive" }], opts, () =>
        this.ctx.instances.write(
          this.name,
          [],
          `clearing map "${this.name}"`,
          ({ meta, names }) => {
            this.current(meta, layout);
            const entries = layout.indexes ? deletingAll([this.name]) : undefined;
            return { delete: names, meta: meta === undefined ? layout : undefined, entries, result: undefined };
          },
          "keys",
        ),
      ),
    );
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
    const count = wasm.resolvePartitionCount(args.number("partitionCount", partitionCount));
    const opts = writeOptions(options);
    const progress = args.field("options", args.options("options", options), "onProgress");
    const onProgress =
      progress === undefined ? undefined : args.func<(p: ResizeProgress) => void>("options.onProgress", progress);
    const stop = () => {
      if (opts.signal?.aborted)
        throw new AttrmapError("aborted", `the resize of map "${this.name}" was aborted`, { cause: opts.signal.reason });
    };
    await maintenance.maintenanceReady(); // before the lock and the transaction, which must not wait on it
    const resized = await withLocks(this.ctx.locks, [{ key: lockKey(this.ctx, this.name), mode: "exclusive" }], opts, () =>
      this.ctx.instances.rewrite(this.name, `resizing map "${this.name}" to ${count} partitions`, async (tx) => {
        this.reloadLayout(tx.meta ?? this.layout);
        const layout = this.layout;
        if (layout.partitionCount === count) return layout;
        const keys: string[] = [];
        const values: V[] = [];
        tx.names.forEach((name, i) => {
          for (const [key, value] of this.partition(name, tx.values[i])) {
            if (typeof key !== "string") throw corrupt(this.name, name, `a key is ${args.describeType(key)}, not a string`);
            keys.push(key);
            values.push(value);
          }
        });
        const indexes = maintenance.partitionIndexes(keys, count);
        const moved = new Map<string, Partition<V>>();
        indexes.forEach((index, i) => {
          const name = wasm.partitionName(index, count);
          let partition = moved.get(name);
          if (!partition) moved.set(name, (partition = new Map()));
          partition.set(keys[i]!, values[i]!);
        });
        stop();
        tx.clear();
        let done = 0;
        for (const [name, partition] of [...moved].sort(([a], [b]) => (a < b ? -1 : 1))) {
          await tx.put(name, partition);
          done += partition.size;
          onProgress?.({ done, total: keys.length });
          stop();
        }
        const after = { ...layout, partitionCount: count, layoutVersion: layout.layoutVersion + 1 };
        tx.putMeta(after);
        return after;
      }),
    );
    this.layout = resized; // once committed
  }

  /**
   * Every entry, in partition index order and then canonical key order (UTF-16 code units).
   * Reads one partition per step, each a consistent snapshot; takes no lock. A resize that
   * commits while it runs makes it throw `layout_changed` rather than skip or repeat a key.
   */
  async *entries(): AsyncIterableIterator<[string, V]> {
    let after: string | undefined;
    let layout: PartitionedLayout | undefined;
    for (;;) {
      const step = await this.ctx.instances.readNext(this.name, after, `reading the partitions of map "${this.name}"`);
      if (step.meta === undefined) return;
      if (layout === undefined) {
        this.adopt(step.meta);
        layout = this.layout;
      } else if (!this.adopt(step.meta, layout)) {
        throw new AttrmapError("layout_changed", `map "${this.name}" was resized while its entries were being read`);
      }
      if (step.instance === undefined) return;
      yield* this.ordered(step.instance, step.value);
      after = step.instance;
    }
  }

  /** The entries of a partition as stored, in canonical key order, checked. */
  private ordered(instance: string, stored: unknown): Array<[string, V]> {
    const partition = this.partition(instance, stored);
    return [...partition.keys()].sort().map((key) => {
      if (typeof key !== "string") throw corrupt(this.name, instance, `a key is ${args.describeType(key)}, not a string`);
      return [key, this.entry(instance, partition, key) as V];
    });
  }

  /**
   * A page of `limit` entries for a list, in the order of `entries()`: the first, or those after
   * `after` (the `next` of the page before). Reads only the partitions that hold them (and, when
   * a page ends with a partition, whether another follows), with no lock. A resize reorders the
   * map: pages read across one can repeat or miss entries; `layoutVersion` tells.
   */
  async page(options: MapPageOptions): Promise<MapPage<V>> {
    const o = args.options("options", options);
    const cursor = args.field("options", o, "after");
    const after = cursor == null ? undefined : args.text("options.after", cursor); // null (a last page's next): no cursor
    const limit = args.pageLimit("options.limit", args.field("options", o, "limit"));
    const doing = `reading a page of map "${this.name}"`;
    return this.withLayout(async (layout) => {
      const found: Array<[string, V]> = [];
      let instance: string | undefined; // the last partition read
      if (after !== undefined) {
        // The cursor is canonical already: placed as stored keys were, without canonicalizeKey.
        const placed = wasm.placeKey(after, layout.keyRule === EMAIL_KEYS, layout.partitionCount);
        instance = wasm.partitionName(placed.index, layout.partitionCount);
        const { meta, values } = await this.ctx.instances.read(this.name, [instance]);
        this.current(meta, layout);
        found.push(...this.ordered(instance, values[0]).filter(([key]) => key > after));
      }
      for (;;) {
        if (found.length > limit) return { entries: found.slice(0, limit), next: found[limit - 1]![0] };
        const step = await this.ctx.instances.readNext(this.name, instance, doing);
        this.current(step.meta, layout); // another layout: the page is read again under it
        // A stored partition is never empty, so one more partition means one more entry.
        if (found.length === limit) return { entries: found, next: step.instance === undefined ? null : found.at(-1)![0] };
        if (step.instance === undefined) return { entries: found, next: null };
        found.push(...this.ordered(step.instance, step.value));
        instance = step.instance;
      }
    });
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

/** Whether a stored index entry is the `[owner, value]` pair an entry of a map holds. */
function isEntry(stored: unknown): stored is [string, unknown] {
  return Array.isArray(stored) && stored.length === 2 && typeof stored[0] === "string";
}
