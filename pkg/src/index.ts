// attrmap: hash-partitioned maps and sequentially chunked logs in IndexedDB, with the rules
// of docs/ in a Rust core compiled to WebAssembly. This entry starts the module from bytes
// inlined in the JavaScript, synchronously: it runs in Node, workers and service workers.
import "./wasm/init.js";

export * from "./api.js";
