// What changed since a checkpoint, as the engine's attributes (docs/dex-import.md, "Moving what
// changed"): the change feed names the instances written since; each is read as it is now, and
// one that is gone becomes the engine's null value, which deletes its attribute. Instances are
// read after the feed, so a value may be newer than the checkpoint returned: the next increment
// sends it again, and sending a value twice leaves the engine as once.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { corrupt } from "../common/errors.js";
import { changes } from "../feed/change-feed.js";
import { type LogState, readMeta } from "../maps/layout.js";

/** An attribute of an increment: an instance as it is now, one that is gone, or a log's state. */
export type ChangedItem =
  | { kind: "instance"; map: string; instance: string; value: Map<string, unknown> | unknown[] }
  | { kind: "state"; map: string; state: LogState }
  | { kind: "gone"; map: string; instance: string };

/** Instances read per transaction. */
const READ_STEP = 100;
/** Feed records read per transaction. */
const FEED_PAGE = 10_000;

/** The instances of each map written after `since` (the maps in `wanted` only, if given), and the last sequence read. */
export async function changedSince(
  ctx: Context,
  since: number,
  wanted: readonly string[] | undefined,
): Promise<{ checkpoint: number; changed: Map<string, Set<string>> }> {
  const only = wanted && new Set(wanted);
  const changed = new Map<string, Set<string>>();
  let after = since;
  for (;;) {
    const page = await changes(ctx, { after, limit: FEED_PAGE });
    for (const { map, instances } of page.changes) {
      if (only && !only.has(map)) continue;
      let set = changed.get(map);
      if (!set) changed.set(map, (set = new Set()));
      for (const i of instances) set.add(i);
    }
    after = page.next;
    if (page.changes.length < FEED_PAGE) return { checkpoint: after, changed };
  }
}

/** The attributes that bring an engine copy of `changed` up to now, map by map in name order. */
export async function* changedItems(
  ctx: Context,
  changed: ReadonlyMap<string, ReadonlySet<string>>,
): AsyncGenerator<ChangedItem> {
  for (const map of [...changed.keys()].sort()) {
    const names = [...changed.get(map)!].sort();
    let meta: unknown;
    for (let i = 0; i < names.length; i += READ_STEP) {
      const step = names.slice(i, i + READ_STEP);
      const read = await ctx.instances.read(map, step);
      meta = read.meta;
      const view = readMeta(map, read.meta);
      const chunked = view !== undefined && "meta" in view;
      for (const [j, instance] of step.entries()) {
        const value = read.values[j];
        if (value === undefined) {
          yield { kind: "gone", map, instance };
          continue;
        }
        if (chunked ? !Array.isArray(value) : !(value instanceof Map))
          throw corrupt(map, instance, `it is ${args.describeType(value)}, not a ${chunked ? "chunk" : "partition"}`);
        yield { kind: "instance", map, instance, value: value as Map<string, unknown> | unknown[] };
      }
    }
    const view = readMeta(map, meta);
    if (view !== undefined && "meta" in view) yield { kind: "state", map, state: { ...view.meta.state } };
  }
}
