// The code panels: the few lines a reader would write to get the result shown, as text.

/** A value as JavaScript source (strings, numbers and plain objects, as JSON writes them). */
export const js = (value) => JSON.stringify(value);

/** A fetch call as a client of the HTTP API writes it, and the status it got. */
export function fetchCall(method, path, body, status) {
  const init = body === undefined ? `{ method: ${js(method)} }` : `{ method: ${js(method)}, body: JSON.stringify(${js(body)}) }`;
  return `const response = await fetch(${js(path)}, ${init});\nawait response.json(); // HTTP ${status}`;
}

/** Lines that use the library, after opening the store. */
export function libraryCall(lines) {
  // A line importing another entry ("attrmap/export-import") goes up with the first import.
  const imports = lines.filter((line) => line.startsWith("import "));
  const rest = lines.filter((line) => !line.startsWith("import "));
  return ['import { openAttrmap } from "attrmap";', ...imports, "const store = openAttrmap();", ...rest].join("\n");
}

/** An HTTP call and the same work through the library, as a panel shows them. */
export function httpAndLibrary(httpCode, lines) {
  return [
    "// Over HTTP, as a client of the reference server (this page's service worker answers):",
    httpCode,
    "",
    "// The same with the library, in a page, a worker or a service worker:",
    libraryCall(lines),
  ].join("\n");
}
