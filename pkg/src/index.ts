export { AttrmapError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export {
  appendLogRecords,
  appendSubscribers,
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  keyPartition,
  logPage,
  partitionName,
  placeCustomerProfile,
  validatePageToken,
} from "./core.js";
export { Attrmap, openAttrmap } from "./attrmap.js";
export type { OpenOptions } from "./attrmap.js";
export { PartitionedMap, DEFAULT_PARTITION_COUNT } from "./partitioned-map.js";
export type { PartitionedMapOptions, Placement, Partition } from "./partitioned-map.js";
export { ChunkedLog, DEFAULT_CHUNK_SIZE } from "./chunked-log.js";
export type { ChunkedLogOptions } from "./chunked-log.js";
export { CustomerDirectory, CUSTOMER_PROFILES_MAP } from "./customer-directory.js";
export { SubscriberArchive, SUBSCRIBER_CHUNKS_MAP } from "./subscriber-archive.js";
export type { SubscriberPage } from "./subscriber-archive.js";
export { InProcessLocks, lockName, retryOnConflict } from "./locks.js";
export { watchChanges } from "./changes.js";
export type { Change } from "./changes.js";
export { createHandler, CUSTOMER_DIRECTORY_FLOW, SUBSCRIBER_ARCHIVE_FLOW, FLOWS_MAP } from "./http.js";
export type { AttrmapHandler, FlowRun, HandlerOptions } from "./http.js";
export type { LockManagerLike, LockWait, RetryOptions, WriteOptions } from "./locks.js";
export type {
  CustomerProfile,
  EmailPartition,
  KeyPartition,
  LogAppend,
  LogPage,
  LogRecord,
  LogState,
  NewSubscriber,
  PlacedCustomerProfile,
  Subscriber,
} from "../wasm/attrmap.js";
