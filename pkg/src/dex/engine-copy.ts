// The engine's copy of each named map, read back from its attributes (docs/sync.md): an
// attribute finds its map by the names of an export read backwards, its value is unwrapped and
// its records' fields renamed back, and every partition, chunk and log state is checked by the
// Rust core's export verifier as an import checks its lines, each message naming the attribute.
import * as args from "../common/args.js";
import { EXPORT_FORMAT, EXPORT_VERSION } from "../common/constants.js";
import type { Layout, LogState } from "../maps/layout.js";
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { profileProblem, subscriberRecords } from "../reference-samples/records.js";
import { SUBSCRIBER_CHUNKS_MAP } from "../reference-samples/subscriber-archive.js";
import { keyBytes, segmentNumbers } from "../wasm/encodings.js";
import type { ExportChecker } from "../wasm/verifier-module.js";
import { decodeValue } from "./attribute-source.js";
import { payloadDigests } from "./base.js";
import { escapeInstance, renamed } from "./names-option.js";
import type { DexMapNames } from "./sample-names.js";

/**
 * A partitioned map as the engine holds it: its partitions, by instance, each a map from
 * canonical key to value, and the digest of each one's payload as the engine answered it.
 */
export interface RemotePartitions {
  kind: "partitioned";
  partitions: Map<string, Map<string, unknown>>;
  payloads: Map<string, string>;
}

/** A log as the engine holds it: its chunks by instance (oldest first), its state, and where its retained records start. */
export interface RemoteLog {
  kind: "chunked";
  chunks: Map<string, unknown[]>;
  state: LogState | undefined;
  retainedFrom: number | undefined;
}

export type RemoteCopy = RemotePartitions | RemoteLog;

/** What the engine's attributes hold of one map before they are checked: each instance's value (as answered) by attribute key. */
interface Gathered {
  instances: Map<string, { key: string; value: unknown }>;
  state?: { key: string; value: unknown } | undefined;
}

/** The base64 payload of an attribute's value as answered (undefined: not an object value of JSON). */
export function payloadOf(value: unknown): string | undefined {
  const payload = (value as { objValue?: { payload?: unknown } } | null | undefined)?.objValue?.payload;
  return typeof payload === "string" ? payload : undefined;
}

/** Where attributes go: by AttributeMap (an instance) or by Attribute name (a log's state), to the map named so. */
export class AttributeRouter {
  private readonly byAttributeMap = new Map<string, string>();
  private readonly byState = new Map<string, string>();
  readonly gathered = new Map<string, Gathered>();
  readonly ignored: string[] = [];

  constructor(readonly names: ReadonlyMap<string, DexMapNames>) {
    for (const [map, n] of names) {
      this.byAttributeMap.set(n.attributeMap, map);
      if (n.stateAttribute !== undefined) this.byState.set(n.stateAttribute, map);
    }
  }

  /** Files one attribute under its map (or as ignored); a key seen twice is `invalid_argument`. */
  add(key: string, value: unknown): void {
    const stateOf = this.byState.get(key);
    if (stateOf !== undefined) {
      const g = this.of(stateOf);
      if (g.state) throw args.invalid(`attribute ${JSON.stringify(key)} comes twice`);
      g.state = { key, value };
      return;
    }
    const slash = key.lastIndexOf("/");
    const map = slash < 0 ? undefined : this.byAttributeMap.get(key.slice(0, slash));
    if (map === undefined) {
      this.ignored.push(key);
      return;
    }
    const escaped = key.slice(slash + 1);
    let instance: string | undefined;
    try {
      instance = decodeURIComponent(escaped);
    } catch {}
    if (instance === undefined || escapeInstance(instance) !== escaped)
      throw args.invalid(`attribute ${JSON.stringify(key)}: its instance is not escaped as an export escapes it`);
    const g = this.of(map);
    if (g.instances.has(instance)) throw args.invalid(`attribute ${JSON.stringify(key)} comes twice`);
    g.instances.set(instance, { key, value });
  }

  /** Leaves out an instance of `map` known to be what the engine held at the last exchange. */
  skip(map: string, instance: string): void {
    this.gathered.get(map)?.instances.delete(instance);
  }

  private of(map: string): Gathered {
    let g = this.gathered.get(map);
    if (!g) this.gathered.set(map, (g = { instances: new Map() }));
    return g;
  }
}

/** The fields of `fields` the other way round: from the name in the flow to the stored one. */
function reversed(fields: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  if (!fields) return undefined;
  const back: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [stored, sent] of Object.entries(fields)) back[sent] = stored;
  return back;
}

/** An instance's value inside its `valueField` wrapper, if the flow has one. */
function unwrapped(where: string, value: unknown, valueField: string | undefined): unknown {
  if (valueField === undefined) return value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, valueField))
    throw args.invalid(`${where} has no field "${valueField}" holding the instance`);
  return (value as Record<string, unknown>)[valueField];
}

/**
 * The engine's copy of each map of `router` that has attributes, checked by `verifier` under
 * `layoutOf(map)` (maps in name order, as an export writes them); any problem is
 * `invalid_argument` naming the attribute, before anything is written.
 */
export function checkedCopies(
  router: AttributeRouter,
  verifier: ExportChecker,
  layoutOf: (map: string) => Layout,
): Map<string, RemoteCopy> {
  const out = new Map<string, RemoteCopy>();
  verifier.header(EXPORT_FORMAT, EXPORT_VERSION);
  for (const map of [...router.gathered.keys()].sort()) {
    const g = router.gathered.get(map)!;
    const names = router.names.get(map)!;
    const back = reversed(names.recordFields);
    const layout = layoutOf(map);
    verifier.label(`the layout of map ${JSON.stringify(map)}`);
    const present = [...g.instances]
      .map(
        ([instance, a]) => [instance, { key: a.key, payload: payloadOf(a.value), value: decodeValue(a.key, a.value) }] as const,
      )
      .filter(([, a]) => a.value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (layout.kind === "partitioned") {
      if (g.state)
        throw args.invalid(`attribute ${JSON.stringify(g.state.key)} is a log's state, but map "${map}" is partitioned`);
      verifier.partitionedLayout(map, layout.layoutVersion, layout.partitionCount, layout.keyRule);
      const partitions = new Map<string, Map<string, unknown>>();
      const digests = payloadDigests(present.map(([, a]) => a.payload!));
      for (const [instance, { key, value }] of present) {
        const where = `attribute ${JSON.stringify(key)}`;
        const inner = unwrapped(where, value, names.valueField);
        if (typeof inner !== "object" || inner === null || Array.isArray(inner))
          throw args.invalid(`${where} is not a partition (an object from key to value)`);
        const keys = Object.keys(inner);
        const { bytes, ends } = keyBytes(keys);
        verifier.label(where);
        verifier.partition(map, instance, bytes, ends);
        const entries = new Map<string, unknown>();
        for (const k of keys) {
          const v = back ? renamed((inner as Record<string, unknown>)[k], back) : (inner as Record<string, unknown>)[k];
          const problem = map === CUSTOMER_PROFILES_MAP ? profileProblem(k, v) : undefined;
          if (problem !== undefined) throw args.invalid(`${where}: ${problem}`);
          entries.set(k, v);
        }
        partitions.set(instance, entries);
      }
      out.set(map, { kind: "partitioned", partitions, payloads: new Map(present.map(([i], n) => [i, digests[n]!])) });
      continue;
    }
    const stateValue = g.state && decodeValue(g.state.key, g.state.value);
    const state = stateValue === undefined ? undefined : stateOf(g.state!.key, stateValue, names);
    if (state === undefined && present.length === 0) continue; // the engine holds nothing of the log
    verifier.chunkedLayout(
      map,
      layout.layoutVersion,
      segmentNumbers(layout.segments, (s) => [s.fromSequence, s.chunkSize]),
    );
    if (state === undefined)
      throw args.invalid(`the engine holds chunks of log "${map}" but not its state (attribute "${names.stateAttribute}")`);
    verifier.label(`attribute ${JSON.stringify(g.state!.key)}`);
    verifier.state(map, state.nextSequence, state.latestArchivedChunkToken);
    const chunks = new Map<string, unknown[]>();
    for (const [instance, { key, value }] of present) {
      const where = `attribute ${JSON.stringify(key)}`;
      const inner = unwrapped(where, value, names.valueField);
      if (!Array.isArray(inner)) throw args.invalid(`${where} is not a chunk (an array of records)`);
      const records = back ? inner.map((r) => renamed(r, back)) : inner;
      verifier.label(where);
      verifier.chunk(
        map,
        instance,
        Float64Array.from(records, (r) => {
          const s = typeof r === "object" && r !== null ? (r as { sequence?: unknown }).sequence : undefined;
          return typeof s === "number" ? s : Number.NaN;
        }),
      );
      if (map === SUBSCRIBER_CHUNKS_MAP)
        for (const [i, r] of records.entries()) {
          const problem = subscriberRecords.problem(r as object);
          if (problem !== undefined) throw args.invalid(`${where}: record ${i}: ${problem}`);
        }
      chunks.set(instance, records);
    }
    out.set(map, { kind: "chunked", chunks, state, retainedFrom: verifier.retainedFrom() });
  }
  verifier.label("the end of the attributes");
  verifier.finish();
  return out;
}

/** A log's state attribute, its fields named back. */
function stateOf(key: string, value: unknown, names: DexMapNames): LogState {
  const fields = names.stateFields ?? { nextSequence: "nextSequence", latestArchivedChunkToken: "latestArchivedChunkToken" };
  const where = `attribute ${JSON.stringify(key)}`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw args.invalid(`${where} is not a log's state`);
  const v = value as Record<string, unknown>;
  const next = v[fields.nextSequence];
  const latest = v[fields.latestArchivedChunkToken];
  if (typeof next !== "number" || typeof latest !== "string")
    throw args.invalid(`${where} has no number "${fields.nextSequence}" and string "${fields.latestArchivedChunkToken}"`);
  return { nextSequence: next, latestArchivedChunkToken: latest };
}
