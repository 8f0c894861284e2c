// Reading an export back in (docs/export-format.md), all or nothing. Every line is checked by
// the Rust core's export verifier before anything is written where a map lives: checked
// instances are first written to a staging area (map names under a reserved prefix, one batch
// at a time, so memory holds a batch, not the file), and one final transaction moves them into
// place with the maps' metadata. A bad line, an abort or a crash before that transaction leaves
// the database as it was (a crash leaves staged instances, which the next import removes).

import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { withLocks } from "../concurrency/locks.js";
import type { Owner } from "../idb/keys.js";
import { type IndexDefinition, publicDefinition, type StoredIndex, storedIndexes } from "../indexes/definition.js";
import { addEntryWrites, type ConflictError, describeValue } from "../indexes/entries.js";
import type { LogRecord } from "../logs/records.js";
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { profileProblem, subscriberRecords } from "../reference-samples/records.js";
import { recordIndexed, SUBSCRIBER_CHUNKS_MAP } from "../reference-samples/subscriber-archive.js";
import { keyBytes, segmentNumbers } from "../wasm/encodings.js";
import { ExportChecker, verifierReady } from "../wasm/verifier-module.js";
import { dropPrefix, type Move, mapNames, moveMaps, stage } from "./staging.js";

/** Map names under this prefix are an import's staging area: U+0000 first, which the core refuses in callers' map names. */
const STAGING_PREFIX = "\u0000attrmap-import/";
/** Instances staged per transaction, and the text they may span. */
const STAGE_INSTANCES = 200;
const STAGE_CHARS = 4_000_000;

/** How far an import has got, for `onProgress`. */
export interface ImportProgress {
  /** `"checking"` while lines are read, checked and staged; `"committing"` for the final transaction. */
  phase: "checking" | "committing";
  /** Lines read so far. */
  lines: number;
}

/** How `importData(store, source, options)` treats existing maps, reports and stops. */
export interface ImportOptions {
  /** Replace maps that exist already (default: such a map is `already_exists`). */
  replace?: boolean | undefined;
  onProgress?: ((progress: ImportProgress) => void) | undefined;
  /** Aborting before the final transaction imports nothing. */
  signal?: AbortSignal | undefined;
}

/** What an import brought in. */
export interface ImportSummary {
  maps: number;
  instances: number;
  /** Partition entries and log records. */
  entries: number;
}

/**
 * The text of a source, line by line (UTF-8; a stray `\r` before a newline is JSON whitespace).
 * The newline that ends the last line does not start another one.
 */
async function* lines(source: unknown): AsyncGenerator<string> {
  if (typeof source === "string") {
    const all = source.split("\n");
    if (all.at(-1) === "") all.pop();
    yield* all;
    return;
  }
  let stream: ReadableStream<Uint8Array>;
  if (args.isInstance(source, globalThis.Blob)) stream = (source as Blob).stream();
  else if (args.isInstance(source, globalThis.ReadableStream)) stream = source as ReadableStream<Uint8Array>;
  else throw args.invalid(`source must be a ReadableStream, a Blob or a string, got ${args.describeType(source)}`);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const reader = stream.getReader();
  let rest = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      rest += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop()!;
      yield* parts;
      if (done) break;
    }
  } catch (e) {
    throw e instanceof AttrmapError
      ? e
      : args.invalid(`the import source could not be read as UTF-8 text: ${e instanceof Error ? e.message : String(e)}`, e);
  } finally {
    reader.releaseLock();
  }
  if (rest !== "") yield rest;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === "number" ? v : Number.NaN);
const str = (v: unknown): string => (typeof v === "string" ? v : "\u0000");

/** What one map of the import becomes: its metadata record, once its lines are all read. */
interface Plan {
  map: string;
  meta: Record<string, unknown>;
}

/** @internal Imports an export into `ctx`'s database; see ImportOptions. */
export async function importInto(ctx: Context, source: unknown, options: unknown): Promise<ImportSummary> {
  const o = args.options("options", options);
  const replace =
    args.field("options", o, "replace") === undefined
      ? false
      : args.boolean("options.replace", args.field("options", o, "replace"));
  const progress = args.field("options", o, "onProgress");
  const onProgress = progress === undefined ? undefined : args.func<(p: ImportProgress) => void>("options.onProgress", progress);
  const signal = args.signal("options.signal", args.field("options", o, "signal"));
  const input = lines(source);
  await verifierReady();
  // One import at a time per database: it owns the staging area while it runs.
  return withLocks(ctx.locks, [{ key: lockKey(ctx, STAGING_PREFIX), mode: "exclusive" }], { signal }, async () => {
    await dropPrefix(ctx.instances, STAGING_PREFIX, "removing what an interrupted import staged");
    try {
      return await run(ctx, input, { replace, onProgress, signal });
    } finally {
      await dropPrefix(ctx.instances, STAGING_PREFIX, "removing the import's staged instances");
    }
  });
}

async function run(
  ctx: Context,
  input: AsyncGenerator<string>,
  { replace, onProgress, signal }: { replace: boolean; onProgress?: (p: ImportProgress) => void; signal?: AbortSignal },
): Promise<ImportSummary> {
  const verifier = new ExportChecker();
  const existing = new Set(await mapNames(ctx.instances));
  const plans: Plan[] = [];
  // The line of each partition, for a unique index's conflict to name.
  const lineOf = new Map<string, number>();
  let batch: Array<readonly [string, string, unknown]> = [];
  let chars = 0;
  let count = 0;
  const stop = () => {
    if (signal?.aborted)
      throw new AttrmapError("aborted", "the import was aborted; nothing was imported", { cause: signal.reason });
  };
  const flush = async () => {
    if (batch.length > 0) await stage(ctx.instances, batch, "staging imported instances");
    batch = [];
    chars = 0;
    onProgress?.({ phase: "checking", lines: count });
    stop();
  };
  /** Ends the map being read: a log's metadata needs where its retained records start. */
  const closeMap = () => {
    const plan = plans.at(-1);
    if (plan?.meta.kind === "chunked") plan.meta.retainedFrom = verifier.retainedFrom();
  };
  const fail = (reason: string, what: string) => verifier.badLine(reason, what);
  const valueProblem = (reason: string, what: string) =>
    new AttrmapError("invalid_argument", `line ${count}: ${what} (${reason})`);
  /** A layout line's index definitions, checked, as its map's metadata stores them (none: no field). */
  const indexesOf = (map: string, layout: Record<string, unknown>) => {
    let indexes: StoredIndex[];
    try {
      indexes = storedIndexes(`map "${map}"`, layout.indexes);
    } catch (e) {
      throw valueProblem("bad-layout", (e as Error).message);
    }
    return indexes.length > 0 ? { indexes: indexes.map(publicDefinition) } : {};
  };
  try {
    for await (const line of input) {
      count++;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw fail("invalid-json", `is not JSON: ${(e as Error).message}`);
      }
      if (!isObject(value)) throw fail("bad-line", "is not a JSON object");
      if ("format" in value) {
        verifier.header(str(value.format), num(value.version));
        continue;
      }
      const map = value.map;
      if (typeof map !== "string") throw fail("bad-line", 'has no "map"');
      const { layout, state, instance } = value;
      if (layout !== undefined && state === undefined && instance === undefined && !("value" in value)) {
        closeMap();
        if (!isObject(layout)) throw fail("bad-layout", "has a layout that is not an object");
        if (layout.kind === "partitioned") {
          verifier.partitionedLayout(map, num(layout.layoutVersion), num(layout.partitionCount), str(layout.keyRule));
          const meta = {
            kind: "partitioned",
            layoutVersion: layout.layoutVersion,
            partitionCount: layout.partitionCount,
            keyRule: layout.keyRule,
          };
          plans.push({ map, meta: { ...meta, ...indexesOf(map, layout) } });
        } else if (layout.kind === "chunked") {
          const list = Array.isArray(layout.segments) ? (layout.segments as unknown[]) : [];
          const flat = segmentNumbers(list, (s) =>
            isObject(s) ? [num(s.fromSequence), num(s.chunkSize)] : [Number.NaN, Number.NaN],
          );
          verifier.chunkedLayout(map, num(layout.layoutVersion), flat);
          const segments = list.map((s) => ({
            fromSequence: (s as Record<string, unknown>).fromSequence,
            chunkSize: (s as Record<string, unknown>).chunkSize,
          }));
          plans.push({
            map,
            meta: { kind: "chunked", layoutVersion: layout.layoutVersion, segments, ...indexesOf(map, layout) },
          });
        } else {
          throw fail("bad-layout", "has a layout of no known kind");
        }
        if (!replace && existing.has(map)) {
          throw new AttrmapError(
            "already_exists",
            `line ${count}: map "${map}" exists already; pass { replace: true } to replace it`,
          );
        }
      } else if (state !== undefined && layout === undefined && instance === undefined && !("value" in value)) {
        if (!isObject(state)) throw fail("bad-state", "has a state that is not an object");
        verifier.state(map, num(state.nextSequence), str(state.latestArchivedChunkToken));
        plans.at(-1)!.meta.state = { nextSequence: state.nextSequence, latestArchivedChunkToken: state.latestArchivedChunkToken };
      } else if (typeof instance === "string" && layout === undefined && state === undefined && isObject(value.value)) {
        const entries = value.value;
        const keys = Object.keys(entries);
        const { bytes, ends } = keyBytes(keys);
        verifier.partition(map, instance, bytes, ends);
        if (map === CUSTOMER_PROFILES_MAP) {
          for (const key of keys) {
            const problem = profileProblem(key, entries[key]);
            if (problem !== undefined) throw valueProblem("bad-value", problem);
          }
        }
        batch.push([STAGING_PREFIX + map, instance, new Map(keys.map((k) => [k, entries[k]]))]);
        lineOf.set(`${map}\u0000${instance}`, count);
      } else if (typeof instance === "string" && layout === undefined && state === undefined && Array.isArray(value.value)) {
        const records = value.value as unknown[];
        verifier.chunk(
          map,
          instance,
          Float64Array.from(records, (r) => (isObject(r) ? num(r.sequence) : Number.NaN)),
        );
        if (map === SUBSCRIBER_CHUNKS_MAP) {
          for (const [i, r] of records.entries()) {
            const problem = subscriberRecords.problem(r as object);
            if (problem !== undefined) throw valueProblem("bad-value", `record ${i}: ${problem}`);
          }
        }
        batch.push([STAGING_PREFIX + map, instance, records]);
        lineOf.set(`${map}\u0000${instance}`, count);
      } else {
        throw fail("bad-line", "is not a layout, state or instance line");
      }
      chars += line.length;
      if (batch.length >= STAGE_INSTANCES || chars >= STAGE_CHARS) await flush();
    }
    closeMap();
    const summary = verifier.finish();
    await flush();
    onProgress?.({ phase: "committing", lines: count });
    const moves = plans.map((p): Move => {
      const indexes = p.meta.indexes as IndexDefinition[] | undefined;
      const move = { from: STAGING_PREFIX + p.map, to: p.map, meta: p.meta, replace };
      if (!indexes) return move;
      const where = new Map<Owner, string>(); // each key's partition, for a conflict's message
      const conflict: ConflictError = (def, flat, owner, other) =>
        new AttrmapError(
          "constraint_violation",
          `line ${lineOf.get(`${p.map}\u0000${where.get(owner)}`)}: index "${def.name}" of map "${p.map}": value ` +
            `${describeValue(flat, Array.isArray(def.keyPath))} is held by ${JSON.stringify(other)} ` +
            `(line ${lineOf.get(`${p.map}\u0000${where.get(other)}`)}), so ${JSON.stringify(owner)} cannot hold it`,
        );
      if (p.meta.kind === "partitioned")
        return {
          ...move,
          entries: (instance, value, out) => {
            for (const [key, v] of value as Map<string, unknown>) {
              where.set(key, instance);
              addEntryWrites(p.map, indexes, key, undefined, v, out, conflict);
            }
          },
        };
      const indexed = recordIndexed(p.map);
      return {
        ...move,
        entries: (instance, value, out) => {
          for (const record of value as LogRecord[]) {
            where.set(record.sequence, instance);
            addEntryWrites(p.map, indexes, record.sequence, undefined, indexed(record), out, conflict, record);
          }
        },
      };
    });
    const locks = plans.flatMap((p) => [
      { key: lockKey(ctx, p.map), mode: "exclusive" as const },
      { key: lockKey(ctx, p.map, CURRENT), mode: "exclusive" as const },
    ]);
    await withLocks(ctx.locks, locks, { signal }, async () => {
      stop();
      await moveMaps(
        ctx.instances,
        moves,
        "importing",
        (map) => new AttrmapError("already_exists", `map "${map}" exists already; pass { replace: true } to replace it`),
      );
    });
    return summary;
  } finally {
    verifier.free();
  }
}
