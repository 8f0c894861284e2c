export { AttrmapError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export {
  appendSubscriber,
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  partitionName,
  subscriberPage,
  validatePageToken,
} from "./core.js";
export type {
  EmailPartition,
  LogState,
  NewSubscriber,
  Subscriber,
  SubscriberAppend,
  SubscriberPage,
} from "../wasm/attrmap.js";
