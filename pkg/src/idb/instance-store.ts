// The IndexedDB instance store: a map's instances are records keyed [map, instance] in one
// object store, and each map has one metadata record (its layout, and a log's bookkeeping).
// Every write is one readwrite transaction that reads what it needs, computes, and puts,
// with nothing else awaited in between, so a failure or a crash leaves no partial state.
// Every read is one readonly transaction that reads the map's metadata with the instances,
// so the caller can tell whether the layout it placed keys with is still the stored one.
import { announce, openChannel } from "../live/changes.js";
import { AttrmapError, isDOMException, serverLost, storageError } from "../store/errors.js";
import { Events } from "../store/events.js";
import { freshIndexedDB, unreachable } from "./frame.js";
import { dataLost, type Identity, newIdentity, storedIdentity } from "./identity.js";
import { sameValue } from "./same-value.js";

/** The object store of every instance, keyed `[map, instance]`. */
export const INSTANCES = "instances";
/** The object store of the maps' metadata records, keyed by map name. */
export const MAPS = "maps";
/** The object store of the database's own records: its identity. */
export const DATABASE = "database";
/** The key of the identity record in DATABASE. */
const IDENTITY = "identity";
/** The IndexedDB schema version this library creates and expects: the stored format's version (docs/storage.md). */
export const DB_VERSION = 3;
/** Opens tried after a connection was closed under the store, before the next call's own (50 ms, then doubling). */
const LOOK_AGAIN_TRIES = 6;

/** What one readwrite transaction stores: instances to put, archives to add (never overwrite), to delete, the metadata. */
export interface Writes<T> {
  put?: ReadonlyArray<readonly [instance: string, value: unknown]>;
  add?: ReadonlyArray<readonly [instance: string, value: unknown]>;
  delete?: readonly string[];
  /** Deletes every instance named from `from` (included) to `to` (excluded). */
  deleteRange?: readonly [from: string, to: string];
  /** The new metadata record; `null` removes it. */
  meta?: object | null;
  result: T;
}

/** What a read found: the map's raw metadata record and the raw values of the instances asked for. */
export interface Snapshot {
  meta: unknown;
  values: unknown[];
  /** With `all`: the names of every instance of the map, in name order (and their values with `all: "values"`). */
  names?: string[];
  all?: unknown[];
}

/** How much of the whole map a write reads besides the instances it names. */
export type ReadAll = "keys" | "values" | undefined;

/** One whole-map rewrite in progress (see InstanceStore.rewrite). */
export interface Rewrite {
  meta: unknown;
  /** Every instance of the map, in name order, and their values. */
  names: string[];
  values: unknown[];
  /** Deletes every instance of the map. */
  clear(): void;
  /** Puts one instance; resolves when IndexedDB has done it (the transaction is still open). */
  put(instance: string, value: unknown): Promise<void>;
  putMeta(meta: object): void;
}

/**
 * Resolves once every write request of a transaction has succeeded; rejects with the first
 * failure (the quota, a taken key). A transaction body awaits this before it returns, so that
 * commit() is called with nothing pending: Firefox and WebKit do not abort a transaction for a
 * request that fails after commit() was called, and its other writes would land without it.
 */
export function settledBeforeCommit(requests: readonly IDBRequest[], doing: string): Promise<unknown> {
  return Promise.all(requests.map((r) => request(r, doing)));
}

/** A request's result; a failed request rejects with the AttrmapError for it. */
export function request<T>(req: IDBRequest<T>, doing: string): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(storageError(req.error, doing));
  });
}

/**
 * Runs synchronous IndexedDB calls: a DOMException (DataCloneError, ...) becomes its
 * AttrmapError; anything else was thrown by the caller's value while it was being cloned
 * (a getter, a proxy trap), so the value is what is wrong.
 */
export function attempt<T>(doing: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (isDOMException(e)) throw storageError(e, doing);
    throw new AttrmapError(
      "invalid_argument",
      `${doing} failed: a value could not be copied for storage: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}

/**
 * Creates a database, or brings one written by an older version of this library to the
 * current schema. Version 1 stored a log's chunk size as one number and no key rule: a log
 * becomes one segment, and a partitioned map takes the key rule it is next opened with.
 * Version 2 had no identity: it gets one now, as a new database does.
 */
function upgrade(tx: IDBTransaction, oldVersion: number): void {
  const db = tx.db;
  if (!db.objectStoreNames.contains(INSTANCES)) db.createObjectStore(INSTANCES);
  if (!db.objectStoreNames.contains(MAPS)) db.createObjectStore(MAPS);
  if (!db.objectStoreNames.contains(DATABASE)) db.createObjectStore(DATABASE).put(newIdentity(), IDENTITY);
  if (oldVersion === 1) {
    tx.objectStore(MAPS).openCursor().onsuccess = (event) => {
      const cursor = (event.target as IDBRequest<IDBCursorWithValue | null>).result;
      if (!cursor) return;
      const old = cursor.value as { kind?: unknown; chunkSize?: unknown; state?: unknown };
      if (old.kind === "chunked" && typeof old.chunkSize === "number") {
        const { chunkSize, ...rest } = old;
        cursor.update({
          ...rest,
          segments: [{ fromSequence: 1, chunkSize }],
          state: old.state ?? { nextSequence: 1, latestArchivedChunkToken: "" },
          retainedFrom: 1,
        });
      }
      cursor.continue();
    };
  }
}

/** Whether a database that exists is attrmap's: one of another program is never changed. */
function ours(db: IDBDatabase): boolean {
  return db.objectStoreNames.contains(INSTANCES) && db.objectStoreNames.contains(MAPS);
}

/** One database's instances and metadata: reads and read-modify-writes, each in one transaction. */
export class InstanceStore {
  private connection: Promise<IDBDatabase> | undefined;
  private opened: IDBDatabase | undefined;
  private channel: BroadcastChannel | undefined | null = null;
  /** The identity of the database this store has used; once set, any other database is a loss. */
  private seen: Identity | undefined;
  /** Set once the data is lost (`data_lost`) or storage is out of reach (`connection_closed`): every call fails with it. */
  private failure: AttrmapError | undefined;
  /** `datalost`, `unavailable`, and `reset` when a loss is acknowledged. */
  readonly events = new Events();

  /**
   * What a value read becomes before it is used: itself, or once the store reads through a
   * frame's IndexedDB (see frame.ts), a copy made in this realm, so that `instanceof Map` and
   * the caller's own checks hold.
   */
  private adopt: <V>(value: V) => V = (value) => value;

  constructor(
    readonly name: string,
    private factory: IDBFactory,
    private keyRange: typeof IDBKeyRange,
  ) {}

  /** Every instance of `map`; with `after`, those named after it. */
  instancesOf(map: string, after?: string): IDBKeyRange {
    return after === undefined ? this.keyRange.bound([map], [map, []]) : this.keyRange.bound([map, after], [map, []], true, true);
  }

  /** Every instance of every map whose name starts with `prefix`. */
  instancesUnder(prefix: string): IDBKeyRange {
    return this.keyRange.bound([prefix], [`${prefix}\uffff`, []]);
  }

  private open(reconnected = false): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      const doing = `opening database "${this.name}" at version ${DB_VERSION}`;
      let req: IDBOpenDBRequest;
      try {
        req = this.factory.open(this.name, DB_VERSION);
      } catch (e) {
        reject(storageError(e, doing));
        return;
      }
      let replaced = false;
      let foreign = false;
      req.onupgradeneeded = (event) => {
        // This store used the database at this version: one that must be created or upgraded is
        // another. Aborting the upgrade writes nothing (a database it was creating is not made).
        if (this.seen) {
          replaced = true;
          req.transaction!.abort();
          return;
        }
        if (event.oldVersion > 0 && !ours(req.result)) {
          foreign = true;
          req.transaction!.abort();
          return;
        }
        upgrade(req.transaction!, event.oldVersion);
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another context wants a newer schema: let go, reopen on next use. It deletes the
        // database, or the browser closed us (site data cleared, storage evicted): let go, and
        // look again at once, so that a loss is told when it happens.
        db.onversionchange = (event) => this.drop(db, event.newVersion === null);
        db.onclose = () => this.drop(db, true);
        this.recognize(db).then(
          () => {
            this.opened = db;
            resolve(db);
          },
          (e: unknown) => {
            db.close();
            reject(e);
          },
        );
      };
      req.onerror = (event) => {
        event.preventDefault(); // handled here: not an uncaught error of the page
        const error = storageError(req.error, doing);
        if (replaced) return reject(this.fail("datalost", dataLost(this.name, this.seen!)));
        if (foreign)
          return reject(
            new AttrmapError(
              "storage_error",
              `${doing} failed: it is another program's database (it has no "${INSTANCES}" and "${MAPS}" stores); left as it is`,
            ),
          );
        if (!serverLost(req.error)) return reject(error);
        // The storage process died (WebKit): connect again through a fresh document, once.
        const fresh = reconnected ? undefined : freshIndexedDB(this.factory);
        if (!fresh) return reject(this.fail("unavailable", unreachable(this.name, error)));
        this.factory = fresh.factory;
        this.keyRange = fresh.keyRange;
        this.adopt = (value) => structuredClone(value);
        resolve(this.open(true));
      };
    });
  }

  /** Reads the identity of a database just opened: the first one seen is this store's; another is a loss. */
  private async recognize(db: IDBDatabase): Promise<void> {
    const doing = `reading the identity of database "${this.name}"`;
    const tx = attempt(doing, () => db.transaction(DATABASE, "readonly"));
    const found = this.adopt(await request(tx.objectStore(DATABASE).get(IDENTITY), doing));
    tx.commit?.();
    const identity = found === undefined && this.seen ? undefined : storedIdentity(this.name, found);
    if (!this.seen) this.seen = identity;
    else if (identity?.id !== this.seen.id) throw this.fail("datalost", dataLost(this.name, this.seen));
  }

  /** Enters the failed state (once: the first failure stays) and tells its listeners. */
  private fail(event: "datalost" | "unavailable", error: AttrmapError): AttrmapError {
    if (this.failure) return this.failure;
    this.failure = error;
    this.events.emit(event, error);
    return error;
  }

  /** The database's identity, as `store.identity()` gives it. */
  async identity(): Promise<Identity> {
    await this.db();
    return this.seen!;
  }

  /**
   * After a `data_lost`: forgets the lost database, so that the next call opens (or creates)
   * the one there is now. No-op otherwise.
   */
  acknowledgeDataLoss(): void {
    if (this.failure?.code !== "data_lost") return;
    const lost = this.failure;
    this.failure = undefined;
    this.seen = undefined;
    this.events.emit("reset", lost);
  }

  /** Closes `db`; with `lookAgain`, opens a new connection at once (see open). */
  private drop(db: IDBDatabase, lookAgain = false): void {
    db.close();
    // Forget it only if it is still the current one: a newer connection may be open already.
    if (this.opened === db) {
      this.opened = undefined;
      this.connection = undefined;
      if (lookAgain) this.lookAgain();
    }
  }

  /** Opens a connection now, to learn whether the database is still this store's; a failed open is tried again a few times. */
  private lookAgain(attempt = 0): void {
    this.db().catch(() => {
      // A browser still clearing the site's data fails opens for a moment ("The connection was closed").
      if (this.failure || attempt >= LOOK_AGAIN_TRIES) return;
      const timer = setTimeout(() => this.lookAgain(attempt + 1), 50 * 2 ** attempt);
      (timer as { unref?: () => void }).unref?.(); // in Node, never what keeps the process alive
    });
  }

  private db(): Promise<IDBDatabase> {
    if (this.failure) return Promise.reject(this.failure);
    const connection = (this.connection ??= this.open());
    connection.catch(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    return connection;
  }

  /** A new transaction over both stores; a connection found closing (version change, shutdown) gets one fresh try. */
  private async begin(mode: IDBTransactionMode, doing: string): Promise<IDBTransaction> {
    for (let retried = false; ; retried = true) {
      const db = await this.db();
      try {
        return db.transaction([INSTANCES, MAPS], mode);
      } catch (e) {
        if (retried || !isDOMException(e) || e.name !== "InvalidStateError") throw storageError(e, doing);
        this.drop(db);
      }
    }
  }

  /**
   * Runs `body` in one transaction; resolves when it has committed, rejects (with nothing
   * written) otherwise. `body`'s own error (a caller's callback's, too) is passed on as it is.
   */
  async transaction<T>(
    mode: IDBTransactionMode,
    doing: string,
    body: (tx: IDBTransaction) => Promise<T>,
    // Whether a write whose commit is in doubt is `outcome_unknown`: not for the import's staging
    // area, which no reader sees and the next import clears.
    seen = mode === "readwrite",
  ): Promise<T> {
    const tx = await this.begin(mode, doing);
    return new Promise<T>((resolve, reject) => {
      let result: T;
      let failure: { error: unknown } | undefined;
      let committing = false;
      tx.oncomplete = () => resolve(result);
      tx.onabort = () => {
        const error = failure
          ? failure.error
          : storageError(tx.error ?? new DOMException("transaction aborted", "AbortError"), doing);
        // The storage process died (WebKit: "An internal error was encountered in the Indexed
        // Database server", for a request or the whole transaction): this connection is done. A
        // write asked to commit may have landed all the same; the caller reads back what it wrote.
        if (!(error instanceof AttrmapError && isDOMException(error.cause) && error.cause.name === "UnknownError"))
          return reject(error);
        this.drop(tx.db, true);
        if (mode === "readonly") return reject(error);
        reject(committing && seen ? outcomeUnknown(doing, error) : notWritten(doing, error));
      };
      body(tx).then(
        (r) => {
          result = r;
          committing = true;
          tx.commit?.();
        },
        (e: unknown) => {
          failure = { error: e };
          try {
            tx.abort();
          } catch {
            // Already finished: onabort or oncomplete has run or will run.
          }
        },
      );
    });
  }

  /**
   * A readonly transaction with the requests `issue` makes at once, resolved as soon as they
   * have succeeded: what a readonly transaction read is final then, and waiting for its
   * completion event costs a round trip more (BENCHMARKS.md). `issue` makes every request
   * before it first awaits: the transaction is committed when it returns.
   */
  private async readOnly<T>(doing: string, issue: (tx: IDBTransaction) => Promise<T>): Promise<T> {
    const tx = await this.begin("readonly", doing);
    const reads = issue(tx);
    // Ended now, not when this context's event loop next goes idle: a page that is navigated
    // away (or frozen) right after the read would otherwise leave it open, and WebKit then
    // holds every later readwrite transaction of the origin behind it.
    tx.commit?.();
    return reads;
  }

  /** Reads the metadata of `map` and `instances` of it in one readonly transaction, with no lock. */
  async read(map: string, instances: readonly string[]): Promise<Snapshot> {
    const doing =
      instances.length === 1
        ? `reading "${instances[0]}" of map "${map}"`
        : `reading ${instances.length} instances of map "${map}"`;
    const [meta, ...values] = await this.readOnly(doing, (tx) => {
      const store = tx.objectStore(INSTANCES);
      return Promise.all([
        request(tx.objectStore(MAPS).get(map), doing),
        ...instances.map((i) => request(store.get([map, i]), doing)),
      ]);
    });
    return { meta: this.adopt(meta), values: values.map(this.adopt) };
  }

  /**
   * Opens `map`: `open` decides from its stored layout (or undefined) what to store and what to
   * return. A map that exists is opened with a readonly read; only a layout to store is written,
   * in a readwrite transaction that asks `open` again. Live queries open maps on every run and
   * do not count this as a read: a change of layout shows in every later read.
   */
  async openMap<T>(map: string, doing: string, open: (meta: unknown) => { meta: object | undefined; result: T }): Promise<T> {
    const reading = `reading the layout of map "${map}"`;
    const found = open(this.adopt(await this.readOnly(reading, (tx) => request(tx.objectStore(MAPS).get(map), reading))));
    if (found.meta === undefined) return found.result;
    return this.write(map, [], doing, ({ meta }) => open(meta));
  }

  /**
   * One read-modify-write: reads the map's metadata and `instances`, lets `compute` decide
   * the writes, and stores them in the same readwrite transaction. `compute` may throw to
   * write nothing; its error is passed on.
   */
  async write<T>(
    map: string,
    instances: readonly string[],
    doing: string,
    compute: (snapshot: Snapshot) => Writes<T>,
    all?: ReadAll,
  ): Promise<T> {
    const changed: string[] = [];
    let before: Snapshot | undefined;
    let planned: Writes<T> | undefined;
    const result = await this.transaction("readwrite", doing, async (tx) => {
      const store = tx.objectStore(INSTANCES);
      const maps = tx.objectStore(MAPS);
      const [meta, keys, everything, ...values] = await Promise.all([
        request(maps.get(map), doing),
        all ? request(store.getAllKeys(this.instancesOf(map)), doing) : undefined,
        all === "values" ? request(store.getAll(this.instancesOf(map)), doing) : undefined,
        ...instances.map((i) => request(store.get([map, i]), doing)),
      ]);
      const names = keys?.map((k) => (k as [string, string])[1]);
      before = { meta: this.adopt(meta), values: values.map(this.adopt), names, all: everything?.map(this.adopt) };
      const writes = (planned = compute(before));
      const [ranged, issued] = attempt(doing, () => {
        const issued: IDBRequest[] = [];
        if (writes.meta === null) issued.push(maps.delete(map));
        else if (writes.meta) issued.push(maps.put(writes.meta, map));
        let inRange: IDBRequest<IDBValidKey[]> | undefined;
        if (writes.deleteRange) {
          const range = this.keyRange.bound([map, writes.deleteRange[0]], [map, writes.deleteRange[1]], false, true);
          inRange = store.getAllKeys(range); // requests run in order: the keys before they go
          issued.push(store.delete(range));
        }
        for (const instance of writes.delete ?? []) issued.push(store.delete([map, instance]));
        for (const [instance, value] of writes.put ?? []) issued.push(store.put(value, [map, instance]));
        for (const [instance, value] of writes.add ?? []) issued.push(store.add(value, [map, instance]));
        return [inRange, issued] as const;
      });
      const [dropped] = await Promise.all([ranged && request(ranged, doing), settledBeforeCommit(issued, doing)]);
      const rangeNames = (dropped ?? []).map((k) => (k as [string, string])[1]);
      changed.push(
        ...(writes.put ?? []).map(([i]) => i),
        ...(writes.add ?? []).map(([i]) => i),
        ...(writes.delete ?? []),
        ...rangeNames,
      );
      return writes.result;
    }).catch(async (e: unknown) => {
      if (!(e instanceof AttrmapError && e.code === "outcome_unknown") || !planned) throw e;
      await this.readBack(map, doing, instances, before!, planned, e);
      changed.push(...(planned.put ?? []).map(([i]) => i), ...(planned.add ?? []).map(([i]) => i), ...(planned.delete ?? []));
      return planned.result;
    });
    // Announced only once committed, and only when instances changed (not for a layout alone).
    this.announceChanged(map, changed);
    return result;
  }

  /**
   * After `outcome_unknown`: reads back what the write changed, through a new connection, and
   * returns if it landed; throws `transaction_aborted` if everything is as before it, and the
   * `outcome_unknown` it was given if it cannot tell. The caller still holds the write's locks,
   * so no writer of this library changed those instances since.
   */
  private async readBack(
    map: string,
    doing: string,
    read: readonly string[],
    before: Snapshot,
    writes: Writes<unknown>,
    unknown: AttrmapError,
  ): Promise<void> {
    const written = new Map<string, unknown>([
      ...(writes.delete ?? []).map((i) => [i, undefined] as const),
      ...(writes.put ?? []),
      ...(writes.add ?? []),
    ]);
    const names = [...written.keys()];
    let now: Snapshot;
    let leftInRange = 0;
    try {
      now = await this.read(map, names);
      if (writes.deleteRange) {
        const range = this.keyRange.bound([map, writes.deleteRange[0]], [map, writes.deleteRange[1]], false, true);
        const reading = `reading back ${doing}`;
        leftInRange = await this.readOnly(reading, (tx) => request(tx.objectStore(INSTANCES).count(range), reading));
      }
    } catch {
      throw unknown;
    }
    // An instance the write did not read (an archive it added) was absent before it.
    const previous = (name: string) => before.values[read.indexOf(name)];
    const pairs: Array<[now: unknown, landed: unknown, kept: unknown]> = names.map((n, i) => [
      now.values[i],
      written.get(n),
      previous(n),
    ]);
    if (writes.meta !== undefined) pairs.push([now.meta, writes.meta ?? undefined, before.meta]);
    const landed = pairs.every(([n, l]) => sameValue(n, l) === true) && leftInRange === 0;
    const kept = pairs.every(([n, , k]) => sameValue(n, k) === true) && (writes.deleteRange === undefined || leftInRange > 0);
    if (landed) return;
    throw kept ? notWritten(doing, unknown) : unknown;
  }

  /**
   * A transaction that rewrites a whole map, in steps: `body` reads the metadata and every
   * instance, then replaces them, awaiting only the requests it is given (so the transaction
   * stays active: a step may report progress between requests). All of it commits or none.
   */
  async rewrite<T>(map: string, doing: string, body: (tx: Rewrite) => Promise<T>): Promise<T> {
    const changed = new Set<string>();
    let before: unknown;
    let after: object | undefined;
    let result: T | undefined;
    const issued: IDBRequest[] = [];
    await this.transaction("readwrite", doing, async (tx) => {
      const store = tx.objectStore(INSTANCES);
      const maps = tx.objectStore(MAPS);
      const [meta, keys, values] = await Promise.all([
        request(maps.get(map), doing),
        request(store.getAllKeys(this.instancesOf(map)), doing),
        request(store.getAll(this.instancesOf(map)), doing),
      ]);
      const names = keys.map((k) => (k as [string, string])[1]);
      for (const name of names) changed.add(name);
      before = this.adopt(meta);
      result = await body({
        meta: before,
        names,
        values: values.map(this.adopt),
        clear: () => attempt(doing, () => void issued.push(store.delete(this.instancesOf(map)))),
        put: async (instance, value) => {
          changed.add(instance);
          await request(
            attempt(doing, () => store.put(value, [map, instance])),
            doing,
          );
        },
        putMeta: (value) => {
          after = value;
          attempt(doing, () => void issued.push(maps.put(value, map)));
        },
      });
      await settledBeforeCommit(issued, doing);
    }).catch(async (e: unknown) => {
      // A rewrite stores a new layout version: the metadata alone says whether it landed.
      if (!(e instanceof AttrmapError && e.code === "outcome_unknown") || after === undefined) throw e;
      await this.readBack(map, doing, [], { meta: before, values: [] }, { meta: after, result: undefined }, e);
    });
    this.announceChanged(map, [...changed]);
    return result as T;
  }

  /** The map's metadata and its first instance named after `after` (undefined: the first), in one readonly transaction. */
  readNext(
    map: string,
    after: string | undefined,
    doing: string,
  ): Promise<{ meta: unknown; instance?: string; value?: unknown }> {
    return this.readOnly(doing, async (tx) => {
      const [meta, cursor] = await Promise.all([
        request(tx.objectStore(MAPS).get(map), doing),
        request(tx.objectStore(INSTANCES).openCursor(this.instancesOf(map, after)), doing),
      ]);
      const found = { meta: this.adopt(meta) };
      return cursor
        ? { ...found, instance: (cursor.primaryKey as [string, string])[1], value: this.adopt(cursor.value as unknown) }
        : found;
    });
  }

  /**
   * Visits the instances of `map` in name order, one at a time, in one readonly transaction
   * (with its metadata first): memory holds one instance, never the whole map. `visit` runs
   * synchronously for each; return `false` from it to stop.
   */
  scan(map: string, doing: string, visit: (meta: unknown, instance: string, value: unknown) => unknown): Promise<unknown> {
    return this.transaction("readonly", doing, async (tx) => {
      const meta = this.adopt(await request(tx.objectStore(MAPS).get(map), doing));
      await new Promise<void>((resolve, reject) => {
        const req = tx.objectStore(INSTANCES).openCursor(this.instancesOf(map));
        req.onerror = () => reject(storageError(req.error, doing));
        req.onsuccess = () => {
          const cursor = req.result;
          if (!cursor) return resolve();
          let more: unknown;
          try {
            more = visit(meta, (cursor.primaryKey as [string, string])[1], this.adopt(cursor.value));
          } catch (e) {
            return reject(e);
          }
          if (more === false) resolve();
          else cursor.continue();
        };
      });
      return meta;
    });
  }

  /** Tells every context of the origin that these instances of `map` changed (none: nothing). */
  announceChanged(map: string, instances: string[]): void {
    if (instances.length > 0) announce((this.channel ??= openChannel(this.name)), { database: this.name, map, instances });
  }

  /** Closes the connection and the change channel; the next call opens new ones. */
  close(): void {
    this.channel?.close();
    this.channel = null;
    void this.connection?.then(
      (db) => this.drop(db),
      () => undefined,
    );
  }
}

/** The `transaction_aborted` of a write the browser's storage failed before it committed. */
function notWritten(doing: string, cause: AttrmapError): AttrmapError {
  return new AttrmapError(
    "transaction_aborted",
    `${doing} failed: the browser's storage failed before the write committed; nothing was written`,
    { cause },
  );
}

/** The `outcome_unknown` of a write whose transaction the browser reported aborted after it was asked to commit. */
function outcomeUnknown(doing: string, cause: AttrmapError): AttrmapError {
  return new AttrmapError(
    "outcome_unknown",
    `${doing}: the browser's storage failed while the write committed, and what it wrote could not be read back: ` +
      "the write may have landed",
    { cause },
  );
}

/** An AttrmapError for stored data that breaks a rule, naming map and instance. */
export function corrupt(map: string, instance: string | undefined, reason: string, cause?: unknown): AttrmapError {
  const where = instance === undefined ? `map "${map}"` : `instance "${instance}" of map "${map}"`;
  return new AttrmapError("corrupt_data", `${where}: ${reason}`, cause === undefined ? undefined : { cause });
}
