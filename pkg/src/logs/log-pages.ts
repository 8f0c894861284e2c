// What a chunked log's reads read, with no lock: a page by token reads one chunk with the log's
// metadata; the state, counts and a record's page read the metadata alone. Windows of records
// and iteration are log-iteration.ts's.
import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import type { LogState, LogView } from "../maps/layout.js";
import * as wasm from "../wasm/core-module.js";
import type { LogContext } from "./log-context.js";
import type { LogPage, LogStats } from "./log-types.js";

/** A page as read: its chunk oldest first, the log as read with it. */
export interface Read<R> {
  token: string;
  chunk: R[];
  next: string;
  view: LogView;
}

/**
 * Reads the chunk of `token` with the log's metadata and checks both: the token is checked
 * against the layout read in the same transaction, so a chunk size another tab set since
 * this object last looked is no surprise.
 */
export async function read<I, R extends { sequence: number }>(l: LogContext<I, R>, token: string): Promise<Read<R>> {
  const instance = token === "" ? CURRENT : token; // the core reads "" as `current`; pageNext checks the rest
  const { meta, values } = await l.ctx.instances.read(l.name, [instance]);
  const view = l.viewOf(meta);
  const chunk = l.chunk(instance, values[0], view);
  const next = wasm.pageNext(view.log, token, values[0] !== undefined, chunk.sequences, l.kind.recordName);
  return { token: instance, chunk: chunk.records, next, view };
}

/** The log's metadata as read now. */
export async function viewNow<I, R extends { sequence: number }>(l: LogContext<I, R>): Promise<LogView> {
  return l.viewOf((await l.ctx.instances.read(l.name, [])).meta);
}

/** The page of `token`, newest first, with the token of the next older page. */
export async function page<I, R extends { sequence: number }>(l: LogContext<I, R>, token: unknown): Promise<LogPage<R>> {
  const found = await read(l, args.text("pageToken", token));
  return { pageToken: found.token, records: found.chunk.slice().reverse(), nextPageToken: found.next };
}

/** The log's state: the next sequence and the newest archived chunk's token. */
export async function state<I, R extends { sequence: number }>(l: LogContext<I, R>): Promise<LogState> {
  return { ...(await viewNow(l)).meta.state };
}

/** The token of the page holding record `sequence`. */
export async function pageOf<I, R extends { sequence: number }>(l: LogContext<I, R>, sequence: unknown): Promise<string> {
  const seq = args.number("sequence", sequence);
  return wasm.pageOfSequence((await viewNow(l)).log, seq);
}

/** Records retained, in `current` and in archives, and the chunk size in force. */
export async function stats<I, R extends { sequence: number }>(l: LogContext<I, R>): Promise<LogStats> {
  const view = await viewNow(l);
  return {
    records: view.count,
    currentRecords: view.currentLength,
    archivedChunks: view.archivedChunks,
    chunkSize: view.meta.segments.at(-1)!.chunkSize,
    nextSequence: view.meta.state.nextSequence,
  };
}
