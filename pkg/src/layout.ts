// A map's layout (partition count, or chunk size) is part of its stored data: keys and
// tokens mean something only under the layout they were written with.
import { AttrmapError } from "./errors.js";
import type { InstanceStore, MapMeta } from "./idb.js";

export type Layout = { kind: "partitioned"; partitionCount: number } | { kind: "chunked"; chunkSize: number };

function describe(layout: Layout): string {
  return layout.kind === "partitioned" ? `a partitioned map with ${layout.partitionCount} partitions` : `a chunked log with chunks of ${layout.chunkSize}`;
}

/**
 * Checks the stored metadata against the layout the caller opened the map with. Returns
 * the metadata to keep: the stored one, or a new one for a map never written before.
 */
export function checkLayout(map: string, stored: MapMeta | undefined, wanted: Layout): MapMeta {
  if (stored === undefined) return { ...wanted, layoutVersion: 1 };
  const same =
    stored.kind === wanted.kind &&
    (stored.kind === "partitioned" ? stored.partitionCount === (wanted as { partitionCount: number }).partitionCount : stored.chunkSize === (wanted as { chunkSize: number }).chunkSize);
  if (!same) {
    const hint = stored.kind === "partitioned" && wanted.kind === "partitioned" ? " (changing the partition count needs an explicit resize, which rehashes every entry)" : "";
    throw new AttrmapError("layout_mismatch", `map "${map}" is stored as ${describe(stored)}, but was opened as ${describe(wanted)}${hint}`);
  }
  return stored;
}

/** Opens a map: stores its layout if it has none, else checks it (`layout_mismatch`). */
export function openLayout(store: InstanceStore, map: string, wanted: Layout): Promise<void> {
  return store.write(map, [], `opening map "${map}"`, (meta) => {
    const kept = checkLayout(map, meta, wanted);
    return { meta: meta === undefined ? kept : undefined, result: undefined };
  });
}
