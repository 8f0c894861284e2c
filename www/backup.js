// Back up, restore and move: the whole database as an export file (a download), an export file
// imported back (all or nothing, with progress), and the same data as the engine's own
// SetAttributes requests for the chosen reference SDK's sample, whole or only what changed since the last move.
import { CUSTOMER_PROFILES_MAP, SUBSCRIBER_CHUNKS_MAP } from "./attrmap/dist/bundle/browser.js";
import { DEX_SAMPLE_NAMES, exportDexRequests } from "./attrmap/dist/bundle/dex.js";
import { exportBlob, importData } from "./attrmap/dist/bundle/export-import.js";
import { CUSTOMER_DIRECTORY_FLOW, SUBSCRIBER_ARCHIVE_FLOW } from "./attrmap/dist/bundle/http.js";
import { js, libraryCall } from "./code.js";
import { $, describeError, result, text } from "./dom.js";

let store;

/** Saves `blob` as a file the browser downloads, and lists it with its size under "Files saved". */
function download(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  const item = document.createElement("li");
  item.textContent = `${name} (${kib(blob.size)})`;
  $("backup-files").append(item);
  $("backup-saved").hidden = false;
}

/** One line per flow under the panel's answer (text only), or none. */
function showFlows(lines) {
  $("backup-flows").replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
  $("backup-flows").hidden = lines.length === 0;
}

const kib = (bytes) => `${(bytes / 1024).toLocaleString("en", { maximumFractionDigits: 1 })} KiB`;

/**
 * Runs one of the panel's tasks with its buttons disabled: `work` answers the message to show,
 * a failure shows `failed` and the error; then the panel shows the code of the task.
 */
async function task(work, failed, code) {
  const buttons = ["export-button", "dex-button", "dex-changes-button", "import-button"].map($);
  for (const button of buttons) button.disabled = true;
  const bar = $("backup-progress");
  bar.removeAttribute("value"); // indeterminate until the task knows how far it is
  // What the panel said before answered another task: the files and flows are this task's.
  showFlows([]);
  $("backup-files").replaceChildren();
  $("backup-saved").hidden = true;
  try {
    result("backup-message", true, await work(bar));
  } catch (error) {
    result("backup-message", false, `${failed}: ${describeError(error)}`);
  } finally {
    bar.value = bar.max;
    for (const button of buttons) button.disabled = false;
  }
  text("backup-code", libraryCall(code));
}

function exportAll() {
  return task(
    async () => {
      let progress = { lines: 0, characters: 0 };
      const file = await exportBlob(store, {
        onProgress: (p) => {
          progress = p;
          if (p.lines % 100 === 0) result("backup-message", true, `Exporting: ${p.lines} lines…`);
        },
      });
      download(file, "attrmap-export.ndjson");
      return `Exported ${progress.lines} lines (${kib(file.size)}) to attrmap-export.ndjson.`;
    },
    "Export failed",
    [
      'import { exportBlob } from "attrmap/export-import";',
      "const file = await exportBlob(store); // newline-delimited JSON; rejects with the export's own error",
    ],
  );
}

function importFile(event) {
  event.preventDefault();
  const file = $("import-file").files[0];
  if (!file) {
    result("backup-message", false, "Choose an export file to import.");
    return;
  }
  const replace = $("import-replace").checked;
  return task(
    async (bar) => {
      // Lines are counted as they are checked; the file's size bounds them, so the bar moves.
      const total = Math.max(1, Math.ceil(file.size / 120));
      const summary = await importData(store, file, {
        replace,
        onProgress: ({ phase, lines }) => {
          bar.max = Math.max(total, lines);
          bar.value = lines;
          result("backup-message", true, phase === "checking" ? `Checking line ${lines}…` : `Committing ${lines} lines…`);
        },
      });
      return `Imported ${summary.maps} maps, ${summary.instances} instances, ${summary.entries} entries from ${file.name}.`;
    },
    "Import refused, nothing was changed",
    [
      'import { importData } from "attrmap/export-import";',
      `await importData(store, file, { replace: ${js(replace)}, onProgress: ({ phase, lines }) => {} });`,
      "// every line is checked first: a bad one rejects the file and nothing changes",
    ],
  );
}

/** Each sample map lives in its own flow; requests name one flow each. */
const SAMPLE_FLOWS = [
  [CUSTOMER_PROFILES_MAP, CUSTOMER_DIRECTORY_FLOW],
  [SUBSCRIBER_CHUNKS_MAP, SUBSCRIBER_ARCHIVE_FLOW],
];

/**
 * The checkpoint of the last move to each flow, kept in this origin's localStorage (an app would
 * keep it where it keeps what it has sent): the `since` of the next "changes since the last move".
 */
const CHECKPOINT_KEY = (flowId) => `attrmap-demo-moved-${flowId}`;

/** How a count of things reads: "1 request", "3 requests". */
const counted = (n, thing) => `${n.toLocaleString("en")} ${thing}${n === 1 ? "" : "s"}`;

/**
 * Downloads the requests of each sample flow (`since`: only what changed after each flow's last
 * move; a flow never moved has nothing to compare with and is left for a full move), records
 * each flow's new checkpoint, and acknowledges what every flow has; what each carried.
 */
async function move(sdk, since) {
  await Promise.all([store.customerDirectory(), store.subscriberArchive()]); // both maps exist once opened
  const moved = [];
  for (const [map, flowId] of SAMPLE_FLOWS) {
    const saved = localStorage.getItem(CHECKPOINT_KEY(flowId));
    if (since && saved === null) {
      moved.push({ flowId, neverMoved: true });
      continue;
    }
    const from = since ? Number(saved) : undefined;
    let [n, attributes] = [0, 0];
    const requests = exportDexRequests(store, { flowId, sdk, maps: [map], since: from });
    for await (const request of requests) {
      const name = `set-attributes-${flowId}${since ? `-since-${from}` : ""}-${++n}.json`;
      download(new Blob([request.json], { type: "application/json" }), name);
      attributes += request.attributeCount;
    }
    // Where the engine's copy is now, with or without a request (the feed may have moved on).
    const checkpoint = requests.checkpoint;
    localStorage.setItem(CHECKPOINT_KEY(flowId), String(checkpoint));
    moved.push({ flowId, from, checkpoint, attributes, requests: n });
  }
  const both = SAMPLE_FLOWS.map(([, flowId]) => Number(localStorage.getItem(CHECKPOINT_KEY(flowId)) ?? 0));
  await store.acknowledgeChanges(Math.min(...both)); // both flows have everything up to there
  return moved;
}

function exportRequests() {
  const sdk = $("dex-sdk").value;
  return task(
    async () => {
      const moved = await move(sdk, false);
      showFlows(
        moved.map(
          (m) =>
            `${m.flowId}: ${counted(m.attributes, "attribute")} in ${counted(m.requests, "request")}; ` +
            `the engine's copy is at checkpoint ${m.checkpoint}.`,
        ),
      );
      return `Wrote SetAttributes requests for the ${sdk} sample:`;
    },
    "Export failed",
    [
      'import { exportDexRequests } from "attrmap/dex";',
      `const options = { flowId: ${js(CUSTOMER_DIRECTORY_FLOW)}, sdk: ${js(sdk)}, maps: [${js(CUSTOMER_PROFILES_MAP)}] };`,
      "const requests = exportDexRequests(store, options);",
      "for await (const request of requests) save(request.json); // dexcli api call SetAttributes --data @file --yes",
      `// and the same for ${js(SUBSCRIBER_CHUNKS_MAP)} in flow ${js(SUBSCRIBER_ARCHIVE_FLOW)}`,
    ],
  );
}

/** What a move of changes did for one flow, in a line. */
function changesLine(m) {
  if (m.neverMoved)
    return `${m.flowId}: not moved yet, so there is nothing to compare with: send its SetAttributes requests first.`;
  if (m.requests === 0) return `${m.flowId}: nothing changed since checkpoint ${m.from}; now at ${m.checkpoint}.`;
  return (
    `${m.flowId}: ${counted(m.attributes, "instance")} changed since checkpoint ${m.from}, ` +
    `in ${counted(m.requests, "request")}; now at ${m.checkpoint}.`
  );
}

function exportChanges() {
  const sdk = $("dex-sdk").value;
  return task(
    async () => {
      showFlows((await move(sdk, true)).map(changesLine));
      return `Changes since the last move for the ${sdk} sample:`;
    },
    "Export failed",
    [
      'import { exportDexRequests } from "attrmap/dex";',
      `const options = { flowId: ${js(CUSTOMER_DIRECTORY_FLOW)}, sdk: ${js(sdk)}, maps: [${js(CUSTOMER_PROFILES_MAP)}] };`,
      "const requests = exportDexRequests(store, { ...options, since: savedCheckpoint() });",
      "for await (const request of requests) save(request.json); // a gone instance: the engine's null value",
      "saveCheckpoint(requests.checkpoint); // once every request is sent, even when there was none",
      "await store.acknowledgeChanges(requests.checkpoint); // the feed may drop what has moved",
    ],
  );
}

export function initBackup(s) {
  store = s;
  for (const sdk of Object.keys(DEX_SAMPLE_NAMES)) {
    const option = document.createElement("option");
    option.value = option.textContent = sdk;
    $("dex-sdk").append(option);
  }
  $("export-button").addEventListener("click", () => void exportAll());
  $("import-form").addEventListener("submit", (event) => void importFile(event));
  $("dex-button").addEventListener("click", () => void exportRequests());
  $("dex-changes-button").addEventListener("click", () => void exportChanges());
}
