// A sequentially chunked log: appends rewrite only the bounded `current` chunk; a full
// chunk is archived, immutable, under the 20-digit token of its first sequence. The Rust
// core decides every write and checks every read; this file reads and stores.

import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import { MAX_BATCH } from "../common/limits.js";
import { commit } from "../concurrency/group-commit.js";
import { type WriteOptions, writeOptions } from "../concurrency/locks.js";
import { type EntryWrites, noEntryWrites } from "../idb/entry-store.js";
import type { EntryKey, Owner } from "../idb/keys.js";
import {
  createIndex,
  ensureIndexes,
  findIndex,
  type IndexOwner,
  listIndexes,
  queryableIndex,
  removeIndex,
} from "../indexes/catalog.js";
import {
  type CreateIndexOptions,
  declared,
  type IndexDefinition,
  type IndexSpec,
  indexName,
  type KeyPath,
} from "../indexes/definition.js";
import { changeEntries, describeValue } from "../indexes/entries.js";
import { planRanges, Query, type ReadPlan } from "../indexes/query.js";
import type { ReadAll, Snapshot, Writes } from "../instances/instances.js";
import { type ChunkedMeta, holdsLog, type LogState, type LogView, openChunked, readMeta, type Segment } from "../maps/layout.js";
import type { RecordKind } from "../reference-samples/records.js";
import type { LogRules } from "../transactions/participants.js";
import * as wasm from "../wasm/core-module.js";
import * as maintenance from "../wasm/maintenance-module.js";

/** How `store.chunkedLog(name, options)` opens or creates a log (`V`: its records' values). */
export interface ChunkedLogOptions<V = unknown> {
  /**
   * Records per chunk (1 to 1,000,000). Left out: 100 for a new log, the size in force for an
   * existing one. Given for an existing log, it must be the size in force: another is
   * `layout_mismatch` (`changeChunkSize()` changes it).
   */
  chunkSize?: number | undefined;
  /**
   * Indexes the log must have (docs/indexes.md), on its records' values: by name, a key path or
   * `{ keyPath, unique, multiEntry }`. A missing one is built at open; one stored with another
   * definition is `layout_mismatch`; stored ones not declared are kept.
   */
  indexes?: Readonly<Record<string, IndexSpec<V>>> | undefined;
}

/** One page of a log. */
export interface LogPage<R> {
  /** "current" or the 20-digit token of the page. */
  pageToken: string;
  /** Newest first. */
  records: R[];
  /** Token of the next older page, or "" when this is the oldest retained one. */
  nextPageToken: string;
}

/** What a log holds, as read now. */
export interface LogStats {
  /** Records retained (all records, unless `dropArchivesBefore` removed old chunks). */
  records: number;
  /** Records in `current`, the one chunk appends rewrite. */
  currentRecords: number;
  /** Archived chunks retained. */
  archivedChunks: number;
  /** Records per chunk for new archives. */
  chunkSize: number;
  /** The sequence the next record gets. */
  nextSequence: number;
}

/** Which records `log.page(options)` holds: the newest, or those next to a cursor of an earlier page. */
export interface LogWindowOptions {
  /** The older neighbours of record `before` (the `older` cursor of a page): sequences below it. */
  before?: number | null | undefined;
  /** The newer neighbours of record `after` (the `newer` cursor of a page): sequences above it. */
  after?: number | null | undefined;
  /** Records on the page, 1 to 10,000. */
  limit: number;
}

/** A page of `log.page(options)`: up to `limit` records, newest first, with cursors to its neighbours. */
export interface LogWindow<R> {
  /** Newest first. */
  records: R[];
  /** `before` of the next older page, or null when the page reaches the oldest retained record. */
  older: number | null;
  /** `after` of the next newer page, or null when the page reaches the newest record (as read). */
  newer: number | null;
}

/** The order `records()` walks a log in. */
export interface RecordsOptions {
  order?: "newest" | "oldest" | undefined;
}

/**
 * What one write does to a log, from its view and `current` (and, for a write that reads more,
 * the instances it reads and their values).
 */
type Change<R, T> = (
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

/** A page as read: its chunk oldest first, the log as read with it. */
interface Read<R> {
  token: string;
  chunk: R[];
  next: string;
  view: LogView;
}

/**
 * A sequentially chunked log (docs/chunked-log.md): records in arrival order, each with its
 * sequence; appends rewrite only `current`, full chunks are archived under 20-digit tokens, and
 * pages come newest first. Get one with `store.chunkedLog(name)`.
 */
export class ChunkedLog<I, R extends { sequence: number }> {
  private constructor(
    private readonly ctx: Context,
    readonly name: string,
    private view: LogView,
    private readonly kind: RecordKind<I, R>,
  ) {}

  /** @internal Opens the log, storing its layout on first use; `layout_mismatch` if it is stored with another chunk size. */
  static async open<I, R extends { sequence: number }>(
    ctx: Context,
    name: string,
    options: unknown,
    kind: RecordKind<I, R>,
  ): Promise<ChunkedLog<I, R>> {
    const o = args.options("options", options);
    const size = args.optionalNumber("options.chunkSize", args.field("options", o, "chunkSize"));
    const chunkSize = size === undefined ? undefined : wasm.resolveChunkSize(size);
    const indexes = declared("options.indexes", args.field("options", o, "indexes"));
    const view = await ctx.instances.openMap(name, `opening log "${name}"`, (meta) => {
      const opened = openChunked(name, meta, chunkSize);
      return { meta: opened.store ? opened.view.meta : undefined, result: opened.view };
    });
    const log = new ChunkedLog(ctx, name, view, kind);
    await ensureIndexes(log.catalog, indexes);
    return log;
  }

  /** Records per chunk for new archives (the size in force, as this object last saw it). */
  get chunkSize(): number {
    return this.view.meta.segments.at(-1)!.chunkSize;
  }

  /** The chunk sizes over the log's life, oldest first. */
  get segments(): Segment[] {
    return this.view.meta.segments.map((s) => ({ ...s }));
  }

  /** 1 for a new log, one more after each chunk-size change. */
  get layoutVersion(): number {
    return this.view.meta.layoutVersion;
  }

  /** The log's metadata as read now; a record that went missing reads as a new log of the size in force. */
  private viewOf(raw: unknown): LogView {
    if (holdsLog(raw, this.view)) return this.view; // unchanged since last checked: most reads and writes
    const stored = readMeta(this.name, raw);
    if (stored !== undefined && !("meta" in stored))
      throw new AttrmapError("layout_mismatch", `map "${this.name}" is now stored as a partitioned map`);
    return (this.view = stored ?? openChunked(this.name, undefined, this.chunkSize).view);
  }

  /**
   * A stored chunk, checked: an array of records of this log, with their sequences for the core
   * to check (gathered in the same plain loop: a chunk is walked once per read).
   */
  private chunk(instance: string, raw: unknown, view: LogView): { records: R[]; sequences: Float64Array } {
    if (raw === undefined) return { records: [], sequences: new Float64Array(0) };
    if (!Array.isArray(raw)) throw corrupt(this.name, instance, `a chunk must be an array, found ${args.describeType(raw)}`);
    const longest = Math.max(...view.meta.segments.map((s) => s.chunkSize));
    if (raw.length > longest)
      throw corrupt(this.name, instance, `it holds ${raw.length} records, more than any chunk of this log (${longest})`);
    const sequences = new Float64Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const record: unknown = raw[i];
      const problem =
        typeof record !== "object" || record === null ? `it is ${args.describeType(record)}` : this.kind.problem(record);
      if (problem !== undefined)
        throw corrupt(this.name, instance, `record ${i} is not a ${this.kind.recordName} record: ${problem}`);
      const s = (record as { sequence: unknown }).sequence;
      sequences[i] = typeof s === "number" ? s : NaN;
    }
    return { records: raw as R[], sequences };
  }

  private lock(): [{ key: ReturnType<typeof lockKey>; mode: "exclusive" }] {
    // One lock stands for the state and `current`: every writer of a log writes both.
    return [{ key: lockKey(this.ctx, this.name, CURRENT), mode: "exclusive" }];
  }

  /**
   * One locked transaction over the state and `current` (its records checked), shared with the
   * other writes of this context to the log (group-commit.ts) unless `deletesRange` (a range
   * delete runs in a batch of its own).
   */
  private write<T>(
    options: WriteOptions,
    doing: string,
    change: Change<R, T>,
    { deletesRange = false, all, layout = false }: { deletesRange?: boolean; all?: ReadAll; layout?: boolean } = {},
  ): Promise<T> {
    return commit(this.ctx, this.name, options, {
      // A change of layout also takes the log's own lock, as a map's resize does: it waits for an
      // index build, which runs under one layout version.
      locks: layout ? [{ key: lockKey(this.ctx, this.name), mode: "exclusive" }, ...this.lock()] : this.lock(),
      instances: [CURRENT],
      doing,
      compute: (snapshot) => this.compute(snapshot, change),
      alone: deletesRange,
      all,
    });
  }

  /** The log's view and `current` as `snapshot` (of the metadata and `current`) has them, checked. */
  private checked({ meta, values }: Snapshot): { view: LogView; current: R[] } {
    const view = this.viewOf(meta);
    const current = this.chunk(CURRENT, values[0], view);
    wasm.pageNext(view.log, CURRENT, values[0] !== undefined, current.sequences, this.kind.recordName);
    return { view, current: current.records };
  }

  /** What `change` writes to the log as `snapshot` has it (the metadata too, where the record went missing). */
  private compute<T>(snapshot: Snapshot, change: Change<R, T>): Writes<T> {
    const { view, current } = this.checked(snapshot);
    const read = snapshot.all && { names: snapshot.names!, values: snapshot.all };
    const writes = change(view, current, read);
    if (writes.meta) this.view = readMeta(this.name, writes.meta) as LogView;
    return { ...writes, meta: writes.meta ?? (snapshot.meta === undefined ? view.meta : undefined) };
  }

  /** @internal The rules a transaction (transactions/) applies to this log: checks, sequences, writes; never its storage. */
  transactionRules(): LogRules<I, R> {
    return {
      kind: "chunked",
      name: this.name,
      database: this.ctx.instances.name,
      input: (item, argument) => this.kind.input(item, argument),
      record: (snapshot, n, item) => {
        const { view, current } = this.checked(snapshot);
        return this.kind.make(wasm.appendPlan(view.log, current.length, n + 1).firstSequence + n, item);
      },
      writes: (items, snapshot) => this.compute(snapshot, this.appending(items)),
    };
  }

  /** What records `added` (appended) and `dropped` (by retention) do to the entries of `indexes`. */
  private entryChanges(indexes: readonly IndexDefinition[], added: readonly R[], dropped: readonly R[]): EntryWrites {
    const out = noEntryWrites();
    for (const r of added) changeEntries(this.name, indexes, r.sequence, undefined, this.kind.indexed(r), out, this.conflict, r);
    for (const r of dropped) changeEntries(this.name, indexes, r.sequence, this.kind.indexed(r), undefined, out, this.conflict);
    return out;
  }

  /** The error of an append that would give unique index `def` value `flat` for `owner` while `other` has it. */
  private conflict = (def: IndexDefinition, flat: ReadonlyArray<string | number>, owner: Owner, other: Owner): AttrmapError =>
    new AttrmapError(
      "constraint_violation",
      `index "${def.name}" of log "${this.name}": value ${describeValue(flat, Array.isArray(def.keyPath))} ` +
        `is held by record ${other}, so record ${owner} cannot hold it`,
    );

  /** The log as its indexes see it: its chunks' records, by sequence. */
  private get catalog(): IndexOwner {
    return {
      indexed: {
        ctx: this.ctx,
        name: this.name,
        ownersOf: (instance, value) =>
          this.chunk(instance, value, this.view).records.map((r) => [r.sequence, this.kind.indexed(r), r] as const),
        conflict: this.conflict,
      },
      stored: () => this.view.meta.indexes ?? [],
      refresh: async () => void this.viewOf((await this.ctx.instances.read(this.name, [])).meta),
    };
  }

  /**
   * Adds an index on the records' values (docs/indexes.md): `keyPath` is a dotted path into a
   * value, or an array of them for a compound index. Built over the records retained, all or
   * nothing, with progress; appends in any context go on meanwhile and keep it. Nothing if the
   * index exists with this definition; `already_exists` if with another.
   */
  async createIndex(name: string, keyPath: KeyPath<I> | readonly KeyPath<I>[], options: CreateIndexOptions = {}): Promise<void> {
    return createIndex(this.catalog, name, keyPath, options);
  }

  /** Removes an index and its entries (after any build of it in progress); whether it was there. */
  async dropIndex(name: string, options: WriteOptions = {}): Promise<boolean> {
    return removeIndex(this.catalog, name, options);
  }

  /** The log's indexes, as stored now (an index still being built is not listed). */
  async indexes(): Promise<IndexDefinition[]> {
    return listIndexes(this.catalog);
  }

  /**
   * A query of index `name`, whose entries are records (`keys()` gives their sequences), in
   * index order and, for equal values, in sequence order: `where("bySubscriber").equals(id).first()`.
   * Each read is one readonly transaction; no lock.
   */
  where(name: string): Query<R, number> {
    return new Query<R, number>(
      { readIndex: (i, plan) => this.readIndex(i, plan), countIndex: (i, plan) => this.countIndex(i, plan) },
      indexName("name", name),
    );
  }

  private async rangesOf(index: string, plan: ReadPlan) {
    return planRanges(this.name, await findIndex(this.catalog, index), plan);
  }

  /** Index `index` in `raw`, read with its entries: gone is `invalid_argument`, as an unknown name. */
  private queryable(raw: unknown, index: string): void {
    if (queryableIndex(raw, this.name, index) === undefined) throw args.invalid(`map "${this.name}" has no index "${index}"`);
  }

  private async readIndex(index: string, plan: ReadPlan): Promise<{ keys: EntryKey[]; entries: R[] }> {
    const found = await this.ctx.instances.search(
      this.name,
      await this.rangesOf(index, plan),
      { reverse: plan.reverse, limit: plan.limit, keys: plan.read !== "entries", values: plan.read !== "keys" },
      `reading index "${index}" of log "${this.name}"`,
    );
    this.queryable(found.meta, index);
    const where = `index "${index}"`;
    const records = found.values.map((held) => {
      const [sequence, record] = Array.isArray(held) && held.length === 2 ? held : [undefined, undefined];
      if (typeof sequence !== "number" || typeof record !== "object" || record === null || record.sequence !== sequence)
        throw corrupt(this.name, where, "an entry is not a [sequence, record] pair");
      const problem = this.kind.problem(record);
      if (problem !== undefined)
        throw corrupt(this.name, where, `record ${sequence} is not a ${this.kind.recordName} record: ${problem}`);
      return record as R;
    });
    return { keys: found.keys, entries: records };
  }

  private async countIndex(index: string, plan: ReadPlan): Promise<number> {
    const { meta, count } = await this.ctx.instances.countEntries(
      this.name,
      await this.rangesOf(index, plan),
      `counting index "${index}" of log "${this.name}"`,
    );
    this.queryable(meta, index);
    return count;
  }

  /** Appends one record and returns it with its sequence. */
  async append(item: I, options: WriteOptions = {}): Promise<R> {
    const [record] = await this.appendItems([this.kind.input(item, this.kind.recordName)], writeOptions(options));
    return record!;
  }

  /**
   * Appends records in order, in one transaction under one lock; chunks that fill up on the
   * way are archived in the same transaction. All or nothing. At most 1,000,000 a call.
   */
  async appendMany(items: Iterable<I>, options: WriteOptions = {}): Promise<R[]> {
    const opts = writeOptions(options);
    const inputs = args.list<unknown>("items", items, MAX_BATCH).map((item, i) => this.kind.input(item, `items[${i}]`));
    return this.appendItems(inputs, opts);
  }

  private appendItems(inputs: I[], options: WriteOptions): Promise<R[]> {
    return this.write(options, `appending to log "${this.name}"`, this.appending(inputs));
  }

  /** What appending `inputs` writes: `current`, the chunks that fill up on the way (archived), the state. */
  private appending(inputs: readonly I[]): Change<R, R[]> {
    return (view, current) => {
      const plan = wasm.appendPlan(view.log, current.length, inputs.length);
      const records = inputs.map((item, i) => this.kind.make(plan.firstSequence + i, item));
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
      const entries = indexes ? this.entryChanges(indexes, records, []) : undefined;
      // Archives are added, never put: an archive is written once and never replaced.
      return { put: [[CURRENT, rest]], add, meta: { ...view.meta, state }, entries, result: records };
    };
  }

  /**
   * Reads the chunk of `token` with the log's metadata and checks both: the token is checked
   * against the layout read in the same transaction, so a chunk size another tab set since
   * this object last looked is no surprise.
   */
  private async read(token: string): Promise<Read<R>> {
    const instance = token === "" ? CURRENT : token; // the core reads "" as `current`; pageNext checks the rest
    const { meta, values } = await this.ctx.instances.read(this.name, [instance]);
    const view = this.viewOf(meta);
    const chunk = this.chunk(instance, values[0], view);
    const next = wasm.pageNext(view.log, token, values[0] !== undefined, chunk.sequences, this.kind.recordName);
    return { token: instance, chunk: chunk.records, next, view };
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
    if (typeof by === "object" && by !== null) return this.window(by);
    const read = await this.read(args.text("pageToken", by));
    return { pageToken: read.token, records: read.chunk.slice().reverse(), nextPageToken: read.next };
  }

  private async window(options: LogWindowOptions): Promise<LogWindow<R>> {
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
    for await (const record of after === undefined ? this.newestFirst(before) : this.oldestFirst(after)) {
      records.push(record);
      if (records.length === limit) break;
    }
    if (after !== undefined) records.reverse();
    // Sequences are contiguous from the oldest retained to the newest: neighbours are arithmetic.
    const { retainedFrom, state } = this.view.meta;
    const newest = records[0]?.sequence ?? after ?? (before ?? state.nextSequence) - 1;
    const oldest = records.at(-1)?.sequence ?? before ?? (after ?? 0) + 1;
    return {
      records,
      older: oldest > retainedFrom ? oldest : null,
      newer: newest < state.nextSequence - 1 ? newest : null,
    };
  }
  /** The log's state: the next sequence and the newest archived chunk's token. */
  async state(): Promise<LogState> {
    const { meta } = await this.ctx.instances.read(this.name, []);
    return { ...this.viewOf(meta).meta.state };
  }

  /**
   * The token of the page holding record `sequence`: `"current"`, an archive token (the
   * oldest retained page for a sequence dropped by retention), or `""` past the newest record.
   */
  async pageOf(sequence: number): Promise<string> {
    const seq = args.number("sequence", sequence);
    const { meta } = await this.ctx.instances.read(this.name, []);
    return wasm.pageOfSequence(this.viewOf(meta).log, seq);
  }

  /** Records retained: from the oldest retained archive to the newest record. Reads the log's metadata only. */
  async count(): Promise<number> {
    return (await this.stats()).records;
  }

  /** Records retained, in `current` and in archives, and the chunk size in force. Reads the log's metadata only. */
  async stats(): Promise<LogStats> {
    const { meta } = await this.ctx.instances.read(this.name, []);
    const view = this.viewOf(meta);
    return {
      records: view.count,
      currentRecords: view.currentLength,
      archivedChunks: view.archivedChunks,
      chunkSize: view.meta.segments.at(-1)!.chunkSize,
      nextSequence: view.meta.state.nextSequence,
    };
  }

  /**
   * Every retained record, newest first (default) or oldest first, reading one chunk per
   * step with no lock. Records appended after it reached `current` are not included.
   */
  async *records(options: RecordsOptions = {}): AsyncIterableIterator<R> {
    const order = args.field("options", args.options("options", options), "order") ?? "newest";
    if (order !== "newest" && order !== "oldest")
      throw args.invalid(`options.order must be "newest" or "oldest", got ${JSON.stringify(order) ?? "undefined"}`);
    yield* order === "newest" ? this.newestFirst(undefined) : this.oldestFirst(undefined);
  }

  /** The retained records below sequence `below` (all, if undefined), newest first, a chunk per step. */
  private async *newestFirst(below: number | undefined): AsyncGenerator<R> {
    let token: string = CURRENT;
    if (below !== undefined) {
      if (below <= 1) return;
      const { meta } = await this.ctx.instances.read(this.name, []);
      token = wasm.pageOfSequence(this.viewOf(meta).log, below - 1);
    }
    while (token !== "") {
      const read = await this.read(token);
      for (let i = read.chunk.length - 1; i >= 0; i--) {
        const record = read.chunk[i]!;
        if (below === undefined || record.sequence < below) yield record;
      }
      token = read.next;
    }
  }

  /** The retained records above sequence `above` (all, if undefined), oldest first, a chunk per step. */
  private async *oldestFirst(above: number | undefined): AsyncGenerator<R> {
    const { meta } = await this.ctx.instances.read(this.name, []);
    const retainedFrom = this.viewOf(meta).meta.retainedFrom;
    let next = above === undefined ? retainedFrom : Math.max(above + 1, retainedFrom);
    for (let token = wasm.pageOfSequence(this.view.log, next); token !== ""; ) {
      const read = await this.read(token);
      const fresh = wasm.pageOfSequence(read.view.log, next);
      if (fresh !== token) {
        token = fresh; // `current` was archived, or old chunks dropped, since the token was chosen
        continue;
      }
      for (const record of read.chunk) if (record.sequence >= next) yield record;
      if (token === CURRENT) return;
      next = (read.chunk.at(-1)?.sequence ?? next - 1) + 1;
      token = wasm.pageOfSequence(read.view.log, next);
    }
  }

  /**
   * From the next record on, new archives hold `chunkSize` records. A non-empty `current`
   * is archived at once as a shorter chunk under its usual token; the layout becomes one
   * more segment, with `layoutVersion` + 1. The size in force changes nothing.
   */
  async changeChunkSize(chunkSize: number, options: WriteOptions = {}): Promise<void> {
    const size = wasm.resolveChunkSize(args.number("chunkSize", chunkSize));
    await maintenance.maintenanceReady(); // before the lock and the transaction, which must not wait on it
    await this.write(
      writeOptions(options),
      `changing the chunk size of log "${this.name}"`,
      (view, current) => {
        const plan = maintenance.chunkSizeChange(view.log, current.length, size);
        if (!plan.changed) return { result: undefined };
        const cut = plan.cut.length > 0 ? wasm.archiveToken(plan.cut.first) : undefined;
        const state = { ...view.meta.state, latestArchivedChunkToken: cut ?? view.meta.state.latestArchivedChunkToken };
        return {
          put: cut ? [[CURRENT, []]] : [],
          add: cut ? [[cut, current]] : [],
          meta: { ...view.meta, layoutVersion: view.meta.layoutVersion + 1, segments: plan.segments, state },
          result: undefined,
        };
      },
      { layout: true },
    );
  }

  /**
   * Retention: removes the archived chunks older than the archive `pageToken` (whole chunks:
   * archives never change) and returns how many. The oldest retained page then has
   * `nextPageToken` `""`; a dropped token is `not_found`. Sequences are never reused.
   */
  async dropArchivesBefore(pageToken: string, options: WriteOptions = {}): Promise<number> {
    const token = args.text("pageToken", pageToken);
    await maintenance.maintenanceReady();
    const opts = writeOptions(options);
    // With indexes, the chunks dropped are read in the same transaction: their records' entries
    // go with them. A log this object saw with none reads nothing, unless the transaction finds one.
    for (let read = this.view.meta.indexes !== undefined; ; read = true) {
      const dropped = await this.write(
        opts,
        `dropping archives of log "${this.name}"`,
        (view, _, chunks) => {
          const { indexes } = view.meta;
          if (indexes && !chunks) return { result: undefined };
          const plan = maintenance.dropPlan(view.log, token, this.kind.recordName);
          if (plan.dropped === 0) return { result: 0 };
          const records = (chunks?.values ?? []).flatMap((chunk, i) => this.chunk(chunks!.names[i]!, chunk, view).records);
          return {
            deleteRange: [wasm.archiveToken(plan.previous), wasm.archiveToken(plan.retainedFrom)] as const,
            meta: { ...view.meta, retainedFrom: plan.retainedFrom },
            entries: indexes && this.entryChanges(indexes, [], records),
            result: plan.dropped,
          };
        },
        // Every archive named before `token`: those before the oldest retained are gone already.
        { deletesRange: true, all: read ? { between: ["", token] } : undefined },
      );
      if (dropped !== undefined) return dropped;
    }
  }
}
