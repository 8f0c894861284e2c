// The stored maps as the durable-execution engine's own SetAttributes requests (canonical
// protobuf JSON, what `dexcli api call SetAttributes --data @file --yes` sends), so data can
// move into a flow of a reference SDK's sample, or of your own, in the same layout. Field names
// per SDK were read from the samples in the engine's repository (docs/dex-import.md).

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { exactJson, NotExactJson, partitionJson } from "../export-import/exact-json.js";
import { type ExportItem, exportItems } from "../export-import/export-data.js";
import { wantedMaps } from "../export-import/maps-option.js";
import { checkpoint as feedCheckpoint } from "../feed/change-feed.js";
import type { SentRecord } from "../idb/sent.js";
import * as wasm from "../wasm/core-module.js";
import { verifierReady } from "../wasm/verifier-module.js";
import { chunkDigest, LOG_STATE_BASE, packBase, partitionDigests, payloadDigests, saveSent } from "./base.js";
import { type ChangedItem, changedItems, changedSince } from "./increment.js";
import { indexInstances } from "./index-instances.js";
import { escapeInstance, namesOption, optionalString, renamed } from "./names-option.js";
import type { DexMapNames, DexSdk } from "./sample-names.js";

/** Which flow `exportDexRequests(store, options)` targets, and under which names. */
export interface DexExportOptions {
  /** The flow the attributes are set on. */
  flowId: string;
  /** Its run, when the flow has several. */
  runId?: string | undefined;
  /** The maps to send (default: every map). */
  maps?: readonly string[] | undefined;
  /** Names of a reference SDK's sample for its two maps... */
  sdk?: DexSdk | undefined;
  /** ...or names of your own flow, per stored map. */
  names?: Readonly<Record<string, DexMapNames>> | undefined;
  /**
   * Also send each index of a partitioned map as an AttributeMap in the hash-partitioned layout
   * (docs/indexes.md): `true`, or the partition count of every index (default: its map's).
   */
  indexes?: boolean | { partitionCount?: number | undefined } | undefined;
  /**
   * Send only what changed after this checkpoint of the change feed (docs/change-feed.md): the
   * instances written since as they are now, the engine's null value for those that are gone, and
   * the state of each log that changed. Pass the `checkpoint` of the previous export's requests.
   * Not with `indexes` (yet): an index is sent whole.
   */
  since?: number | undefined;
}

/** One SetAttributesRequest, under 16 MiB. */
export interface DexRequest {
  /** Derived from its content: the same data gives the same ID, so a retry reuses it. */
  requestId: string;
  /** How many attribute writes it holds (its JSON's `attributes` array is their list). */
  attributeCount: number;
  /** @deprecated The same count under its 0.5 name, kept until 1.0: use `attributeCount`. */
  attributes: number;
  /** The request as canonical protobuf JSON. */
  json: string;
  /**
   * The change feed's sequence this export (or increment) brings the engine's copy to: the
   * `since` of the next increment. The same for every request of one export.
   */
  checkpoint: number;
}

/**
 * The requests of `exportDexRequests`, one at a time, and the checkpoint they bring the engine
 * to, whatever their number: an increment with no request still moves it (the feed went on, and
 * nothing of the maps asked for changed).
 */
export interface DexRequests extends AsyncGenerator<DexRequest, void, undefined> {
  /** The `since` of the next increment, once the iteration has given every request (undefined before). */
  readonly checkpoint: number | undefined;
}

/** What a request sends of one instance: its map, its name, and its base once acknowledged. */
type Sent = readonly [map: string, instance: string, record: SentRecord];
/** A request ready to send, with what it sends. */
interface Full {
  request: DexRequest;
  sent: Sent[];
}

/** The engine's default gRPC message limit; requests stay a megabyte under it. */
const REQUEST_LIMIT = 16 * 1024 * 1024;
const ATTRIBUTES_LIMIT = REQUEST_LIMIT - 1024 * 1024;

const encoder = new TextEncoder();
/** Uint8Array's own base64 (Chromium 140, Firefox 133, Safari 18.2), where the engine has it. */
const toBase64 = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string }).toBase64;

/** The base64 of `json`'s UTF-8 bytes. */
function base64(json: string): string {
  // Printable ASCII (JSON text escapes control characters) is its own UTF-8, and btoa reads it
  // as those bytes: no copy to encode.
  if (!/[^\x20-\x7e]/.test(json)) return btoa(json);
  const bytes = encoder.encode(json);
  if (toBase64) return toBase64.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** `{"key": ..., "value": {"objValue": {"encoding": "json", "payload": base64}}}` for a value's JSON text, or its base64. */
function attribute(key: string, json: string, payload = base64(json)): string {
  return `{"key":${JSON.stringify(key)},"value":{"objValue":{"encoding":"json","payload":"${payload}"}}}`;
}

/** `options.indexes`, checked: undefined for no index, else the partition count of every index (undefined: its map's). */
function indexesOption(o: object): { partitionCount: number | undefined } | undefined {
  const value = args.field("options", o, "indexes");
  if (value === undefined || value === false) return undefined;
  if (value === true) return { partitionCount: undefined };
  const count = args.field("options.indexes", args.object("options.indexes", value), "partitionCount");
  return {
    partitionCount:
      count === undefined ? undefined : wasm.resolvePartitionCount(args.number("options.indexes.partitionCount", count)),
  };
}

/**
 * @internal The stored maps as SetAttributesRequests, one at a time; see DexExportOptions.
 * `reached` is told the checkpoint before the first request.
 */
export async function* dexRequests(
  ctx: Context,
  options: unknown,
  reached: (checkpoint: number) => void,
): AsyncGenerator<DexRequest> {
  const o = args.object("options", options);
  const flowId = args.string("options.flowId", args.field("options", o, "flowId"));
  if (flowId === "") throw args.invalid("options.flowId must not be empty");
  const runId = optionalString("options", o, "runId");
  const namesFor = namesOption(o);
  const indexes = indexesOption(o);
  const sinceGiven = args.field("options", o, "since");
  const since = sinceGiven === undefined ? undefined : args.count("options.since", sinceGiven, 0);
  if (since !== undefined && indexes)
    throw args.invalid("options.since cannot be given with options.indexes yet: an increment sends no index");
  const wanted = wantedMaps(o);
  await verifierReady();
  // A full export is at the feed's checkpoint before it reads anything: a write during it is sent
  // again by the next increment, and a value sent twice leaves the engine as once.
  const increment = since === undefined ? undefined : await changedSince(ctx, since, wanted);
  const checkpoint = increment?.checkpoint ?? (await feedCheckpoint(ctx));
  reached(checkpoint);
  const items: AsyncIterable<ExportItem | ChangedItem> = increment
    ? changedItems(ctx, increment.changed)
    : exportItems(ctx, wanted);
  const checked = new Map<string, DexMapNames | undefined>();
  const envelope = (attributes: string[], part: number) => {
    const body = attributes.join(",");
    const requestId = `attrmap-${flowId}-${part}-${wasm.hashBytes(encoder.encode(body)).toString(16).padStart(8, "0")}`;
    const run = runId === undefined ? "" : `"runId":${JSON.stringify(runId)},`;
    return {
      requestId,
      attributeCount: attributes.length,
      attributes: attributes.length,
      json: `{"flowId":${JSON.stringify(flowId)},${run}"attributes":[${body}],"requestId":"${requestId}"}`,
      checkpoint,
    };
  };
  let pending: string[] = [];
  let pendingSent: Sent[] = [];
  let size = 0;
  let part = 0;
  /** Adds one attribute and what it sends of an instance; returns the request it would make too large, to send first. */
  function add(map: string, written: string, sent?: Sent): Full | undefined {
    if (written.length > ATTRIBUTES_LIMIT)
      throw new AttrmapError("not_exportable", `map "${map}": one attribute is over 15 MiB, more than one request holds`);
    let full: Full | undefined;
    if (size + written.length > ATTRIBUTES_LIMIT && pending.length > 0) {
      full = { request: envelope(pending, ++part), sent: pendingSent };
      pending = [];
      pendingSent = [];
      size = 0;
    }
    pending.push(written);
    if (sent) pendingSent.push(sent);
    size += written.length + 1;
    return full;
  }
  /** A request, once what it sends is recorded: the instances' bases when its checkpoint is acknowledged (docs/sync.md). */
  async function sendable({ request: r, sent }: Full): Promise<DexRequest> {
    await saveSent(ctx, checkpoint, sent, "recording what an export sends");
    return r;
  }
  for await (const item of items) {
    if (!checked.has(item.map)) checked.set(item.map, namesFor(item.map));
    const target = checked.get(item.map);
    if (!target) throw args.invalid(`there are no Dex names for map "${item.map}": pass them in options.names`);
    if (item.kind === "layout") {
      // The flow's code holds its layout; an index is sent as a map of its own.
      if (indexes && item.layout.kind === "partitioned")
        for (const def of item.layout.indexes ?? []) {
          const attributeMap = target.indexes?.[def.name] ?? `${target.attributeMap}_index_${escapeInstance(def.name)}`;
          const count = indexes.partitionCount ?? item.layout.partitionCount;
          for (const { instance, json, largest } of await indexInstances(
            ctx,
            item.map,
            def.name,
            item.layout.layoutVersion,
            count,
          )) {
            const written = attribute(`${attributeMap}/${escapeInstance(instance)}`, json);
            if (written.length > ATTRIBUTES_LIMIT)
              throw new AttrmapError(
                "not_exportable",
                `index "${def.name}" of map "${item.map}": instance ${instance} is over 15 MiB, more than one request ` +
                  `holds; its largest value ${largest.value} has ${largest.keys} keys (give the index more partitions, ` +
                  "or index a field with fewer keys a value)",
              );
            const full = add(item.map, written);
            if (full) yield await sendable(full);
          }
        }
      continue;
    }
    let written: string;
    let sent: Sent;
    try {
      if (item.kind === "gone") {
        // The engine deletes an attribute written with its null value.
        const key = JSON.stringify(`${target.attributeMap}/${escapeInstance(item.instance)}`);
        written = `{"key":${key},"value":{"nullValue":null}}`;
        sent = [item.map, item.instance, { whole: null }];
      } else if (item.kind === "state") {
        const fields = target.stateFields ?? {
          nextSequence: "nextSequence",
          latestArchivedChunkToken: "latestArchivedChunkToken",
        };
        if (!target.stateAttribute) throw args.invalid(`map "${item.map}" is a log: its Dex names need a stateAttribute`);
        const state = renamed(item.state, {
          nextSequence: fields.nextSequence,
          latestArchivedChunkToken: fields.latestArchivedChunkToken,
        });
        written = attribute(target.stateAttribute, exactJson(state));
        sent = [item.map, LOG_STATE_BASE, { whole: { ...item.state } }];
      } else {
        const fields = target.recordFields;
        const inner =
          item.value instanceof Map
            ? partitionJson(fields ? new Map([...item.value].map(([k, v]) => [k, renamed(v, fields)])) : item.value)
            : exactJson(fields ? item.value.map((r) => renamed(r, fields)) : item.value);
        const json = target.valueField ? `{${JSON.stringify(target.valueField)}:${inner}}` : inner;
        const payload = base64(json);
        written = attribute(`${target.attributeMap}/${escapeInstance(item.instance)}`, json, payload);
        // A partition's base keeps its payload's digest: a pull finds the same payload unchanged without reading it.
        const whole =
          item.value instanceof Map
            ? packBase(partitionDigests(item.value), payloadDigests([payload])[0])
            : chunkDigest(item.value);
        sent = [item.map, item.instance, { whole }];
      }
    } catch (e) {
      if (!(e instanceof NotExactJson)) throw e;
      throw new AttrmapError("not_exportable", `map "${item.map}": ${e.message} cannot be sent as JSON exactly`, { cause: e });
    }
    const full = add(item.map, written, sent);
    if (full) yield await sendable(full);
  }
  if (pending.length > 0) yield await sendable({ request: envelope(pending, ++part), sent: pendingSent });
}
