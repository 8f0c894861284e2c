// The default entry's wasm start: the module's bytes are inlined in the JavaScript, so it starts
// synchronously at the first call that needs it (Node, workers and service workers, where a
// fetch beside the package is not possible or not wanted). Importing it starts nothing.
import wasmBase64 from "../../wasm/attrmap_inline.js";
import { decodeBase64 } from "./base64.js";
import { startFrom } from "./core-module.js";

const bytes = () => decodeBase64(wasmBase64);
startFrom({ now: bytes, later: async () => bytes() });
