// importDexAttributes (docs/sync.md): the engine's copy of a flow's maps and logs merged into
// the store. Every attribute is checked before anything is written (engine-copy.ts); then, under
// the maps' locks, each entry of a partitioned map is merged by the Rust core's three-way rule
// (src/sync.rs) and each log is taken, kept or refused whole, and everything is written in one
// IndexedDB transaction: a live query sees all of it or none, and a crash leaves all or none.
// A conflict goes to `onConflict`, or keeps the engine's value; either way it is reported.
//
// The base (what the engine held at the last exchange) is nothing yet: entries only one side
// holds are taken or kept, and an entry both hold with different values is a conflict.
import * as args from "../common/args.js";
import {
  CURRENT,
  EMAIL_KEYS,
  MERGE_FACT_EQUAL,
  MERGE_FACT_LOCAL_IS_BASE,
  MERGE_FACT_REMOTE_IS_BASE,
  MERGE_OUTCOME_CONFLICT,
  MERGE_OUTCOME_SAME,
  MERGE_OUTCOME_TAKE_REMOTE,
} from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { type LockRequest, withLocks } from "../concurrency/locks.js";
import { canonicalJson } from "../export-import/exact-json.js";
import { type EntryWrites, noEntryWrites } from "../idb/index-entries.js";
import { addEntryWrites, conflictError } from "../indexes/entries.js";
import type { MapRead, MapWrites, Snapshot } from "../instances/instances.js";
import { valueRecords } from "../logs/records.js";
import { type ChunkedMeta, type LogState, openChunked, openPartitioned, type PartitionedLayout } from "../maps/layout.js";
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { profileProblem, subscriberRecords } from "../reference-samples/records.js";
import { SUBSCRIBER_CHUNKS_MAP } from "../reference-samples/subscriber-archive.js";
import { ExportChecker, mergeDecisions, verifierReady } from "../wasm/verifier-module.js";
import { attributesOf } from "./attribute-source.js";
import { AttributeRouter, type CheckLayout, checkedCopies, type RemoteCopy, type RemoteLog } from "./engine-copy.js";
import { everyName } from "./names-option.js";
import type { DexMapNames, DexSdk } from "./sample-names.js";

/** The layout of a map the store does not have yet, as the engine's copy was written under (default: a new map's). */
export interface DexLayout {
  /** A partitioned map's partitions (default 1000). */
  partitionCount?: number | undefined;
  /** A partitioned map's key rule: `"exact"` (default; the customer directory's is `"email"`) or `"email"`. */
  keyRule?: "exact" | "email" | undefined;
  /** A log's records per chunk (default 100). */
  chunkSize?: number | undefined;
}

/** How far a pull has got. */
export interface DexImportProgress {
  /** `"reading"` the attributes, `"merging"` them with the store's copy, `"committing"` the one transaction. */
  phase: "reading" | "merging" | "committing";
  /** Attributes read so far. */
  attributes: number;
}

/** An entry both the store and the engine changed, as `onConflict` is asked about it (undefined: absent). */
export interface DexEntryConflict {
  map: string;
  key: string;
  local: unknown;
  remote: unknown;
}

/** A conflict a pull met: an entry (with the value kept), or a log both sides appended to (nothing of it written). */
export type DexConflict =
  | (DexEntryConflict & { kind: "entry"; kept: unknown })
  | { kind: "log"; map: string; local: LogState; remote: LogState };

/** How `importDexAttributes(store, source, options)` reads, merges, reports and stops. */
export interface DexImportOptions {
  /** Names of a reference SDK's sample for its two maps... */
  sdk?: DexSdk | undefined;
  /** ...or names of your own flow, per stored map. */
  names?: Readonly<Record<string, DexMapNames>> | undefined;
  /** The maps to apply (default: every map named); attributes of others are ignored. */
  maps?: readonly string[] | undefined;
  /** Layouts of maps the store does not have yet. */
  layouts?: Readonly<Record<string, DexLayout>> | undefined;
  /** The value to keep of an entry both sides changed (undefined deletes it); without it, the engine's. */
  onConflict?: ((conflict: DexEntryConflict) => unknown) | undefined;
  /** Aborting before the transaction writes nothing. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: DexImportProgress) => void) | undefined;
}

/** What a pull did. */
export interface DexImportResult {
  /** Instances written, per map. */
  applied: Record<string, number>;
  /** Instances of the engine's copy the store held equal already, per map. */
  unchanged: Record<string, number>;
  /** Keys of attributes of no map named (an index's, another flow's). */
  ignored: string[];
  conflicts: DexConflict[];
}

/** How often a pull merges again after a writer changed a partition between its read and its write. */
const PULL_ATTEMPTS = 8;

/** Thrown in the transaction when a partition changed since the merge read it. */
class Moved {}

/** What one map is during a pull: its stored metadata, the layout the engine's copy is checked under, its copy. */
interface Target {
  map: string;
  meta: unknown;
  layout: PartitionedLayout | ChunkedMeta;
  remote?: RemoteCopy | undefined;
}

/** @internal `importDexAttributes(store, source, options)`; see DexImportOptions. */
export async function pull(ctx: Context, source: unknown, options: unknown): Promise<DexImportResult> {
  const o = args.object("options", options);
  const named = everyName(o);
  const only = args.field("options", o, "maps");
  if (only !== undefined) {
    const keep = new Set(args.list<unknown>("options.maps", only, 100_000).map((m, i) => args.string(`options.maps[${i}]`, m)));
    for (const map of [...named.keys()]) if (!keep.has(map)) named.delete(map);
  }
  const layoutsGiven = args.field("options", o, "layouts");
  const layouts = layoutsGiven === undefined ? undefined : args.object("options.layouts", layoutsGiven);
  const handler = args.field("options", o, "onConflict");
  const onConflict =
    handler === undefined ? undefined : args.func<(c: DexEntryConflict) => unknown>("options.onConflict", handler);
  const progress = args.field("options", o, "onProgress");
  const onProgress =
    progress === undefined ? undefined : args.func<(p: DexImportProgress) => void>("options.onProgress", progress);
  const signal = args.signal("options.signal", args.field("options", o, "signal"));
  const stop = () => {
    if (signal?.aborted) throw new AttrmapError("aborted", "the pull was aborted; nothing was written", { cause: signal.reason });
  };

  const router = new AttributeRouter(named);
  let count = 0;
  for await (const { key, value } of attributesOf(source)) {
    router.add(key, value);
    if (++count % 1000 === 0) {
      onProgress?.({ phase: "reading", attributes: count });
      stop();
    }
  }
  onProgress?.({ phase: "merging", attributes: count });
  await verifierReady();
  const maps = [...router.gathered.keys()].sort();
  const locks: LockRequest[] = maps.flatMap((map) => [
    { key: lockKey(ctx, map), mode: "exclusive" as const },
    { key: lockKey(ctx, map, CURRENT), mode: "exclusive" as const },
  ]);
  const result: DexImportResult = { applied: record(), unchanged: record(), ignored: router.ignored, conflicts: [] };
  if (maps.length === 0) return result;
  return withLocks(ctx.locks, locks, { signal }, async () => {
    const metas = await ctx.instances.readMaps(maps.map((map) => ({ map, instances: [] })));
    const targets = maps.map(
      (map, i): Target => ({ map, meta: metas[i]!.meta, layout: layoutOf(map, metas[i]!.meta, layouts, named.get(map)!) }),
    );
    const verifier = new ExportChecker();
    try {
      const copies = checkedCopies(router, verifier, (map) => checkLayout(targets.find((t) => t.map === map)!.layout));
      for (const t of targets) t.remote = copies.get(t.map);
    } finally {
      verifier.free();
    }
    const present = targets.filter((t) => t.remote !== undefined);
    for (let attempt = 1; ; attempt++) {
      stop();
      try {
        return await mergeAndWrite(
          ctx,
          present,
          onConflict,
          () => {
            stop();
            onProgress?.({ phase: "committing", attributes: count });
          },
          result,
        );
      } catch (e) {
        if (!(e instanceof Moved)) throw e;
        if (attempt === PULL_ATTEMPTS)
          throw new AttrmapError("layout_changed", `the maps of a pull changed under it ${attempt} times while it merged`);
      }
    }
  });
}

/** A count per map name. */
const record = (): Record<string, number> => ({});

/** Adds `n` to the count of `map` (an own property whatever the name, `__proto__` too). */
function add(counts: Record<string, number>, map: string, n: number): void {
  const value = (Object.hasOwn(counts, map) ? counts[map]! : 0) + n;
  Object.defineProperty(counts, map, { value, enumerable: true, writable: true, configurable: true });
}

/** The layout of `map`: the stored one, checked against `options.layouts`, or the one a missing map gets. */
function layoutOf(map: string, meta: unknown, layouts: object | undefined, names: DexMapNames): PartitionedLayout | ChunkedMeta {
  const owner = `options.layouts[${JSON.stringify(map)}]`;
  const given = layouts === undefined ? undefined : args.field("options.layouts", layouts, map);
  const o = given === undefined ? {} : args.object(owner, given);
  const number = (key: string) => {
    const v = args.field(owner, o, key);
    return v === undefined ? undefined : args.count(`${owner}.${key}`, v, 1);
  };
  const chunkSize = number("chunkSize");
  const stored = (meta as { kind?: unknown } | undefined)?.kind;
  const log = stored === undefined ? chunkSize !== undefined || names.stateAttribute !== undefined : stored === "chunked";
  if (log) return openChunked(map, meta, chunkSize).view.meta;
  const rule = args.field(owner, o, "keyRule");
  const keyRule =
    rule === undefined ? (map === CUSTOMER_PROFILES_MAP ? EMAIL_KEYS : undefined) : args.string(`${owner}.keyRule`, rule);
  return openPartitioned(map, meta, { partitionCount: number("partitionCount"), keyRule, custom: false }).layout;
}

function checkLayout(layout: PartitionedLayout | ChunkedMeta): CheckLayout {
  return layout.kind === "partitioned"
    ? { kind: "partitioned", layoutVersion: layout.layoutVersion, partitionCount: layout.partitionCount, keyRule: layout.keyRule }
    : { kind: "chunked", layoutVersion: layout.layoutVersion, segments: layout.segments };
}

/** What one instance of a partitioned map becomes: its entries set (a value) or deleted (undefined). */
type EntryEdits = Map<string, unknown>;

/**
 * Reads the instances the engine's copy names, merges them with it, asks `onConflict` (outside
 * any IndexedDB transaction: it may be async), and writes the result in one transaction that
 * first checks nothing it read has changed since (Moved otherwise).
 */
async function mergeAndWrite(
  ctx: Context,
  targets: readonly Target[],
  onConflict: ((c: DexEntryConflict) => unknown) | undefined,
  committing: () => void,
  result: DexImportResult,
): Promise<DexImportResult> {
  const reads: MapRead[] = targets.map((t) =>
    t.remote!.kind === "partitioned"
      ? { map: t.map, instances: [...t.remote!.partitions.keys()] }
      : { map: t.map, instances: [], all: "values" },
  );
  const before = await ctx.instances.readMaps(reads);
  const conflicts: DexConflict[] = [];
  const applied = record();
  const unchanged = record();
  const plans: Array<Map<string, EntryEdits> | "take" | "keep"> = [];
  for (const [i, t] of targets.entries()) {
    const remote = t.remote!;
    const snap = before[i]!;
    if (remote.kind === "chunked") {
      plans.push(mergeLog(t, remote, snap, conflicts, unchanged));
      continue;
    }
    const edits = new Map<string, EntryEdits>();
    const pending: Array<{ instance: string; key: string; local: unknown; remote: unknown }> = [];
    const facts: number[] = [];
    reads[i]!.instances.forEach((instance, k) => {
      const local = partitionOf(t.map, instance, snap.values[k]);
      const theirs = remote.partitions.get(instance)!;
      for (const key of new Set([...local.keys(), ...theirs.keys()])) {
        const l = local.get(key);
        const r = theirs.get(key);
        const equal = l === undefined ? r === undefined : r !== undefined && canonicalJson(l) === canonicalJson(r);
        facts.push(
          (l === undefined ? MERGE_FACT_LOCAL_IS_BASE_BIT : 0) |
            (r === undefined ? MERGE_FACT_REMOTE_IS_BASE_BIT : 0) |
            (equal ? MERGE_FACT_EQUAL_BIT : 0),
        );
        pending.push({ instance, key, local: l, remote: r });
      }
    });
    const outcomes = mergeDecisions(Uint8Array.from(facts));
    const differs = new Set<string>();
    for (const [n, p] of pending.entries()) {
      const outcome = outcomes[n];
      if (outcome !== MERGE_OUTCOME_SAME) differs.add(p.instance);
      let value: unknown;
      if (outcome === MERGE_OUTCOME_TAKE_REMOTE) value = p.remote;
      else if (outcome === MERGE_OUTCOME_CONFLICT) {
        const asked = { map: t.map, key: p.key, local: p.local, remote: p.remote };
        value = onConflict ? await onConflict({ ...asked }) : p.remote;
        if (value !== undefined) checkKept(t.map, p.key, value);
        conflicts.push({ kind: "entry", ...asked, kept: value });
      } else continue;
      if (value === p.local) continue;
      let e = edits.get(p.instance);
      if (!e) edits.set(p.instance, (e = new Map()));
      e.set(p.key, value);
    }
    for (const instance of reads[i]!.instances) if (!differs.has(instance)) add(unchanged, t.map, 1);
    plans.push(edits);
  }
  committing();
  await ctx.instances.writeMaps(reads, `pulling the engine's copy of ${targets.length} maps`, (snapshots) => ({
    writes: targets.map((t, i): MapWrites => {
      const snap = snapshots[i]!;
      if (!sameAsRead(before[i]!, snap)) throw new Moved();
      const plan = plans[i]!;
      if (plan === "keep") return {};
      if (plan === "take") return takeLog(t, snap, applied);
      return editPartitions(t, reads[i]!.instances, snap, plan, applied);
    }),
    result: undefined,
  }));
  result.applied = applied;
  result.unchanged = unchanged;
  result.conflicts = conflicts;
  return result;
}

const MERGE_FACT_LOCAL_IS_BASE_BIT = 1 << MERGE_FACT_LOCAL_IS_BASE;
const MERGE_FACT_REMOTE_IS_BASE_BIT = 1 << MERGE_FACT_REMOTE_IS_BASE;
const MERGE_FACT_EQUAL_BIT = 1 << MERGE_FACT_EQUAL;

/** A stored partition (absent: empty), as a Map; anything else is `corrupt_data`. */
function partitionOf(map: string, instance: string, raw: unknown): ReadonlyMap<string, unknown> {
  if (raw === undefined) return new Map();
  if (raw instanceof Map) return raw as ReadonlyMap<string, unknown>;
  throw new AttrmapError("corrupt_data", `map "${map}", ${instance}: a partition must be a Map`);
}

/** A value `onConflict` chose to keep: one the map can store (the directory's: a profile of its key). */
function checkKept(map: string, key: string, value: unknown): void {
  const problem =
    map === CUSTOMER_PROFILES_MAP
      ? profileProblem(key, value)
      : canonicalJson(value) === undefined
        ? "it is not JSON data"
        : undefined;
  if (problem !== undefined)
    throw args.invalid(
      `onConflict returned a value for key ${JSON.stringify(key)} of map "${map}" that cannot be kept: ${problem}`,
    );
}

/** Whether the transaction found what the merge read: the same metadata, and each instance as it was. */
function sameAsRead(a: Snapshot, b: Snapshot): boolean {
  const text = (s: Snapshot) =>
    JSON.stringify([s.meta, ...[...s.values, ...(s.all ?? [])].map((v) => (v instanceof Map ? [...v] : v))]);
  return text(a) === text(b);
}

/** How a log's records are indexed: the archive's are subscribers, other logs' hold a value. */
function indexedOf(map: string): (record: never) => unknown {
  return map === SUBSCRIBER_CHUNKS_MAP ? subscriberRecords.indexed : valueRecords("record").indexed;
}

/** A log as the store holds it now: its metadata (or the new log's) and its chunks by instance. */
function localLog(t: Target, snap: Snapshot): { meta: ChunkedMeta; chunks: Map<string, unknown> } {
  const meta = (snap.meta ?? t.layout) as ChunkedMeta;
  return { meta, chunks: new Map((snap.names ?? []).map((n, i) => [n, snap.all![i]])) };
}

/**
 * A log, whole: the engine's taken when the store's has no appends, the store's kept when the
 * engine's has none, nothing when they are equal; both appended is a conflict, reported, and
 * nothing of the log is written.
 */
function mergeLog(
  t: Target,
  remote: RemoteLog,
  snap: Snapshot,
  conflicts: DexConflict[],
  unchanged: Record<string, number>,
): "take" | "keep" {
  const local = localLog(t, snap);
  const none: LogState = { nextSequence: 1, latestArchivedChunkToken: "" };
  const theirs = remote.state ?? none;
  const equal =
    canonicalJson(local.meta.state) === canonicalJson(theirs) &&
    local.chunks.size === remote.chunks.size &&
    [...remote.chunks].every(([n, records]) => canonicalJson(local.chunks.get(n)) === canonicalJson(records));
  const facts =
    (local.meta.state.nextSequence === 1 ? MERGE_FACT_LOCAL_IS_BASE_BIT : 0) |
    (theirs.nextSequence === 1 ? MERGE_FACT_REMOTE_IS_BASE_BIT : 0) |
    (equal ? MERGE_FACT_EQUAL_BIT : 0);
  const outcome = mergeDecisions(Uint8Array.of(facts))[0];
  if (outcome === MERGE_OUTCOME_SAME) add(unchanged, t.map, remote.chunks.size);
  if (outcome === MERGE_OUTCOME_TAKE_REMOTE) return "take";
  if (outcome === MERGE_OUTCOME_CONFLICT) conflicts.push({ kind: "log", map: t.map, local: local.meta.state, remote: theirs });
  return "keep";
}

/** The writes that make a log the engine's copy: its chunks, state and index entries replace the store's. */
function takeLog(t: Target, snap: Snapshot, applied: Record<string, number>): MapWrites {
  const remote = t.remote as RemoteLog;
  const local = localLog(t, snap);
  const meta: ChunkedMeta = { ...local.meta, state: remote.state!, retainedFrom: remote.retainedFrom! };
  let entries: EntryWrites | undefined;
  if (meta.indexes) {
    entries = noEntryWrites();
    const indexed = indexedOf(t.map) as (r: { sequence: number }) => unknown;
    const conflict = conflictError("log", t.map);
    for (const records of local.chunks.values())
      for (const r of records as Array<{ sequence: number }>)
        addEntryWrites(t.map, meta.indexes, r.sequence, indexed(r), undefined, entries, conflict);
    for (const records of remote.chunks.values())
      for (const r of records as Array<{ sequence: number }>)
        addEntryWrites(t.map, meta.indexes, r.sequence, undefined, indexed(r), entries, conflict, r);
  }
  add(applied, t.map, remote.chunks.size);
  return { delete: [...local.chunks.keys()], put: [...remote.chunks], meta, entries };
}

/** The writes of a partitioned map's merged entries (`edits`, by instance), with their index entries. */
function editPartitions(
  t: Target,
  instances: readonly string[],
  snap: Snapshot,
  edits: ReadonlyMap<string, EntryEdits>,
  applied: Record<string, number>,
): MapWrites {
  const layout = (snap.meta ?? t.layout) as PartitionedLayout;
  const put: Array<[string, Map<string, unknown>]> = [];
  const removed: string[] = [];
  const entries = layout.indexes ? noEntryWrites() : undefined;
  const conflict = conflictError("map", t.map);
  instances.forEach((instance, k) => {
    const changes = edits.get(instance);
    if (!changes) return;
    const before = partitionOf(t.map, instance, snap.values[k]);
    const after = new Map(before);
    for (const [key, value] of changes) {
      if (value === undefined) after.delete(key);
      else after.set(key, value);
      if (entries) addEntryWrites(t.map, layout.indexes!, key, before.get(key), value, entries, conflict);
    }
    if (after.size > 0) put.push([instance, after]);
    else if (snap.values[k] !== undefined) removed.push(instance);
    add(applied, t.map, 1);
  });
  return { put, delete: removed, meta: snap.meta === undefined && put.length > 0 ? layout : undefined, entries };
}
