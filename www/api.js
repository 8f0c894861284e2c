// The page's client of the HTTP API: plain fetch, as any client of the reference server.
import { HASH_PARTITIONED_ROUTES, SEQUENTIALLY_CHUNKED_ROUTES } from "./attrmap/dist/bundle/http.js";

export const routes = {
  startDirectory: `${HASH_PARTITIONED_ROUTES}/start`,
  profile: `${HASH_PARTITIONED_ROUTES}/customer-profile`,
  startArchive: `${SEQUENTIALLY_CHUNKED_ROUTES}/start`,
  register: `${SEQUENTIALLY_CHUNKED_ROUTES}/register`,
  subscribers: `${SEQUENTIALLY_CHUNKED_ROUTES}/subscribers`,
};

/** Calls one endpoint; resolves to {status, body} whatever the status. */
export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Waits until the service worker controls this page (it claims it on first load). */
export async function serviceWorkerReady() {
  if (!("serviceWorker" in navigator)) throw new Error("service workers are not available here (they need https or localhost)");
  await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
  if (navigator.serviceWorker.controller) return;
  await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
}
