// Walks of a partitioned map, with no lock: every entry (iteration) or a page of them, reading
// one partition per step, each a consistent snapshot; counts, reading every partition in one
// transaction. Loaded at a page's first list, walk or count.
import * as args from "../common/args.js";
import { AttrmapError } from "../common/errors.js";
import type { PartitionedLayout } from "./layout.js";
import type { MapContext } from "./map-context.js";
import type { MapPage, Partition } from "./map-types.js";

/** Every entry, in partition order and then canonical key order; `layout_changed` if a resize commits meanwhile. */
export async function* entries<V>(m: MapContext<V>): AsyncGenerator<[string, V]> {
  let after: string | undefined;
  let layout: PartitionedLayout | undefined;
  for (;;) {
    const step = await m.ctx.instances.readNext(m.name, after, `reading the partitions of map "${m.name}"`);
    if (step.meta === undefined) return;
    if (layout === undefined) {
      m.adopt(step.meta);
      layout = m.layout;
    } else if (!m.adopt(step.meta, layout)) {
      throw new AttrmapError("layout_changed", `map "${m.name}" was resized while its entries were being read`);
    }
    if (step.instance === undefined) return;
    yield* m.ordered(step.instance, step.value);
    after = step.instance;
  }
}

/** `map.page(options)`: reads only the partitions that hold the page (and whether another follows). */
export function page<V>(m: MapContext<V>, options: unknown): Promise<MapPage<V>> {
  const o = args.options("options", options);
  const cursor = args.field("options", o, "after");
  const after = cursor == null ? undefined : args.text("options.after", cursor); // null (a last page's next): no cursor
  const limit = args.pageLimit("options.limit", args.field("options", o, "limit"));
  const doing = `reading a page of map "${m.name}"`;
  return m.withLayout(async (layout) => {
    const found: Array<[string, V]> = [];
    let instance: string | undefined; // the last partition read
    if (after !== undefined) {
      // The cursor is canonical already: placed as stored keys were, without canonicalizeKey.
      instance = m.placeCanonical(after, layout).partitionName;
      const { meta, values } = await m.ctx.instances.read(m.name, [instance]);
      m.current(meta, layout);
      for (const entry of m.ordered(instance, values[0])) if (entry[0] > after) found.push(entry);
    }
    for (;;) {
      if (found.length > limit) return { entries: found.slice(0, limit), next: found[limit - 1]![0] };
      const step = await m.ctx.instances.readNext(m.name, instance, doing);
      m.current(step.meta, layout); // another layout: the page is read again under it
      // A stored partition is never empty, so one more partition means one more entry.
      if (found.length === limit) return { entries: found, next: step.instance === undefined ? null : found.at(-1)![0] };
      if (step.instance === undefined) return { entries: found, next: null };
      // One by one: a partition may hold more entries than a call takes arguments.
      for (const entry of m.ordered(step.instance, step.value)) found.push(entry);
      instance = step.instance;
    }
  });
}

/** Visits every stored partition, in name order, one at a time, in one readonly transaction. */
export async function scan<V>(m: MapContext<V>, visit: (instance: string, partition: Partition<V>) => void): Promise<void> {
  await m.ctx.instances.scan(m.name, `reading the partitions of map "${m.name}"`, (_, instance, value) =>
    visit(instance, m.partition(instance, value)),
  );
}
