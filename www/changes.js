// Recent changes: what other tabs, the service worker and this page saved, in plain words.
import { CURRENT, CUSTOMER_PROFILES_MAP, SUBSCRIBER_CHUNKS_MAP } from "./attrmap/dist/browser/index.js";
import { FLOWS_MAP } from "./attrmap/dist/http/index.js";
import { $ } from "./dom.js";

const SHOWN = 5;

function describe(change) {
  if (change.map === FLOWS_MAP) return "An HTTP API flow was started.";
  if (change.map === CUSTOMER_PROFILES_MAP) {
    const [first, ...rest] = change.instances;
    return `Customer directory: ${first} saved${rest.length ? ` (and ${rest.length} more partitions)` : ""}.`;
  }
  if (change.map === SUBSCRIBER_CHUNKS_MAP) {
    const archived = change.instances.filter((i) => i !== CURRENT);
    const also = archived.length === 0 ? "" : `, ${archived.length} chunk${archived.length > 1 ? "s" : ""} archived`;
    return `Subscriber archive: the current chunk saved${also}.`;
  }
  return `Map "${change.map}": ${change.instances.length} instances saved.`;
}

/** Lists one change at the top, keeping the newest few. */
export function showChange(change) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}: ${describe(change)}`;
  $("change-list").prepend(item);
  while ($("change-list").children.length > SHOWN) $("change-list").lastElementChild.remove();
  $("no-changes").hidden = true;
}
