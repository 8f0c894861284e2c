// One chunked log as each of its operations sees it: the database's context, the log's name,
// its metadata as last read (LogView), and what its records are. Stored chunks and metadata are
// checked here; which chunk a page reads and what a write stores are the Rust core's plans.
import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import type { LockKey } from "../concurrency/locks.js";
import type { IndexHost } from "../indexes/index-host.js";
import type { Snapshot } from "../instances/instances.js";
import { holdsLog, type LogView, openChunked, readMeta } from "../maps/layout.js";
import * as wasm from "../wasm/core-module.js";
import type { RecordKind } from "./records.js";

/** A chunked log's state and rules, shared by its appends, pages and maintenance. */
export class LogContext<I, R extends { sequence: number }> {
  /** The log as its indexes see it: its chunks' records, by sequence. */
  readonly indexHost: IndexHost<R>;

  constructor(
    readonly ctx: Context,
    readonly name: string,
    /** The log's metadata as this object last read it. */
    public view: LogView,
    readonly kind: RecordKind<I, R>,
  ) {
    this.indexHost = {
      ctx,
      name,
      noun: "log",
      ownersOf: (instance, value) =>
        this.chunk(instance, value, this.view).records.map((r) => [r.sequence, kind.indexed(r), r] as const),
      stored: () => this.view.meta.indexes ?? [],
      refresh: async () => void this.viewOf((await ctx.instances.read(name, [])).meta),
      withLayout: (read) => read((raw) => void this.viewOf(raw)),
      decode: (held, index) => {
        const [sequence, record] = Array.isArray(held) && held.length === 2 ? held : [undefined, undefined];
        if (typeof sequence !== "number" || typeof record !== "object" || record === null || record.sequence !== sequence)
          throw corrupt(name, { index }, "an entry is not a [sequence, record] pair");
        const problem = kind.problem(record);
        if (problem !== undefined)
          throw corrupt(name, { index }, `record ${sequence} is not a ${kind.recordName} record: ${problem}`);
        return record as R;
      },
      indexed: (record) => [record.sequence, kind.indexed(record)],
    };
  }

  /** Records per chunk for new archives (the size in force, as this object last saw it). */
  get chunkSize(): number {
    return this.view.meta.segments.at(-1)!.chunkSize;
  }

  /** The log's metadata as read now; a record that went missing reads as a new log of the size in force. */
  viewOf(raw: unknown): LogView {
    if (holdsLog(raw, this.view)) return this.view; // unchanged since last checked: most reads and writes
    const stored = readMeta(this.name, raw);
    if (stored !== undefined && !("meta" in stored))
      throw new AttrmapError("layout_mismatch", `log "${this.name}" is now stored as a partitioned map`);
    this.view = stored ?? openChunked(this.name, undefined, this.chunkSize).view;
    return this.view;
  }

  /**
   * A stored chunk, checked: an array of records of this log, with their sequences for the core
   * to check (gathered in the same plain loop: a chunk is walked once per read).
   */
  chunk(instance: string, raw: unknown, view: LogView): { records: R[]; sequences: Float64Array } {
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

  /** The log's view and `current` as `snapshot` (of the metadata and `current`) has them, checked. */
  checked({ meta, values }: Snapshot): { view: LogView; current: R[] } {
    const view = this.viewOf(meta);
    const current = this.chunk(CURRENT, values[0], view);
    wasm.pageNext(view.log, CURRENT, values[0] !== undefined, current.sequences, this.kind.recordName);
    return { view, current: current.records };
  }

  /** The lock of every writer of the log: one lock stands for the state and `current`, which every write writes both of. */
  currentLock(): LockKey {
    return lockKey(this.ctx, this.name, CURRENT);
  }
}
