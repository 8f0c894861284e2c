// A wasm module's file beside the package, for the entries that fetch theirs (the browser
// entry's core module, the export verifier's and the maintenance modules) instead of
// decoding it from base64 text.

import { AttrmapError } from "../common/errors.js";
import { decodeBase64 } from "./base64.js";

/** The first bytes of every wasm module: "\0asm". */
const MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * The module at `url`: its response when served as wasm (compiled as it streams), its bytes when
 * served under another type, or undefined where the server answers with something else (then
 * the caller uses its inlined copy). Dev servers that move the package do that: Vite's
 * dependency pre-bundling puts it in node_modules/.vite/deps/, where the URL gets its index.html.
 */
async function wasmBeside(url: URL): Promise<Response | Uint8Array<ArrayBuffer> | undefined> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch {
    return undefined; // offline, a file: URL (Node), a CSP's connect-src
  }
  if (!response.ok) return undefined;
  if (response.headers.get("content-type")?.split(";")[0]?.trim() === "application/wasm") return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  return MAGIC.every((b, i) => bytes[i] === b) ? bytes : undefined;
}

/**
 * The module at `url` compiled, as it streams where it is served as wasm; else its inlined
 * copy (the base64 text `inlined` imports: bundlers make a chunk of its own of it, fetched only
 * then). Compiled here and instantiated with the glue's `initSync`, so that no page ships the
 * glue's own fetching start.
 */
export async function compileBeside(url: URL, inlined: () => Promise<{ default: string }>): Promise<WebAssembly.Module> {
  const found = await wasmBeside(url);
  if (found instanceof Response) return WebAssembly.compileStreaming(found);
  return WebAssembly.compile(found ?? decodeBase64((await inlined()).default));
}

/**
 * A module's start that runs once, at the first call that needs it (`ready()`). Where it does
 * not load (offline with neither the file nor its inlined copy cached), that call fails with
 * `storage_error` naming `what`, and the next one tries again.
 */
export function startOnce(what: string, start: () => Promise<void>): () => Promise<void> {
  let starting: Promise<void> | undefined;
  return () =>
    (starting ??= start().catch((e: unknown) => {
      starting = undefined;
      throw new AttrmapError("storage_error", `${what} did not load: ${e}`, { cause: e });
    }));
}
