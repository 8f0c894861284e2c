// The entry point of the storage layer: one IndexedDB database and its lock manager.
import { watchChanges, type Change } from "./changes.js";
import { ChunkedLog, type ChunkedLogOptions } from "./chunked-log.js";
import type { Context } from "./context.js";
import { CustomerDirectory } from "./customer-directory.js";
import { AttrmapError } from "./errors.js";
import { InstanceStore } from "./idb.js";
import { defaultLocks, type LockManagerLike } from "./locks.js";
import { PartitionedMap, type PartitionedMapOptions } from "./partitioned-map.js";
import { SubscriberArchive } from "./subscriber-archive.js";
import type { LogRecord } from "../wasm/attrmap.js";

export interface OpenOptions {
  /** IndexedDB database name (default `"attrmap"`). */
  name?: string;
  /** The IndexedDB factory; defaults to `globalThis.indexedDB`. Pass one in Node (e.g. fake-indexeddb). */
  indexedDB?: IDBFactory;
  /**
   * The lock manager; defaults to `navigator.locks`, or where that is missing (Node before
   * 24, insecure contexts) an in-process fallback that serializes writers of this realm only.
   */
  locks?: LockManagerLike;
}

export class Attrmap {
  private constructor(private readonly ctx: Context) {}

  static open(options: OpenOptions = {}): Attrmap {
    const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    if (!factory) throw new AttrmapError("invalid_argument", "no IndexedDB here: pass options.indexedDB");
    return new Attrmap({ store: new InstanceStore(options.name ?? "attrmap", factory), locks: options.locks ?? defaultLocks() });
  }

  get name(): string {
    return this.ctx.store.name;
  }

  partitionedMap<V>(name: string, options?: PartitionedMapOptions): Promise<PartitionedMap<V>> {
    return PartitionedMap.open<V>(this.ctx, name, options);
  }

  chunkedLog<V>(name: string, options?: ChunkedLogOptions): Promise<ChunkedLog<V, LogRecord<V>>> {
    return ChunkedLog.open<V>(this.ctx, name, options);
  }

  customerDirectory(options?: { partitionCount?: number; mapName?: string }): Promise<CustomerDirectory> {
    return CustomerDirectory.open(this.ctx, options);
  }

  subscriberArchive(options?: ChunkedLogOptions & { mapName?: string }): Promise<SubscriberArchive> {
    return SubscriberArchive.open(this.ctx, options);
  }

  /**
   * Calls `listener` after every write that another tab, worker or service worker commits
   * to this database (through BroadcastChannel). Returns a function that stops listening.
   */
  watch(listener: (change: Change) => void): () => void {
    return watchChanges(this.name, listener);
  }

  /** Closes the database connection; later calls reopen it. */
  close(): void {
    this.ctx.store.close();
  }
}

/** Opens (lazily: the database is opened by the first operation) the attrmap storage of one IndexedDB database. */
export function openAttrmap(options: OpenOptions = {}): Attrmap {
  return Attrmap.open(options);
}
