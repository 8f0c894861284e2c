// How a chunked log writes: every write holds the lock of `current` and reads and rewrites the
// log's state and `current` in one IndexedDB transaction, shared with this context's other
// writes to the log (group commit). An append rewrites only `current`, and adds, never puts,
// each chunk that fills up on the way: an archive is written once and never replaced.
import { CURRENT } from "../common/constants.js";
import { lockKey } from "../common/context.js";
import { commit } from "../concurrency/group-commit.js";
import type { WriteOptions } from "../concurrency/locks.js";
import { type EntryWrites, noEntryWrites } from "../idb/index-entries.js";
import type { IndexDefinition } from "../indexes/definition.js";
import { entryWritesCode } from "../indexes/index-host.js";
import type { ReadAll, Snapshot, Writes } from "../instances/instances.js";
import { type ChunkedMeta, type LogState, type LogView, readMeta } from "../maps/layout.js";
import * as wasm from "../wasm/core-module.js";
import type { LogContext } from "./log-context.js";

/**
 * What one write does to a log, from its view and `current` (and, for a write that reads more,
 * the instances it reads and their values).
 */
export type LogEdit<R, T> = (
  view: LogView,
  current: R[],
  read: { names: string[]; values: unknown[] } | undefined,
) => {
  put?: Array<readonly [string, unknown]>;
  add?: Array<readonly [string, unknown]>;
  meta?: ChunkedMeta;
  deleteRange?: readonly [string, string];
  entries?: EntryWrites;
  result: T;
};

/** How a write of a log runs besides its change. */
export interface LogWriteOptions {
  /** A range delete, which runs in a batch of its own. */
  deletesRange?: boolean;
  /** What of the whole log it reads besides `current`. */
  all?: ReadAll;
  /** A change of layout, which also takes the log's own lock. */
  layout?: boolean;
}

/** One locked transaction over the state and `current` (its records checked), applying `change`. */
export function write<I, R extends { sequence: number }, T>(
  l: LogContext<I, R>,
  options: WriteOptions,
  doing: string,
  change: LogEdit<R, T>,
  { deletesRange = false, all, layout = false }: LogWriteOptions = {},
): Promise<T> {
  const current = { key: l.currentLock(), mode: "exclusive" as const };
  return commit(l.ctx, l.name, options, {
    // A change of layout also takes the log's own lock, as a map's resize does: it waits for an
    // index build, which runs under one layout version.
    locks: layout ? [{ key: lockKey(l.ctx, l.name), mode: "exclusive" }, current] : [current],
    instances: [CURRENT],
    doing,
    compute: (snapshot) => compute(l, snapshot, change),
    alone: deletesRange,
    all,
  });
}

/** What `change` writes to the log as `snapshot` has it (the metadata too, where the record went missing). */
export function compute<I, R extends { sequence: number }, T>(
  l: LogContext<I, R>,
  snapshot: Snapshot,
  change: LogEdit<R, T>,
): Writes<T> {
  const { view, current } = l.checked(snapshot);
  const read = snapshot.all && { names: snapshot.names!, values: snapshot.all };
  const writes = change(view, current, read);
  if (writes.meta) l.view = readMeta(l.name, writes.meta) as LogView;
  return { ...writes, meta: writes.meta ?? (snapshot.meta === undefined ? view.meta : undefined) };
}

/** What records `added` (appended) and `dropped` (by retention) do to the entries of `indexes`. */
export function indexWrites<I, R extends { sequence: number }>(
  l: LogContext<I, R>,
  indexes: readonly IndexDefinition[],
  added: readonly R[],
  dropped: readonly R[],
): EntryWrites {
  const out = noEntryWrites();
  const { addEntryWrites, conflictError } = entryWritesCode.now();
  const conflict = conflictError("log", l.name);
  for (const r of added) addEntryWrites(l.name, indexes, r.sequence, undefined, l.kind.indexed(r), out, conflict, r);
  for (const r of dropped) addEntryWrites(l.name, indexes, r.sequence, l.kind.indexed(r), undefined, out, conflict);
  return out;
}

/** What appending `inputs` writes: `current`, the chunks that fill up on the way (archived), the state. */
export function appending<I, R extends { sequence: number }>(l: LogContext<I, R>, inputs: readonly I[]): LogEdit<R, R[]> {
  return (view, current) => {
    const plan = wasm.appendPlan(view.log, current.length, inputs.length);
    const records = inputs.map((item, i) => l.kind.make(plan.firstSequence + i, item));
    const all = current.length === 0 ? records : current.concat(records);
    const add = plan.cuts.map(
      (c) =>
        [wasm.archiveToken(c.first), all.slice(c.first - view.currentFirst, c.first - view.currentFirst + c.length)] as const,
    );
    const rest = all.slice(plan.cuts.length === 0 ? 0 : plan.cuts.at(-1)!.first + plan.cuts.at(-1)!.length - view.currentFirst);
    const state: LogState = {
      nextSequence: plan.nextSequence,
      latestArchivedChunkToken: add.at(-1)?.[0] ?? view.meta.state.latestArchivedChunkToken,
    };
    const { indexes } = view.meta;
    const entries = indexes ? indexWrites(l, indexes, records, []) : undefined;
    return { put: [[CURRENT, rest]], add, meta: { ...view.meta, state }, entries, result: records };
  };
}

/** Appends `inputs` (checked items) in one transaction. */
export function append<I, R extends { sequence: number }>(l: LogContext<I, R>, inputs: I[], options: WriteOptions): Promise<R[]> {
  return write(l, options, `appending to log "${l.name}"`, appending(l, inputs));
}
