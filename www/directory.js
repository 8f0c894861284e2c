// Customer directory panel: save and look up profiles through the HTTP API, and show the
// canonical email, FNV-1a hash and partition that was written or read.

import { call, routes } from "./api.js";
import { emailPartition } from "./attrmap/dist/bundle/browser.js";
import { fetchCall, httpAndLibrary, js, libraryCall } from "./code.js";
import { $, clearOnInvalid, describeError, failure, result, text } from "./dom.js";

let store;

/** Shows where `email` lives under the directory's partition count as stored now (a resize may have changed it). */
async function showPlacement(email) {
  const count = (await store.customerDirectory()).map.partitionCount;
  try {
    const p = emailPartition(email, count);
    text("placement-email", p.canonicalEmail);
    text("placement-hash", `${p.hash} (0x${p.hash.toString(16).padStart(8, "0")})`);
    text("placement-partition", p.partitionName);
    $("directory-placement").hidden = false;
    return p.partitionName;
  } catch {
    $("directory-placement").hidden = true;
    return undefined;
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

/** Shows one answer: where the email lives, the profile, the message and the code behind it. */
async function show(answer, email, success, http, lines) {
  const partition = await showPlacement(email);
  showProfile(answer.status === 200 ? answer.body : undefined);
  result("directory-message", answer.status === 200, answer.status === 200 ? success(partition) : failure(answer));
  text("directory-code", httpAndLibrary(http, lines));
}

async function save(event) {
  event.preventDefault();
  const profile = Object.fromEntries(new FormData($("profile-form")));
  const answer = await call("PUT", routes.profile, profile);
  await show(
    answer,
    profile.emailAddress,
    (partition) => `Saved to ${partition}.`,
    fetchCall("PUT", routes.profile, profile, answer.status),
    ["const directory = await store.customerDirectory();", `await directory.upsertProfile(${js(profile)});`],
  );
}

export async function lookUp(email) {
  const path = `${routes.profile}?emailAddress=${encodeURIComponent(email)}`;
  const answer = await call("GET", path);
  await show(answer, email, (partition) => `Read from ${partition}.`, fetchCall("GET", path, undefined, answer.status), [
    "const directory = await store.customerDirectory();",
    `await directory.getProfile(${js(email)}); // undefined when there is none`,
  ]);
}

/** Deletes a profile with the library (the HTTP API of the reference server has no delete). */
async function remove() {
  const directory = await store.customerDirectory();
  const email = $("lookup-email").value;
  let ok = true;
  let message;
  try {
    const partition = await showPlacement(email);
    message = (await directory.deleteProfile(email)) ? `Deleted from ${partition}.` : "There was no profile to delete.";
  } catch (error) {
    ok = false;
    message = describeError(error);
  }
  showProfile(undefined);
  result("directory-message", ok, message);
  text(
    "directory-code",
    libraryCall([
      "const directory = await store.customerDirectory();",
      `await directory.deleteProfile(${js(email)}); // true if there was one`,
    ]),
  );
}

export function initDirectory(attrmapStore) {
  store = attrmapStore;
  $("delete-profile").addEventListener("click", () => void remove());
  $("profile-form").addEventListener("submit", (e) => void save(e));
  $("lookup-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void lookUp($("lookup-email").value);
  });
  for (const form of ["profile-form", "lookup-form"]) clearOnInvalid($(form), "directory-message");
}
