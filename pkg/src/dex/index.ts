// attrmap/dex: the stored maps as the durable-execution engine's own SetAttributes requests
// (docs/dex-import.md), so data moves into a flow of a reference SDK's sample, or of your own,
// in the same layout. Their code loads at the first call of each.

import { lazyModule } from "../common/lazy-module.js";
import { type Attrmap, contextOf } from "../store/attrmap.js";
import { ready } from "../wasm/core-module.js";
import type { IndexPartition, IndexValue } from "./index-partition.js";
import type { DexExportOptions, DexRequest, DexRequests } from "./set-attributes.js";
import type {
  DexAttributeSource,
  DexEntryChanges,
  DexEntryChangesOptions,
  DexImportOptions,
  DexImportResult,
} from "./sync-types.js";

export type { IndexElement, IndexPartition, IndexValue } from "./index-partition.js";
export type { DexMapNames, DexSdk } from "./sample-names.js";
export { DEX_SAMPLE_NAMES } from "./sample-names.js";
export type { DexExportOptions, DexRequest, DexRequests } from "./set-attributes.js";
export type {
  DexAttribute,
  DexAttributeSource,
  DexConflict,
  DexEntryChange,
  DexEntryChanges,
  DexEntryChangesOptions,
  DexEntryConflict,
  DexImportOptions,
  DexImportProgress,
  DexImportResult,
  DexLayout,
} from "./sync-types.js";

/** @internal The requests' code. */
export const dexRequestsCode = /* @__PURE__ */ lazyModule(() => import("./set-attributes.js"), "exportDexRequests()");

/** @internal The pull's code. */
export const dexPullCode = /* @__PURE__ */ lazyModule(() => import("./pull.js"), "importDexAttributes()");

/** @internal The entry changes' code. */
export const dexEntryChangesCode = /* @__PURE__ */ lazyModule(() => import("./entry-changes.js"), "exportDexEntryChanges()");

/** @internal An index value's placement, and the maintenance module's glue. */
export const indexPartitionCode = /* @__PURE__ */ lazyModule(() => import("./index-partition.js"), "indexPartition()");

/**
 * The maps of `store` as the engine's SetAttributesRequests (canonical protobuf JSON, under 16
 * MiB each), named for a reference SDK's sample (`sdk`) or your flow (`names`), one at a time;
 * once iterated, its `checkpoint` is the next increment's `since`, even when there was no request.
 */
export function exportDexRequests(store: Attrmap, options: DexExportOptions): DexRequests {
  let checkpoint: number | undefined;
  async function* requests(): AsyncGenerator<DexRequest, void, undefined> {
    const [{ dexRequests }] = await Promise.all([dexRequestsCode.load(), ready()]);
    let reached: number | undefined;
    yield* dexRequests(contextOf(store), options, (at) => {
      reached = at;
    });
    checkpoint = reached; // only once every request was given: a caller that stopped early keeps its old one
  }
  return Object.defineProperty(requests(), "checkpoint", { get: () => checkpoint, enumerable: true }) as DexRequests;
}

/**
 * The instance of an index with `partitionCount` partitions (the map's 1000 by default) that
 * holds `value` in the engine's layout, and the canonical text it is listed under: a server
 * finds "the customers of Acme" by loading that one instance. An array is a compound value.
 */
export async function indexPartition(value: IndexValue, partitionCount?: number): Promise<IndexPartition> {
  return (await indexPartitionCode.load()).indexPartition(value, partitionCount);
}

/**
 * Merges the engine's copy of a flow's maps and logs (a GetAttributes or GetFlowState response,
 * or its attributes) into `store`, all in one transaction (docs/sync.md): a map or log the store
 * lacks, or holds empty, becomes the engine's copy; an entry changed on one side only takes that
 * side's value; one both changed is a conflict, for `onConflict` or the engine's value, and reported.
 */
export async function importDexAttributes(
  store: Attrmap,
  source: DexAttributeSource,
  options: DexImportOptions,
): Promise<DexImportResult> {
  const [{ pull }] = await Promise.all([dexPullCode.load(), ready()]);
  return pull(contextOf(store), source, options);
}

/**
 * The entries of each partition written since `options.since` that differ from what the engine
 * last held (docs/sync.md, "Entry changes"), for a backend to apply through the flow's locking
 * RPC; acknowledging the `checkpoint` makes them the partitions' bases.
 */
export async function exportDexEntryChanges(store: Attrmap, options: DexEntryChangesOptions): Promise<DexEntryChanges> {
  const [{ entryChanges }] = await Promise.all([dexEntryChangesCode.load(), ready()]);
  return entryChanges(contextOf(store), options);
}
