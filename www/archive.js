// Subscriber archive panel: register through the HTTP API and browse pages, newest first,
// by token, newer and older.

import { call, routes } from "./api.js";
import { CURRENT } from "./attrmap/dist/bundle/browser.js";
import { fetchCall, httpAndLibrary, js, libraryCall } from "./code.js";
import { $, clearOnInvalid, describeError, failure, oneAtATime, result, row, text } from "./dom.js";

let archive; // the library's view of the same log, for what HTTP does not answer (which page is newer)
let shown = { pageToken: CURRENT, newest: undefined, next: "" };

function setPagers() {
  for (const button of document.querySelectorAll("[data-go=older]")) button.disabled = shown.next === "";
  for (const button of document.querySelectorAll("[data-go=newer]")) button.disabled = shown.pageToken === CURRENT;
  $("drop-older").disabled = shown.pageToken === CURRENT || shown.next === "";
}

/** Reads and shows the page for `token` ("" or "current": the newest). */
export async function showPage(token) {
  const path = `${routes.subscribers}?pageToken=${encodeURIComponent(token)}`;
  const answer = await call("GET", path);
  text(
    "archive-code",
    httpAndLibrary(fetchCall("GET", path, undefined, answer.status), [
      "const archive = await store.subscriberArchive();",
      `await archive.getSubscriberPage(${js(token)}); // { pageToken, subscribers (newest first), nextPageToken }`,
    ]),
  );
  if (answer.status !== 200) {
    result("page-message", false, failure(answer));
    return;
  }
  const page = answer.body;
  // Everything read before anything is drawn: a page is never shown half old, half new.
  const stats = await archive.log.stats();
  shown = { pageToken: page.pageToken, newest: page.subscribers[0]?.sequence, next: page.nextPageToken };
  text("page-token", page.pageToken);
  const size = page.subscribers.length;
  text("page-kind", page.pageToken === CURRENT ? `current chunk: ${size} of ${stats.chunkSize}` : `archived chunk of ${size}`);
  text("chunk-size-shown", stats.chunkSize);
  text("next-token", page.nextPageToken || "none: this is the oldest page");
  $("page-rows").replaceChildren(...page.subscribers.map((s) => row([s.sequence, s.subscriberId, s.deliveryAddress])));
  result("page-message", true, `${page.subscribers.length} subscribers on this page.`);
  setPagers();
}

async function go(where) {
  if (where === "newest") return showPage(CURRENT);
  if (where === "older") return showPage(shown.next);
  // The page just newer holds the record after this page's newest one.
  const newer = shown.newest === undefined ? CURRENT : await archive.log.pageOf(shown.newest + 1);
  return showPage(newer || CURRENT);
}

async function register(event) {
  event.preventDefault();
  const subscriber = Object.fromEntries(new FormData($("register-form")));
  const answer = await call("POST", routes.register, subscriber);
  // The newest page first, then the message: once the message shows, so does the new row.
  if (answer.status === 200) await showPage(CURRENT);
  result(
    "register-message",
    answer.status === 200,
    answer.status === 200 ? `Registered ${answer.body.subscriberId} as sequence ${answer.body.sequence}.` : failure(answer),
  );
  text(
    "archive-code",
    httpAndLibrary(fetchCall("POST", routes.register, subscriber, answer.status), [
      "const archive = await store.subscriberArchive();",
      `await archive.registerSubscriber(${js(subscriber)}); // { sequence, subscriberId, deliveryAddress }`,
    ]),
  );
}

/**
 * Re-reads the newest page when it is the one shown (after a change elsewhere); calls while one
 * runs are folded into one more run, so the page shown last is the newest.
 */
export const refreshCurrent = oneAtATime(async () => {
  if (shown.pageToken === CURRENT) await showPage(CURRENT);
});

/** Runs one change of the log with the library (the HTTP API has none), then shows the newest page. */
async function changeLog(run, lines) {
  let ok = true;
  let message;
  try {
    message = await run();
  } catch (error) {
    ok = false;
    message = describeError(error);
  }
  await showPage(CURRENT);
  result("log-message", ok, message);
  text("archive-code", libraryCall(["const archive = await store.subscriberArchive();", ...lines]));
}

export function initArchive(subscriberArchive) {
  archive = subscriberArchive;
  text("chunk-size-shown", archive.log.chunkSize);
  $("new-chunk-size").value = archive.log.chunkSize;
  $("drop-older").addEventListener("click", () => {
    const token = shown.pageToken;
    void changeLog(
      async () => `Dropped ${await archive.log.dropArchivesBefore(token)} older archived chunks.`,
      [`await archive.log.dropArchivesBefore(${js(token)}); // how many chunks it removed`],
    );
  });
  $("chunk-size-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const size = Number($("new-chunk-size").value);
    void changeLog(async () => {
      await archive.log.changeChunkSize(size);
      return `New archives hold ${size} subscribers from the next one on.`;
    }, [`await archive.log.changeChunkSize(${size}); // archives the current chunk first if it holds any`]);
  });
  clearOnInvalid($("chunk-size-form"), "log-message");
  $("register-form").addEventListener("submit", (e) => void register(e));
  clearOnInvalid($("register-form"), "register-message");
  $("page-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void showPage($("page-token-input").value);
  });
  for (const button of document.querySelectorAll("[data-go]")) button.addEventListener("click", () => void go(button.dataset.go));
}
