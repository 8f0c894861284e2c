// attrmap: hash-partitioned maps and sequentially chunked logs in IndexedDB, with the rules
// of SPEC.md in a Rust core compiled to WebAssembly.
export { AttrmapError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { archiveChunkToken, canonicalEmailAddress, emailPartition, fnv1a32, keyPartition, partitionName, placeCustomerProfile, validatePageToken } from "./rules.js";
export type { EmailPartition, KeyPartition, PlacedCustomerProfile } from "./rules.js";
export { CURRENT, DEFAULT_CHUNK_SIZE, DEFAULT_PARTITION_COUNT, MAX_TEXT_LENGTH } from "./core.js";
export { MAX_BATCH } from "./args.js";
export { Attrmap, openAttrmap } from "./attrmap.js";
export type { OpenOptions } from "./attrmap.js";
export { PartitionedMap } from "./partitioned-map.js";
export type { Partition, PartitionedMapOptions } from "./partitioned-map.js";
export { ChunkedLog } from "./chunked-log.js";
export type { ChunkedLogOptions, LogPage, RecordsOptions } from "./chunked-log.js";
export type { ChunkedLayout, Layout, LogState, PartitionedLayout, Segment } from "./layout.js";
export { CustomerDirectory, CUSTOMER_PROFILES_MAP } from "./customer-directory.js";
export type { CustomerDirectoryOptions } from "./customer-directory.js";
export { SubscriberArchive, SUBSCRIBER_CHUNKS_MAP } from "./subscriber-archive.js";
export type { SubscriberArchiveOptions, SubscriberPage } from "./subscriber-archive.js";
export type { CustomerProfile, CustomerProfileInput, LogRecord, NewSubscriber, Subscriber } from "./records.js";
export { InProcessLocks, lockName } from "./locks.js";
export type { LockKey, LockManagerLike, LockWait, WriteOptions } from "./locks.js";
export { retryOnConflict } from "./retry.js";
export type { RetryOptions } from "./retry.js";
export { watchChanges } from "./changes.js";
export type { Change } from "./changes.js";
export {
  createHandler,
  CUSTOMER_DIRECTORY_FLOW,
  FLOWS_MAP,
  HASH_PARTITIONED_ROUTES,
  HTTP_STATUS,
  SEQUENTIALLY_CHUNKED_ROUTES,
  SUBSCRIBER_ARCHIVE_FLOW,
} from "./http.js";
export type { AttrmapHandler, FlowRun, HandlerOptions } from "./http.js";
