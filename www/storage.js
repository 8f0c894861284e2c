// The storage panel: whether the browser keeps this site's data, how much it uses, the
// database's identity, and what happens when the data is lost (a banner that explains
// data_lost and offers to start over, in this page and in the service worker).
import { libraryCall } from "./code.js";
import { $, describeError, result, text } from "./dom.js";

let store;

const size = (bytes) => (bytes === undefined ? "unknown" : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

async function refresh() {
  const status = await store.storageStatus();
  text("storage-persisted", status.persisted ? "yes: kept under storage pressure" : "no: the browser may evict it");
  text("storage-usage", size(status.usage));
  text("storage-quota", size(status.quota));
  try {
    const { id, createdAt } = await store.identity();
    text("storage-identity", `${id}, created ${new Date(createdAt).toLocaleString()}`);
  } catch (error) {
    text("storage-identity", describeError(error));
  }
}

async function ask() {
  const granted = await store.persist();
  // A refusal is the browser's choice, not an error.
  result("storage-result", true, granted ? "The browser will keep this data." : "The browser did not grant it (it decides).");
  text("storage-code", libraryCall([`await store.persist(); // ${granted}`, "await store.storageStatus();"]));
  await refresh();
}

function lost(error) {
  text("loss-message", error.message);
  $("loss-banner").hidden = false;
  void refresh();
}

/** Starts over with a new database: this page's store and the service worker's. */
async function startOver() {
  store.acknowledgeDataLoss();
  const worker = (await navigator.serviceWorker?.getRegistration())?.active;
  worker?.postMessage("attrmap:acknowledgeDataLoss");
  $("loss-banner").hidden = true;
  text("storage-code", libraryCall(['store.on("datalost", (error) => showBanner(error));', "store.acknowledgeDataLoss();"]));
  await refresh();
}

export function initStorage(s) {
  store = s;
  store.on("datalost", lost);
  $("persist-button").addEventListener("click", () => void ask());
  $("start-over").addEventListener("click", () => void startOver());
  return refresh();
}
