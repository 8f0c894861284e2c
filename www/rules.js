// The rules panels: an email's partition and a page token's meaning, live as you type.
import { AttrmapError, CURRENT, emailPartition, validatePageToken } from "./attrmap/dist/bundle/browser.js";
import { js, libraryCall } from "./code.js";
import { $, describeError, text } from "./dom.js";

let archive;

// Shows invisible characters (tabs, NUL, ...) as JSON escapes so the canonical form is exact.
function visible(value) {
  return JSON.stringify(value).slice(1, -1);
}

function showPartition() {
  const raw = $("partition-count").value;
  const count = raw === "" ? undefined : Number(raw);
  const email = $("email").value;
  text(
    "partition-code",
    `import { emailPartition } from "attrmap";\nemailPartition(${js(email)}${count === undefined ? "" : `, ${count}`});`,
  );
  try {
    const p = emailPartition(email, count);
    text("canonical", visible(p.canonicalEmail));
    text("hash", p.hash);
    text("hash-hex", `0x${p.hash.toString(16).padStart(8, "0")}`);
    text("partition-name", p.partitionName);
    text("partition-index", p.partitionIndex);
    $("partition-result").hidden = false;
    $("partition-error").hidden = true;
  } catch (error) {
    $("partition-result").hidden = true;
    $("partition-error").hidden = false;
    text("partition-error", describeError(error));
  }
}

let checking = 0;
async function showToken() {
  const token = $("token").value;
  const mine = ++checking;
  const out = $("token-result");
  const lines = ["const archive = await store.subscriberArchive();", `await archive.getSubscriberPage(${js(token)});`];
  let message;
  let ok = true;
  try {
    const normalized = validatePageToken(token, archive.log.chunkSize);
    if (normalized === CURRENT) message = "Valid: the current chunk, the only one new subscribers go into.";
    else {
      // The rule says whether the token can name a chunk; only the archive says whether one is stored.
      const page = await archive.getSubscriberPage(normalized).catch((e) => e);
      message =
        page instanceof AttrmapError && page.code === "not_found"
          ? `Valid for chunks of ${archive.log.chunkSize}, but no chunk is archived under it yet.`
          : page instanceof Error
            ? describeError(page)
            : `Valid: an archived chunk of ${page.subscribers.length} subscribers, ` +
              `${page.subscribers.at(-1).sequence} to ${page.subscribers[0].sequence}.`;
    }
  } catch (error) {
    ok = false;
    message = describeError(error);
  }
  if (mine !== checking) return; // a newer keystroke is being answered
  out.className = ok ? "ok" : "error";
  out.textContent = message;
  text("token-code", libraryCall(lines));
}

export function initRules(subscriberArchive) {
  archive = subscriberArchive;
  for (const id of ["email", "partition-count"]) $(id).addEventListener("input", showPartition);
  $("token").addEventListener("input", () => void showToken());
  for (const id of ["partition-form", "token-form"]) $(id).addEventListener("submit", (e) => e.preventDefault());
  showPartition();
  void showToken();
}
