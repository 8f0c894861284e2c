// attrmap: hash-partitioned maps and sequentially chunked logs in IndexedDB, with the rules
// of docs/ in a Rust core compiled to WebAssembly.

export type { IDBFactoryLike, IDBKeyRangeLike, OpenOptions } from "./attrmap.js";
export { Attrmap, openAttrmap } from "./attrmap.js";
export type { Change } from "./changes.js";
export { watchChanges } from "./changes.js";
export type { ChunkedLogOptions, LogPage, LogStats, LogWindow, LogWindowOptions, RecordsOptions } from "./chunked-log.js";
export { ChunkedLog } from "./chunked-log.js";
export { CURRENT, DEFAULT_CHUNK_SIZE, DEFAULT_PARTITION_COUNT, MAX_TEXT_LENGTH } from "./core.js";
export type { CustomerDirectoryOptions } from "./customer-directory.js";
export { CUSTOMER_PROFILES_MAP, CustomerDirectory } from "./customer-directory.js";
export type { DexExportOptions, DexMapNames, DexRequest, DexSdk } from "./dex.js";
export { DEX_SAMPLE_NAMES } from "./dex.js";
export type { ErrorCode } from "./errors.js";
export { AttrmapError, ERROR_CODES } from "./errors.js";
export type { StoreEvent } from "./events.js";
export type { ExportOptions, ExportProgress, ExportWholeOptions } from "./export-data.js";
export { EXPORT_MEDIA_TYPE } from "./export-data.js";
export type { AttrmapHandler, FlowRun, HandlerOptions } from "./http.js";
export {
  CUSTOMER_DIRECTORY_FLOW,
  createHandler,
  FLOWS_MAP,
  HASH_PARTITIONED_ROUTES,
  HTTP_STATUS,
  SEQUENTIALLY_CHUNKED_ROUTES,
  SUBSCRIBER_ARCHIVE_FLOW,
} from "./http.js";
export type { Identity } from "./identity.js";
export type { ImportOptions, ImportProgress, ImportSummary } from "./import-data.js";
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
