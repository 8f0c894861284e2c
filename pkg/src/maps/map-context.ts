// One partitioned map as each of its operations sees it: the database's context, the map's
// name, the layout this object last saw, how keys become canonical, and what its values must
// be. Keys are placed here (canonical key, then partition), stored partitions are checked here,
// and an operation that finds another layout stored than the one it placed keys with runs
// again under the stored one (withLayout).
import * as args from "../common/args.js";
import { EMAIL_KEYS } from "../common/constants.js";
import type { Context } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import { type IndexHost, indexesSignature } from "../indexes/index-host.js";
import * as wasm from "../wasm/core-module.js";
import { openPartitioned, type PartitionedLayout } from "./layout.js";
import type { EntryKind, Partition } from "./map-types.js";

/** Where a caller's key lives under one layout: its canonical form and its partition. */
export interface Placement {
  key: string;
  partitionName: string;
}

/** Thrown inside a transaction that found another layout stored than the one it placed keys with. */
export class StaleLayout {
  constructor(readonly raw: unknown) {}
}

/** How often one call re-places its keys after finding the layout changed under it. */
const LAYOUT_ATTEMPTS = 8;

/** A partitioned map's state and rules, shared by its reads, writes, pages and maintenance. */
export class MapContext<V> {
  /** The map as its indexes see it. */
  readonly indexHost: IndexHost<[string, V]>;

  constructor(
    readonly ctx: Context,
    readonly name: string,
    /** The stored layout as this object last saw it. */
    public layout: PartitionedLayout,
    private readonly canonicalizeKey: ((key: string) => string) | undefined,
    private readonly kind: EntryKind<V> | undefined,
  ) {
    this.indexHost = {
      ctx,
      name,
      noun: "map",
      ownersOf: (instance, value) => [...this.partition(instance, value)].map(([k, v]) => [k, v, v] as const),
      stored: () => this.layout.indexes ?? [],
      refresh: async () => {
        const { meta } = await ctx.instances.read(name, []);
        if (meta !== undefined) this.reloadLayout(meta);
      },
      withLayout: (read) => this.withLayout((layout) => read((raw) => this.current(raw, layout))),
      decode: (held, index) => {
        const [owner, value] = isEntry(held) ? held : [undefined, undefined];
        if (owner === undefined) throw corrupt(name, { index }, "an entry is not a [key, value] pair");
        const problem = this.kind?.problem(owner, value);
        if (problem !== undefined) throw corrupt(name, { index }, problem);
        return [owner, value as V];
      },
      indexed: (entry) => entry,
    };
  }

  /** Runs `op` with the layout this object knows; if a transaction finds another stored, reloads it and runs `op` again. */
  async withLayout<T>(op: (layout: PartitionedLayout) => Promise<T>): Promise<T> {
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
  reloadLayout(raw: unknown): void {
    this.layout = openPartitioned(this.name, raw, {
      partitionCount: undefined,
      keyRule: this.layout.keyRule,
      custom: this.canonicalizeKey !== undefined,
    }).layout;
  }

  /** Throws StaleLayout when the stored metadata is not the layout keys were placed with. */
  current(raw: unknown, layout: PartitionedLayout): void {
    if (raw === undefined) return; // the map's record is gone: nothing is stored, and a write stores it again
    const r = raw as Partial<PartitionedLayout>;
    // Indexes too: a failed build gives its version back, and a later one can use it again.
    const same =
      r.kind === "partitioned" &&
      r.layoutVersion === layout.layoutVersion &&
      r.partitionCount === layout.partitionCount &&
      r.keyRule === layout.keyRule &&
      (r.indexes === layout.indexes || indexesSignature(r.indexes) === indexesSignature(layout.indexes));
    if (!same) throw new StaleLayout(raw);
  }

  /** Whether `raw` (stored metadata) is `layout`; if not, takes the stored layout as this object's and says false. */
  adopt(raw: unknown, layout = this.layout): boolean {
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
  place(key: unknown, layout: PartitionedLayout, name: string): Placement {
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
    return this.placeCanonical(canonical, layout);
  }

  /** The partition of a key already canonical (a page's cursor, as stored keys were placed). */
  placeCanonical(key: string, layout: PartitionedLayout): Placement {
    const placed = wasm.placeKey(key, layout.keyRule === EMAIL_KEYS, layout.partitionCount);
    return { key: placed.key, partitionName: wasm.partitionName(placed.index, layout.partitionCount) };
  }

  /** A stored partition (undefined: none yet), checked to be one. */
  partition(instance: string, stored: unknown): Partition<V> {
    if (stored === undefined) return new Map();
    if (stored instanceof Map) return stored as Partition<V>;
    throw corrupt(this.name, instance, `a partition must be a Map, found ${args.describeType(stored)}`);
  }

  /** The value of `key` in a partition read from storage, checked when this map checks its values. */
  entry(instance: string, partition: Partition<V>, key: string): V | undefined {
    if (!partition.has(key)) return undefined;
    const value = partition.get(key);
    const problem = this.kind?.problem(key, value);
    if (problem !== undefined) throw corrupt(this.name, instance, problem);
    return value;
  }

  /** A caller's value for canonical `key` as the map stores it (the directory's profile check). */
  input(key: string, value: unknown, argument: string): V {
    return this.kind ? this.kind.input(key, value, argument) : (value as V);
  }

  /** The entries of a partition as stored, in canonical key order, checked. */
  ordered(instance: string, stored: unknown): Array<[string, V]> {
    const partition = this.partition(instance, stored);
    return [...partition.keys()].sort().map((key) => {
      if (typeof key !== "string") throw corrupt(this.name, instance, `a key is ${args.describeType(key)}, not a string`);
      return [key, this.entry(instance, partition, key) as V];
    });
  }
}

/** Whether a stored index entry is the `[owner, value]` pair an entry of a map holds. */
function isEntry(stored: unknown): stored is [string, unknown] {
  return Array.isArray(stored) && stored.length === 2 && typeof stored[0] === "string";
}
