// The instances of every map of one database: a map's instances are records keyed [map, instance] in one
// object store, and each map has one metadata record (its layout, and a log's bookkeeping).
// Every write is one readwrite transaction that reads what it needs, computes, and puts,
// with nothing else awaited in between, so a failure or a crash leaves no partial state.
// Every read is one readonly transaction that reads the map's metadata with the instances,
// so the caller can tell whether the layout it placed keys with is still the stored one.
// It stores values it knows nothing of: what they mean is the maps' and logs' business.

import { AttrmapError, storageError } from "../common/errors.js";
import { CodeNeeded, lazyModule } from "../common/lazy-module.js";
import { appendChanges, DEFAULT_FEED_LIMIT, dropBeyond } from "../feed/feed-records.js";
import type { Connection } from "../idb/connection.js";
import { announcedEntries, type EntryWrites, entryStoreCode, touchesIndexEntries } from "../idb/index-entries.js";
import type { KeyBounds } from "../idb/keys.js";
import { attempt, request, settledBeforeCommit } from "../idb/requests.js";
import { INSTANCES, MAPS } from "../idb/schema.js";
import { readOnly, runTransaction } from "../idb/transaction.js";
import type { Announcer, MapChange } from "../live/changes.js";
import { removedBy, written } from "./written.js";

/** @internal The read-back of a write in doubt (read-back.ts), loaded in the background at the first write. */
export const readBackCode = /* @__PURE__ */ lazyModule(() => import("./read-back.js"), "the read-back of a write in doubt");

/** What a write stores in one map: instances to put, archives to add (never overwrite), to delete, the metadata. */
export interface MapWrites {
  put?: ReadonlyArray<readonly [instance: string, value: unknown]>;
  add?: ReadonlyArray<readonly [instance: string, value: unknown]>;
  delete?: readonly string[];
  /** Deletes every instance named from `from` (included) to `to` (excluded). */
  deleteRange?: readonly [from: string, to: string];
  /** The new metadata record; `null` removes it. */
  meta?: object | null;
  /** What the write does to the map's index entries. */
  entries?: EntryWrites | undefined;
  /** Requests of other object stores, issued in the same transaction (a pull's bases: docs/sync.md). */
  also?: ((tx: IDBTransaction) => IDBRequest[]) | undefined;
}

/** What a write of one map stores, and what it answers. */
export type Writes<T> = MapWrites & { result: T };

/** What a write reads of one map: its metadata, `instances`, and (see ReadAll) more of it. */
export interface MapRead {
  map: string;
  instances: readonly string[];
  all?: ReadAll;
  /** Reads of other object stores in the same transaction (a pull's bases: docs/sync.md), found as the snapshot's `also`. */
  also?: ((tx: IDBTransaction, doing: string, keyRange: typeof IDBKeyRange) => Promise<unknown>) | undefined;
}

/** What a read found: the map's raw metadata record and the raw values of the instances asked for. */
export interface Snapshot {
  meta: unknown;
  values: unknown[];
  /** With `all`: the names of every instance of the map, in name order (and their values with `all: "values"`). */
  names?: string[];
  all?: unknown[];
  /** What the read's `also` found. */
  also?: unknown;
}

/**
 * How much of the whole map a write reads besides the instances it names: every name, every
 * value, (a step of a walk) the values of up to `limit` instances named after `after`, or the
 * values of those named from `between[0]` (included) to `between[1]` (excluded).
 */
export type ReadAll =
  | "keys"
  | "values"
  | { after: string | undefined; limit: number }
  | { between: readonly [from: string, to: string] }
  | undefined;

/**
 * What one read of a map covers: instances by name (none: the map's metadata alone), every
 * instance (`"all"`: a walk or a count), the layout alone (opening the map), or (`"feed"`, with
 * no map) the change feed, which every write that changes instances adds to.
 */
export type ReadScope = readonly string[] | "all" | "layout" | "feed" | { entries: readonly KeyBounds[] };

/** Told of every read before it is made: live queries learn from it what a query read. */
export type ReadObserver = (map: string, scope: ReadScope) => void;

/** One database's instances and metadata: reads and read-modify-writes, each in one transaction. */
export class Instances {
  /** The IndexedDB database name. */
  readonly name: string;

  /**
   * The instances of one database: `connection` (its life, identity and events), `announcer` for
   * its changes, and `observer` told of every read.
   */
  constructor(
    readonly connection: Connection,
    private readonly announcer: Announcer,
    private readonly observer?: ReadObserver,
    /** The change feed's bound: records kept at most (docs/change-feed.md). */
    readonly feedLimit = DEFAULT_FEED_LIMIT,
  ) {
    this.name = connection.name;
  }

  /** These instances, whose reads are told to `observer` first; it shares the connection and everything else. */
  observed(observer: ReadObserver): Instances {
    return new Instances(this.connection, this.announcer, observer, this.feedLimit);
  }

  /** Every instance of `map`; with `after`, those named after it. */
  instancesOf(map: string, after?: string): IDBKeyRange {
    const range = this.connection.keyRange;
    return after === undefined ? range.bound([map], [map, []]) : range.bound([map, after], [map, []], true, true);
  }

  /** Every instance of every map whose name starts with `prefix`. */
  instancesUnder(prefix: string): IDBKeyRange {
    return this.connection.keyRange.bound([prefix], [`${prefix}\uffff`, []]);
  }

  /** The instances of `map` named from `from` (included) to `to` (excluded). */
  private instancesBetween(map: string, [from, to]: readonly [string, string]): IDBKeyRange {
    return this.connection.keyRange.bound([map, from], [map, to], false, true);
  }

  /**
   * Runs `body` in one transaction; resolves when it has committed, rejects (with nothing
   * written) otherwise. `body`'s own error (a caller's callback's, too) is passed on as it is.
   */
  transaction<T>(
    mode: IDBTransactionMode,
    doing: string,
    body: (tx: IDBTransaction) => Promise<T>,
    // `seen`: whether a write whose commit is in doubt is `outcome_unknown`; not for the import's
    // staging area, which no reader sees and the next import clears.
    { seen = mode === "readwrite" }: { seen?: boolean } = {},
  ): Promise<T> {
    if (seen) readBackCode.preload();
    return runTransaction(this.connection, mode, doing, body, seen);
  }

  /**
   * The one way a read reaches IndexedDB: tells the observer what it reads of `map`, then
   * makes the requests `issue` makes in one readonly transaction (kept open until they are done
   * with `walk`, for a cursor that continues). Every read method of one map goes through here,
   * so a new one is observed too (readMaps, which reads several at once, tells it of each).
   */
  reading<T>(
    map: string,
    scope: ReadScope,
    doing: string,
    issue: (tx: IDBTransaction) => Promise<T>,
    { walk = false }: { walk?: boolean } = {},
  ): Promise<T> {
    this.observer?.(map, scope);
    return walk ? this.transaction("readonly", doing, issue) : readOnly(this.connection, doing, issue);
  }

  /** A stored value as this realm's (see Connection.toThisRealm). */
  readonly own = <V>(value: V): V => this.connection.toThisRealm(value);

  /** Reads the metadata of `map` and `instances` of it in one readonly transaction, with no lock. */
  async read(map: string, instances: readonly string[]): Promise<Snapshot> {
    return (await this.readMaps([{ map, instances }]))[0]!;
  }

  /**
   * Reads, in one readonly transaction, the metadata and the instances each of `reads` names, and
   * (see ReadAll) more of each (for a transaction: the layouts its keys were placed under, and the
   * instances it holds; for a pull: the chunks of its logs), with no lock.
   */
  async readMaps(reads: readonly MapRead[]): Promise<Snapshot[]> {
    const [only] = reads;
    const doing =
      reads.length > 1
        ? `reading ${reads.map((r) => `"${r.map}"`).join(", ")}`
        : only!.instances.length === 1
          ? `reading "${only!.instances[0]}" of map "${only!.map}"`
          : `reading ${only!.instances.length} instances of map "${only!.map}"`;
    for (const { map, instances, all } of reads) this.observer?.(map, all ? "all" : instances);
    return readOnly(this.connection, doing, (tx) => Promise.all(reads.map((r) => this.readIn(tx, r, doing))));
  }

  /** How many instances `map` has. */
  countInstances(map: string, doing: string): Promise<number> {
    return this.reading(map, "all", doing, (tx) => request(tx.objectStore(INSTANCES).count(this.instancesOf(map)), doing));
  }

  /** How many instances of `map` are named from `range[0]` (included) to `range[1]` (excluded). */
  countRange(map: string, range: readonly [string, string], doing: string): Promise<number> {
    return this.reading(map, "all", doing, (tx) =>
      request(tx.objectStore(INSTANCES).count(this.instancesBetween(map, range)), doing),
    );
  }

  /**
   * Opens `map`: `open` decides from its stored layout (or undefined) what to store and what to
   * return. A map that exists is opened with a readonly read; only a layout to store is written,
   * in a readwrite transaction that asks `open` again.
   */
  async openMap<T>(map: string, doing: string, open: (meta: unknown) => { meta: object | undefined; result: T }): Promise<T> {
    const reading = `reading the layout of map "${map}"`;
    const meta = await this.reading(map, "layout", reading, (tx) => request(tx.objectStore(MAPS).get(map), reading));
    const found = open(this.own(meta));
    if (found.meta === undefined) return found.result;
    return this.write({ map, instances: [] }, doing, ({ meta }) => open(meta));
  }

  /**
   * One read-modify-write: reads what `read` names of one map, lets `compute` decide
   * the writes, and stores them in the same readwrite transaction. `compute` may throw to
   * write nothing; its error is passed on.
   */
  write<T>(read: MapRead, doing: string, compute: (snapshot: Snapshot) => Writes<T>): Promise<T> {
    return this.writeMaps([read], doing, ([snapshot]) => {
      const writes = compute(snapshot!);
      return { writes: [writes], result: writes.result };
    });
  }

  /**
   * One read-modify-write over several maps (a transaction's commit): reads what `reads` name
   * of each, lets `compute` decide each map's writes (in the order of `reads`), and stores them
   * all in one readwrite transaction, with one change record per map written and one
   * announcement naming them all. `compute` may throw to write nothing; its error is passed on.
   * One that throws CodeNeeded runs again once that code has loaded: `compute` may run more than
   * once, so it changes nothing but what it returns.
   */
  async writeMaps<T>(
    reads: readonly MapRead[],
    doing: string,
    compute: (snapshots: Snapshot[]) => { writes: MapWrites[]; result: T },
  ): Promise<T> {
    for (;;) {
      try {
        return await this.writeOnce(reads, doing, compute);
      } catch (e) {
        if (!(e instanceof CodeNeeded)) throw e;
        await e.module.load();
      }
    }
  }

  private async writeOnce<T>(
    reads: readonly MapRead[],
    doing: string,
    compute: (snapshots: Snapshot[]) => { writes: MapWrites[]; result: T },
  ): Promise<T> {
    let before: Snapshot[] = [];
    let decided: { writes: MapWrites[]; result: T } | undefined;
    // The instances each range delete removed, as the transaction found them (none if it is in doubt).
    let dropped: string[][] = reads.map(() => []);
    const result = await this.transaction("readwrite", doing, async (tx) => {
      before = await Promise.all(reads.map((r) => this.readIn(tx, r, doing)));
      decided = compute(before);
      const planned = decided.writes;
      const issued: IDBRequest[] = [];
      for (const w of planned)
        if (w.entries) await entryStoreCode.now().storeEntries(tx, w.entries, this.connection.keyRange, doing, issued);
      const ranged = planned.map((w, i) => attempt(doing, () => this.issue(tx, reads[i]!.map, w, issued)));
      dropped = await Promise.all(ranged.map(async (r) => (r ? (await request(r, doing)).map(instanceOf) : [])));
      const changed = planned.map((w, i) => [reads[i]!.map, [...written(w).keys(), ...dropped[i]!]] as const);
      await this.settled(tx, issued, changed, doing);
      return decided.result;
    }).catch(async (e: unknown) => {
      if (!(e instanceof AttrmapError && e.code === "outcome_unknown") || !decided) throw e;
      // Entries alone (a step of an index build) cannot be read back: the caller starts again.
      const readable = decided.writes.flatMap((w, i) => (written(w).size > 0 || w.meta !== undefined ? [i] : []));
      if (readable.length === 0) throw e;
      const { readBack, settleInDoubt } = await readBackCode.load().catch(() => {
        throw e; // its code could not be fetched either: the write stays in doubt
      });
      const found = await Promise.all(
        readable.map((i) => readBack(this, reads[i]!.map, doing, reads[i]!.instances, before[i]!, decided!.writes[i]!)),
      );
      settleInDoubt(found, doing, e);
      return decided.result;
    });
    // Announced only once committed, and only when instances or entries changed (not for a layout alone).
    this.announceChanged(
      decided!.writes.map((w, i) => ({
        map: reads[i]!.map,
        instances: [...written(w).keys(), ...dropped[i]!],
        removed: removedBy(w, dropped[i]!),
        entries: w.entries,
      })),
    );
    return result;
  }

  /** Issues the requests of what `read` asks of one map in `tx`: its metadata, instances and (see ReadAll) more. */
  private async readIn(tx: IDBTransaction, { map, instances, all, also }: MapRead, doing: string): Promise<Snapshot> {
    const store = tx.objectStore(INSTANCES);
    const walk = typeof all === "object" && "after" in all ? all : undefined;
    const between = typeof all === "object" && "between" in all ? all.between : undefined;
    // An empty range (from not before to) holds nothing, and IndexedDB refuses to make it.
    const scope = between
      ? between[0] < between[1]
        ? this.instancesBetween(map, between)
        : undefined
      : this.instancesOf(map, walk?.after);
    const whole = <T>(read: (range: IDBKeyRange) => IDBRequest<T[]>): Promise<T[]> | T[] =>
      scope ? request(read(scope), doing) : [];
    const [extra, meta, keys, everything, ...values] = await Promise.all([
      also?.(tx, doing, this.connection.keyRange),
      request(tx.objectStore(MAPS).get(map), doing),
      all ? whole((r) => store.getAllKeys(r, walk?.limit)) : undefined,
      all && all !== "keys" ? whole((r) => store.getAll(r, walk?.limit)) : undefined,
      ...instances.map((i) => request(store.get([map, i]), doing)),
    ]);
    return {
      meta: this.own(meta),
      values: values.map(this.own),
      names: keys?.map(instanceOf),
      all: everything?.map(this.own),
      ...(also && { also: this.own(extra) }),
    };
  }

  /**
   * Issues the requests of one map's `writes` in `tx` into `issued`; returns the request that
   * lists the instances its range delete removes (requests run in order: the keys before they go).
   */
  private issue(tx: IDBTransaction, map: string, writes: MapWrites, issued: IDBRequest[]): IDBRequest<IDBValidKey[]> | undefined {
    const store = tx.objectStore(INSTANCES);
    const maps = tx.objectStore(MAPS);
    if (writes.meta === null) issued.push(maps.delete(map));
    else if (writes.meta) issued.push(maps.put(writes.meta, map));
    let inRange: IDBRequest<IDBValidKey[]> | undefined;
    if (writes.deleteRange) {
      const range = this.instancesBetween(map, writes.deleteRange);
      inRange = store.getAllKeys(range);
      issued.push(store.delete(range));
    }
    for (const instance of writes.delete ?? []) issued.push(store.delete([map, instance]));
    for (const [instance, value] of writes.put ?? []) issued.push(store.put(value, [map, instance]));
    for (const [instance, value] of writes.add ?? []) issued.push(store.add(value, [map, instance]));
    for (const r of writes.also?.(tx) ?? []) issued.push(r);
    return inRange;
  }

  /**
   * Ends a write's requests: appends its change records (one for each map of `changed` whose
   * instances it put or deleted; none for a map whose instances it left alone), waits until every
   * request has succeeded (see settledBeforeCommit), then keeps the feed within its bound.
   */
  async settled(
    tx: IDBTransaction,
    issued: readonly IDBRequest[],
    changed: ReadonlyArray<readonly [map: string, instances: readonly string[]]>,
    doing: string,
  ): Promise<void> {
    const records = changed.filter(([, names]) => names.length > 0).map(([map, names]) => [map, [...new Set(names)]] as const);
    const appended = appendChanges(tx, records, doing);
    await settledBeforeCommit([...issued, ...appended], doing);
    const last = appended.at(-1)?.result;
    if (last !== undefined) dropBeyond(tx, last as number, this.feedLimit, this.connection.keyRange);
  }

  /** The map's metadata and its first instance named after `after` (undefined: the first), in one readonly transaction. */
  readNext(
    map: string,
    after: string | undefined,
    doing: string,
  ): Promise<{ meta: unknown; instance?: string; value?: unknown }> {
    return this.reading(map, "all", doing, async (tx) => {
      const [meta, cursor] = await Promise.all([
        request(tx.objectStore(MAPS).get(map), doing),
        request(tx.objectStore(INSTANCES).openCursor(this.instancesOf(map, after)), doing),
      ]);
      const found = { meta: this.own(meta) };
      return cursor ? { ...found, instance: instanceOf(cursor.primaryKey), value: this.own(cursor.value as unknown) } : found;
    });
  }

  /**
   * Visits the instances of `map` in name order, one at a time, in one readonly transaction
   * (with its metadata first): memory holds one instance, never the whole map. `visit` runs
   * synchronously for each; return `false` from it to stop.
   */
  scan(map: string, doing: string, visit: (meta: unknown, instance: string, value: unknown) => unknown): Promise<unknown> {
    return this.reading(
      map,
      "all",
      doing,
      async (tx) => {
        const meta = this.own(await request(tx.objectStore(MAPS).get(map), doing));
        await new Promise<void>((resolve, reject) => {
          const req = tx.objectStore(INSTANCES).openCursor(this.instancesOf(map));
          req.onerror = () => reject(storageError(req.error, doing));
          req.onsuccess = () => {
            const cursor = req.result;
            if (!cursor) return resolve();
            let more: unknown;
            try {
              more = visit(meta, instanceOf(cursor.primaryKey), this.own(cursor.value));
            } catch (e) {
              return reject(e);
            }
            if (more === false) resolve();
            else cursor.continue();
          };
        });
        return meta;
      },
      { walk: true },
    );
  }

  /**
   * Tells every context of the origin, in one announcement, which instances (and entries) of
   * each map a committed write changed; maps it left alone are left out (none: nothing).
   */
  announceChanged(
    changes: ReadonlyArray<{ map: string; instances: string[]; removed?: string[]; entries?: EntryWrites | undefined }>,
  ): void {
    const told = changes.flatMap(({ map, instances, removed, entries }) => {
      if (instances.length === 0 && !touchesIndexEntries(entries)) return [];
      const change: MapChange = { map, instances };
      if (removed !== undefined && removed.length > 0) change.removed = removed;
      if (touchesIndexEntries(entries)) change.entries = announcedEntries(entries);
      return [change];
    });
    if (told.length > 0) this.announcer.announce(told);
  }

  /** Closes the connection and the change channel; the next call opens new ones. */
  close(): void {
    this.announcer.close();
    this.connection.close();
  }
}

/** The instance name of a key `[map, instance]` of the instances' object store. */
function instanceOf(key: IDBValidKey): string {
  return (key as [string, string])[1];
}
