// A partitioned map's resize (docs/partitioned-map.md, "Resizing"): every entry moved to the
// partition its hash names under the new count, in one transaction under the map's own lock.
// Rare, so its code (and the maintenance module it calls) loads at a page's first resize.
import * as args from "../common/args.js";
import { lockKey } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import { withLocks, writeOptions } from "../concurrency/locks.js";
import { rewriteMap } from "../instances/rewrite.js";
import * as wasm from "../wasm/core-module.js";
import * as maintenance from "../wasm/maintenance-module.js";
import type { MapContext } from "./map-context.js";
import type { Partition, ResizeProgress } from "./map-types.js";

/** `map.resize(partitionCount, options)`: see PartitionedMap.resize. */
export async function resize<V>(m: MapContext<V>, partitionCount: unknown, options: unknown): Promise<void> {
  const count = wasm.resolvePartitionCount(args.number("partitionCount", partitionCount));
  const opts = writeOptions(options);
  const progress = args.field("options", args.options("options", options), "onProgress");
  const onProgress = progress === undefined ? undefined : args.func<(p: ResizeProgress) => void>("options.onProgress", progress);
  const stop = () => {
    if (opts.signal?.aborted)
      throw new AttrmapError("aborted", `the resize of map "${m.name}" was aborted`, { cause: opts.signal.reason });
  };
  await maintenance.maintenanceReady(); // before the lock and the transaction, which must not wait on it
  const resized = await withLocks(m.ctx.locks, [{ key: lockKey(m.ctx, m.name), mode: "exclusive" }], opts, () =>
    rewriteMap(m.ctx.instances, m.name, `resizing map "${m.name}" to ${count} partitions`, async (tx) => {
      m.reloadLayout(tx.meta ?? m.layout);
      const layout = m.layout;
      if (layout.partitionCount === count) return layout;
      const keys: string[] = [];
      const values: V[] = [];
      tx.names.forEach((name, i) => {
        for (const [key, value] of m.partition(name, tx.values[i])) {
          if (typeof key !== "string") throw corrupt(m.name, name, `a key is ${args.describeType(key)}, not a string`);
          keys.push(key);
          values.push(value);
        }
      });
      const indexes = maintenance.partitionIndexes(keys, count);
      const moved = new Map<string, Partition<V>>();
      indexes.forEach((index, i) => {
        const name = wasm.partitionName(index, count);
        let partition = moved.get(name);
        if (!partition) moved.set(name, (partition = new Map()));
        partition.set(keys[i]!, values[i]!);
      });
      stop();
      tx.clear();
      let done = 0;
      for (const [name, partition] of [...moved].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await tx.put(name, partition);
        done += partition.size;
        onProgress?.({ done, total: keys.length });
        stop();
      }
      const after = { ...layout, partitionCount: count, layoutVersion: layout.layoutVersion + 1 };
      tx.putMeta(after);
      return after;
    }),
  );
  m.layout = resized; // once committed
}
