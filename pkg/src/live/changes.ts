// Change notifications: after a write commits, its database, map and instances are posted
// on a BroadcastChannel of the origin, so other tabs, workers and the service worker can
// refresh what they show. The message names what changed, never the data itself.
import type { EntryKey, KeyBounds } from "../idb/keys.js";
import * as args from "../store/args.js";

/** What a write did to index entries: these keys, and every key in these ranges. */
export interface EntryChanges {
  keys: EntryKey[];
  ranges: KeyBounds[];
}

/** What one committed write changed. */
export interface Change {
  database: string;
  map: string;
  instances: string[];
  /** Index entries put or deleted (absent: none). */
  entries?: EntryChanges;
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

  /** Posts one change to every other listener of the database. */
  announce(map: string, instances: string[], entries?: EntryChanges): void {
    this.channel ??= hasBroadcast() ? unreffed(new BroadcastChannel(channelName(this.database))) : undefined;
    const change: Change = entries
      ? { database: this.database, map, instances, entries }
      : { database: this.database, map, instances };
    this.channel?.postMessage(change);
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
  const { database: db, map, instances, entries } = data as Record<string, unknown>;
  const ok =
    db === database && typeof map === "string" && Array.isArray(instances) && instances.every((i) => typeof i === "string");
  if (!ok) return undefined;
  const change: Change = { database, map, instances: [...(instances as string[])] };
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
    return { keys: keys as EntryKey[], ranges: ranges as KeyBounds[] };
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
