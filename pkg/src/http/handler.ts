// The reference server's HTTP API as a fetch-style handler, for a service worker (or any
// code with Request/Response): the six endpoints of docs/http.md over the stores. This is its
// public face (names, options, which requests it answers); server.ts answers them, loaded at
// the first request.

import * as args from "../common/args.js";
import type { AttrmapError, ErrorCode } from "../common/errors.js";
import { lazyModule } from "../common/lazy-module.js";
import { type LockWait, writeOptions } from "../concurrency/locks.js";
import { type Attrmap, contextOf } from "../store/attrmap.js";

/** Where the reference samples serve the hash-partitioned pattern's endpoints. */
export const HASH_PARTITIONED_ROUTES = "/patterns/hash-partitioned-attribute-map";
/** Where the reference samples serve the sequentially chunked pattern's endpoints. */
export const SEQUENTIALLY_CHUNKED_ROUTES = "/patterns/sequentially-chunked-attribute-map";
/** The flow ID the hash-partitioned pattern's `start` endpoint starts. */
export const CUSTOMER_DIRECTORY_FLOW = "customer-directory";
/** The flow ID the sequentially chunked pattern's `start` endpoint starts. */
export const SUBSCRIBER_ARCHIVE_FLOW = "chunked-subscriber-archive";
/** Where started flows are recorded: flow ID to `{flowID, runID}`. */
export const FLOWS_MAP = "Flows";

/** A started flow, as the `start` endpoints answer it. */
export interface FlowRun {
  flowID: string;
  runID: string;
}

/** How `createHandler(store, options)` answers. */
export interface HandlerOptions {
  /**
   * How writes wait for their lock: `"ifAvailable"` (default) answers 409 at once when
   * another writer holds it, like the reference server; `"wait"` queues.
   */
  lock?: LockWait | undefined;
  /** With `lock: "wait"`: answer 409 after waiting this many milliseconds for a lock. */
  timeoutMs?: number | undefined;
  /** What answers requests for other paths (default: `fetch`, i.e. the network). */
  fallback?: ((request: Request) => Promise<Response>) | undefined;
}

/** The HTTP API as a function from `Request` to `Response`, for a service worker's `fetch` event. */
export interface AttrmapHandler {
  (request: Request): Promise<Response>;
  /** Whether `request` is for one of the six endpoints (a service worker answers only those). */
  handles(request: Request): boolean;
}

/** The HTTP status of each error code; any other is 500. */
export const HTTP_STATUS: Readonly<Partial<Record<ErrorCode, number>>> = {
  invalid_email: 400,
  invalid_page_token: 400,
  invalid_argument: 400,
  not_found: 404,
  lock_conflict: 409,
  lock_timeout: 409,
  layout_changed: 409,
  already_exists: 409,
  constraint_violation: 409,
  quota_exceeded: 507,
  sequence_exhausted: 507,
  data_lost: 410,
  checkpoint_expired: 410,
  outcome_unknown: 500,
  unavailable: 503,
  not_ready: 503,
};

/** @internal A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** @internal One endpoint: its method and path, and the flow it needs started (none for the starts themselves). */
export interface Endpoint {
  method: string;
  path: string;
  flow?: string;
}

/** @internal The six endpoints (server.ts answers each). */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: "POST", path: `${HASH_PARTITIONED_ROUTES}/start` },
  { method: "POST", path: `${SEQUENTIALLY_CHUNKED_ROUTES}/start` },
  { method: "PUT", path: `${HASH_PARTITIONED_ROUTES}/customer-profile`, flow: CUSTOMER_DIRECTORY_FLOW },
  { method: "GET", path: `${HASH_PARTITIONED_ROUTES}/customer-profile`, flow: CUSTOMER_DIRECTORY_FLOW },
  { method: "POST", path: `${SEQUENTIALLY_CHUNKED_ROUTES}/register`, flow: SUBSCRIBER_ARCHIVE_FLOW },
  { method: "GET", path: `${SEQUENTIALLY_CHUNKED_ROUTES}/subscribers`, flow: SUBSCRIBER_ARCHIVE_FLOW },
];

/** @internal What answers the endpoints. */
export const serverCode = /* @__PURE__ */ lazyModule(() => import("./server.js"), "a handler's first request");

/** Serves the six endpoints from `store`; answers every other request with `options.fallback`. */
export function createHandler(store: Attrmap, options: HandlerOptions = {}): AttrmapHandler {
  contextOf(store); // checked now rather than at the first request
  const o = args.options("options", options);
  const write = writeOptions({
    lock: args.field("options", o, "lock") ?? "ifAvailable",
    timeoutMs: args.field("options", o, "timeoutMs"),
  });
  const given = args.field("options", o, "fallback");
  const fallback =
    given === undefined ? (r: Request) => fetch(r) : args.func<(r: Request) => Promise<Response>>("options.fallback", given);
  let serving: Promise<(request: Request) => Promise<Response>> | undefined;
  const handler = (async (request: Request): Promise<Response> => {
    serving ??= serverCode.load().then((code) => code.server(store, write, fallback));
    let serve: (request: Request) => Promise<Response>;
    try {
      serve = await serving;
    } catch (e) {
      serving = undefined; // tried again at the next request
      const error = e as AttrmapError;
      return json(HTTP_STATUS[error.code] ?? 500, { error: error.message });
    }
    return serve(request);
  }) as AttrmapHandler;
  const origin = (globalThis as { location?: Location }).location?.origin;
  handler.handles = (request) => {
    const url = new URL(request.url);
    return (origin === undefined || url.origin === origin) && ENDPOINTS.some((e) => e.path === url.pathname);
  };
  return handler;
}
