// `store.transaction(scope, work)` (docs/transactions.md): several maps and logs changed as one
// step, as the engine's RPC changes the instances it locks. The scope's Web Locks come first
// (each instance exclusive, each map's own lock shared, or exclusive for a whole map), then the
// work runs; its writes are staged, and its reads see them over the committed data. When the
// work settles, every staged write is applied in one IndexedDB readwrite transaction, so none
// of it is seen, or survives a crash, without the rest.

import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { MAX_BATCH } from "../common/limits.js";
import { holdForTransaction, type LockRequest, type WriteOptions, writeOptions } from "../concurrency/locks.js";
import type { MapRead, MapWrites, Snapshot } from "../instances/instances.js";
import { ChunkedLog } from "../logs/chunked-log.js";
import { PartitionedMap } from "../maps/partitioned-map.js";
import { KeyScope } from "../maps/scope.js";
import { CustomerDirectory } from "../reference-samples/customer-directory.js";
import type { CustomerProfile, CustomerProfileInput, NewSubscriber, Subscriber } from "../reference-samples/records.js";
import { SubscriberArchive } from "../reference-samples/subscriber-archive.js";
import type { Edit, LogRules, MapRules, Placed } from "./participants.js";

/** How `store.transaction` waits for its locks (as every write does) and how long its work may run. */
export interface TransactionOptions extends WriteOptions {
  /**
   * The longest the work may run once the locks are held, in milliseconds (default 60,000;
   * `Infinity`: no bound). Past it the transaction fails with `aborted`, nothing is written, the
   * locks are let go, and `tx` refuses every later call.
   */
  workTimeoutMs?: number | undefined;
}

/** The default of `workTimeoutMs`: a work that never settles holds its locks this long at most. */
export const DEFAULT_WORK_TIMEOUT_MS = 60_000;

/**
 * A partitioned map of any value type, as a scope or `tx.delete` names it: the members that do
 * not depend on the value type (which TypeScript holds invariant in PartitionedMap).
 */
export type SomePartitionedMap = Pick<PartitionedMap<unknown>, "name" | "partitionCount" | "keyRule" | "layoutVersion" | "at">;

/** A chunked log of any record type, as a scope names it. */
export type SomeChunkedLog = Pick<ChunkedLog<unknown, { sequence: number }>, "name" | "chunkSize" | "segments" | "layoutVersion">;

/**
 * What a transaction may write: `map.at(key)` (the instance that holds `key`), a partitioned map
 * (every instance of it), a chunked log, the customer directory, the subscriber archive.
 */
export type ScopeItem = KeyScope | SomePartitionedMap | SomeChunkedLog | CustomerDirectory | SubscriberArchive;

/**
 * The work's view of a transaction: reads see the committed data and the work's own earlier
 * writes; writes are staged and land together when the work settles. A write outside the scope,
 * or one that fails, fails the whole transaction, even if the work catches it.
 */
export interface Transaction {
  /** Aborted when the transaction ends before the work does (its signal, `workTimeoutMs`): pass it on to a `fetch`. */
  readonly signal: AbortSignal;
  /** The value of `key`, or `undefined`: staged by this work, else committed. No lock beyond the scope's. */
  get<V>(map: PartitionedMap<V>, key: string): Promise<V | undefined>;
  get(directory: CustomerDirectory, emailAddress: string): Promise<CustomerProfile | undefined>;
  /** Values of many keys, by canonical key (absent keys left out), as `map.getMany` gives them. */
  getMany<V>(map: PartitionedMap<V>, keys: Iterable<string>): Promise<Map<string, V>>;
  getMany(directory: CustomerDirectory, emailAddresses: Iterable<string>): Promise<Map<string, CustomerProfile>>;
  /** Stages `value` under `key` (its instance must be in the scope); gives the value as it will be stored. */
  upsert<V>(map: PartitionedMap<V>, key: string, value: V): Promise<V>;
  /** The directory's profile may leave out `emailAddress` (the key's); one it gives must canonicalize to it. */
  upsert(directory: CustomerDirectory, emailAddress: string, profile: Partial<CustomerProfileInput>): Promise<CustomerProfile>;
  /** Stages the removal of `key` (its instance must be in the scope); whether it was there. */
  delete(map: SomePartitionedMap | CustomerDirectory, key: string): Promise<boolean>;
  /** Stages an append (the log must be in the scope); gives the record as it will be stored, with its sequence. */
  append<I, R extends { sequence: number }>(log: ChunkedLog<I, R>, item: I): Promise<R>;
  append(archive: SubscriberArchive, subscriber: NewSubscriber): Promise<Subscriber>;
}

/** A copy of a caller's value as IndexedDB would store it, made now: later changes to the caller's object do not reach it. */
function copy<T>(value: T, argument: string): T {
  try {
    return structuredClone(value);
  } catch (e) {
    throw args.invalid(`${argument} cannot be stored: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** A partitioned map's part in a transaction: the instances it holds, its staged edits, the partitions it has read. */
class MapPart<V> {
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
  values(ctx: Context, rules: MapRules<V>, placed: readonly Placed[]): Promise<Array<V | undefined>> {
    const edits = placed.map((p) => this.edits.get(p.instance)?.get(p.key));
    const missing = [...new Set(placed.filter((_, i) => !edits[i]).map((p) => p.instance))].filter(
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
        return rules.entry(p.instance, await this.partitions.get(p.instance), p.key);
      }),
    );
  }
}

/** A chunked log's part in a transaction: its staged appends, and what it told of their sequences. */
class LogPart<I, R extends { sequence: number }> {
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

type Part = MapPart<unknown> | LogPart<unknown, { sequence: number }>;

/** The partitioned map a `tx` method is given (the directory's own map for the directory). */
function partitionedMap(value: unknown, argument: string): PartitionedMap<unknown> {
  if (args.isInstance(value, CustomerDirectory)) return (value as CustomerDirectory).map as PartitionedMap<unknown>;
  if (args.isInstance(value, PartitionedMap)) return value as PartitionedMap<unknown>;
  throw args.invalid(`${argument} must be a partitioned map or the customer directory, got ${args.describeType(value)}`);
}

/** The chunked log a `tx` method is given (the archive's own log for the archive). */
function chunkedLog(value: unknown, argument: string): ChunkedLog<unknown, { sequence: number }> {
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
function partsOf(database: string, items: readonly unknown[]): Map<string, Part> {
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
      else part.instances.add(part.rules.place(key, `${argument}.key`).instance);
    }
  });
  return parts;
}

/**
 * The most partitions a whole map in a scope may have: it takes each one's lock (single writes
 * that wait without bound take only their partitions'), about a third of a millisecond each
 * in Chromium.
 */
export const MAX_WHOLE_MAP_PARTITIONS = 10_000;

/** The locks of `parts` under the layouts their maps know: see the top of this file. */
function locksOf(ctx: Context, parts: ReadonlyMap<string, Part>): LockRequest[] {
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

/** Thrown inside the locks when a map's layout is not the one its keys were placed under: placed again, locked again. */
class Replace {}

/** How often a transaction places its scope again after finding a layout changed before it got its locks. */
const LAYOUT_ATTEMPTS = 8;

/**
 * @internal `store.transaction(scope, work, options)`: takes the scope's locks, runs `work`, and
 * commits what it staged in one readwrite transaction; see the top of this file.
 */
export async function transaction<T>(ctx: Context, scope: unknown, work: unknown, options: unknown): Promise<T> {
  const run = args.func<(tx: Transaction) => Promise<T> | T>("work", work);
  const opts = writeOptions(options);
  const bound = args.field("options", args.options("options", options), "workTimeoutMs");
  const workTimeoutMs = bound === undefined ? DEFAULT_WORK_TIMEOUT_MS : args.duration("options.workTimeoutMs", bound, true);
  const items = args.list<unknown>("scope", scope, MAX_BATCH);
  if (items.length === 0) throw args.invalid("scope must name at least one map, log or map.at(key)");
  for (let attempt = 1; ; attempt++) {
    const parts = partsOf(ctx.instances.name, items);
    try {
      return await holdForTransaction(ctx.locks, locksOf(ctx, parts), opts, async () => {
        await look(ctx, parts);
        return runWork(ctx, parts, run, opts.signal, workTimeoutMs);
      });
    } catch (e) {
      if (!(e instanceof Replace)) throw e;
      if (attempt === LAYOUT_ATTEMPTS)
        throw new AttrmapError(
          "layout_changed",
          `the maps of a transaction changed their layout ${attempt} times before it could start`,
        );
    }
  }
}

/**
 * The transaction's first read, once its locks are held: each map's layout (the one its keys
 * were placed under, or Replace), with the instances of the scope's keys and each log's
 * `current`, which the work's reads then find read already.
 */
async function look(ctx: Context, parts: ReadonlyMap<string, Part>): Promise<void> {
  const all = [...parts.values()];
  const reads = all.map((p) => ({
    map: p.rules.name,
    instances: p instanceof LogPart ? [CURRENT] : p.whole ? [] : [...p.instances],
  }));
  const snapshots = await ctx.instances.readMaps(reads);
  all.forEach((part, i) => {
    const snapshot = snapshots[i]!;
    if (part instanceof LogPart) {
      part.knows(snapshot);
      return;
    }
    if (!part.rules.adopt(snapshot.meta)) throw new Replace();
    part.meta = snapshot.meta;
    reads[i]!.instances.forEach((instance, k) => {
      part.knows(instance, snapshot.values[k]);
    });
  });
}

/** Runs the work under the locks, bounded by `signal` and `workTimeoutMs`, then commits what it staged. */
async function runWork<T>(
  ctx: Context,
  parts: ReadonlyMap<string, Part>,
  work: (tx: Transaction) => Promise<T> | T,
  signal: AbortSignal | undefined,
  workTimeoutMs: number,
): Promise<T> {
  const controller = new AbortController();
  const tx = new Tx(ctx, parts, controller.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopWatching = () => {};
  const ended = new Promise<never>((_, fail) => {
    const end = (error: AttrmapError) => {
      tx.end(error);
      controller.abort(error);
      fail(error);
    };
    if (workTimeoutMs !== Infinity)
      timer = setTimeout(
        () =>
          end(
            new AttrmapError(
              "aborted",
              `the transaction's work did not settle within ${workTimeoutMs} ms (options.workTimeoutMs); nothing was written`,
            ),
          ),
        workTimeoutMs,
      );
    const onAbort = () =>
      end(new AttrmapError("aborted", "the transaction was aborted; nothing was written", { cause: signal?.reason }));
    if (signal?.aborted) return onAbort(); // while its locks were being taken
    signal?.addEventListener("abort", onAbort, { once: true });
    stopWatching = () => signal?.removeEventListener("abort", onAbort);
  });
  let result: T;
  try {
    // The work's own error is passed on as it is.
    result = await Promise.race([Promise.resolve().then(() => work(tx)), ended]);
  } finally {
    clearTimeout(timer);
    stopWatching();
    tx.end(new AttrmapError("invalid_argument", "the transaction has ended: its tx can no longer be used"));
  }
  if (tx.failure !== undefined) throw tx.failure.error;
  await commit(ctx, parts);
  return result;
}

/** Applies what the work staged, in one readwrite transaction over every map it wrote. */
async function commit(ctx: Context, parts: ReadonlyMap<string, Part>): Promise<void> {
  // In map-name order: a transaction's change records, and its announcement, name the maps alike whatever its scope's order.
  const written = [...parts.values()]
    .filter((p) => (p instanceof MapPart ? p.edits.size > 0 : p.items.length > 0))
    .sort((a, b) => (a.rules.name < b.rules.name ? -1 : 1));
  if (written.length === 0) return;
  const reads: MapRead[] = written.map((p) =>
    p instanceof MapPart
      ? { map: p.rules.name, instances: [...p.edits.keys()].sort() }
      : { map: p.rules.name, instances: [CURRENT] },
  );
  const names = written.map((p) => `"${p.rules.name}"`).join(", ");
  await ctx.instances.writeMaps(reads, `committing a transaction over ${names}`, (snapshots) => ({
    writes: written.map((part, i): MapWrites => {
      if (part instanceof MapPart) return part.rules.writes(reads[i]!.instances, snapshots[i]!, part.edits);
      const writes = part.rules.writes(part.items, snapshots[i]!);
      for (const [n, sequence] of part.told)
        if (writes.result[n]?.sequence !== sequence)
          throw new AttrmapError("layout_changed", `log "${part.rules.name}" changed while a transaction held its lock`);
      return writes;
    }),
    result: undefined,
  }));
}

/** The `tx` a work is given (see Transaction). */
class Tx implements Transaction {
  /** Set once the transaction has ended: every later call fails with it. */
  private over: AttrmapError | undefined;
  /** The first write that failed: the transaction fails with it. */
  failure: { error: unknown } | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly parts: ReadonlyMap<string, Part>,
    readonly signal: AbortSignal,
  ) {}

  end(error: AttrmapError): void {
    this.over ??= error;
  }

  private open(): void {
    if (this.over) throw this.over;
  }

  /** Runs a write's staging: any error it throws fails the whole transaction. */
  private staging<R>(stage: () => Promise<R>): Promise<R> {
    try {
      this.open();
      return stage().catch((e: unknown) => {
        this.failure ??= { error: e };
        throw e;
      });
    } catch (e) {
      this.failure ??= { error: e };
      return Promise.reject(e);
    }
  }

  /** The part of `rules`'s map, with `rules` placing under the layout the transaction checked; undefined outside the scope. */
  private mapPart(rules: MapRules<unknown>): MapPart<unknown> | undefined {
    const part = this.parts.get(rules.name);
    if (!(part instanceof MapPart)) return undefined;
    rules.adopt(part.meta);
    return part;
  }

  async get(map: unknown, key: string): Promise<never> {
    this.open();
    const target = partitionedMap(map, "map");
    const rules = target.transactionRules();
    const part = this.mapPart(rules);
    if (!part) return (await target.get(key)) as never; // outside the scope: the committed value, as the map reads it
    const [value] = await part.values(this.ctx, rules, [rules.place(key, "key")]);
    return copy(value, "value") as never;
  }

  async getMany(map: unknown, keys: Iterable<string>): Promise<Map<string, never>> {
    this.open();
    const target = partitionedMap(map, "map");
    const rules = target.transactionRules();
    const part = this.mapPart(rules);
    if (!part) return (await target.getMany(keys)) as Map<string, never>;
    const placed = args.list<unknown>("keys", keys, MAX_BATCH).map((k, i) => rules.place(k, `keys[${i}]`));
    const values = await part.values(this.ctx, rules, placed);
    const found = new Map<string, never>();
    placed.forEach((p, i) => {
      if (values[i] !== undefined) found.set(p.key, copy(values[i], "value") as never);
    });
    return found;
  }

  /** The part and placement of a write of `key` to `map`: `invalid_argument` outside the scope. */
  private writable(
    map: unknown,
    key: unknown,
  ): { part: MapPart<unknown>; rules: MapRules<unknown>; instance: string; key: string } {
    const rules = partitionedMap(map, "map").transactionRules();
    const part = this.mapPart(rules);
    const placed = rules.place(key, "key");
    if (!part?.holds(placed.instance))
      throw args.invalid(
        `instance "${placed.instance}" of map "${rules.name}" is not in the transaction's scope: ` +
          `add ${part ? "map.at(key) for this key" : "the map"} to the scope to write it`,
      );
    return { part, rules, ...placed };
  }

  private stage(part: MapPart<unknown>, instance: string, key: string, edit: Edit<unknown>): void {
    let edits = part.edits.get(instance);
    if (!edits) part.edits.set(instance, (edits = new Map()));
    edits.set(key, edit);
  }

  upsert(map: unknown, key: string, value: unknown): Promise<never> {
    return this.staging(async () => {
      const w = this.writable(map, key);
      // The copy is staged; the caller gets the value it gave (as the map reads it in), not the copy.
      const given = w.rules.input(w.key, value, "value");
      this.stage(w.part, w.instance, w.key, { value: copy(given, "value") });
      return given as never;
    });
  }

  delete(map: unknown, key: string): Promise<boolean> {
    return this.staging(() => {
      const w = this.writable(map, key);
      const was = w.part.values(this.ctx, w.rules, [w]).then(([v]) => v);
      this.stage(w.part, w.instance, w.key, { deleted: true });
      return was.then((v) => v !== undefined);
    });
  }

  append(log: unknown, item: unknown): Promise<never> {
    return this.staging(async () => {
      const rules = chunkedLog(log, "log").transactionRules();
      const part = this.parts.get(rules.name);
      if (!(part instanceof LogPart))
        throw args.invalid(`log "${rules.name}" is not in the transaction's scope: add the log to the scope to append to it`);
      // As for upsert: the copy is staged, the record given holds the item as the caller gave it.
      const given = rules.input(item, "item");
      const n = part.items.push(copy(given, "item")) - 1;
      const record = rules.record(part.state!, n, given);
      part.told.set(n, record.sequence);
      return record as never;
    });
  }
}
