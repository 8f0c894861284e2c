// The reference server's HTTP API as a fetch-style handler, for a service worker (or any
// code with Request/Response): the six endpoints of docs/http.md over the stores.

import * as args from "../common/args.js";
import { EXACT_KEYS } from "../common/constants.js";
import { AttrmapError, type ErrorCode } from "../common/errors.js";
import { type LockWait, writeOptions } from "../concurrency/locks.js";
import { profileInput, subscriberInput } from "../reference-samples/records.js";
import { type Attrmap, contextOf } from "../store/attrmap.js";
import * as wasm from "../wasm/core-module.js";

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

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

async function jsonBody(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.text());
  } catch (e) {
    throw new AttrmapError("invalid_argument", `invalid JSON body: ${(e as Error).message}`);
  }
}

/** A value opened on first use; a failed open is forgotten, so the next use tries again. */
function lazy<T>(open: () => Promise<T>): () => Promise<T> {
  let opened: Promise<T> | undefined;
  return () => {
    const current = (opened ??= open());
    current.catch(() => {
      if (opened === current) opened = undefined;
    });
    return current;
  };
}

/** One endpoint: the flow it needs started (none for start itself), and what it answers. */
type Route = { method: string; path: string; flow?: string; run: (request: Request, url: URL) => Promise<unknown> };

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
  const flows = lazy(() => store.partitionedMap<FlowRun>(FLOWS_MAP, { partitionCount: 1, keyRule: EXACT_KEYS }));
  const customers = lazy(() => store.customerDirectory());
  const subscribers = lazy(() => store.subscriberArchive());
  // A flow never stops, so one seen started is remembered instead of read again.
  const started = new Set<string>();

  const start = async (flowID: string): Promise<FlowRun> => {
    const map = await flows();
    const run =
      (await map.get(flowID)) ??
      (await map.update(flowID, (current) => current ?? { flowID, runID: crypto.randomUUID() }, { lock: "wait" }));
    started.add(flowID);
    return run; // a repeated start changes nothing: the first run ID stays
  };

  const isStarted = async (flowID: string): Promise<boolean> => {
    if (!started.has(flowID) && (await (await flows()).get(flowID))) started.add(flowID);
    return started.has(flowID);
  };

  const routes: Route[] = [
    { method: "POST", path: `${HASH_PARTITIONED_ROUTES}/start`, run: () => start(CUSTOMER_DIRECTORY_FLOW) },
    { method: "POST", path: `${SEQUENTIALLY_CHUNKED_ROUTES}/start`, run: () => start(SUBSCRIBER_ARCHIVE_FLOW) },
    {
      method: "PUT",
      path: `${HASH_PARTITIONED_ROUTES}/customer-profile`,
      flow: CUSTOMER_DIRECTORY_FLOW,
      run: async (request) => (await customers()).upsertProfile(profileInput(await jsonBody(request), "body"), write),
    },
    {
      method: "GET",
      path: `${HASH_PARTITIONED_ROUTES}/customer-profile`,
      flow: CUSTOMER_DIRECTORY_FLOW,
      run: async (_, url) => {
        const email = url.searchParams.get("emailAddress") ?? "";
        const profile = await (await customers()).getProfile(email);
        if (!profile) throw new AttrmapError("not_found", `customer profile "${wasm.canonicalEmail(email)}" not found`);
        return profile;
      },
    },
    {
      method: "POST",
      path: `${SEQUENTIALLY_CHUNKED_ROUTES}/register`,
      flow: SUBSCRIBER_ARCHIVE_FLOW,
      run: async (request) => (await subscribers()).registerSubscriber(subscriberInput(await jsonBody(request), "body"), write),
    },
    {
      method: "GET",
      path: `${SEQUENTIALLY_CHUNKED_ROUTES}/subscribers`,
      flow: SUBSCRIBER_ARCHIVE_FLOW,
      run: async (_, url) => (await subscribers()).getSubscriberPage(url.searchParams.get("pageToken") ?? ""),
    },
  ];

  /** The routes of the request's path (none: not ours), and the one for its method (HEAD: as GET). */
  const find = (request: Request) => {
    const url = new URL(request.url);
    const onPath = routes.filter((r) => r.path === url.pathname);
    const method = request.method === "HEAD" ? "GET" : request.method;
    return { onPath, route: onPath.find((r) => r.method === method), url };
  };

  const answer = async (request: Request): Promise<Response> => {
    const { onPath, route, url } = find(request);
    if (onPath.length === 0) return fallback(request);
    if (!route) {
      const allow = onPath.flatMap((r) => (r.method === "GET" ? ["GET", "HEAD"] : [r.method])).join(", ");
      return json(405, { error: `method ${request.method} not allowed` }, { allow });
    }
    try {
      if (route.flow && !(await isStarted(route.flow)))
        throw new AttrmapError("not_found", `flow "${route.flow}" is not started`);
      return json(200, await route.run(request, url));
    } catch (e) {
      if (e instanceof AttrmapError) return json(HTTP_STATUS[e.code] ?? 500, { error: e.message });
      return json(500, { error: String(e) });
    }
  };

  const handler = (async (request: Request): Promise<Response> => {
    const response = await answer(request);
    return request.method === "HEAD" ? new Response(null, { status: response.status, headers: response.headers }) : response;
  }) as AttrmapHandler;
  const origin = (globalThis as { location?: Location }).location?.origin;
  handler.handles = (request) =>
    (origin === undefined || new URL(request.url).origin === origin) && find(request).onPath.length > 0;
  return handler;
}
