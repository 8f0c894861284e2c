// The demo page. The service worker serves the reference HTTP API; the directory and archive
// panels use it through fetch. Every stored value reaches the page as text, never as HTML.
import { openAttrmap } from "./attrmap/dist/index.js";
import { CHUNKED, HASH, call, serviceWorkerReady } from "./api.js";
import { initArchive, refreshCurrent, showPage } from "./archive.js";
import { initBulk } from "./bulk.js";
import { initDirectory } from "./directory.js";
import { $, text } from "./dom.js";
import { initRules } from "./rules.js";

const store = openAttrmap(); // for the bulk import and the fill view; same database as the service worker

function showChange(change) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}: ${change.map} (${change.instances.slice(0, 3).join(", ")}${change.instances.length > 3 ? ", …" : ""})`;
  $("change-list").prepend(item);
  while ($("change-list").children.length > 5) $("change-list").lastElementChild.remove();
  if (change.map === "SubscriberChunks") void refreshCurrent();
}

async function main() {
  initRules();
  initDirectory();
  initArchive();
  initBulk(store);
  store.watch(showChange);
  try {
    await serviceWorkerReady();
    const runs = await Promise.all([call("POST", `${HASH}/start`), call("POST", `${CHUNKED}/start`)]);
    text("status", `Service worker ready. Flows started: ${runs.map((r) => `${r.body.flowID} (run ${r.body.runID.slice(0, 8)})`).join(", ")}.`);
    await showPage("current");
  } catch (error) {
    text("status", `The HTTP API is unavailable: ${error.message}`);
  }
  document.documentElement.dataset.ready = "true";
}

void main();
