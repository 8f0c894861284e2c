// Subscriber archive panel: register through the HTTP API and browse pages newest first.
import { CHUNKED, call } from "./api.js";
import { $, failure, row, text } from "./dom.js";

let shownToken = "current";
let nextToken = "";

export async function showPage(token) {
  const answer = await call("GET", `${CHUNKED}/subscribers?pageToken=${encodeURIComponent(token)}`);
  if (answer.status !== 200) {
    text("page-message", failure(answer));
    return;
  }
  const page = answer.body;
  shownToken = page.pageToken;
  nextToken = page.nextPageToken;
  text("page-token", page.pageToken);
  text("page-kind", page.pageToken === "current" ? "current" : "archived");
  text("next-token", page.nextPageToken || "none: this is the oldest page");
  text("page-message", `${page.subscribers.length} subscribers on this page.`);
  $("page-rows").replaceChildren(...page.subscribers.map((s) => row([s.sequence, s.subscriberId, s.deliveryAddress])));
  $("older-page").disabled = nextToken === "";
}

async function register(event) {
  event.preventDefault();
  const answer = await call("POST", `${CHUNKED}/register`, Object.fromEntries(new FormData($("register-form"))));
  // The newest page first, then the message: once the message shows, so does the new row.
  if (answer.status === 200) await showPage("current");
  text("register-message", answer.status === 200 ? `Registered ${answer.body.subscriberId} as sequence ${answer.body.sequence}.` : failure(answer));
}

/** Re-reads the newest page when it is the one shown (after a change elsewhere). */
export async function refreshCurrent() {
  if (shownToken === "current") await showPage("current");
}

export function initArchive() {
  $("register-form").addEventListener("submit", (e) => void register(e));
  $("newest-page").addEventListener("click", () => void showPage("current"));
  $("older-page").addEventListener("click", () => void showPage(nextToken));
}
