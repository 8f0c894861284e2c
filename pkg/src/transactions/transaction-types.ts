// The public face of `store.transaction` (docs/transactions.md): what a scope names, what the
// work's `tx` offers, the options and their bounds. Types and constants only: a page that never
// runs a transaction loads none of transaction.ts.
import type { WriteOptions } from "../concurrency/locks.js";
import type { ChunkedLog } from "../logs/chunked-log.js";
import type { PartitionedMap } from "../maps/partitioned-map.js";
import type { KeyScope } from "../maps/scope.js";
import type { CustomerDirectory } from "../reference-samples/customer-directory.js";
import type { CustomerProfile, CustomerProfileInput, NewSubscriber, Subscriber } from "../reference-samples/records.js";
import type { SubscriberArchive } from "../reference-samples/subscriber-archive.js";

/** How `store.transaction` waits for its locks (as every write does) and how long its work may run. */
export interface TransactionOptions extends WriteOptions {
  /**
   * The longest the work may run once the locks are held, in milliseconds (default 60,000;
   * `Infinity`: no bound). Past it the transaction fails with `aborted`, nothing is written, the
   * locks are let go, and `tx` refuses every later call.
   */
  workTimeoutMs?: number | undefined;
}

/** The default of `workTimeoutMs`: a work that never settles holds its locks this long at most. */
export const DEFAULT_WORK_TIMEOUT_MS = 60_000;

/**
 * A partitioned map of any value type, as a scope or `tx.delete` names it: the members that do
 * not depend on the value type (which TypeScript holds invariant in PartitionedMap).
 */
export type SomePartitionedMap = Pick<PartitionedMap<unknown>, "name" | "partitionCount" | "keyRule" | "layoutVersion" | "at">;

/** A chunked log of any record type, as a scope names it. */
export type SomeChunkedLog = Pick<ChunkedLog<unknown, { sequence: number }>, "name" | "chunkSize" | "segments" | "layoutVersion">;

/**
 * What a transaction may write: `map.at(key)` (the instance that holds `key`), a partitioned map
 * (every instance of it), a chunked log, the customer directory, the subscriber archive.
 */
export type ScopeItem = KeyScope | SomePartitionedMap | SomeChunkedLog | CustomerDirectory | SubscriberArchive;

/**
 * The work's view of a transaction: reads see the committed data and the work's own earlier
 * writes; writes are staged and land together when the work settles. A write outside the scope,
 * or one that fails, fails the whole transaction, even if the work catches it.
 */
export interface Transaction {
  /** Aborted when the transaction ends before the work does (its signal, `workTimeoutMs`): pass it on to a `fetch`. */
  readonly signal: AbortSignal;
  /** The value of `key`, or `undefined`: staged by this work, else committed. No lock beyond the scope's. */
  get<V>(map: PartitionedMap<V>, key: string): Promise<V | undefined>;
  get(directory: CustomerDirectory, emailAddress: string): Promise<CustomerProfile | undefined>;
  /** Values of many keys, by canonical key (absent keys left out), as `map.getMany` gives them. */
  getMany<V>(map: PartitionedMap<V>, keys: Iterable<string>): Promise<Map<string, V>>;
  getMany(directory: CustomerDirectory, emailAddresses: Iterable<string>): Promise<Map<string, CustomerProfile>>;
  /** Stages `value` under `key` (its instance must be in the scope); gives the value as it will be stored. */
  upsert<V>(map: PartitionedMap<V>, key: string, value: V): Promise<V>;
  /** The directory's profile may leave out `emailAddress` (the key's); one it gives must canonicalize to it. */
  upsert(directory: CustomerDirectory, emailAddress: string, profile: Partial<CustomerProfileInput>): Promise<CustomerProfile>;
  /** Stages the removal of `key` (its instance must be in the scope); whether it was there. */
  delete(map: SomePartitionedMap | CustomerDirectory, key: string): Promise<boolean>;
  /** Stages an append (the log must be in the scope); gives the record as it will be stored, with its sequence. */
  append<I, R extends { sequence: number }>(log: ChunkedLog<I, R>, item: I): Promise<R>;
  append(archive: SubscriberArchive, subscriber: NewSubscriber): Promise<Subscriber>;
}

/**
 * The most partitions a whole map in a scope may have: it takes each one's lock (single writes
 * that wait without bound take only their partitions'), about a third of a millisecond each
 * in Chromium.
 */
export const MAX_WHOLE_MAP_PARTITIONS = 10_000;
