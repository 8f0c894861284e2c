// A transaction's parts (docs/transactions.md): for each map or log of the scope, the rules it
// applies, what it locks (the instances of its keys, or the whole map; a log's `current`),
// what the work staged in it and what it read. The locks of a scope are planned here.
import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import type { LockRequest } from "../concurrency/locks.js";
import type { Snapshot } from "../instances/instances.js";
import { ChunkedLog } from "../logs/chunked-log.js";
import type { Placement } from "../maps/map-context.js";
import { PartitionedMap } from "../maps/partitioned-map.js";
import { KeyScope } from "../maps/scope.js";
import { CustomerDirectory } from "../reference-samples/customer-directory.js";
import { SubscriberArchive } from "../reference-samples/subscriber-archive.js";
import type { Edit, LogRules, MapRules } from "./participants.js";
import { MAX_WHOLE_MAP_PARTITIONS } from "./transaction-types.js";

/** A copy of a caller's value as IndexedDB would store it, made now: later changes to the caller's object do not reach it. */
export function copy<T>(value: T, argument: string): T {
  try {
    return structuredClone(value);
  } catch (e) {
    throw args.invalid(`${argument} cannot be stored: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** A partitioned map's part in a transaction: the instances it holds, its staged edits, the partitions it has read. */
export class MapPart<V> {
  whole = false;
  /** The instances locked (all of them when `whole`). */
  readonly instances = new Set<string>();
  /** The metadata read once the locks were held: the layout every key is placed under. */
  meta: unknown;
  /** Staged edits, by instance, by canonical key. */
  readonly edits = new Map<string, Map<string, Edit<V>>>();
  private readonly partitions = new Map<string, Promise<unknown>>();

  constructor(readonly rules: MapRules<V>) {}

  holds(instance: string): boolean {
    return this.whole || this.instances.has(instance);
  }

  /** Partition `instance` as read by the transaction's first read. */
  knows(instance: string, raw: unknown): void {
    this.partitions.set(instance, Promise.resolve(raw));
  }

  /**
   * The values of `placed` keys as the work sees them: its staged edits (as they are at the
   * call), else the committed values, from partitions read once each (no other writer changes
   * them while the locks are held), those not read before in one read. `rules` places and checks.
   */
  values(ctx: Context, rules: MapRules<V>, placed: readonly Placement[]): Promise<Array<V | undefined>> {
    const edits = placed.map((p) => this.edits.get(p.partitionName)?.get(p.key));
    const missing = [...new Set(placed.filter((_, i) => !edits[i]).map((p) => p.partitionName))].filter(
      (instance) => !this.partitions.has(instance),
    );
    if (missing.length > 0) {
      const read = ctx.instances.read(this.rules.name, missing).then(({ meta, values }) => {
        if (!this.rules.adopt(meta))
          throw new AttrmapError("layout_changed", `map "${this.rules.name}" changed its layout while a transaction held it`);
        return values;
      });
      missing.forEach((instance, k) => {
        this.partitions.set(
          instance,
          read.then((values) => values[k]),
        );
      });
    }
    return Promise.all(
      placed.map(async (p, i) => {
        const edit = edits[i];
        if (edit) return "value" in edit ? edit.value : undefined;
        return rules.entry(p.partitionName, await this.partitions.get(p.partitionName), p.key);
      }),
    );
  }
}

/** A chunked log's part in a transaction: its staged appends, and what it told of their sequences. */
export class LogPart<I, R extends { sequence: number }> {
  readonly items: I[] = [];
  /** The sequences given to the work, by item. */
  readonly told = new Map<number, number>();
  state: Snapshot | undefined;

  constructor(readonly rules: LogRules<I, R>) {}

  /** The log's metadata and `current` as the transaction's first read found them (no other appender runs meanwhile). */
  knows(snapshot: Snapshot): void {
    this.state = snapshot;
  }
}

export type Part = MapPart<unknown> | LogPart<unknown, { sequence: number }>;

/** The partitioned map a `tx` method is given (the directory's own map for the directory). */
export function partitionedMap(value: unknown, argument: string): PartitionedMap<unknown> {
  if (args.isInstance(value, CustomerDirectory)) return (value as CustomerDirectory).map as PartitionedMap<unknown>;
  if (args.isInstance(value, PartitionedMap)) return value as PartitionedMap<unknown>;
  throw args.invalid(`${argument} must be a partitioned map or the customer directory, got ${args.describeType(value)}`);
}

/** The chunked log a `tx` method is given (the archive's own log for the archive). */
export function chunkedLog(value: unknown, argument: string): ChunkedLog<unknown, { sequence: number }> {
  if (args.isInstance(value, SubscriberArchive))
    return (value as SubscriberArchive).log as unknown as ChunkedLog<unknown, { sequence: number }>;
  if (args.isInstance(value, ChunkedLog)) return value as ChunkedLog<unknown, { sequence: number }>;
  throw args.invalid(`${argument} must be a chunked log or the subscriber archive, got ${args.describeType(value)}`);
}

/** The rules of a scope's item, and the key of a `map.at(key)`. */
function itemRules(
  item: unknown,
  argument: string,
): { rules: MapRules<unknown> | LogRules<unknown, { sequence: number }>; key?: string } {
  if (args.isInstance(item, KeyScope)) {
    const keyed = item as KeyScope;
    return { rules: keyed.map.transactionRules(), key: keyed.key };
  }
  if (args.isInstance(item, PartitionedMap) || args.isInstance(item, CustomerDirectory))
    return { rules: partitionedMap(item, argument).transactionRules() };
  if (args.isInstance(item, ChunkedLog) || args.isInstance(item, SubscriberArchive))
    return { rules: chunkedLog(item, argument).transactionRules() };
  throw args.invalid(
    `${argument} must be map.at(key), a partitioned map, a chunked log, the customer directory or the subscriber archive, ` +
      `got ${args.describeType(item)}`,
  );
}

/** The parts of a scope's items, by map name: what each item locks, placed under the layouts their maps know. */
export function partsOf(database: string, items: readonly unknown[]): Map<string, Part> {
  const parts = new Map<string, Part>();
  items.forEach((item, i) => {
    const argument = `scope[${i}]`;
    const { rules, key } = itemRules(item, argument);
    if (rules.database !== database)
      throw args.invalid(`${argument} is a map of database "${rules.database}", not of this store's ("${database}")`);
    const known = parts.get(rules.name);
    if (known && known.rules.kind !== rules.kind)
      throw args.invalid(`${argument} names map "${rules.name}" as another kind than an item before it`);
    const part = known ?? (rules.kind === "partitioned" ? new MapPart(rules) : new LogPart(rules));
    parts.set(rules.name, part);
    if (part instanceof MapPart) {
      if (key === undefined) part.whole = true;
      else part.instances.add(part.rules.place(key, `${argument}.key`).partitionName);
    }
  });
  return parts;
}

/** The locks of `parts` under the layouts their maps know: see the top of transaction.ts. */
export function locksOf(ctx: Context, parts: ReadonlyMap<string, Part>): LockRequest[] {
  const requests: LockRequest[] = [];
  for (const [name, part] of parts) {
    if (part instanceof LogPart) {
      // As every log writer: one lock on `current` stands for the state, `current` and the archives.
      requests.push({ key: lockKey(ctx, name, CURRENT), mode: "exclusive" });
      continue;
    }
    if (part.whole && part.rules.partitionCount() > MAX_WHOLE_MAP_PARTITIONS)
      throw args.invalid(
        `map "${name}" has ${part.rules.partitionCount()} partitions: a whole map in a transaction's scope locks each of ` +
          `them, and may have at most ${MAX_WHOLE_MAP_PARTITIONS}; name its keys with map.at(key) instead`,
      );
    const instances = part.whole ? part.rules.instances() : [...part.instances];
    for (const instance of instances) requests.push({ key: lockKey(ctx, name, instance), mode: "exclusive" });
    // Shared, a resize, a clear, an index build and a bulk write wait for the transaction (and it for them).
    requests.push({ key: lockKey(ctx, name), mode: part.whole ? "exclusive" : "shared" });
  }
  return requests;
}
