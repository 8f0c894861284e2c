// The merge of a pull (docs/sync.md, "Merge"): each entry of a partitioned map by the Rust
// core's three-way rule (src/sync.rs) over digests of its base, the store's value and the
// engine's; each log whole. The instances, their bases and the maps' metadata are read once,
// conflicts are put to `onConflict` outside any IndexedDB transaction (it may be async), and one
// readwrite transaction writes the result and the new bases, after checking that nothing it read
// has changed meanwhile (Moved: the pull merges again).
import * as args from "../common/args.js";
import {
  MERGE_FACT_EQUAL,
  MERGE_FACT_LOCAL_IS_BASE,
  MERGE_FACT_REMOTE_IS_BASE,
  MERGE_OUTCOME_CONFLICT,
  MERGE_OUTCOME_SAME,
  MERGE_OUTCOME_TAKE_REMOTE,
} from "../common/constants.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { canonicalJson } from "../export-import/exact-json.js";
import { type EntryWrites, noEntryWrites } from "../idb/index-entries.js";
import { addEntryWrites, conflictError } from "../indexes/entries.js";
import { loadEntryWrites } from "../indexes/index-host.js";
import type { MapRead, MapWrites, Snapshot } from "../instances/instances.js";
import type { ChunkedMeta, LogState, PartitionedLayout } from "../maps/layout.js";
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { profileProblem } from "../reference-samples/records.js";
import { recordIndexed } from "../reference-samples/subscriber-archive.js";
import { mergeDecisions } from "../wasm/verifier-module.js";
import {
  baseEntries,
  basesRead,
  chunkDigest,
  entryDigests,
  LOG_STATE_BASE,
  packBase,
  readingBases,
  type StoredPartitionBase,
  sameState,
  writingBases,
} from "./base.js";
import type { RemoteCopy, RemoteLog, RemotePartitions } from "./engine-copy.js";
import type { DexConflict, DexEntryConflict } from "./sync-types.js";

/** One map of a pull: the layout its copy was checked under, the engine's copy, and the instances to merge. */
export interface Target {
  map: string;
  layout: PartitionedLayout | ChunkedMeta;
  remote: RemoteCopy;
  /** A partitioned map's instances: those of the engine's copy, and (a whole copy) those with a base. */
  instances: readonly string[];
}

/** What a pull did, per map and in all. */
export interface Merged {
  applied: Record<string, number>;
  unchanged: Record<string, number>;
  conflicts: DexConflict[];
}

/** Thrown in the transaction when what the merge read changed before it could write. */
export class Moved {}

/** A count per map name, an own property whatever the name (`__proto__` too). */
export function add(counts: Record<string, number>, map: string, n: number): void {
  const value = (Object.hasOwn(counts, map) ? counts[map]! : 0) + n;
  Object.defineProperty(counts, map, { value, enumerable: true, writable: true, configurable: true });
}

const LOCAL_IS_BASE = 1 << MERGE_FACT_LOCAL_IS_BASE;
const REMOTE_IS_BASE = 1 << MERGE_FACT_REMOTE_IS_BASE;
const EQUAL = 1 << MERGE_FACT_EQUAL;

/** The three facts of one entry or log as MergeFact bits. */
const facts = (localIsBase: boolean, remoteIsBase: boolean, equal: boolean) =>
  (localIsBase ? LOCAL_IS_BASE : 0) | (remoteIsBase ? REMOTE_IS_BASE : 0) | (equal ? EQUAL : 0);

/** What the merge decided for a map: a partition's entries to set (a value) or delete (undefined), or a log taken or kept. */
type Plan =
  | { edits: Map<string, Map<string, unknown>>; bases: Map<string, StoredPartitionBase | null> }
  | "take"
  | "base"
  | "none";

/** Reads `targets`, merges them with the engine's copies, and writes the result in one transaction; see the top of the file. */
export async function mergeAndWrite(
  ctx: Context,
  targets: readonly Target[],
  onConflict: ((c: DexEntryConflict) => unknown) | undefined,
  committing: () => void,
): Promise<Merged> {
  const reads: MapRead[] = targets.map((t) =>
    t.remote.kind === "partitioned"
      ? readingBases({ map: t.map, instances: t.instances }, t.instances)
      : readingBases({ map: t.map, instances: [], all: "values" }, "all"),
  );
  const before = await ctx.instances.readMaps(reads);
  const merged: Merged = { applied: {}, unchanged: {}, conflicts: [] };
  const plans: Plan[] = [];
  for (const [i, t] of targets.entries())
    plans.push(
      t.remote.kind === "chunked"
        ? mergeLog(t, t.remote, before[i]!, merged)
        : await mergePartitions(t, t.remote, before[i]!, onConflict, merged),
    );
  committing();
  // A pull writes maps it never opened: their index write path is loaded before the write,
  // since a write that finds it missing runs again (Instances.writeMaps).
  await loadEntryWrites();
  await ctx.instances.writeMaps(reads, `pulling the engine's copy of ${targets.length} maps`, (snapshots) => ({
    writes: targets.map((t, i): MapWrites => {
      const snap = snapshots[i]!;
      if (!sameAsRead(before[i]!, snap)) throw new Moved();
      const plan = plans[i]!;
      if (plan === "none") return {};
      if (plan === "base") return { also: logBases(t.map, t.remote as RemoteLog, snap) };
      if (plan === "take") return takeLog(t, t.remote as RemoteLog, snap, merged.applied);
      return editPartitions(t, snap, plan, merged.applied);
    }),
    result: undefined,
  }));
  return merged;
}

/** The entries of the instances of `t`, merged entry by entry: edits, new bases, conflicts (with `onConflict`'s answers). */
async function mergePartitions(
  t: Target,
  remote: RemotePartitions,
  snap: Snapshot,
  onConflict: ((c: DexEntryConflict) => unknown) | undefined,
  merged: Merged,
): Promise<Plan> {
  const entries: Array<{ instance: string; key: string; local: unknown; remote: unknown; base: string | undefined }> = [];
  t.instances.forEach((instance, k) => {
    const local = partitionOf(t.map, instance, snap.values[k]);
    const theirs = remote.partitions.get(instance) ?? new Map<string, unknown>();
    const base = baseEntries(basesRead(snap).bases[k]);
    for (const key of new Set([...local.keys(), ...theirs.keys(), ...base.keys()]))
      entries.push({ instance, key, local: local.get(key), remote: theirs.get(key), base: base.get(key) });
  });
  const locals = entryDigests(entries.map((e) => e.local));
  const remotes = entryDigests(entries.map((e) => e.remote));
  const outcomes = mergeDecisions(
    Uint8Array.from(entries, (e, n) => facts(locals[n] === e.base, remotes[n] === e.base, locals[n] === remotes[n])),
  );
  const edits = new Map<string, Map<string, unknown>>();
  const differs = new Set<string>();
  for (const [n, e] of entries.entries()) {
    const outcome = outcomes[n];
    if (outcome !== MERGE_OUTCOME_SAME) differs.add(e.instance);
    let value: unknown;
    if (outcome === MERGE_OUTCOME_TAKE_REMOTE) value = e.remote;
    else if (outcome === MERGE_OUTCOME_CONFLICT) {
      const asked = { map: t.map, key: e.key, local: e.local, remote: e.remote };
      value = onConflict ? await onConflict({ ...asked }) : e.remote;
      if (value !== undefined) checkKept(t.map, e.key, value);
      merged.conflicts.push({ kind: "entry", ...asked, kept: value });
    } else continue;
    if (value === e.local) continue;
    let changes = edits.get(e.instance);
    if (!changes) edits.set(e.instance, (changes = new Map()));
    changes.set(e.key, value);
  }
  for (const instance of remote.partitions.keys()) if (!differs.has(instance)) add(merged.unchanged, t.map, 1);
  // Every instance's base becomes what the engine holds now (null: none of it).
  const digests = new Map<string, Map<string, string>>(t.instances.map((instance) => [instance, new Map()]));
  for (const [n, e] of entries.entries()) if (remotes[n] !== undefined) digests.get(e.instance)!.set(e.key, remotes[n]);
  const bases = new Map([...digests].map(([instance, d]) => [instance, packBase(d, remote.payloads.get(instance))]));
  return { edits, bases };
}

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

/**
 * Whether the transaction found the layout and the instances the merge read. Their values need
 * no second look: every writer of them waits for the locks the pull holds.
 */
function sameAsRead(a: Snapshot, b: Snapshot): boolean {
  const text = (s: Snapshot) => JSON.stringify([s.meta, s.names, basesRead(s).names, s.values.map((v) => v === undefined)]);
  return text(a) === text(b);
}

/** A log as the store holds it now: its metadata (or the new log's), chunks by instance, and the bases of its instances. */
function localLog(t: Target, snap: Snapshot) {
  const chunks = new Map((snap.names ?? []).map((n, i) => [n, snap.all![i]]));
  const read = basesRead(snap);
  const bases = new Map(read.names.map((n, i) => [n, read.bases[i]]));
  return { meta: (snap.meta ?? t.layout) as ChunkedMeta, chunks, base: bases.get(LOG_STATE_BASE) as LogState | undefined };
}

/**
 * A log, whole: the engine's taken when the store's has no appends since its base, the store's
 * kept when the engine's has none, nothing when they are equal (the engine's copy becoming the
 * base in both); both appended is a conflict, reported, and nothing of the log is written.
 */
function mergeLog(t: Target, remote: RemoteLog, snap: Snapshot, merged: Merged): Plan {
  const local = localLog(t, snap);
  const none: LogState = { nextSequence: 1, latestArchivedChunkToken: "" };
  const theirs = remote.state ?? none;
  const base = local.base ?? none;
  const equal =
    sameState(local.meta.state, theirs) &&
    local.chunks.size === remote.chunks.size &&
    [...remote.chunks].every(([n, records]) => chunkDigest(local.chunks.get(n)) === chunkDigest(records));
  const outcome = mergeDecisions(
    Uint8Array.of(facts(local.meta.state.nextSequence === base.nextSequence, theirs.nextSequence === base.nextSequence, equal)),
  )[0];
  if (outcome === MERGE_OUTCOME_SAME) add(merged.unchanged, t.map, remote.chunks.size);
  if (outcome === MERGE_OUTCOME_TAKE_REMOTE) return "take";
  if (outcome !== MERGE_OUTCOME_CONFLICT) return "base";
  merged.conflicts.push({ kind: "log", map: t.map, local: local.meta.state, remote: theirs });
  return "none";
}

/** The bases of a log as the engine holds it: each chunk's digest and the state (none: no state). */
function logBases(map: string, remote: RemoteLog, snap: Snapshot): MapWrites["also"] {
  const chunks = [...remote.chunks].map(([n, records]) => [n, chunkDigest(records)] as const);
  const put = remote.state ? [...chunks, [LOG_STATE_BASE, { ...remote.state }] as const] : chunks;
  return writingBases(map, { delete: basesRead(snap).names, put });
}

/** The writes that make a log the engine's copy: its chunks, state, index entries and bases replace the store's. */
function takeLog(t: Target, remote: RemoteLog, snap: Snapshot, applied: Record<string, number>): MapWrites {
  const local = localLog(t, snap);
  const meta: ChunkedMeta = { ...local.meta, state: remote.state!, retainedFrom: remote.retainedFrom! };
  let entries: EntryWrites | undefined;
  if (meta.indexes) {
    entries = noEntryWrites();
    const indexed = recordIndexed(t.map);
    const conflict = conflictError("log", t.map);
    for (const records of local.chunks.values())
      for (const r of records as Array<{ sequence: number }>)
        addEntryWrites(t.map, meta.indexes, r.sequence, indexed(r), undefined, entries, conflict);
    for (const records of remote.chunks.values())
      for (const r of records as Array<{ sequence: number }>)
        addEntryWrites(t.map, meta.indexes, r.sequence, undefined, indexed(r), entries, conflict, r);
  }
  add(applied, t.map, remote.chunks.size);
  return { delete: [...local.chunks.keys()], put: [...remote.chunks], meta, entries, also: logBases(t.map, remote, snap) };
}

/** The writes of a partitioned map's merged entries, with their index entries and the instances' new bases. */
function editPartitions(t: Target, snap: Snapshot, plan: Exclude<Plan, string>, applied: Record<string, number>): MapWrites {
  const layout = (snap.meta ?? t.layout) as PartitionedLayout;
  const put: Array<[string, Map<string, unknown>]> = [];
  const removed: string[] = [];
  const entries = layout.indexes ? noEntryWrites() : undefined;
  const conflict = conflictError("map", t.map);
  t.instances.forEach((instance, k) => {
    const changes = plan.edits.get(instance);
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
  return {
    put,
    delete: removed,
    meta: snap.meta === undefined && put.length > 0 ? layout : undefined,
    entries,
    also: writingBases(t.map, { put: [...plan.bases] }),
  };
}
