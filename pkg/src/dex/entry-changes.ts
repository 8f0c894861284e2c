// Entry changes (docs/sync.md, "Entry changes"): for a flow several devices write, the entries
// of each instance written since a checkpoint that differ from its base, for a backend to apply
// through the flow's locking RPC (lock the partition, read it, change those entries, write it),
// so that no device overwrites another's entries with a whole partition. What they send
// becomes the instances' bases when the checkpoint is acknowledged. Logs are not sent so: a log
// several devices append to appends through the flow's own RPC, which numbers its records.
import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { exactJson, NotExactJson } from "../export-import/exact-json.js";
import { wantedMaps } from "../export-import/maps-option.js";
import type { SentRecord } from "../idb/sent.js";
import { readMeta } from "../maps/layout.js";
import { verifierReady } from "../wasm/verifier-module.js";
import { baseEntries, basesRead, partitionDigests, readingBases, saveSent } from "./base.js";
import { changedSince } from "./increment.js";
import { namesOption, renamed } from "./names-option.js";
import type { DexMapNames } from "./sample-names.js";
import type { DexEntryChange, DexEntryChanges } from "./sync-types.js";

/** Instances read per transaction. */
const READ_STEP = 100;

/** @internal `exportDexEntryChanges(store, options)`; see DexEntryChangesOptions. */
export async function entryChanges(ctx: Context, options: unknown): Promise<DexEntryChanges> {
  const o = args.object("options", options);
  const since = args.count("options.since", args.field("options", o, "since"), 0);
  const namesFor = namesOption(o);
  const wanted = wantedMaps(o);
  await verifierReady();
  const { checkpoint, changed } = await changedSince(ctx, since, wanted);
  const changes: DexEntryChange[] = [];
  const logs: string[] = [];
  const sent: Array<readonly [string, string, SentRecord]> = [];
  for (const map of [...changed.keys()].sort()) {
    const instances = [...changed.get(map)!].sort();
    for (let i = 0; i < instances.length; i += READ_STEP) {
      const step = instances.slice(i, i + READ_STEP);
      const [read] = await ctx.instances.readMaps([readingBases({ map, instances: step }, step)]);
      const view = readMeta(map, read!.meta);
      if (view !== undefined && "meta" in view) {
        logs.push(map);
        break;
      }
      const names = namesFor(map);
      if (!names) throw args.invalid(`there are no Dex names for map "${map}": pass them in options.names`);
      for (const [j, instance] of step.entries()) {
        const value = read!.values[j] as Map<string, unknown> | undefined;
        const local = partitionDigests(value);
        const base = baseEntries(basesRead(read!).bases[j]);
        const entries = new Map<string, string | null>();
        for (const key of [...new Set([...local.keys(), ...base.keys()])].sort()) {
          const digest = local.get(key);
          if (digest === base.get(key)) continue;
          entries.set(key, digest ?? null);
          changes.push({
            attributeMap: names.attributeMap,
            instance,
            key,
            value: digest ? exported(map, value!.get(key), names, key) : null,
          });
        }
        if (entries.size > 0) sent.push([map, instance, { entries }]);
      }
    }
  }
  await saveSent(ctx, checkpoint, sent, "recording what entry changes send");
  return { checkpoint, changes, logs };
}

/** An entry's value as an export writes it (record fields renamed), checked to be JSON exactly. */
function exported(map: string, value: unknown, names: DexMapNames, key: string): unknown {
  const out = names.recordFields ? renamed(value, names.recordFields) : value;
  try {
    exactJson(out);
  } catch (e) {
    if (!(e instanceof NotExactJson)) throw e;
    throw new AttrmapError(
      "not_exportable",
      `map "${map}", key ${JSON.stringify(key)}: ${e.message} cannot be sent as JSON exactly`,
      { cause: e },
    );
  }
  return out;
}
