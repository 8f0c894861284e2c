// Watch a profile: a live query of one email that shows its profile as it is now, again after
// every write to its partition by this tab, another tab, a worker or the service worker.
import { js, libraryCall } from "./code.js";
import { $, describeError, result, text } from "./dom.js";

let store;
let subscription;
let runs = 0;

function show(email, profile) {
  runs += 1;
  const when = new Date().toLocaleTimeString();
  result(
    "live-result",
    true,
    profile
      ? `${when}: ${profile.fullName || "(no name)"}, ${profile.companyName || "(no company)"}, ` +
          `tier ${profile.customerTier || "(none)"}`
      : `${when}: no profile of ${email} yet`,
  );
  text("live-runs", `The query has run ${runs} time${runs === 1 ? "" : "s"}.`);
}

function watch(event) {
  event.preventDefault();
  subscription?.();
  runs = 0;
  const email = $("live-email").value;
  subscription = store
    .liveQuery(async (s) => (await s.customerDirectory()).getProfile(email))
    .subscribe({
      next: (profile) => show(email, profile),
      error: (error) => result("live-result", false, `${describeError(error)}`),
    });
  $("live-stop").disabled = false;
  text(
    "live-code",
    libraryCall([
      "const subscription = store",
      `  .liveQuery(async (s) => (await s.customerDirectory()).getProfile(${js(email)}))`,
      "  .subscribe({ next: (profile) => show(profile), error: (e) => show(e) });",
      "subscription(); // stops it",
    ]),
  );
}

export function initLive(s) {
  store = s;
  $("live-form").addEventListener("submit", watch);
  $("live-stop").addEventListener("click", () => {
    subscription?.();
    subscription = undefined;
    $("live-stop").disabled = true;
    result("live-result", true, "Stopped: the query no longer runs.");
  });
}
