// The demo page. The service worker serves the HTTP API; the directory and archive panels use
// it through fetch, the other panels use the library directly. Every stored value reaches the
// page as text, never as HTML.

import { call, routes, serviceWorkerReady } from "./api.js";
import { initArchive, refreshCurrent, showPage } from "./archive.js";
import { CUSTOMER_PROFILES_MAP, openAttrmap, SUBSCRIBER_CHUNKS_MAP } from "./attrmap/dist/bundle/browser.js";
import { initBackup } from "./backup.js";
import { showChange } from "./changes.js";
import { initDirectory } from "./directory.js";
import { text } from "./dom.js";
import { initLive } from "./live.js";
import { initRules } from "./rules.js";
import { initSamples, showFill } from "./samples.js";
import { initSearch } from "./search.js";
import { initSecondDevice } from "./second-device.js";
import { initStorage } from "./storage.js";
import { initTransfer } from "./transfer.js";

const store = openAttrmap(); // the same database the service worker answers from

async function main() {
  const archive = await store.subscriberArchive();
  initDirectory(store);
  initSearch(store);
  initArchive(archive);
  await initSamples(store);
  initRules(archive);
  initLive(store);
  initBackup(store);
  initSecondDevice(store);
  await initTransfer(store);
  await initStorage(store);
  store.watch((change) => {
    showChange(change);
    if (change.map === SUBSCRIBER_CHUNKS_MAP) void refreshCurrent();
    if (change.map === CUSTOMER_PROFILES_MAP || change.map === SUBSCRIBER_CHUNKS_MAP) void showFill(store);
  });
  try {
    await serviceWorkerReady();
    await Promise.all([call("POST", routes.startDirectory), call("POST", routes.startArchive)]);
    text("status", "Ready. This page's service worker answers the HTTP API from IndexedDB; everything stays in this browser.");
    await showPage("current");
  } catch (error) {
    text("status", `The HTTP API is unavailable here (${error.message}); the library panels still work.`);
  }
  document.documentElement.dataset.ready = "true";
}

void main();
