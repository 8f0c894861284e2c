// Recent changes: what other tabs, the service worker and this page saved, in plain words.
import { CURRENT, CUSTOMER_PROFILES_MAP, SUBSCRIBER_CHUNKS_MAP } from "./attrmap/dist/bundle/browser.js";
import { FLOWS_MAP } from "./attrmap/dist/bundle/http.js";
import { $ } from "./dom.js";
import { ACCOUNTS_MAP, LEDGER_LOG } from "./transfer.js";

const SHOWN = 5;

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The maps' names as the page calls them. */
const NAMES = new Map([
  [CUSTOMER_PROFILES_MAP, "Customer directory"],
  [SUBSCRIBER_CHUNKS_MAP, "Subscriber archive"],
  [ACCOUNTS_MAP, "Accounts"],
]);

function describe(change) {
  const maps = change.maps.map((m) => m.map);
  if (maps.length === 2 && maps.includes(ACCOUNTS_MAP) && maps.includes(LEDGER_LOG))
    return "Transfer: two balances and a ledger record saved together.";
  if (maps.length > 1) {
    const each = change.maps.map((m) => `map "${m.map}" (${plural(m.instances.length, "instance")})`);
    return `A transaction saved ${each.join(" and ")} together.`;
  }
  // An index build or drop writes index entries alone.
  if (change.instances.length === 0) return `${NAMES.get(change.map) ?? `Map "${change.map}"`}: its index was updated.`;
  if (change.map === ACCOUNTS_MAP) return `Accounts: ${plural(change.instances.length, "partition")} saved.`;
  if (change.map === FLOWS_MAP) return "An HTTP API flow was started.";
  if (change.map === CUSTOMER_PROFILES_MAP) {
    const [first, ...rest] = change.instances;
    // A partition removed: the write deleted its last profile.
    const done = change.removed?.includes(first) ? "emptied (its last profile deleted)" : "saved";
    return `Customer directory: ${first} ${done}${rest.length ? ` (and ${rest.length} more partitions)` : ""}.`;
  }
  if (change.map === SUBSCRIBER_CHUNKS_MAP) {
    const archived = change.instances.filter((i) => i !== CURRENT);
    const also = archived.length === 0 ? "" : `, ${archived.length} chunk${archived.length > 1 ? "s" : ""} archived`;
    return `Subscriber archive: the current chunk saved${also}.`;
  }
  return `Map "${change.map}": ${plural(change.instances.length, "instance")} saved.`;
}

/** Lists one change at the top, keeping the newest few. */
export function showChange(change) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}: ${describe(change)}`;
  $("change-list").prepend(item);
  while ($("change-list").children.length > SHOWN) $("change-list").lastElementChild.remove();
  $("no-changes").hidden = true;
}
