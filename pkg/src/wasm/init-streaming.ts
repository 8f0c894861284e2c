// The browser entry's wasm start: the module is fetched from beside the package and compiled
// while it downloads, rather than decoded from base64 text in the JavaScript (a third larger,
// and compiled only once it has all arrived). It awaits at the top level, which service
// workers forbid: they take the default entry (inlined).
import { initSync } from "../../wasm/attrmap.js";
import { compileBeside } from "./module-file.js";

const beside = new URL("../../wasm/attrmap_bg.wasm", import.meta.url);
initSync({ module: await compileBeside(beside, () => import("../../wasm/attrmap_inline.js")) });
