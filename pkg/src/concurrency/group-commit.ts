// Group commit: writes to one map from one JavaScript context that would queue for the same
// locks share one transaction instead. While a batch runs, new writes queue; the queue then
// runs as the next batch, under one acquisition of every lock its writes need, in one
// readwrite transaction. Each write still gets its own result or its own error, in order, as
// if the writes had run one by one: a write sees what the writes before it in the batch did,
// and one that throws changes nothing. Writers in other contexts still meet the Web Locks
// (and, with `ifAvailable`, `lock_conflict`), as the reference server's writers do.

import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { CodeNeeded } from "../common/lazy-module.js";
import type { BatchEntries } from "../idb/entry-store.js";
import { entryStoreCode } from "../idb/index-entries.js";
import type { ReadAll, Snapshot, Writes } from "../instances/instances.js";
import { boundedWait, type LockRequest, type WriteOptions, withLocks } from "./locks.js";

/** One write: the locks it needs, the instances it reads, and how it changes them. */
export interface Job<T> {
  locks: readonly LockRequest[];
  instances: readonly string[];
  /** What the write does, for error messages (a batch of one keeps it). */
  doing: string;
  /**
   * Decides the writes from the metadata and instances as the writes before it in the batch
   * left them. Must not change the objects it is given (a later throw would leave them half
   * changed); may throw to fail this write alone.
   */
  compute: (snapshot: Snapshot) => Writes<T>;
  /** Runs in a batch of its own (a write that deletes a range of instances). */
  alone?: boolean;
  /** With `alone`: what it reads of the whole map besides `instances` (given to `compute` as `names` and `all`). */
  all?: ReadAll;
}

interface Queued {
  job: Job<unknown>;
  options: WriteOptions;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Queue {
  pending: Queued[];
  running: boolean;
}

/**
 * Failures that are the whole batch's, not one write's: the locks were not had, the database
 * is gone or out of reach, or the batch may have committed (running its writes again one by
 * one could apply them twice).
 */
const BATCH_CODES = new Set(["lock_conflict", "lock_timeout", "aborted", "data_lost", "connection_closed", "outcome_unknown"]);

const queues = new WeakMap<Context["instances"], Map<string, Queue>>();

/**
 * Runs `job` on `map`, coalesced with the other writes of this context to the map. A write
 * whose wait is bounded (a `signal` or a finite `timeoutMs`) waits on its own, so that its
 * bound applies to it alone.
 */
export function commit<T>(ctx: Context, map: string, options: WriteOptions, job: Job<T>): Promise<T> {
  if (boundedWait(options)) return runBatch(ctx, map, options, [job]).then(([outcome]) => settled(outcome!));
  let byMap = queues.get(ctx.instances);
  if (!byMap) queues.set(ctx.instances, (byMap = new Map()));
  let queue = byMap.get(map);
  if (!queue) byMap.set(map, (queue = { pending: [], running: false }));
  const q = queue;
  return new Promise<T>((resolve, reject) => {
    q.pending.push({ job: job as Job<unknown>, options, resolve: resolve as (v: unknown) => void, reject });
    if (!q.running) {
      q.running = true;
      // A microtask later, so that writes started together (Promise.all) form one batch.
      queueMicrotask(() => void drain(ctx, map, q));
    }
  });
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function settled<T>(outcome: Outcome): T {
  if (outcome.ok) return outcome.value as T;
  throw outcome.error;
}

async function drain(ctx: Context, map: string, queue: Queue): Promise<void> {
  while (queue.pending.length > 0) {
    const batch = take(queue.pending);
    const outcomes = await runBatch(
      ctx,
      map,
      batch[0]!.options,
      batch.map((q) => q.job),
    );
    batch.forEach((q, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) q.resolve(outcome.value);
      else q.reject(outcome.error);
    });
  }
  queue.running = false;
}

/** The next batch: the longest run of queued writes with the first one's lock mode (a write that must be alone, alone). */
function take(pending: Queued[]): Queued[] {
  const first = pending[0]!;
  let n = 1;
  if (!first.job.alone)
    while (n < pending.length && !pending[n]!.job.alone && pending[n]!.options.lock === first.options.lock) n++;
  return pending.splice(0, n);
}

/**
 * Runs `jobs` in one transaction under the union of their locks. If the transaction itself
 * fails (not a write's own error), a batch of several runs again one write at a time, so that
 * each write gets the outcome it would have had alone.
 */
async function runBatch(ctx: Context, map: string, options: WriteOptions, jobs: Job<unknown>[]): Promise<Outcome[]> {
  const locks = jobs.flatMap((j) => j.locks);
  const instances = [...new Set(jobs.flatMap((j) => j.instances))];
  const doing = jobs.length === 1 ? jobs[0]!.doing : `${jobs.length} writes to map "${map}"`;
  let outcomes: Outcome[] = [];
  try {
    await withLocks(ctx.locks, locks, options, () =>
      ctx.instances.write({ map, instances, all: jobs[0]!.alone ? jobs[0]!.all : undefined }, doing, (snapshot) => {
        const applied = apply(snapshot, instances, jobs);
        outcomes = applied.outcomes;
        return applied.writes;
      }),
    );
    return outcomes;
  } catch (error) {
    // Every write of the batch failed the same way.
    if (jobs.length === 1 || (error instanceof AttrmapError && BATCH_CODES.has(error.code)))
      return jobs.map(() => ({ ok: false, error }));
    const alone: Outcome[] = [];
    for (const job of jobs) alone.push(...(await runBatch(ctx, map, options, [job])));
    return alone;
  }
}

/** Applies the jobs in order to a working copy of what was read; returns each outcome and the writes that remain. */
function apply(
  snapshot: Snapshot,
  instances: readonly string[],
  jobs: Job<unknown>[],
): { outcomes: Outcome[]; writes: Writes<undefined> } {
  let meta = snapshot.meta;
  let metaChanged = false;
  const values = new Map(instances.map((name, i) => [name, snapshot.values[i]]));
  // What the batch does to each instance: its final value (undefined: deleted), added or put.
  const touched = new Map<string, { value: unknown; added: boolean }>();
  let deleteRange: Writes<unknown>["deleteRange"]; // only a write that runs alone deletes a range
  let indexed: BatchEntries | undefined; // made at the first write with entries
  const outcomes = jobs.map((job): Outcome => {
    try {
      const w = job.compute({ meta, values: job.instances.map((n) => values.get(n)), names: snapshot.names, all: snapshot.all });
      if (w.entries) (indexed ??= new (entryStoreCode.now().BatchEntries)()).add(w.entries);
      deleteRange ??= w.deleteRange;
      if (w.meta !== undefined) {
        meta = w.meta === null ? undefined : w.meta;
        metaChanged = true;
      }
      for (const [name, value] of w.add ?? []) {
        values.set(name, value);
        touched.set(name, { value, added: !touched.has(name) || touched.get(name)!.added });
      }
      for (const [name, value] of w.put ?? []) {
        values.set(name, value);
        touched.set(name, { value, added: touched.get(name)?.added ?? false });
      }
      for (const name of w.delete ?? []) {
        values.set(name, undefined);
        touched.set(name, { value: undefined, added: false });
      }
      return { ok: true, value: w.result };
    } catch (error) {
      // Code a write needs and this page has not loaded: the whole batch runs again once it has.
      if (error instanceof CodeNeeded) throw error;
      return { ok: false, error };
    }
  });
  const entries = [...touched];
  return {
    outcomes,
    writes: {
      meta: metaChanged ? (meta === undefined ? null : (meta as object)) : undefined,
      add: entries.filter(([, t]) => t.added && t.value !== undefined).map(([n, t]) => [n, t.value] as const),
      put: entries.filter(([, t]) => !t.added && t.value !== undefined).map(([n, t]) => [n, t.value] as const),
      delete: entries.filter(([, t]) => t.value === undefined).map(([n]) => n),
      deleteRange,
      entries: indexed?.writes(),
      result: undefined,
    },
  };
}
