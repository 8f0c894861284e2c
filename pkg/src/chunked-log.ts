// A sequentially chunked log: appends rewrite only the bounded `current` chunk; a full
// chunk is archived, immutable, under the 20-digit token of its first sequence. The Rust
// core decides every write; this file reads and stores them in one transaction.
import { appendLogRecords, appendSubscribers, logPage, validatePageToken } from "./core.js";
import type { Context } from "./context.js";
import { instanceLock } from "./context.js";
import { AttrmapError } from "./errors.js";
import type { MapMeta } from "./idb.js";
import { checkLayout, openLayout, type Layout } from "./layout.js";
import { withLocks, type WriteOptions } from "./locks.js";
import type { LogAppend, LogPage, LogRecord, LogState, NewSubscriber, Subscriber } from "../wasm/attrmap.js";

export const CURRENT = "current";
export const DEFAULT_CHUNK_SIZE = 100;
/** The lock taken with `current` by every append, standing for the log's state record. */
const STATE_LOCK = "state";

export interface ChunkedLogOptions {
  /** Records per chunk, fixed when the log is first written (default 100). */
  chunkSize?: number;
}

/** One append step of the core: the writes for appending `items` after `state`/`current`. */
type Step<I, R> = (state: LogState | undefined, current: R[] | undefined, items: I[], chunkSize: number) => LogAppend<R>;

export class ChunkedLog<I, R extends { sequence: number }> {
  private constructor(
    private readonly ctx: Context,
    readonly name: string,
    readonly chunkSize: number,
    private readonly step: Step<I, R>,
    private readonly noun: string,
  ) {}

  /** A log of any values, stored as `{sequence, value}`. */
  static open<V>(ctx: Context, name: string, options: ChunkedLogOptions = {}): Promise<ChunkedLog<V, LogRecord<V>>> {
    return ChunkedLog.openWith<V, LogRecord<V>>(ctx, name, options, appendLogRecords, name);
  }

  /** The subscriber archive's log: `{sequence, subscriberId, deliveryAddress}` records. */
  static openSubscribers(ctx: Context, name: string, options: ChunkedLogOptions = {}): Promise<ChunkedLog<NewSubscriber, Subscriber>> {
    return ChunkedLog.openWith(ctx, name, options, appendSubscribers, "subscriber");
  }

  private static async openWith<I, R extends { sequence: number }>(ctx: Context, name: string, options: ChunkedLogOptions, step: Step<I, R>, noun: string): Promise<ChunkedLog<I, R>> {
    const log = new ChunkedLog(ctx, name, options.chunkSize ?? DEFAULT_CHUNK_SIZE, step, noun);
    validatePageToken(CURRENT, log.chunkSize); // checks the chunk size before anything is stored
    await openLayout(ctx.store, name, log.layout);
    return log;
  }

  private get layout(): Layout {
    return { kind: "chunked", chunkSize: this.chunkSize };
  }

  /** Appends one record and returns it with its sequence. */
  async append(item: I, options: WriteOptions = {}): Promise<R> {
    const [record] = await this.appendMany([item], options);
    return record!;
  }

  /**
   * Appends records in order, in one transaction under one pair of locks; chunks that fill
   * up on the way are archived in the same transaction. All or nothing.
   */
  appendMany(items: readonly I[], options: WriteOptions = {}): Promise<R[]> {
    const locks = [STATE_LOCK, CURRENT].map((i) => instanceLock(this.ctx, this.name, i));
    return withLocks(this.ctx.locks, locks, options, () =>
      this.ctx.store.write(this.name, [CURRENT], `appending to log "${this.name}"`, (meta, [current]) => {
        const kept = checkLayout(this.name, meta, this.layout) as Extract<MapMeta, { kind: "chunked" }>;
        const step = this.step(kept.state, current as R[] | undefined, [...items], this.chunkSize);
        return {
          put: [[CURRENT, step.current]],
          add: step.archived.map((c) => [c.token, c.records] as const), // archives are written once, never replaced
          meta: { ...kept, state: step.state },
          result: step.records,
        };
      }),
    );
  }

  /**
   * The page for `token` (`""` or `"current"`: the newest), records newest first, with the
   * token of the next older page. Reads that one chunk and nothing else, with no lock.
   */
  async page(token = ""): Promise<LogPage<R>> {
    const instance = validatePageToken(token, this.chunkSize);
    const chunk = await this.ctx.store.read<R[]>(this.name, instance);
    if (chunk !== undefined && !Array.isArray(chunk)) {
      throw new AttrmapError("corrupt_data", `instance "${instance}" of log "${this.name}" is not a chunk`);
    }
    return logPage(token, chunk, this.chunkSize, this.noun);
  }

  /** The log's state: the next sequence and the newest archived chunk's token. */
  async state(): Promise<LogState> {
    const meta = await this.ctx.store.readMeta(this.name);
    return (meta?.kind === "chunked" && meta.state) || { nextSequence: 1, latestArchivedChunkToken: "" };
  }
}
