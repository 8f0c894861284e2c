// Instantiates the Rust core once, synchronously, when the package is first imported.
// The module is small (tens of KiB), well under the size browsers allow to compile
// synchronously on the main thread.
import { initSync } from "../../wasm/attrmap.js";
import wasmBase64 from "../../wasm/attrmap_inline.js";
import { decodeBase64 } from "./base64.js";

initSync({ module: decodeBase64(wasmBase64) });
