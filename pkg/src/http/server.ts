// The six endpoints of docs/http.md answered from a store: handler.ts's `createHandler` makes
// the handler, whose first request loads this module.
import { EXACT_KEYS } from "../common/constants.js";
import { AttrmapError } from "../common/errors.js";
import type { WriteOptions } from "../concurrency/locks.js";
import { profileInput, subscriberInput } from "../reference-samples/records.js";
import type { Attrmap } from "../store/attrmap.js";
import * as wasm from "../wasm/core-module.js";
import {
  CUSTOMER_DIRECTORY_FLOW,
  ENDPOINTS,
  FLOWS_MAP,
  type FlowRun,
  HTTP_STATUS,
  json,
  SUBSCRIBER_ARCHIVE_FLOW,
} from "./handler.js";

/** A request's JSON body; anything else is `invalid_argument`. */
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

/** The answers of `store` to requests: the six endpoints', and `fallback`'s for other paths. */
export function server(
  store: Attrmap,
  write: WriteOptions,
  fallback: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
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

  // What each endpoint of ENDPOINTS answers, in its order.
  const runs: Array<(request: Request, url: URL) => Promise<unknown>> = [
    () => start(CUSTOMER_DIRECTORY_FLOW),
    () => start(SUBSCRIBER_ARCHIVE_FLOW),
    async (request) => (await customers()).upsertProfile(profileInput(await jsonBody(request), "body"), write),
    async (_, url) => {
      const email = url.searchParams.get("emailAddress") ?? "";
      const profile = await (await customers()).getProfile(email);
      if (!profile) throw new AttrmapError("not_found", `customer profile "${wasm.canonicalEmail(email)}" not found`);
      return profile;
    },
    async (request) => (await subscribers()).registerSubscriber(subscriberInput(await jsonBody(request), "body"), write),
    async (_, url) => (await subscribers()).getSubscriberPage(url.searchParams.get("pageToken") ?? ""),
  ];
  const routes = ENDPOINTS.map((endpoint, i) => ({ ...endpoint, run: runs[i]! }));

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

  return async (request: Request): Promise<Response> => {
    const response = await answer(request);
    return request.method === "HEAD" ? new Response(null, { status: response.status, headers: response.headers }) : response;
  };
}
