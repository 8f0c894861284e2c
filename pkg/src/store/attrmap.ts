// The entry point of the storage layer: one IndexedDB database and its lock manager.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import type { AttrmapError } from "../common/errors.js";
import type { StoreEvent } from "../common/events.js";
import { lazyModule } from "../common/lazy-module.js";
import { defaultLocks, type LockManagerLike } from "../concurrency/locks.js";
import type { ChangesOptions, ChangesPage } from "../feed/change-feed.js";
import { feedLimit } from "../feed/feed-records.js";
import { Connection } from "../idb/connection.js";
import type { Identity } from "../idb/identity.js";
import type { IndexNames, Uninferred } from "../indexes/definition.js";
import { Instances } from "../instances/instances.js";
import { Announcer, type Change, watchChanges } from "../live/changes.js";
import { type LiveQuery, liveQuery } from "../live/live-query.js";
import { ChunkedLog } from "../logs/chunked-log.js";
import type { ChunkedLogOptions } from "../logs/log-types.js";
import { type LogRecord, valueRecords } from "../logs/records.js";
import type { PartitionedMapOptions } from "../maps/map-types.js";
import { PartitionedMap } from "../maps/partitioned-map.js";
import { CustomerDirectory, type CustomerDirectoryOptions } from "../reference-samples/customer-directory.js";
import { SubscriberArchive, type SubscriberArchiveOptions } from "../reference-samples/subscriber-archive.js";
import type { ScopeItem, Transaction, TransactionOptions } from "../transactions/transaction-types.js";
import { mapName, ready } from "../wasm/core-module.js";
import { persist, type StorageStatus, storageStatus } from "./persistence.js";

/** @internal The change feed's reader. */
export const feedReaderCode = /* @__PURE__ */ lazyModule(
  () => import("../feed/change-feed.js"),
  "changes(), changesCheckpoint() and acknowledgeChanges()",
);

/** @internal Transactions. */
export const transactionCode = /* @__PURE__ */ lazyModule(() => import("../transactions/transaction.js"), "store.transaction()");

/** What attrmap calls of an IndexedDB factory: `indexedDB` in pages and workers, fake-indexeddb's `IDBFactory` in Node. */
export interface IDBFactoryLike {
  open(name: string, version?: number): object;
}

/** The `IDBKeyRange` class that goes with an IDBFactoryLike. */
export interface IDBKeyRangeLike {
  bound(lower: unknown, upper: unknown, lowerOpen?: boolean, upperOpen?: boolean): object;
}

/** What `openAttrmap(options)` opens: which database, through which IndexedDB and locks. */
export interface OpenOptions {
  /** IndexedDB database name (default `"attrmap"`). */
  name?: string | undefined;
  /** The IndexedDB factory; defaults to `globalThis.indexedDB`. Pass one in Node (e.g. fake-indexeddb). */
  indexedDB?: IDBFactoryLike | undefined;
  /** The `IDBKeyRange` class that goes with `indexedDB`; defaults to `globalThis.IDBKeyRange`. */
  IDBKeyRange?: IDBKeyRangeLike | undefined;
  /**
   * The lock manager; defaults to `navigator.locks`, or where that is missing (Node before
   * 24, insecure contexts) an in-process fallback that serializes writers of this realm only.
   */
  locks?: LockManagerLike | undefined;
  /**
   * The change feed's bound: records kept at most, the oldest dropped first (default 100,000;
   * docs/change-feed.md). Acknowledged records go before.
   */
  maxChanges?: number | undefined;
}

/** The core's wasm module started where there is IndexedDB; else `unavailable`, no work done (a server rendering a page). */
async function started(ctx: Context): Promise<void> {
  ctx.instances.connection.needIndexedDB();
  await ready();
}

/** One attrmap database: its maps and logs, and the changes committed to it. Open it with `openAttrmap`. */
export class Attrmap {
  /** @internal */
  constructor(private readonly ctx: Context) {}

  /** The IndexedDB database name. */
  get name(): string {
    return this.ctx.instances.name;
  }

  /** A generic partitioned map of values of type `V`, whose `where` takes the names of its declared indexes (`N`). */
  async partitionedMap<V, const N extends string = string>(
    name: string,
    options: PartitionedMapOptions<Uninferred<V>, N> = {},
  ): Promise<PartitionedMap<V, IndexNames<N>>> {
    await started(this.ctx);
    return PartitionedMap.open<V, IndexNames<N>>(this.ctx, mapName("name", name), options);
  }

  /** A generic chunked log of values of type `V`, stored as `{sequence, value}` records; `N` as in `partitionedMap`. */
  async chunkedLog<V, const N extends string = string>(
    name: string,
    options: ChunkedLogOptions<Uninferred<V>, N> = {},
  ): Promise<ChunkedLog<V, LogRecord<V>, IndexNames<N>>> {
    await started(this.ctx);
    const log = mapName("name", name);
    return ChunkedLog.open<V, LogRecord<V>, IndexNames<N>>(this.ctx, log, options, valueRecords<V>(log));
  }

  /** The customer directory of the reference samples (map `CustomerProfilesByEmailPartition`, email keys). */
  async customerDirectory<const N extends string = string>(
    options: CustomerDirectoryOptions<N> = {},
  ): Promise<CustomerDirectory<IndexNames<N>>> {
    await started(this.ctx);
    return CustomerDirectory.open<IndexNames<N>>(this.ctx, options);
  }

  /** The subscriber archive of the reference samples (log `SubscriberChunks`). */
  async subscriberArchive<const N extends string = string>(
    options: SubscriberArchiveOptions<N> = {},
  ): Promise<SubscriberArchive<IndexNames<N>>> {
    await started(this.ctx);
    return SubscriberArchive.open<IndexNames<N>>(this.ctx, options);
  }

  /**
   * Runs `work` as one step over the maps and logs of `scope` (docs/transactions.md): their Web
   * Locks are taken first, in one order (any two scopes, never a deadlock), and held until the
   * work's writes through `tx` have committed, all in one IndexedDB transaction, or been
   * dropped. `scope` lists `map.at(key)` (the instance holding `key`), whole maps and logs.
   * Resolves with what `work` returns; if it throws, rejects with that same error and writes
   * nothing. `options`: the lock wait of every write, and `workTimeoutMs` (default 60,000).
   */
  async transaction<T>(
    scope: Iterable<ScopeItem>,
    work: (tx: Transaction) => Promise<T> | T,
    options: TransactionOptions = {},
  ): Promise<T> {
    await started(this.ctx);
    return (await transactionCode.load()).transaction<T>(this.ctx, scope, work, options);
  }

  /**
   * Calls `listener` after every write committed to this database by any context of the
   * origin (this one included: another tab, a worker, the service worker), with the names
   * of the instances it changed. Returns a function that stops listening.
   */
  watch(listener: (change: Change) => void): () => void {
    return watchChanges(this.name, args.func<(change: Change) => void>("listener", listener));
  }

  /**
   * A query that runs again whenever an instance it read (or looked for and did not find) is
   * changed by any writer of the origin: this context, another tab, a worker, the service
   * worker. `query` reads through the store it is given.
   */
  liveQuery<T>(query: (store: Attrmap) => Promise<T> | T): LiveQuery<T> {
    const run = args.func<(store: Attrmap) => Promise<T> | T>("query", query);
    return liveQuery(this.ctx, run, (ctx) => new Attrmap(ctx));
  }

  /**
   * The change feed (docs/change-feed.md): the records of the writes committed after
   * `options.after` (a checkpoint; default the start), oldest first, `limit` at a time. Each
   * committed write of any context is one record `{ seq, map, instances, at }`. A checkpoint
   * older than what the feed keeps is `checkpoint_expired`, never a silent gap. No lock.
   */
  async changes(options: ChangesOptions = {}): Promise<ChangesPage> {
    await started(this.ctx);
    return (await feedReaderCode.load()).changes(this.ctx, options);
  }

  /** The feed's last sequence (0 before the first write): the checkpoint of everything committed so far. */
  async changesCheckpoint(): Promise<number> {
    await started(this.ctx);
    return (await feedReaderCode.load()).checkpoint(this.ctx);
  }

  /**
   * Says the changes up to `seq` have been moved (to the engine, a server): the feed may drop
   * them; it keeps its newest record. Returns how many it dropped.
   */
  async acknowledgeChanges(seq: number): Promise<number> {
    await started(this.ctx);
    return (await feedReaderCode.load()).acknowledge(this.ctx, seq);
  }

  /**
   * The database's identity: a random `id` and `createdAt`, written when the database was
   * created and kept by import, export, resize and retention. Compare it with what your server
   * last saw to tell a first visit from data lost while no page was open.
   */
  identity(): Promise<Identity> {
    return this.ctx.instances.connection.identity();
  }

  /**
   * Calls `listener` once each time this store finds its database lost (`"datalost"`: the
   * site's data cleared, evicted or deleted; the error is `data_lost`) or out of reach for good
   * (`"unavailable"`: the browser's storage process died and this page cannot reach the new one;
   * the error is `connection_closed`: reload the page). Returns a function that stops it.
   */
  on(event: StoreEvent, listener: (error: AttrmapError) => void): () => void {
    const checked = args.oneOf<StoreEvent>("event", event, ["datalost", "unavailable"]);
    return this.ctx.instances.connection.events.on(checked, args.func<(error: AttrmapError) => void>("listener", listener));
  }

  /**
   * After `data_lost`: goes on with the database there is now (a new, empty one unless another
   * context already made it). Until this is called, every call fails with `data_lost` and
   * nothing is written, so a log never starts again at sequence 1 unnoticed.
   */
  acknowledgeDataLoss(): void {
    this.ctx.instances.connection.acknowledgeDataLoss();
  }

  /**
   * Asks the browser to keep the origin's data under storage pressure
   * (`navigator.storage.persist()`); `true` when granted, `false` where the API is missing.
   */
  persist(): Promise<boolean> {
    return persist();
  }

  /** Whether the origin's data is persisted, and its usage and quota in bytes (`undefined` where unknown). */
  storageStatus(): Promise<StorageStatus> {
    return storageStatus();
  }

  /** Closes the database connection; later calls reopen it. */
  close(): void {
    this.ctx.instances.close();
  }
}

/**
 * @internal The context of `store`, given to a function of another entry (`exportData(store)`):
 * those take the store rather than being its methods, so a page that does not import them
 * does not load them.
 */
export function contextOf(store: unknown): Context {
  // biome-ignore lint/complexity/useLiteralKeys: only brackets read a private field outside its class (its one reader)
  if (args.isInstance(store, Attrmap)) return (store as Attrmap)["ctx"];
  throw args.invalid(`store must be a store from openAttrmap(), got ${args.describeType(store)}`);
}

function hasMethod(value: unknown, method: string): boolean {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof args.field("options", value, method) === "function"
  );
}

/**
 * Opens (lazily: the database is opened by the first operation) the attrmap storage of one
 * IndexedDB database. It never fails for want of IndexedDB: there (a server rendering a page,
 * Node without `options.indexedDB`) every operation rejects with `unavailable`.
 */
export function openAttrmap(options: OpenOptions = {}): Attrmap {
  const o = args.options("options", options);
  const name = args.field("options", o, "name");
  const factory = args.field("options", o, "indexedDB") ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  const keyRange = args.field("options", o, "IDBKeyRange") ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange;
  const locks = args.field("options", o, "locks");
  // Where there is no IndexedDB (a server rendering a page, Node), the store is made anyway and
  // each operation rejects with `unavailable` (idb/connection.ts), so that a module that opens
  // it at its top level can be imported there.
  if (factory !== undefined && (typeof keyRange !== "function" || !hasMethod(keyRange, "bound")))
    throw args.invalid(
      `options.IDBKeyRange must be the IDBKeyRange class of options.indexedDB, got ${args.describeType(keyRange)}`,
    );
  if (factory !== undefined && !hasMethod(factory, "open"))
    throw args.invalid(`options.indexedDB must be an IDBFactory, got ${args.describeType(factory)}`);
  if (locks !== undefined && !hasMethod(locks, "request"))
    throw args.invalid(`options.locks must have a request() method, got ${args.describeType(locks)}`);
  const database = name === undefined ? "attrmap" : args.string("options.name", name);
  const connection = new Connection(database, factory as IDBFactory | undefined, keyRange as typeof IDBKeyRange);
  const instances = new Instances(
    connection,
    new Announcer(database),
    undefined,
    feedLimit(args.field("options", o, "maxChanges")),
  );
  return new Attrmap({ instances, locks: (locks as LockManagerLike | undefined) ?? defaultLocks() });
}
