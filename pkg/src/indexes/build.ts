// Adding and dropping an index (docs/indexes.md, "Defining an index"), for a map or a log alike.
// A build holds the map's lock (resizes, clears and other builds wait) but not its instances'
// locks: writers go on between its steps. Its first transaction puts the definition in the
// layout, flagged `building` (layoutVersion + 1), so every write from then on keeps the index's
// entries; then it walks the instances a few per readwrite transaction, putting the entries
// of what each step reads and noting in the flag how far it got; the last transaction clears
// the flag. A crash leaves the flag: the index is not queried, writes keep its entries, and the
// next createIndex goes on from the last step that committed.
// Any error or an abort drops the definition and its entries: all or nothing.

import * as args from "../common/args.js";
import { lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { type WriteOptions, withLocks, writeOptions } from "../concurrency/locks.js";
import { deletingAll, noEntryWrites } from "../idb/index-entries.js";
import type { Writes } from "../instances/instances.js";
import {
  type CreateIndexOptions,
  type IndexBuildProgress,
  type IndexDefinition,
  MAX_INDEXES,
  type StoredIndex,
  sameDefinition,
  storedIndexes,
} from "./definition.js";
import { addEntryWrites, conflictError } from "./entries.js";
import { entryWritesFor, type IndexHost } from "./index-host.js";

/** Where a build starts: the layout version it runs under, and the last instance walked before. */
interface Started {
  version: number;
  after: string | null;
}

/** Instances a build reads per transaction. */
const BUILD_STEP = 16;

type Meta = Record<string, unknown> & { layoutVersion: number };

function metaOf(target: IndexHost, raw: unknown): { meta: Meta; indexes: StoredIndex[] } {
  if (typeof raw !== "object" || raw === null)
    throw new AttrmapError("layout_changed", `${target.noun} "${target.name}" was removed while its index was being changed`);
  const meta = raw as Meta;
  return { meta, indexes: storedIndexes(`${target.noun} "${target.name}"`, meta.indexes) };
}

/** The metadata record `meta` with `indexes` (none: the field left out, as before any index). */
function withIndexes(meta: Meta, indexes: StoredIndex[], version: number): object {
  const { indexes: _, ...rest } = meta;
  return indexes.length > 0 ? { ...rest, layoutVersion: version, indexes } : { ...rest, layoutVersion: version };
}

/**
 * Builds index `def` of `target` (see above); nothing when one of that definition exists, and
 * `already_exists` when one of that name has another.
 */
export async function buildIndex(target: IndexHost, def: IndexDefinition, options: CreateIndexOptions): Promise<void> {
  const opts = writeOptions(options);
  const progress = args.field("options", args.options("options", options), "onProgress");
  const onProgress =
    progress === undefined ? undefined : args.func<(p: IndexBuildProgress) => void>("options.onProgress", progress);
  const { ctx, name: map } = target;
  const doing = `building index "${def.name}" of ${target.noun} "${map}"`;
  const stop = () => {
    if (opts.signal?.aborted)
      throw new AttrmapError("aborted", `${doing} was aborted; the index was not added`, { cause: opts.signal.reason });
  };
  await entryWritesFor([def]); // every write from the first step on keeps the index's entries
  await withLocks(ctx.locks, [{ key: lockKey(ctx, map), mode: "exclusive" }], opts, async () => {
    const started = await ctx.instances.write({ map, instances: [] }, doing, ({ meta: raw }): Writes<Started | undefined> => {
      const { meta, indexes } = metaOf(target, raw);
      const found = indexes.find((i) => i.name === def.name);
      if (found && !sameDefinition(found, def))
        throw new AttrmapError(
          "already_exists",
          `${target.noun} "${map}" has an index "${def.name}" with another definition; drop it first`,
        );
      if (!found) {
        if (indexes.length >= MAX_INDEXES)
          throw args.invalid(`${target.noun} "${map}" has ${MAX_INDEXES} indexes, the most one may have; drop one first`);
        const next = meta.layoutVersion + 1;
        const entries = deletingAll([map, def.name]);
        const building = { ...def, building: { after: null } };
        return { meta: withIndexes(meta, [...indexes, building], next), entries, result: { version: next, after: null } };
      }
      // Built, or a build a crash interrupted: it goes on after the last step that committed.
      return { result: found.building ? { version: meta.layoutVersion, after: found.building.after } : undefined };
    });
    if (started === undefined) return;
    const { version } = started;
    try {
      const total = await ctx.instances.countInstances(map, doing);
      let done = started.after === null ? 0 : await ctx.instances.countRange(map, ["", `${started.after}\u0000`], doing);
      const conflict = conflictError(target.noun, map);
      for (let after = started.after ?? undefined; ; ) {
        stop();
        const walk = { map, instances: [], all: { after, limit: BUILD_STEP } };
        const step = await ctx.instances.write(walk, doing, ({ meta: raw, names, all }) => {
          const { meta, indexes } = metaOf(target, raw);
          if (meta.layoutVersion !== version)
            throw new AttrmapError(
              "layout_changed",
              `${target.noun} "${map}" changed its layout while index "${def.name}" was built`,
            );
          const entries = noEntryWrites();
          names!.forEach((instance, i) => {
            for (const [owner, value, held] of target.ownersOf(instance, all![i]))
              addEntryWrites(map, [def], owner, undefined, value, entries, conflict, held);
          });
          const last = names!.at(-1);
          if (last === undefined) return { result: names! };
          const walked = indexes.map((i) => (i.name === def.name ? { ...i, building: { after: last } } : i));
          return { meta: withIndexes(meta, walked, version), entries, result: names! };
        });
        done += step.length;
        onProgress?.({ done, total: Math.max(total, done) });
        if (step.length < BUILD_STEP) break;
        after = step.at(-1);
      }
      stop();
      await ctx.instances.write({ map, instances: [] }, doing, ({ meta: raw }) => {
        const { meta, indexes } = metaOf(target, raw);
        const built = indexes.map((i) => (i.name === def.name ? { ...def } : i));
        return { meta: withIndexes(meta, built, meta.layoutVersion), result: undefined };
      });
      // Queries that found it being built read it again.
      ctx.instances.announceChanged([{ map, instances: [], entries: deletingAll([map, def.name]) }]);
    } catch (e) {
      // A create that did not happen leaves the layout version where it was (docs/indexes.md):
      // the build holds the map's lock, so no other layout change came between.
      // If this fails too, the next build starts again.
      await removeIndex(target, def.name, doing, version - 1).catch(() => undefined);
      await target.refresh().catch(() => undefined);
      throw e;
    }
  });
}

/**
 * Removes index `index` and its entries in one transaction, the layout version then `version`
 * (a drop: one more); whether it was there.
 */
function removeIndex(target: IndexHost, index: string, doing: string, version?: number): Promise<boolean> {
  const map = target.name;
  return target.ctx.instances.write({ map, instances: [] }, doing, ({ meta: raw }) => {
    const { meta, indexes } = metaOf(target, raw);
    if (!indexes.some((i) => i.name === index)) return { result: false };
    const entries = deletingAll([map, index]);
    const left = indexes.filter((i) => i.name !== index);
    return { meta: withIndexes(meta, left, version ?? meta.layoutVersion + 1), entries, result: true };
  });
}

/** Drops index `index` under the map's lock (after any build); whether it was there. */
export function dropIndex(target: IndexHost, index: string, options: WriteOptions): Promise<boolean> {
  const { ctx, name: map } = target;
  return withLocks(ctx.locks, [{ key: lockKey(ctx, map), mode: "exclusive" }], writeOptions(options), () =>
    removeIndex(target, index, `dropping index "${index}" of ${target.noun} "${map}"`),
  );
}
