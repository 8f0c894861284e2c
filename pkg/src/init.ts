// Instantiates the Rust core once, synchronously, when the package is first imported.
// The module is small (tens of KiB), well under the size browsers allow to compile
// synchronously on the main thread.
import { initSync } from "../wasm/attrmap.js";
import wasmBase64 from "../wasm/attrmap_inline.js";

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

initSync({ module: decodeBase64(wasmBase64) });
