// `store.transaction(scope, work)` (docs/transactions.md): several maps and logs changed as one
// step, as the engine's RPC changes the instances it locks. The scope's Web Locks come first
// (each instance exclusive, each map's own lock shared, or exclusive for a whole map), then the
// work runs; its writes are staged, and its reads see them over the committed data. When the
// work settles, every staged write is applied in one IndexedDB readwrite transaction, so none
// of it is seen, or survives a crash, without the rest. Loaded at a page's first transaction.

import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { MAX_BATCH } from "../common/limits.js";
import { holdForTransaction } from "../concurrency/context-locks.js";
import { writeOptions } from "../concurrency/locks.js";
import type { MapRead, MapWrites } from "../instances/instances.js";
import type { Edit, MapRules } from "./participants.js";
import { chunkedLog, copy, LogPart, locksOf, MapPart, type Part, partitionedMap, partsOf } from "./parts.js";
import { DEFAULT_WORK_TIMEOUT_MS, type Transaction } from "./transaction-types.js";

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
  ): { part: MapPart<unknown>; rules: MapRules<unknown>; partitionName: string; key: string } {
    const rules = partitionedMap(map, "map").transactionRules();
    const part = this.mapPart(rules);
    const placed = rules.place(key, "key");
    if (!part?.holds(placed.partitionName))
      throw args.invalid(
        `instance "${placed.partitionName}" of map "${rules.name}" is not in the transaction's scope: ` +
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
      this.stage(w.part, w.partitionName, w.key, { value: copy(given, "value") });
      return given as never;
    });
  }

  delete(map: unknown, key: string): Promise<boolean> {
    return this.staging(() => {
      const w = this.writable(map, key);
      const was = w.part.values(this.ctx, w.rules, [w]).then(([v]) => v);
      this.stage(w.part, w.partitionName, w.key, { deleted: true });
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
