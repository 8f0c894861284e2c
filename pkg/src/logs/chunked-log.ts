// A sequentially chunked log: appends rewrite only the bounded `current` chunk; a full
// chunk is archived, immutable, under the 20-digit token of its first sequence. The Rust
// core decides every write and checks every read. This class is the log's public face; what
// each call does is in the files beside it: checks (log-context.ts), appends (log-writes.ts),
// pages (log-pages.ts), windows and iteration (log-iteration.ts), chunk-size changes and
// retention (retention.ts).

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { lazyModule } from "../common/lazy-module.js";
import { MAX_BATCH } from "../common/limits.js";
import { type WriteOptions, writeOptions } from "../concurrency/locks.js";
import { type CreateIndexOptions, type IndexDefinition, indexName, type KeyPath } from "../indexes/definition.js";
import { catalogCode, entryWritesFor, indexReader } from "../indexes/index-host.js";
import { Query } from "../indexes/query.js";
import { type LogState, openChunked, type Segment } from "../maps/layout.js";
import type { LogRules } from "../transactions/participants.js";
import * as wasm from "../wasm/core-module.js";
import { LogContext } from "./log-context.js";
import * as pages from "./log-pages.js";
import type { LogPage, LogStats, LogWindow, LogWindowOptions, RecordsOptions } from "./log-types.js";
import * as writes from "./log-writes.js";
import type { RecordKind } from "./records.js";

/** @internal A log's windows of records and iteration. */
export const logIterationCode = /* @__PURE__ */ lazyModule(
  () => import("./log-iteration.js"),
  "a log's records() and page({ limit })",
);

/** @internal A log's rare changes, and the maintenance module they start. */
export const retentionCode = /* @__PURE__ */ lazyModule(
  () => import("./retention.js"),
  "changeChunkSize() and dropArchivesBefore()",
);

/**
 * A sequentially chunked log (docs/chunked-log.md): records in arrival order, each with its
 * sequence; appends rewrite only `current`, full chunks are archived under 20-digit tokens, and
 * pages come newest first. Get one with `store.chunkedLog(name)`. `N`: the names `where` takes
 * (those the log was opened with, any string if it declared none).
 */
export class ChunkedLog<I, R extends { sequence: number }, N extends string = string> {
  private constructor(private readonly l: LogContext<I, R>) {}

  /** @internal Opens the log, storing its layout on first use; `layout_mismatch` if it is stored with another chunk size. */
  static async open<I, R extends { sequence: number }, N extends string = string>(
    ctx: Context,
    name: string,
    options: unknown,
    kind: RecordKind<I, R>,
  ): Promise<ChunkedLog<I, R, N>> {
    const o = args.options("options", options);
    const size = args.optionalNumber("options.chunkSize", args.field("options", o, "chunkSize"));
    const chunkSize = size === undefined ? undefined : wasm.resolveChunkSize(size);
    // The catalog's code loads only for a map that declares indexes, before anything is stored.
    const spec = args.field("options", o, "indexes");
    const catalog = spec === undefined ? undefined : await catalogCode.load();
    const indexes = catalog?.declared("options.indexes", spec) ?? [];
    const view = await ctx.instances.openMap(name, `opening log "${name}"`, (meta) => {
      const opened = openChunked(name, meta, chunkSize);
      return { meta: opened.store ? opened.view.meta : undefined, result: opened.view };
    });
    await entryWritesFor(view.meta.indexes);
    const l = new LogContext(ctx, name, view, kind);
    if (catalog) await catalog.ensureIndexes(l.indexHost, indexes);
    return new ChunkedLog(l);
  }

  /** The log's name. */
  get name(): string {
    return this.l.name;
  }

  /** Records per chunk for new archives (the size in force, as this object last saw it). */
  get chunkSize(): number {
    return this.l.chunkSize;
  }

  /** The chunk sizes over the log's life, oldest first. */
  get segments(): Segment[] {
    return this.l.view.meta.segments.map((s) => ({ ...s }));
  }

  /** 1 for a new log, one more after each chunk-size change. */
  get layoutVersion(): number {
    return this.l.view.meta.layoutVersion;
  }

  /** @internal The rules a transaction (transactions/) applies to this log: checks, sequences, writes; never its storage. */
  transactionRules(): LogRules<I, R> {
    const l = this.l;
    return {
      kind: "chunked",
      name: l.name,
      database: l.ctx.instances.name,
      input: (item, argument) => l.kind.input(item, argument),
      record: (snapshot, n, item) => {
        const { view, current } = l.checked(snapshot);
        return l.kind.make(wasm.appendPlan(view.log, current.length, n + 1).firstSequence + n, item);
      },
      writes: (items, snapshot) => writes.compute(l, snapshot, writes.appending(l, items)),
    };
  }

  /**
   * Adds an index on the records' values (docs/indexes.md): `keyPath` is a dotted path into a
   * value, or an array of them for a compound index. Built over the records retained, all or
   * nothing, with progress; appends in any context go on meanwhile and keep it. Nothing if the
   * index exists with this definition; `already_exists` if with another. Resolves to this log,
   * typed to take the new name in `where` too.
   */
  async createIndex<M extends string>(
    name: M,
    keyPath: KeyPath<I> | readonly KeyPath<I>[],
    options: CreateIndexOptions = {},
  ): Promise<ChunkedLog<I, R, N | M>> {
    await (await catalogCode.load()).createIndex(this.l.indexHost, name, keyPath, options);
    return this;
  }

  /** Removes an index and its entries (after any build of it in progress); whether it was there. */
  async dropIndex(name: string, options: WriteOptions = {}): Promise<boolean> {
    return (await catalogCode.load()).removeIndex(this.l.indexHost, name, options);
  }

  /** The log's indexes, as stored now (an index still being built is not listed). */
  async indexes(): Promise<IndexDefinition[]> {
    return (await catalogCode.load()).listIndexes(this.l.indexHost);
  }

  /**
   * A query of index `name`, whose entries are records (`keys()` gives their sequences), in
   * index order and, for equal values, in sequence order: `where("bySubscriber").equals(id).first()`.
   * Each read is one readonly transaction; no lock.
   */
  where(name: N): Query<R, number> {
    return new Query<R, number>(indexReader(this.l.indexHost), indexName("name", name));
  }

  /** Appends one record and returns it with its sequence. */
  async append(item: I, options: WriteOptions = {}): Promise<R> {
    const [record] = await writes.append(this.l, [this.l.kind.input(item, this.l.kind.recordName)], writeOptions(options));
    return record!;
  }

  /**
   * Appends records in order, in one transaction under one lock; chunks that fill up on the
   * way are archived in the same transaction. All or nothing. At most 1,000,000 a call.
   */
  async appendMany(items: Iterable<I>, options: WriteOptions = {}): Promise<R[]> {
    const opts = writeOptions(options);
    const inputs = args.list<unknown>("items", items, MAX_BATCH).map((item, i) => this.l.kind.input(item, `items[${i}]`));
    return writes.append(this.l, inputs, opts);
  }

  /**
   * The page for `token` (`""` or `"current"`: the newest), records newest first, with the
   * token of the next older page. Reads that one chunk (and the log's metadata), with no lock.
   */
  async page(token?: string): Promise<LogPage<R>>;
  /**
   * A page of `limit` records, newest first, for a list: the newest, or the neighbours of a
   * cursor (`before: page.older`, `after: page.newer`). Reads only the chunks that hold them,
   * one at a time and with no lock, as `records()` does.
   */
  async page(options: LogWindowOptions): Promise<LogWindow<R>>;
  async page(by: string | LogWindowOptions = ""): Promise<LogPage<R> | LogWindow<R>> {
    return typeof by === "object" && by !== null ? (await logIterationCode.load()).window(this.l, by) : pages.page(this.l, by);
  }

  /** The log's state: the next sequence and the newest archived chunk's token. */
  async state(): Promise<LogState> {
    return pages.state(this.l);
  }

  /**
   * The token of the page holding record `sequence`: `"current"`, an archive token (the
   * oldest retained page for a sequence dropped by retention), or `""` past the newest record.
   */
  async pageOf(sequence: number): Promise<string> {
    return pages.pageOf(this.l, sequence);
  }

  /** Records retained: from the oldest retained archive to the newest record. Reads the log's metadata only. */
  async count(): Promise<number> {
    return (await this.stats()).records;
  }

  /** Records retained, in `current` and in archives, and the chunk size in force. Reads the log's metadata only. */
  async stats(): Promise<LogStats> {
    return pages.stats(this.l);
  }

  /**
   * Every retained record, newest first (default) or oldest first, reading one chunk per
   * step with no lock. Records appended after it reached `current` are not included.
   */
  async *records(options: RecordsOptions = {}): AsyncIterableIterator<R> {
    yield* (await logIterationCode.load()).records(this.l, options);
  }

  /**
   * From the next record on, new archives hold `chunkSize` records. A non-empty `current`
   * is archived at once as a shorter chunk under its usual token; the layout becomes one
   * more segment, with `layoutVersion` + 1. The size in force changes nothing.
   */
  async changeChunkSize(chunkSize: number, options: WriteOptions = {}): Promise<void> {
    const size = wasm.resolveChunkSize(args.number("chunkSize", chunkSize));
    await (await retentionCode.load()).changeChunkSize(this.l, size, writeOptions(options));
  }

  /**
   * Retention: removes the archived chunks older than the archive `pageToken` (whole chunks:
   * archives never change) and returns how many. The oldest retained page then has
   * `nextPageToken` `""`; a dropped token is `not_found`. Sequences are never reused.
   */
  async dropArchivesBefore(pageToken: string, options: WriteOptions = {}): Promise<number> {
    const token = args.text("pageToken", pageToken);
    return (await retentionCode.load()).dropArchivesBefore(this.l, token, writeOptions(options));
  }
}
