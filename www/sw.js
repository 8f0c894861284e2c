// The demo's service worker: serves the reference HTTP API from IndexedDB with attrmap's
// handler. Registered with scope "/" (the paths are at the origin's root).

import { createHandler } from "./attrmap/dist/bundle/http.js";
import { openAttrmap } from "./attrmap/dist/bundle/index.js";

const store = openAttrmap();
const handle = createHandler(store);

self.addEventListener("install", () => self.skipWaiting());
// Claim the page that registered us, so its first fetches already come here.
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (handle.handles(event.request)) event.respondWith(handle(event.request));
});
// The page's "Start over" after data_lost: this worker's store goes on with the new database too.
self.addEventListener("message", (event) => {
  if (event.data === "attrmap:acknowledgeDataLoss") store.acknowledgeDataLoss();
});
