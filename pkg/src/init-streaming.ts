// The browser entry's wasm start: the module is fetched from beside the package and compiled
// while it downloads, rather than decoded from base64 text in the JavaScript (a third larger,
// and compiled only once it has all arrived). It awaits at the top level, which service
// workers forbid: they take the default entry (inlined).
import startWasm from "../wasm/attrmap.js";
import { decodeBase64 } from "./base64.js";
import { wasmBeside } from "./wasm-file.js";

const found = await wasmBeside(new URL("../wasm/attrmap_bg.wasm", import.meta.url));
// Else the inlined module, fetched only then: bundlers make a chunk of its own of it.
await startWasm({ module_or_path: found ?? decodeBase64((await import("../wasm/attrmap_inline.js")).default) });
