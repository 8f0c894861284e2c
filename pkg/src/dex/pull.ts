// importDexAttributes (docs/sync.md): the engine's copy of a flow's maps and logs merged into
// the store. Every attribute is checked before anything is written (engine-copy.ts); then, under
// the maps' locks, each entry is merged with its base and everything is written in one IndexedDB
// transaction (merge.ts): a live query sees all of it or none, and a crash leaves all or none.
import * as args from "../common/args.js";
import { CURRENT, EMAIL_KEYS } from "../common/constants.js";
import { type Context, lockKey } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { type LockRequest, withLocks } from "../concurrency/locks.js";
import { wantedMaps } from "../export-import/maps-option.js";
import { type ChunkedMeta, openChunked, openPartitioned, type PartitionedLayout } from "../maps/layout.js";
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { ExportChecker, verifierReady } from "../wasm/verifier-module.js";
import { attributesOf } from "./attribute-source.js";
import { type BasesRead, basesRead, LOG_STATE_BASE, payloadDigests, readingBases, type StoredPartitionBase } from "./base.js";
import { AttributeRouter, checkedCopies, payloadOf } from "./engine-copy.js";
import { add, type Merged, Moved, mergeAndWrite, type Target } from "./merge.js";
import { everyName } from "./names-option.js";
import type { DexMapNames } from "./sample-names.js";
import type { DexEntryConflict, DexImportProgress, DexImportResult } from "./sync-types.js";

/** How often a pull merges again after a writer changed what it read before it could write. */
const PULL_ATTEMPTS = 8;

/** @internal `importDexAttributes(store, source, options)`; see DexImportOptions. */
export async function pull(ctx: Context, source: unknown, options: unknown): Promise<DexImportResult> {
  const o = args.object("options", options);
  const named = everyName(o);
  const only = wantedMaps(o);
  if (only) {
    const missing = only.find((map) => !named.has(map));
    if (missing !== undefined) throw args.invalid(`there are no Dex names for map "${missing}": pass them in options.names`);
    for (const map of [...named.keys()]) if (!only.includes(map)) named.delete(map);
  }
  const layoutsGiven = args.field("options", o, "layouts");
  const layoutsOption = layoutsGiven === undefined ? undefined : args.object("options.layouts", layoutsGiven);
  const handler = args.field("options", o, "onConflict");
  const onConflict =
    handler === undefined ? undefined : args.func<(c: DexEntryConflict) => unknown>("options.onConflict", handler);
  const progress = args.field("options", o, "onProgress");
  const onProgress =
    progress === undefined ? undefined : args.func<(p: DexImportProgress) => void>("options.onProgress", progress);
  const signal = args.signal("options.signal", args.field("options", o, "signal"));
  const partialGiven = args.field("options", o, "partial");
  const partial = partialGiven === undefined ? false : args.boolean("options.partial", partialGiven);
  const stop = () => {
    if (signal?.aborted) throw new AttrmapError("aborted", "the pull was aborted; nothing was written", { cause: signal.reason });
  };

  const router = new AttributeRouter(named);
  let count = 0;
  for await (const { key, value } of attributesOf(source)) {
    router.add(key, value);
    if (++count % 1000 === 0) {
      onProgress?.({ phase: "reading", attributes: count });
      stop();
    }
  }
  onProgress?.({ phase: "merging", attributes: count });
  await verifierReady();
  const maps = [...router.gathered.keys()].sort();
  if (maps.length === 0) return { applied: {}, unchanged: {}, conflicts: [], ignored: router.ignored };
  // The instances each map's merge reads and writes: the engine's, and (a whole copy) those with
  // a base. All its locks are taken at once, in the one order every writer takes them.
  // A partial source names the instances to look at; a whole one, with every base, those it no longer holds.
  const held = (map: string) => [...router.gathered.get(map)!.instances.keys()];
  const stored = await ctx.instances.readMaps(
    maps.map((map) => readingBases({ map, instances: [] }, partial ? held(map) : "all")),
  );
  const known = stored.map(basesRead);
  const isLog = (i: number) => {
    const kind = (stored[i]!.meta as { kind?: unknown } | undefined)?.kind;
    return kind === undefined ? named.get(maps[i]!)!.stateAttribute !== undefined : kind === "chunked";
  };
  // A partition whose payload is the one the engine held at the last exchange has nothing new:
  // it is not read, checked or written (the store's own changes in it stay, to be sent).
  const skipped = maps.map((map, i) => (isLog(i) ? new Set<string>() : unchangedSince(router, map, known[i]!)));
  const instancesOf = (i: number): string[] => {
    const g = router.gathered.get(maps[i]!)!;
    const based = partial ? [] : known[i]!.names.filter((n) => n !== LOG_STATE_BASE && !skipped[i]!.has(n));
    return [...new Set([...g.instances.keys(), ...based])].sort();
  };
  const done = (m: Merged): DexImportResult => {
    for (const [i, map] of maps.entries()) if (skipped[i]!.size > 0) add(m.unchanged, map, skipped[i]!.size);
    return { ...m, ignored: router.ignored };
  };
  const locks: LockRequest[] = maps.flatMap((map, i) => [
    { key: lockKey(ctx, map), mode: "exclusive" as const },
    { key: lockKey(ctx, map, CURRENT), mode: "exclusive" as const },
    ...(isLog(i) ? [] : instancesOf(i).map((instance) => ({ key: lockKey(ctx, map, instance), mode: "exclusive" as const }))),
  ]);
  return withLocks(ctx.locks, locks, { signal }, async () => {
    const metas = await ctx.instances.readMaps(maps.map((map) => ({ map, instances: [] })));
    const layouts = maps.map((map, i) => layoutOf(map, metas[i]!.meta, layoutsOption, named.get(map)!));
    const verifier = new ExportChecker();
    let copies: ReturnType<typeof checkedCopies>;
    try {
      copies = checkedCopies(router, verifier, (map) => layouts[maps.indexOf(map)]!);
    } finally {
      verifier.free();
    }
    const targets = maps.flatMap((map, i): Target[] => {
      const remote = copies.get(map);
      if (!remote) return [];
      return [{ map, layout: layouts[i]!, remote, instances: remote.kind === "partitioned" ? instancesOf(i) : [] }];
    });
    // Every writer of these instances waits for the locks: a merge reads again only if one did not.
    for (let attempt = 1; ; attempt++) {
      stop();
      try {
        return done(
          await mergeAndWrite(ctx, targets, onConflict, () => {
            onProgress?.({ phase: "committing", attributes: count });
            stop();
          }),
        );
      } catch (e) {
        if (!(e instanceof Moved)) throw e;
        if (attempt === PULL_ATTEMPTS)
          throw new AttrmapError("layout_changed", `the maps of a pull changed under it ${attempt} times while it merged`);
      }
    }
  });
}

/** The layout of `map`: the stored one, checked against `options.layouts`, or the one a missing map gets. */
function layoutOf(map: string, meta: unknown, layouts: object | undefined, names: DexMapNames): PartitionedLayout | ChunkedMeta {
  const owner = `options.layouts[${JSON.stringify(map)}]`;
  const given = layouts === undefined ? undefined : args.field("options.layouts", layouts, map);
  const o = given === undefined ? {} : args.object(owner, given);
  const number = (key: string) => {
    const v = args.field(owner, o, key);
    return v === undefined ? undefined : args.count(`${owner}.${key}`, v, 1);
  };
  const chunkSize = number("chunkSize");
  const stored = (meta as { kind?: unknown } | undefined)?.kind;
  const log = stored === undefined ? chunkSize !== undefined || names.stateAttribute !== undefined : stored === "chunked";
  if (log) return openChunked(map, meta, chunkSize).view.meta;
  const rule = args.field(owner, o, "keyRule");
  const keyRule =
    rule === undefined ? (map === CUSTOMER_PROFILES_MAP ? EMAIL_KEYS : undefined) : args.string(`${owner}.keyRule`, rule);
  return openPartitioned(map, meta, { partitionCount: number("partitionCount"), keyRule, custom: false }).layout;
}

/** The instances of `map` in `router` whose payload is their base's (`known` read every base of the map); left out of it. */
function unchangedSince(router: AttributeRouter, map: string, known: BasesRead): Set<string> {
  const bases = new Map(known.names.map((n, i) => [n, (known.bases[i] as StoredPartitionBase | null)?.payload]));
  const candidates = [...router.gathered.get(map)!.instances].flatMap(([instance, { value }]) => {
    const payload = payloadOf(value);
    return payload !== undefined && bases.get(instance) !== undefined ? [[instance, payload] as const] : [];
  });
  const digests = payloadDigests(candidates.map(([, p]) => p));
  const same = new Set(candidates.filter(([instance], n) => bases.get(instance) === digests[n]).map(([instance]) => instance));
  for (const instance of same) router.skip(map, instance);
  return same;
}
