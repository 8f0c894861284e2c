// The browser entry's wasm start (it becomes browser/init.js): the module is fetched from
// beside the package and compiled while it downloads, rather than decoded from base64 text in
// the JavaScript (a third larger, and compiled only once it has all arrived). It awaits at the
// top level, which service workers forbid: they take the default entry (dist/, inlined).
import startWasm from "../wasm/attrmap.js";
import { decodeBase64 } from "./base64.js";

/** The first bytes of every wasm module: "\0asm". */
const MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * The module beside the package: its response when served as wasm (compiled as it streams),
 * its bytes when served under another type, or undefined where the server answers with
 * something else. Dev servers that move the package do that: Vite's dependency pre-bundling
 * puts it in node_modules/.vite/deps/, where the URL gets its index.html.
 */
async function besideThePackage(url: URL): Promise<Response | Uint8Array | undefined> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch {
    return undefined; // offline, a file: page, a CSP's connect-src
  }
  if (!response.ok) return undefined;
  if (response.headers.get("content-type")?.split(";")[0]?.trim() === "application/wasm") return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  return MAGIC.every((b, i) => bytes[i] === b) ? bytes : undefined;
}

const found = await besideThePackage(new URL("../wasm/attrmap_bg.wasm", import.meta.url));
// Else the inlined module, fetched only then: bundlers make a chunk of its own of it.
await startWasm({ module_or_path: found ?? decodeBase64((await import("../wasm/attrmap_inline.js")).default) });
