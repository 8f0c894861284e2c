// What changed since a checkpoint, as the engine's attributes (docs/dex-import.md, "Moving what
// changed"): the change feed names the instances written since; each is read as it is now, and
// one that is gone becomes the engine's null value, which deletes its attribute. Instances are
// read after the feed, so a value may be newer than the checkpoint returned: the next increment
// sends it again, and sending a value twice leaves the engine as once. An instance equal to its
// base (docs/sync.md: what the engine held at the last exchange, a pull's included) is not sent:
// the engine holds it already, and a pulled value never goes back as if it were a local change.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { corrupt } from "../common/errors.js";
import { changes } from "../feed/change-feed.js";
import { type LogState, readMeta } from "../maps/layout.js";
import { verifierReady } from "../wasm/verifier-module.js";
import { baseEntries, basesRead, chunkDigest, LOG_STATE_BASE, partitionDigests, readingBases, sameState } from "./base.js";

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
  await verifierReady();
  for (const map of [...changed.keys()].sort()) {
    const names = [...changed.get(map)!].sort();
    let meta: unknown;
    let stateBase: unknown;
    for (let i = 0; i < names.length; i += READ_STEP) {
      const step = names.slice(i, i + READ_STEP);
      const [read] = await ctx.instances.readMaps([readingBases({ map, instances: step }, [...step, LOG_STATE_BASE])]);
      const { bases } = basesRead(read!);
      meta = read!.meta;
      stateBase = bases.at(-1);
      const view = readMeta(map, read!.meta);
      const chunked = view !== undefined && "meta" in view;
      for (const [j, instance] of step.entries()) {
        const value = read!.values[j];
        const base = bases[j];
        if (value === undefined) {
          if (base !== null) yield { kind: "gone", map, instance }; // null: the engine holds none either
          continue;
        }
        if (chunked ? !Array.isArray(value) : !(value instanceof Map))
          throw corrupt(map, instance, `it is ${args.describeType(value)}, not a ${chunked ? "chunk" : "partition"}`);
        if (
          base != null &&
          (chunked ? chunkDigest(value) === base : sameBase(partitionDigests(value as Map<string, unknown>), base))
        )
          continue;
        yield { kind: "instance", map, instance, value: value as Map<string, unknown> | unknown[] };
      }
    }
    const view = readMeta(map, meta);
    if (view !== undefined && "meta" in view && !(stateBase !== undefined && sameState(view.meta.state, stateBase as LogState)))
      yield { kind: "state", map, state: { ...view.meta.state } };
  }
}

/** Whether a partition's entries (as a base) are `base`. */
function sameBase(local: ReadonlyMap<string, string>, base: unknown): boolean {
  const b = baseEntries(base);
  return local.size > 0 && local.size === b.size && [...local].every(([k, d]) => b.get(k) === d);
}
