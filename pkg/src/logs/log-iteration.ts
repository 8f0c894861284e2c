// A chunked log in order, with no lock: a window of records next to a cursor (a list's page) and
// every record (`records()`), newest or oldest first, reading one chunk per step. Loaded at a
// page's first window or walk.
import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import * as wasm from "../wasm/core-module.js";
import type { LogContext } from "./log-context.js";
import { read, viewNow } from "./log-pages.js";
import type { LogWindow } from "./log-types.js";

/** A window of `limit` records, newest first: the newest, or the neighbours of a cursor. */
export async function window<I, R extends { sequence: number }>(l: LogContext<I, R>, options: unknown): Promise<LogWindow<R>> {
  const o = args.options("options", options);
  const cursor = (key: string) => {
    const value = args.field("options", o, key);
    // null is what a page gives at either end: no cursor, as undefined.
    return value == null ? undefined : args.count(`options.${key}`, value, 0);
  };
  const [before, after] = [cursor("before"), cursor("after")];
  const limit = args.pageLimit("options.limit", args.field("options", o, "limit"));
  if (before !== undefined && after !== undefined) throw args.invalid("options.before and options.after cannot both be given");
  const records: R[] = [];
  for await (const record of after === undefined ? newestFirst(l, before) : oldestFirst(l, after)) {
    records.push(record);
    if (records.length === limit) break;
  }
  if (after !== undefined) records.reverse();
  // Sequences are contiguous from the oldest retained to the newest: neighbours are arithmetic.
  const { retainedFrom, state } = l.view.meta;
  const newest = records[0]?.sequence ?? after ?? (before ?? state.nextSequence) - 1;
  const oldest = records.at(-1)?.sequence ?? before ?? (after ?? 0) + 1;
  return {
    records,
    older: oldest > retainedFrom ? oldest : null,
    newer: newest < state.nextSequence - 1 ? newest : null,
  };
}

/** Every retained record, newest first (default) or oldest first. */
export function records<I, R extends { sequence: number }>(l: LogContext<I, R>, options: unknown): AsyncGenerator<R> {
  const order = args.field("options", args.options("options", options), "order") ?? "newest";
  if (order !== "newest" && order !== "oldest")
    throw args.invalid(`options.order must be "newest" or "oldest", got ${JSON.stringify(order) ?? "undefined"}`);
  return order === "newest" ? newestFirst(l, undefined) : oldestFirst(l, undefined);
}

/** The retained records below sequence `below` (all, if undefined), newest first, a chunk per step. */
async function* newestFirst<I, R extends { sequence: number }>(
  l: LogContext<I, R>,
  below: number | undefined,
): AsyncGenerator<R> {
  let token: string = CURRENT;
  if (below !== undefined) {
    if (below <= 1) return;
    token = wasm.pageOfSequence((await viewNow(l)).log, below - 1);
  }
  while (token !== "") {
    const found = await read(l, token);
    for (let i = found.chunk.length - 1; i >= 0; i--) {
      const record = found.chunk[i]!;
      if (below === undefined || record.sequence < below) yield record;
    }
    token = found.next;
  }
}

/** The retained records above sequence `above` (all, if undefined), oldest first, a chunk per step. */
async function* oldestFirst<I, R extends { sequence: number }>(
  l: LogContext<I, R>,
  above: number | undefined,
): AsyncGenerator<R> {
  const retainedFrom = (await viewNow(l)).meta.retainedFrom;
  let next = above === undefined ? retainedFrom : Math.max(above + 1, retainedFrom);
  for (let token = wasm.pageOfSequence(l.view.log, next); token !== ""; ) {
    const found = await read(l, token);
    const fresh = wasm.pageOfSequence(found.view.log, next);
    if (fresh !== token) {
      token = fresh; // `current` was archived, or old chunks dropped, since the token was chosen
      continue;
    }
    for (const record of found.chunk) if (record.sequence >= next) yield record;
    if (token === CURRENT) return;
    next = (found.chunk.at(-1)?.sequence ?? next - 1) + 1;
    token = wasm.pageOfSequence(found.view.log, next);
  }
}
