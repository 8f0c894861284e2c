// Change notifications: after a write commits, its database, map and instances are posted
// on a BroadcastChannel of the origin, so other tabs, workers and the service worker can
// refresh what they show. The message names what changed, never the data itself.

import * as args from "../common/args.js";
import type { EntryKey, KeyBounds } from "../idb/keys.js";

/** What a write did to index entries: these keys, and every key in these ranges. */
export interface EntryChanges {
  keys: EntryKey[];
  ranges: KeyBounds[];
}

/**
 * What a committed write changed in one map: the instances it wrote (partitions, chunks),
 * those of them it removed, and the index entries it changed. An index build or drop changes
 * entries alone (`instances` empty); a delete that leaves its partition with other entries
 * rewrites it (in `instances`, not `removed`).
 */
export interface MapChange {
  map: string;
  instances: string[];
  /**
   * Those of `instances` that no longer exist after the write: a partition its last entry left,
   * a chunk retention dropped, a partition a resize emptied. Absent: none.
   */
  removed?: string[];
  /** Index entries put or deleted (absent: none). */
  entries?: EntryChanges;
}

/**
 * What one committed write changed: `map`, `instances` and `entries` are those of the first
 * map it wrote, and `maps` lists every map it wrote (more than one for `store.transaction`).
 */
export interface Change extends MapChange {
  database: string;
  maps: MapChange[];
}

function channelName(database: string): string {
  return `attrmap:${database}`;
}

const hasBroadcast = () => typeof BroadcastChannel !== "undefined";

/**
 * @internal The channel a database's writes are announced on, opened at the first
 * announcement (nothing is posted where BroadcastChannel is missing).
 */
export class Announcer {
  private channel: BroadcastChannel | undefined | null = null;

  constructor(private readonly database: string) {}

  /**
   * Posts one change to every other listener of the database: the first map's change, and
   * with it (when there are more) every map's, so that a listener of an older version, which
   * reads the first only, still gets a valid change.
   */
  announce(maps: readonly MapChange[]): void {
    this.channel ??= hasBroadcast() ? unreffed(new BroadcastChannel(channelName(this.database))) : undefined;
    const message = maps.length > 1 ? { database: this.database, ...maps[0], maps } : { database: this.database, ...maps[0] };
    this.channel?.postMessage(message);
  }

  /** Closes the channel; the next announcement opens a new one. */
  close(): void {
    this.channel?.close();
    this.channel = null;
  }
}

/** In Node an open channel keeps the process alive; one used only to announce must not. */
function unreffed(channel: BroadcastChannel): BroadcastChannel {
  (channel as { unref?: () => void }).unref?.();
  return channel;
}

/** A message of the channel as a Change, or undefined for anything else posted on it. */
function asChange(database: string, data: unknown): Change | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { database: db, maps } = data as Record<string, unknown>;
  if (db !== database) return undefined;
  const each = (Array.isArray(maps) ? maps : [data]).map(asMapChange);
  if (each.length === 0 || each.some((c) => c === undefined)) return undefined;
  const changes = each as MapChange[];
  // The first map's fields again, as copies: a listener that changes one list changes only it.
  const first = asMapChange(changes[0])!;
  return { database, ...first, maps: changes };
}

/** One map's part of a message, checked, or undefined when it is malformed. */
function asMapChange(data: unknown): MapChange | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { map, instances, removed, entries } = data as Record<string, unknown>;
  const names = (list: unknown): list is string[] => Array.isArray(list) && list.every((i) => typeof i === "string");
  if (typeof map !== "string" || !names(instances) || (removed !== undefined && !names(removed))) return undefined;
  const change: MapChange = { map, instances: [...instances] };
  if (removed !== undefined && removed.length > 0) change.removed = removed.filter((r) => instances.includes(r));
  // Entries are compared as keys only (live-query.ts); a malformed list is read as "everything of the map".
  if (entries !== undefined) change.entries = entryChangesOf(map, entries);
  return change;
}

const isKey = (k: unknown): boolean =>
  typeof k === "string" || (typeof k === "number" && !Number.isNaN(k)) || (Array.isArray(k) && k.every(isKey));

function entryChangesOf(map: string, raw: unknown): EntryChanges {
  const { keys, ranges } = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const range = (r: unknown) => {
    const { lower, upper } = (typeof r === "object" && r !== null ? r : {}) as Record<string, unknown>;
    return isKey(lower) && isKey(upper);
  };
  if (Array.isArray(keys) && keys.every(isKey) && Array.isArray(ranges) && ranges.every(range))
    return { keys: [...(keys as EntryKey[])], ranges: [...(ranges as KeyBounds[])] };
  return { keys: [], ranges: [{ lower: [map], upper: [map, []], lowerOpen: false, upperOpen: false }] };
}

/**
 * Calls `listener` for every change committed to `database` by any context of the origin:
 * this one too, another tab, a worker, the service worker. Malformed messages on the
 * channel are ignored. Returns a function that stops it.
 */
export function watchChanges(database: string, listener: (change: Change) => void): () => void {
  args.string("database", database);
  args.func("listener", listener);
  if (!hasBroadcast()) return () => undefined;
  const channel = new BroadcastChannel(channelName(database));
  channel.onmessage = (event: MessageEvent<unknown>) => {
    const change = asChange(database, event.data);
    if (change) listener(change);
  };
  return () => channel.close();
}
