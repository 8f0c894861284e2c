// What both core entries export ("attrmap" and "attrmap/browser", which differ only in how the
// wasm module starts): the store, its maps and logs, live queries, errors and the pure rules.
// Export and import, the engine's requests and the HTTP handler are entries of their own.

export type { IDBFactoryLike, IDBKeyRangeLike, OpenOptions } from "./attrmap.js";
export { Attrmap, openAttrmap } from "./attrmap.js";
export type { Change } from "./changes.js";
export { watchChanges } from "./changes.js";
export type { ChunkedLogOptions, LogPage, LogStats, LogWindow, LogWindowOptions, RecordsOptions } from "./chunked-log.js";
export { ChunkedLog } from "./chunked-log.js";
export { CURRENT, DEFAULT_CHUNK_SIZE, DEFAULT_PARTITION_COUNT, MAX_TEXT_LENGTH } from "./constants.js";
export type { CustomerDirectoryOptions } from "./customer-directory.js";
export { CUSTOMER_PROFILES_MAP, CustomerDirectory } from "./customer-directory.js";
export type { ErrorCode } from "./errors.js";
export { AttrmapError, ERROR_CODES } from "./errors.js";
export type { StoreEvent } from "./events.js";
export type { Identity } from "./identity.js";
export type { ChunkedLayout, Layout, LogState, PartitionedLayout, Segment } from "./layout.js";
export { MAX_BATCH, MAX_PAGE_LIMIT } from "./limits.js";
export type { LiveQuery, LiveQueryObserver, Subscription } from "./live.js";
export type { LockGrant, LockKey, LockManagerLike, LockRequestOptions, LockWait, WriteOptions } from "./locks.js";
export { InProcessLocks, lockName } from "./locks.js";
export type {
  MapPage,
  MapPageOptions,
  Partition,
  PartitionedMapOptions,
  ResizeOptions,
  ResizeProgress,
} from "./partitioned-map.js";
export { PartitionedMap } from "./partitioned-map.js";
export type { StorageStatus } from "./persistence.js";
export type { CustomerProfile, CustomerProfileInput, LogRecord, NewSubscriber, Subscriber } from "./records.js";
export type { RetryOptions } from "./retry.js";
export { retryOnConflict } from "./retry.js";
export type { EmailPartition, KeyPartition, PlacedCustomerProfile } from "./rules.js";
export {
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  keyPartition,
  partitionName,
  placeCustomerProfile,
  validatePageToken,
} from "./rules.js";
export type { SubscriberArchiveOptions, SubscriberPage } from "./subscriber-archive.js";
export { SUBSCRIBER_CHUNKS_MAP, SubscriberArchive } from "./subscriber-archive.js";
