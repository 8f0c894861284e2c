// The rules panels: an email's partition and a page token's validity, live as you type.
import { AttrmapError, emailPartition, validatePageToken } from "./attrmap/dist/index.js";
import { $ } from "./dom.js";

// Shows invisible characters (tabs, NUL, ...) as JSON escapes so the canonical form is exact.
function visible(text) {
  const quoted = JSON.stringify(text);
  return quoted.slice(1, -1);
}

function describe(error) {
  return error instanceof AttrmapError ? `${error.code}: ${error.message}` : String(error);
}

function showPartition() {
  const count = $("partition-count").value === "" ? undefined : Number($("partition-count").value);
  try {
    const p = emailPartition($("email").value, count);
    $("canonical").textContent = visible(p.canonicalEmail);
    $("hash").textContent = String(p.hash);
    $("hash-hex").textContent = "0x" + p.hash.toString(16).padStart(8, "0");
    $("partition-name").textContent = p.partitionName;
    $("partition-index").textContent = String(p.partitionIndex);
    $("partition-result").hidden = false;
    $("partition-error").hidden = true;
  } catch (error) {
    $("partition-result").hidden = true;
    $("partition-error").hidden = false;
    $("partition-error").textContent = describe(error);
  }
}

function showToken() {
  const size = $("chunk-size").value === "" ? undefined : Number($("chunk-size").value);
  const out = $("token-result");
  try {
    const token = validatePageToken($("token").value, size);
    out.className = "ok";
    out.textContent = token === "current" ? "Valid: the current chunk." : `Valid: the archived chunk whose first sequence is ${BigInt(token)}.`;
  } catch (error) {
    out.className = "error";
    out.textContent = describe(error);
  }
}

export function initRules() {
  for (const id of ["email", "partition-count"]) $(id).addEventListener("input", showPartition);
  for (const id of ["token", "chunk-size"]) $(id).addEventListener("input", showToken);
  for (const id of ["partition-form", "token-form"]) $(id).addEventListener("submit", (e) => e.preventDefault());
  showPartition();
  showToken();
}
