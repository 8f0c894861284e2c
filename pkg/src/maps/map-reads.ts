// What a partitioned map's reads read, with no lock: a lookup reads the one partition its key
// is in; a batch each partition once. Walks of the whole map (iteration, pages, counts) are
// map-pages.ts's.
import * as args from "../common/args.js";
import { MAX_BATCH } from "../common/limits.js";
import type { MapContext } from "./map-context.js";

/** The value of `key`, or undefined. */
export function get<V>(m: MapContext<V>, key: unknown): Promise<V | undefined> {
  return m.withLayout(async (layout) => {
    const p = m.place(key, layout, "key");
    const { meta, values } = await m.ctx.instances.read(m.name, [p.partitionName]);
    m.current(meta, layout);
    return m.entry(p.partitionName, m.partition(p.partitionName, values[0]), p.key);
  });
}

/** The values of `keys` by canonical key (absent ones left out), each partition read once, in one transaction. */
export function getMany<V>(m: MapContext<V>, keys: unknown): Promise<Map<string, V>> {
  const list = args.list<unknown>("keys", keys, MAX_BATCH);
  return m.withLayout(async (layout) => {
    const placed = list.map((k, i) => m.place(k, layout, `keys[${i}]`));
    const names = [...new Set(placed.map((p) => p.partitionName))];
    const { meta, values } = await m.ctx.instances.read(m.name, names);
    m.current(meta, layout);
    const partitions = new Map(names.map((n, i) => [n, m.partition(n, values[i])]));
    const found = new Map<string, V>();
    for (const p of placed) {
      const partition = partitions.get(p.partitionName)!;
      if (partition.has(p.key)) found.set(p.key, m.entry(p.partitionName, partition, p.key) as V);
    }
    return found;
  });
}
