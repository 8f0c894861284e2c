// The browser entry's wasm start (it becomes browser/init.js): the module is fetched from
// beside the package and compiled while it downloads, rather than decoded from base64 text in
// the JavaScript (a third larger, and compiled only once it has all arrived). It awaits at the
// top level, which service workers forbid: they take the default entry (dist/, inlined).
import startWasm from "../wasm/attrmap.js";

await startWasm({ module_or_path: new URL("../wasm/attrmap_bg.wasm", import.meta.url) });
