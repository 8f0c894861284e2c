// Small DOM helpers. Stored data reaches the page only through textContent.
export const $ = (id) => document.getElementById(id);

/** Sets an element's text (never HTML). */
export function text(id, value) {
  $(id).textContent = String(value);
}

/**
 * Shows a result as a success or an error, and brings it into view when it answers what the
 * visitor just did (on a phone it may be below the fold); a result the page shows by itself
 * (on load, for another tab's write) never moves the page.
 */
export function result(id, ok, message) {
  const element = $(id);
  element.textContent = message;
  element.className = `result ${ok ? "ok" : "error"}`;
  element.setAttribute("role", ok ? "status" : "alert");
  if (touched !== null && element.closest("section") === touched) element.scrollIntoView({ block: "nearest" });
}

/** The panel the visitor last touched (pointer, keys or focus): a result there answers what they did. */
let touched = null;
for (const type of ["pointerdown", "keydown", "focusin"])
  document.addEventListener(
    type,
    (event) => {
      touched = event.target instanceof Element ? event.target.closest("section") : null;
    },
    { capture: true, passive: true },
  );

/** Empties a result, e.g. when the browser's own validation stops a form. */
export function clearResult(id) {
  const element = $(id);
  element.textContent = "";
  element.className = "result";
  element.removeAttribute("role");
}

/** A table row of text cells. */
export function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    td.textContent = String(cell);
    tr.append(td);
  }
  return tr;
}

/** An error as a result shows it: "code: message" for an AttrmapError, the message otherwise. */
export function describeError(error) {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

/** "400 Bad Request: emailAddress is required" for an HTTP answer that failed. */
export function failure({ status, body }) {
  return `${status} ${STATUS_TEXT[status] ?? ""}: ${body.error}`;
}

const STATUS_TEXT = {
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  500: "Server Error",
  507: "Insufficient Storage",
};

/** Clears `resultId` whenever the browser's validation blocks a field of `form` (so no stale message stays). */
export function clearOnInvalid(form, resultId) {
  form.addEventListener("invalid", () => clearResult(resultId), true);
}

/**
 * `work` one run at a time: a call while it runs is folded into one more run after it (with the
 * latest call's arguments), so a burst of changes redraws twice, not once per change, and the
 * last run reads what the burst left (runs started at once could end in any order).
 */
export function oneAtATime(work) {
  let running;
  let again;
  return (...args) => {
    again = args;
    running ??= (async () => {
      try {
        for (;;) {
          const now = again;
          again = undefined;
          await work(...now);
          if (!again) return; // with `running` cleared in the same step: no call can fall between
        }
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
}
