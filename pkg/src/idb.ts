// The IndexedDB instance store: a map's instances are records keyed [map, instance] in
// one object store, and each map has one metadata record (its layout, and a log's state).
// Every write is one readwrite transaction that reads what it needs, computes, and puts,
// with nothing else awaited in between, so a failure or a crash leaves no partial state.
import { announce, openChannel } from "./changes.js";
import { AttrmapError, storageError } from "./errors.js";
import type { LogState } from "../wasm/attrmap.js";

export const INSTANCES = "instances";
export const MAPS = "maps";
/** The IndexedDB schema version this library creates and expects. */
export const DB_VERSION = 1;

/** What a map's metadata record holds. Its layout is fixed when the map is first opened. */
export type MapMeta =
  | { kind: "partitioned"; layoutVersion: 1; partitionCount: number }
  | { kind: "chunked"; layoutVersion: 1; chunkSize: number; state?: LogState };

/** The result of a write step: instances to put, archives to add (never overwrite), meta. */
export interface Writes<T> {
  put?: Array<readonly [instance: string, value: unknown]>;
  add?: Array<readonly [instance: string, value: unknown]>;
  meta?: MapMeta;
  result: T;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class InstanceStore {
  private connection: Promise<IDBDatabase> | undefined;
  private opened: IDBDatabase | undefined;
  private channel: BroadcastChannel | undefined | null = null;

  constructor(
    readonly name: string,
    private readonly factory: IDBFactory,
  ) {}

  private open(): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      let req: IDBOpenDBRequest;
      try {
        req = this.factory.open(this.name, DB_VERSION);
      } catch (e) {
        reject(storageError(e, `opening database "${this.name}"`));
        return;
      }
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(INSTANCES)) db.createObjectStore(INSTANCES);
        if (!db.objectStoreNames.contains(MAPS)) db.createObjectStore(MAPS);
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another tab wants a newer schema, or the browser closed us: let go, reopen on next use.
        db.onversionchange = () => this.drop(db);
        db.onclose = () => this.drop(db);
        this.opened = db;
        resolve(db);
      };
      req.onerror = () => reject(storageError(req.error, `opening database "${this.name}" at version ${DB_VERSION}`));
    });
  }

  private drop(db: IDBDatabase): void {
    db.close();
    // Forget it only if it is still the current one: a newer connection may be open already.
    if (this.opened === db) {
      this.opened = undefined;
      this.connection = undefined;
    }
  }

  private db(): Promise<IDBDatabase> {
    const connection = (this.connection ??= this.open());
    connection.catch(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    return connection;
  }

  /** Runs `body` in one transaction; resolves when it has committed, rejects (with nothing written) otherwise. */
  private async transaction<T>(mode: IDBTransactionMode, doing: string, body: (tx: IDBTransaction) => Promise<T>, retried = false): Promise<T> {
    const db = await this.db();
    let tx: IDBTransaction;
    try {
      tx = db.transaction([INSTANCES, MAPS], mode);
    } catch (e) {
      // The connection was closing under us (version change, browser shutdown): one fresh try.
      if (!retried && e instanceof DOMException && e.name === "InvalidStateError") {
        this.drop(db);
        return this.transaction(mode, doing, body, true);
      }
      throw storageError(e, doing);
    }
    return new Promise<T>((resolve, reject) => {
      let result: T;
      let failure: unknown;
      tx.oncomplete = () => resolve(result);
      tx.onabort = () => reject(failure ?? storageError(tx.error ?? new DOMException("transaction aborted", "AbortError"), doing));
      body(tx).then(
        (r) => {
          result = r;
          tx.commit?.();
        },
        (e: unknown) => {
          failure = e instanceof AttrmapError ? e : storageError(e, doing);
          try {
            tx.abort();
          } catch {
            // Already finished: onabort or oncomplete has run or will run.
          }
        },
      );
    });
  }

  /** Reads one instance in one readonly transaction: a single get, no lock. */
  read<T>(map: string, instance: string): Promise<T | undefined> {
    return this.transaction("readonly", `reading "${instance}" of map "${map}"`, (tx) =>
      request(tx.objectStore(INSTANCES).get([map, instance]) as IDBRequest<T | undefined>),
    );
  }

  /** Reads several instances of one map in one readonly transaction. */
  readMany<T>(map: string, instances: readonly string[]): Promise<Array<T | undefined>> {
    return this.transaction("readonly", `reading ${instances.length} instances of map "${map}"`, (tx) => {
      const store = tx.objectStore(INSTANCES);
      return Promise.all(instances.map((i) => request(store.get([map, i]) as IDBRequest<T | undefined>)));
    });
  }

  readMeta(map: string): Promise<MapMeta | undefined> {
    return this.transaction("readonly", `reading the layout of map "${map}"`, (tx) =>
      request(tx.objectStore(MAPS).get(map) as IDBRequest<MapMeta | undefined>),
    );
  }

  /**
   * One read-modify-write: reads the map's metadata and `instances`, lets `compute` decide
   * the writes, and stores them in the same readwrite transaction.
   */
  async write<T>(
    map: string,
    instances: readonly string[],
    doing: string,
    compute: (meta: MapMeta | undefined, values: unknown[]) => Writes<T>,
  ): Promise<T> {
    const written: string[] = [];
    const result = await this.transaction("readwrite", doing, async (tx) => {
      const store = tx.objectStore(INSTANCES);
      const maps = tx.objectStore(MAPS);
      const [meta, ...values] = await Promise.all([
        request(maps.get(map) as IDBRequest<MapMeta | undefined>),
        ...instances.map((i) => request(store.get([map, i]))),
      ]);
      const writes = compute(meta as MapMeta | undefined, values);
      if (writes.meta) maps.put(writes.meta, map);
      for (const [instance, value] of writes.put ?? []) store.put(value, [map, instance]);
      for (const [instance, value] of writes.add ?? []) store.add(value, [map, instance]);
      written.push(...[...(writes.put ?? []), ...(writes.add ?? [])].map(([instance]) => instance));
      return writes.result;
    });
    // Announced only once committed, and only when instances changed (not for a layout alone).
    if (written.length > 0) announce((this.channel ??= openChannel(this.name)), { database: this.name, map, instances: written });
    return result;
  }

  /** Closes the connection and the change channel; the next call opens new ones. */
  close(): void {
    this.channel?.close();
    this.channel = null;
    void this.connection?.then((db) => this.drop(db), () => undefined);
  }
}
