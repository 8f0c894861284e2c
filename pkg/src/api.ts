// What both core entries export ("attrmap" and "attrmap/browser", which differ only in how the
// wasm module starts): the store, its maps and logs, live queries, errors and the pure rules.
// Export and import, the engine's requests and the HTTP handler are entries of their own.

export { CURRENT, DEFAULT_CHUNK_SIZE, DEFAULT_PARTITION_COUNT, MAX_TEXT_LENGTH } from "./common/constants.js";
export type { ErrorCode } from "./common/errors.js";
export { AttrmapError, ERROR_CODES } from "./common/errors.js";
export type { StoreEvent } from "./common/events.js";
export { MAX_BATCH, MAX_PAGE_LIMIT } from "./common/limits.js";
export type { LockGrant, LockKey, LockManagerLike, LockRequestOptions, LockWait, WriteOptions } from "./concurrency/locks.js";
export { InProcessLocks, lockName } from "./concurrency/locks.js";
export type { RetryOptions } from "./concurrency/retry.js";
export { retryOnConflict } from "./concurrency/retry.js";
export type { ChangeRecord, ChangesOptions, ChangesPage } from "./feed/change-feed.js";
export type { Identity } from "./idb/identity.js";
export type { EntryKey, Key, KeyBounds, Owner } from "./idb/keys.js";
export type { CreateIndexOptions, IndexBuildProgress, IndexDefinition, IndexSpec, KeyPath } from "./indexes/definition.js";
export type { BetweenOptions, Query, QueryLimit, QueryPage, QueryPageOptions } from "./indexes/query.js";
export type { IndexElement, IndexValue } from "./indexes/values.js";
export type { Change, EntryChanges, MapChange } from "./live/changes.js";
export { watchChanges } from "./live/changes.js";
export type { LiveQuery, LiveQueryObserver, Subscription } from "./live/live-query.js";
export { ChunkedLog } from "./logs/chunked-log.js";
export type { ChunkedLogOptions, LogPage, LogStats, LogWindow, LogWindowOptions, RecordsOptions } from "./logs/log-types.js";
export type { LogRecord } from "./logs/records.js";
export type { ChunkedLayout, Layout, LogState, PartitionedLayout, Segment } from "./maps/layout.js";
export type {
  MapPage,
  MapPageOptions,
  Partition,
  PartitionedMapOptions,
  ResizeOptions,
  ResizeProgress,
} from "./maps/map-types.js";
export { PartitionedMap } from "./maps/partitioned-map.js";
export { KeyScope } from "./maps/scope.js";
export type { CustomerDirectoryOptions } from "./reference-samples/customer-directory.js";
export { CUSTOMER_PROFILES_MAP, CustomerDirectory } from "./reference-samples/customer-directory.js";
export type { CustomerProfile, CustomerProfileInput, NewSubscriber, Subscriber } from "./reference-samples/records.js";
export type { SubscriberArchiveOptions, SubscriberPage } from "./reference-samples/subscriber-archive.js";
export { SUBSCRIBER_CHUNKS_MAP, SubscriberArchive } from "./reference-samples/subscriber-archive.js";
export type { EmailPartition, KeyPartition, PlacedCustomerProfile } from "./rules/rules.js";
export {
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  keyPartition,
  partitionName,
  placeCustomerProfile,
  validatePageToken,
} from "./rules/rules.js";
export type { IDBFactoryLike, IDBKeyRangeLike, OpenOptions } from "./store/attrmap.js";
export { Attrmap, openAttrmap } from "./store/attrmap.js";
export type { StorageStatus } from "./store/persistence.js";
export type {
  ScopeItem,
  SomeChunkedLog,
  SomePartitionedMap,
  Transaction,
  TransactionOptions,
} from "./transactions/transaction-types.js";
export { DEFAULT_WORK_TIMEOUT_MS, MAX_WHOLE_MAP_PARTITIONS } from "./transactions/transaction-types.js";
export { ready } from "./wasm/core-module.js";
