// The reference server's HTTP API as a fetch-style handler, for a service worker (or any
// code with Request/Response): the six endpoints of SPEC.md section 4 over the stores.
import type { Attrmap } from "./attrmap.js";
import { canonicalEmailAddress } from "./core.js";
import type { CustomerDirectory } from "./customer-directory.js";
import { AttrmapError, type ErrorCode } from "./errors.js";
import type { LockWait } from "./locks.js";
import type { PartitionedMap } from "./partitioned-map.js";
import type { SubscriberArchive } from "./subscriber-archive.js";
import type { NewSubscriber } from "../wasm/attrmap.js";

const HASH = "/patterns/hash-partitioned-attribute-map";
const CHUNKED = "/patterns/sequentially-chunked-attribute-map";
export const CUSTOMER_DIRECTORY_FLOW = "customer-directory";
export const SUBSCRIBER_ARCHIVE_FLOW = "chunked-subscriber-archive";
/** Where started flows are recorded: flow ID to `{flowID, runID}`. */
export const FLOWS_MAP = "Flows";

export interface FlowRun {
  flowID: string;
  runID: string;
}

export interface HandlerOptions {
  /**
   * How writes wait for their lock: `"ifAvailable"` (default) answers 409 at once when
   * another writer holds it, like the reference server; `"wait"` queues.
   */
  lock?: LockWait;
  /** What answers requests for other paths (default: `fetch`, i.e. the network). */
  fallback?: (request: Request) => Promise<Response>;
}

export interface AttrmapHandler {
  (request: Request): Promise<Response>;
  /** Whether `request` is for one of the six endpoints (a service worker answers only those). */
  handles(request: Request): boolean;
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_email: 400,
  invalid_page_token: 400,
  invalid_argument: 400,
  not_found: 404,
  lock_conflict: 409,
  lock_timeout: 409,
  quota_exceeded: 507,
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch (e) {
    throw new AttrmapError("invalid_argument", `invalid JSON body: ${(e as Error).message}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new AttrmapError("invalid_argument", "the request body must be a JSON object");
  return body as Record<string, unknown>;
}

/** One endpoint: the flow it needs started (none for start itself), and what it answers. */
type Route = { method: string; path: string; flow?: string; run: (request: Request, url: URL) => Promise<unknown> };

/** Serves the six endpoints from `store`; answers every other request with `options.fallback`. */
export function createHandler(store: Attrmap, options: HandlerOptions = {}): AttrmapHandler {
  const write = { lock: options.lock ?? "ifAvailable" } as const;
  const fallback = options.fallback ?? ((r: Request) => fetch(r));
  // Opened once, on first use.
  let flows: Promise<PartitionedMap<FlowRun>> | undefined;
  let directory: Promise<CustomerDirectory> | undefined;
  let archive: Promise<SubscriberArchive> | undefined;
  const flowMap = () => (flows ??= store.partitionedMap<FlowRun>(FLOWS_MAP, { partitionCount: 1, canonicalizeKey: (k) => k }));
  const customers = () => (directory ??= store.customerDirectory());
  const subscribers = () => (archive ??= store.subscriberArchive());

  const start = async (flowID: string): Promise<FlowRun> => {
    const map = await flowMap();
    const run = await map.get(flowID);
    // A repeated start changes nothing: the first run ID stays.
    return run ?? map.update(flowID, (current) => current ?? { flowID, runID: crypto.randomUUID() }, { lock: "wait" });
  };

  const routes: Route[] = [
    { method: "POST", path: `${HASH}/start`, run: () => start(CUSTOMER_DIRECTORY_FLOW) },
    { method: "POST", path: `${CHUNKED}/start`, run: () => start(SUBSCRIBER_ARCHIVE_FLOW) },
    {
      method: "PUT",
      path: `${HASH}/customer-profile`,
      flow: CUSTOMER_DIRECTORY_FLOW,
      run: async (request) => (await customers()).upsertProfile(await jsonBody(request), write),
    },
    {
      method: "GET",
      path: `${HASH}/customer-profile`,
      flow: CUSTOMER_DIRECTORY_FLOW,
      run: async (_, url) => {
        const email = url.searchParams.get("emailAddress") ?? "";
        const profile = await (await customers()).getProfile(email);
        if (!profile) throw new AttrmapError("not_found", `customer profile "${canonicalEmailAddress(email)}" not found`);
        return profile;
      },
    },
    {
      method: "POST",
      path: `${CHUNKED}/register`,
      flow: SUBSCRIBER_ARCHIVE_FLOW,
      // The core checks the fields (missing, empty or not strings: 400).
      run: async (request) => (await subscribers()).registerSubscriber((await jsonBody(request)) as unknown as NewSubscriber, write),
    },
    {
      method: "GET",
      path: `${CHUNKED}/subscribers`,
      flow: SUBSCRIBER_ARCHIVE_FLOW,
      run: async (_, url) => (await subscribers()).getSubscriberPage(url.searchParams.get("pageToken") ?? ""),
    },
  ];

  /** The routes of the request's path (none: not ours), and the one for its method. */
  const find = (request: Request) => {
    const url = new URL(request.url);
    const onPath = routes.filter((r) => r.path === url.pathname);
    return { onPath, route: onPath.find((r) => r.method === request.method), url };
  };

  const handler = (async (request: Request): Promise<Response> => {
    const { onPath, route, url } = find(request);
    if (onPath.length === 0) return fallback(request);
    if (!route) return json(405, { error: `method ${request.method} not allowed` }, { allow: onPath.map((r) => r.method).join(", ") });
    try {
      if (route.flow && !(await (await flowMap()).get(route.flow))) {
        throw new AttrmapError("not_found", `flow "${route.flow}" is not started`);
      }
      return json(200, await route.run(request, url));
    } catch (e) {
      if (e instanceof AttrmapError) return json(STATUS[e.code] ?? 500, { error: e.message });
      return json(500, { error: String(e) });
    }
  }) as AttrmapHandler;
  const origin = (globalThis as { location?: Location }).location?.origin;
  handler.handles = (request) => (origin === undefined || new URL(request.url).origin === origin) && find(request).onPath.length > 0;
  return handler;
}
