// Small DOM helpers. Stored data reaches the page only through textContent.
export const $ = (id) => document.getElementById(id);

/** Sets an element's text (never HTML). */
export function text(id, value) {
  $(id).textContent = String(value);
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

/** "400: emailAddress is required" for an API answer that failed. */
export function failure({ status, body }) {
  return `${status}: ${body.error}`;
}
