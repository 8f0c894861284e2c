// attrmap/browser: the same modules as "attrmap", for pages. The wasm module is fetched from
// beside the package and compiled while it streams (see init-streaming.ts).
import "../wasm/init-streaming.js";

export * from "../api.js";
