// Customer directory panel: save and look up profiles through the HTTP API, and show the
// canonical email, FNV-1a hash and partition that was written or read.
import { emailPartition } from "./attrmap/dist/index.js";
import { HASH, call } from "./api.js";
import { $, failure, text } from "./dom.js";

function showPlacement(email) {
  try {
    const p = emailPartition(email);
    text("placement-email", p.canonicalEmail);
    text("placement-hash", `${p.hash} (0x${p.hash.toString(16).padStart(8, "0")})`);
    text("placement-partition", p.partitionName);
    $("directory-placement").hidden = false;
  } catch {
    $("directory-placement").hidden = true;
  }
}

function showProfile(profile) {
  $("directory-profile").hidden = !profile;
  if (!profile) return;
  text("shown-email", profile.emailAddress);
  text("shown-name", profile.fullName);
  text("shown-company", profile.companyName);
  text("shown-tier", profile.customerTier);
}

async function save(event) {
  event.preventDefault();
  const profile = Object.fromEntries(new FormData($("profile-form")));
  const answer = await call("PUT", `${HASH}/customer-profile`, profile);
  showPlacement(profile.emailAddress);
  showProfile(answer.status === 200 ? answer.body : undefined);
  text("directory-message", answer.status === 200 ? `Saved to ${emailPartition(profile.emailAddress).partitionName}.` : failure(answer));
}

export async function lookUp(email) {
  const answer = await call("GET", `${HASH}/customer-profile?emailAddress=${encodeURIComponent(email)}`);
  showPlacement(email);
  showProfile(answer.status === 200 ? answer.body : undefined);
  text("directory-message", answer.status === 200 ? `Read from ${emailPartition(email).partitionName}.` : failure(answer));
}

export function initDirectory() {
  $("profile-form").addEventListener("submit", (e) => void save(e));
  $("lookup-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void lookUp($("lookup-email").value);
  });
}
