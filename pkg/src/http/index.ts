// attrmap/http: the reference server's six endpoints (docs/http.md) served from a store, in a
// service worker's fetch handler or wherever a Request meets a Response.
export type { AttrmapHandler, FlowRun, HandlerOptions } from "./handler.js";
export {
  CUSTOMER_DIRECTORY_FLOW,
  createHandler,
  FLOWS_MAP,
  HASH_PARTITIONED_ROUTES,
  HTTP_STATUS,
  SEQUENTIALLY_CHUNKED_ROUTES,
  SUBSCRIBER_ARCHIVE_FLOW,
} from "./handler.js";
