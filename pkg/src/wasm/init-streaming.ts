// The browser entry's wasm start: at the first store operation (or `ready()`), the module is
// fetched from beside the package and compiled while it downloads, rather than decoded from
// base64 text in the JavaScript (a third larger, and compiled only once it has all arrived).
// Importing it fetches nothing and awaits nothing, so a server build or a prerender that
// imports the entry does no work and never waits.

import { startFrom } from "./core-module.js";
import { compileBeside } from "./module-file.js";

const beside = new URL("../../wasm/attrmap_bg.wasm", import.meta.url);
startFrom({ later: () => compileBeside(beside, () => import("../../wasm/attrmap_inline.js")) });
