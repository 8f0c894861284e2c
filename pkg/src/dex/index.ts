// attrmap/dex: the stored maps as the durable-execution engine's own SetAttributes requests
// (docs/dex-import.md), so data moves into a flow of a reference SDK's sample, or of your own,
// in the same layout.
import { type Attrmap, contextOf } from "../store/attrmap.js";
import { ready } from "../wasm/core-module.js";
import { type DexExportOptions, type DexRequest, dexRequests } from "./set-attributes.js";

export { type IndexElement, type IndexPartition, type IndexValue, indexPartition } from "./index-partition.js";
export type { DexExportOptions, DexMapNames, DexRequest, DexSdk } from "./set-attributes.js";
export { DEX_SAMPLE_NAMES } from "./set-attributes.js";

/**
 * The maps of `store` as the engine's SetAttributesRequests (canonical protobuf JSON, under 16
 * MiB each), named for a reference SDK's sample (`sdk`) or your flow (`names`), one at a time.
 */
export async function* exportDexRequests(store: Attrmap, options: DexExportOptions): AsyncIterableIterator<DexRequest> {
  await ready();
  yield* dexRequests(contextOf(store), options);
}
