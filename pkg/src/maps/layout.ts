// A map's layout (partition count and key rule, or chunk-size segments) is part of its
// stored data: keys and tokens mean something only under the layout they were written with.
// This module reads stored metadata records (every rule they break is `corrupt_data`) and
// decides what opening a map with given options means.

import { describeType } from "../common/args.js";
import {
  CUSTOM_KEYS,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_PARTITION_COUNT,
  EMAIL_KEYS,
  EXACT_KEYS,
  FIRST_LAYOUT_VERSION,
  LOG_CHECK_ARCHIVED_CHUNKS,
  LOG_CHECK_CURRENT_FIRST,
  LOG_CHECK_CURRENT_LENGTH,
  LOG_CHECK_RETAINED,
} from "../common/constants.js";
import { AttrmapError, checkStored } from "../common/errors.js";
import { type StoredIndex, storedIndexes } from "../indexes/definition.js";
import * as wasm from "../wasm/core-module.js";
import { bookParts, type LogBook, logBook, type Segment } from "../wasm/encodings.js";

/** The layout of a partitioned map, as stored with it and exported. */
export interface PartitionedLayout {
  kind: "partitioned";
  /** 1 when created; one more after each resize. */
  layoutVersion: number;
  partitionCount: number;
  /** `"exact"`, `"email"`, or the name of the caller's canonicalizer (`"custom"` if it has none). */
  keyRule: string;
  /** The map's indexes (docs/indexes.md); absent when it has none. */
  indexes?: StoredIndex[];
}

/** From `fromSequence` on, chunks hold `chunkSize` records (the type is the wasm encodings'). */
export type { Segment };

/** The layout of a chunked log, as stored with it and exported. */
export interface ChunkedLayout {
  kind: "chunked";
  /** 1 when created; one more after each chunk-size change. */
  layoutVersion: number;
  /** Oldest first; the first starts at sequence 1. */
  segments: Segment[];
  /** The log's indexes (docs/indexes.md); absent when it has none. */
  indexes?: StoredIndex[];
}

/** A map's layout, of either kind. */
export type Layout = PartitionedLayout | ChunkedLayout;

/** The chunked log's state record, as the reference server keeps it. */
export interface LogState {
  nextSequence: number;
  latestArchivedChunkToken: string;
}

/** What a log's metadata record holds besides its layout: its state, and its oldest retained sequence. */
export interface LogBookkeeping {
  state: LogState;
  retainedFrom: number;
}

/** A map's metadata record, as stored in the `maps` object store. */
export type MapMeta = PartitionedLayout | (ChunkedLayout & LogBookkeeping);
/** A log's metadata record. */
export type ChunkedMeta = Extract<MapMeta, { kind: "chunked" }>;

/** A log's metadata record, checked, with its bookkeeping as the core takes it. */
export interface LogView {
  meta: ChunkedMeta;
  log: LogBook;
  /** First sequence of `current`, records in it, records retained, and archived chunks retained. */
  currentFirst: number;
  currentLength: number;
  count: number;
  archivedChunks: number;
}

function describe(layout: Layout): string {
  return layout.kind === "partitioned"
    ? `a partitioned map with ${layout.partitionCount} partitions and key rule "${layout.keyRule}"`
    : `a chunked log with chunks of ${layout.segments.at(-1)!.chunkSize}`;
}

function field(raw: object, key: string): unknown {
  return (raw as Record<string, unknown>)[key];
}

/** Reads a stored partitioned layout; a record of 0.1 has no key rule yet (`keyRule: ""`). */
function partitioned(where: string, raw: object): PartitionedLayout {
  const [version, count, keyRule] = [field(raw, "layoutVersion"), field(raw, "partitionCount"), field(raw, "keyRule") ?? ""];
  if (typeof version !== "number" || typeof count !== "number" || typeof keyRule !== "string") {
    throw new AttrmapError(
      "corrupt_data",
      `${where}: the layout record has a layoutVersion of type ${describeType(version)}, ` +
        `a partitionCount of type ${describeType(count)} and a keyRule of type ${describeType(keyRule)}`,
    );
  }
  checkStored(where, () => {
    wasm.checkLayoutVersion(version);
    wasm.resolvePartitionCount(count);
    if (keyRule !== "") wasm.checkKeyRule(keyRule, keyRule !== EXACT_KEYS && keyRule !== EMAIL_KEYS);
  });
  const indexes = storedIndexes(where, field(raw, "indexes"));
  const layout: PartitionedLayout = { kind: "partitioned", layoutVersion: version, partitionCount: count, keyRule };
  return indexes.length > 0 ? { ...layout, indexes } : layout;
}

/** Reads and checks a stored log's layout and bookkeeping. */
function chunked(where: string, raw: object): LogView {
  const version = field(raw, "layoutVersion");
  const segments = field(raw, "segments");
  const state = field(raw, "state");
  const retainedFrom = field(raw, "retainedFrom");
  const next = typeof state === "object" && state !== null ? field(state, "nextSequence") : undefined;
  const latest = typeof state === "object" && state !== null ? field(state, "latestArchivedChunkToken") : undefined;
  const list = Array.isArray(segments) ? (segments as unknown[]) : [];
  const shapeOk =
    typeof version === "number" &&
    typeof retainedFrom === "number" &&
    typeof next === "number" &&
    typeof latest === "string" &&
    list.length > 0 &&
    list.length <= 1_000_000 &&
    list.every(
      (s) =>
        typeof s === "object" &&
        s !== null &&
        typeof field(s, "fromSequence") === "number" &&
        typeof field(s, "chunkSize") === "number",
    );
  if (!shapeOk)
    throw new AttrmapError(
      "corrupt_data",
      `${where}: the log's layout record is not {layoutVersion, segments: [{fromSequence, chunkSize}], ` +
        "state: {nextSequence, latestArchivedChunkToken}, retainedFrom}",
    );
  const segs = (list as object[]).map((s) => ({
    fromSequence: field(s, "fromSequence") as number,
    chunkSize: field(s, "chunkSize") as number,
  }));
  const log = logBook(next, retainedFrom, segs, latest);
  const check = checkStored(where, () => {
    wasm.checkLayoutVersion(version);
    return wasm.checkLog(log);
  });
  const indexes = storedIndexes(where, field(raw, "indexes"));
  const meta: ChunkedMeta = {
    kind: "chunked",
    layoutVersion: version,
    segments: segs,
    state: { nextSequence: next, latestArchivedChunkToken: latest },
    retainedFrom,
    ...(indexes.length > 0 ? { indexes } : {}),
  };
  return {
    meta,
    log,
    currentFirst: check[LOG_CHECK_CURRENT_FIRST]!,
    currentLength: check[LOG_CHECK_CURRENT_LENGTH]!,
    count: check[LOG_CHECK_RETAINED]!,
    archivedChunks: check[LOG_CHECK_ARCHIVED_CHUNKS]!,
  };
}

/**
 * Whether `raw`, a stored metadata record, holds exactly the values of `known` (a view checked
 * before): then it passes the same checks, and the view can be used again without them.
 */
export function holdsLog(raw: unknown, known: LogView): boolean {
  if (typeof raw !== "object" || raw === null) return false;
  const { meta } = known;
  const state = field(raw, "state");
  const segments = field(raw, "segments");
  // Indexes too: a build's progress changes them under one layout version, and a log's writes
  // store the metadata they were given, so a stale copy would put an old build state back.
  const indexes = field(raw, "indexes");
  return (
    field(raw, "kind") === "chunked" &&
    field(raw, "layoutVersion") === meta.layoutVersion &&
    (indexes === meta.indexes || JSON.stringify(indexes) === JSON.stringify(meta.indexes)) &&
    field(raw, "retainedFrom") === meta.retainedFrom &&
    typeof state === "object" &&
    state !== null &&
    field(state, "nextSequence") === meta.state.nextSequence &&
    field(state, "latestArchivedChunkToken") === meta.state.latestArchivedChunkToken &&
    Array.isArray(segments) &&
    segments.length === meta.segments.length &&
    meta.segments.every((s, i) => {
      const stored: unknown = segments[i];
      return (
        typeof stored === "object" &&
        stored !== null &&
        field(stored, "fromSequence") === s.fromSequence &&
        field(stored, "chunkSize") === s.chunkSize
      );
    })
  );
}

/** A stored metadata record, checked: `undefined` for a map never opened. */
export function readMeta(map: string, raw: unknown): PartitionedLayout | LogView | undefined {
  if (raw === undefined) return undefined;
  const where = `map "${map}"`;
  if (typeof raw !== "object" || raw === null)
    throw new AttrmapError("corrupt_data", `${where}: the layout record is ${describeType(raw)}`);
  const kind = field(raw, "kind");
  if (kind === "partitioned") return partitioned(where, raw);
  if (kind === "chunked") return chunked(where, raw);
  throw new AttrmapError("corrupt_data", `${where}: the layout record has kind ${JSON.stringify(kind) ?? "undefined"}`);
}

function mismatch(map: string, stored: Layout, wanted: string, hint = ""): AttrmapError {
  return new AttrmapError("layout_mismatch", `map "${map}" is stored as ${describe(stored)}, but was opened as ${wanted}${hint}`);
}

/** What a caller opens a partitioned map with; `undefined` fields take the stored (or default) values. */
export interface PartitionedWanted {
  partitionCount: number | undefined;
  keyRule: string | undefined;
  /** Whether the caller passed its own canonicalizer. */
  custom: boolean;
}

/** The layout to open a partitioned map with: the stored one (checked against the options), or a new one. */
export function openPartitioned(
  map: string,
  raw: unknown,
  wanted: PartitionedWanted,
): { layout: PartitionedLayout; store: boolean } {
  const stored = readMeta(map, raw);
  const keyRule = wanted.keyRule ?? (wanted.custom ? CUSTOM_KEYS : undefined);
  if (stored === undefined) {
    const partitionCount = wanted.partitionCount ?? DEFAULT_PARTITION_COUNT;
    return {
      layout: {
        kind: "partitioned",
        layoutVersion: FIRST_LAYOUT_VERSION,
        partitionCount,
        keyRule: keyRule ?? EXACT_KEYS,
      },
      store: true,
    };
  }
  if ("meta" in stored) throw mismatch(map, stored.meta, "a partitioned map");
  if (wanted.partitionCount !== undefined && wanted.partitionCount !== stored.partitionCount) {
    throw mismatch(
      map,
      stored,
      `${wanted.partitionCount} partitions`,
      " (changing the partition count needs resize(), which rehashes every entry)",
    );
  }
  if (stored.keyRule === "") {
    // Written by 0.1, which stored no key rule: it takes the one it is opened with now.
    return { layout: { ...stored, keyRule: keyRule ?? EXACT_KEYS }, store: true };
  }
  if (keyRule !== undefined && keyRule !== stored.keyRule) throw mismatch(map, stored, `key rule "${keyRule}"`);
  const builtIn = stored.keyRule === EXACT_KEYS || stored.keyRule === EMAIL_KEYS;
  if (!builtIn && !wanted.custom)
    throw mismatch(map, stored, "a map with no canonicalizeKey", `: pass the canonicalizeKey of key rule "${stored.keyRule}"`);
  return { layout: stored, store: false };
}

/** The log to open: the stored one (its size in force checked against the option), or a new one. */
export function openChunked(map: string, raw: unknown, chunkSize: number | undefined): { view: LogView; store: boolean } {
  const stored = readMeta(map, raw);
  if (stored === undefined) {
    const { book, latest } = wasm.newLog(chunkSize ?? DEFAULT_CHUNK_SIZE);
    const { nextSequence, retainedFrom, segments } = bookParts(book);
    const fresh = {
      kind: "chunked",
      layoutVersion: FIRST_LAYOUT_VERSION,
      segments,
      state: { nextSequence, latestArchivedChunkToken: latest },
      retainedFrom,
    };
    return { view: readMeta(map, fresh) as LogView, store: true };
  }
  if (!("meta" in stored)) throw mismatch(map, stored, "a chunked log");
  const inForce = stored.meta.segments.at(-1)!.chunkSize;
  if (chunkSize !== undefined && chunkSize !== inForce) {
    throw mismatch(map, stored.meta, `a chunked log with chunks of ${chunkSize}`, " (use changeChunkSize() to change it)");
  }
  return { view: stored, store: false };
}
