// The incremental move to the engine, checked against a plain model of the engine's attributes
// (docs/change-feed.md, docs/dex-import.md): random writes of every kind to one store, with
// increments taken at random points; applying a first full export, then each increment in order,
// must give what a full export at the end gives, and applying an increment again must change
// nothing. Run in Node (tests/node/dex-increments.test.ts) and in each engine's page
// (tests/browser/live.test.ts), where other tabs and workers write meanwhile. It imports
// nothing: the package and a random source are passed in.
import type * as Attrmap from "attrmap";
import type * as Dex from "attrmap/dex";
import type * as ExportImport from "attrmap/export-import";

/** What the model uses of the package. */
export interface IncrementPackage {
  exportDexRequests: typeof Dex.exportDexRequests;
  exportText: typeof ExportImport.exportText;
  importData: typeof ExportImport.importData;
}

/** The engine's attributes: key to value JSON; a write of the null value deletes. */
export type Engine = Map<string, string>;

/** The Dex names of the two maps the model writes. */
export const INCREMENT_NAMES: Dex.DexExportOptions["names"] = {
  people: { attributeMap: "people_by_partition", valueField: "entries" },
  events: { attributeMap: "event_chunks", stateAttribute: "event_state" },
};

interface Written {
  key: string;
  value: { objValue?: { encoding: string; payload: string }; nullValue?: null };
}

const decoder = new TextDecoder();
const fromBase64 = (text: string) => decoder.decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));

/** The attribute writes of one export (an increment with `since`), each key once, and its checkpoint. */
export async function exported(
  m: IncrementPackage,
  store: Attrmap.Attrmap,
  since?: number,
): Promise<{ writes: Written[]; checkpoint: number }> {
  const writes: Written[] = [];
  const seen = new Set<string>();
  const requests = m.exportDexRequests(store, { flowId: "f", names: INCREMENT_NAMES, since });
  const checkpoints = new Set<number>();
  for await (const r of requests) {
    checkpoints.add(r.checkpoint);
    for (const a of (JSON.parse(r.json) as { attributes: Written[] }).attributes) {
      if (seen.has(a.key)) throw new Error(`${a.key} written twice in one export`);
      seen.add(a.key);
      writes.push(a);
    }
  }
  if (requests.checkpoint === undefined) throw new Error("an export read to its end has no checkpoint");
  if ([...checkpoints].some((c) => c !== requests.checkpoint))
    throw new Error(`requests' checkpoints ${[...checkpoints].join(", ")} are not their export's, ${requests.checkpoint}`);
  return { writes, checkpoint: requests.checkpoint };
}

/** Applies attribute writes to `engine` as the engine does: a value sets, the null value deletes. */
function apply(engine: Engine, writes: readonly Written[]): void {
  for (const a of writes) {
    if (a.value.objValue) engine.set(a.key, fromBase64(a.value.objValue.payload));
    else if ("nullValue" in a.value && a.value.nullValue === null) engine.delete(a.key);
    else throw new Error(`an attribute of neither kind: ${JSON.stringify(a)}`);
  }
}

/** Applies one export (an increment with `since`) to `engine`; its checkpoint. */
export async function applyExport(m: IncrementPackage, engine: Engine, store: Attrmap.Attrmap, since?: number): Promise<number> {
  const { writes, checkpoint } = await exported(m, store, since);
  apply(engine, writes);
  return checkpoint;
}

const same = (a: Engine, b: Engine) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

/**
 * `rounds` random writes to `store` (through it and through `other`, a second context of the
 * same database), increments among them; `source()` opens an empty database of its own for an
 * import that replaces a map; `settled()` resolves when other writers are done, before the last
 * increment is compared with a full export. What went wrong, as text (none: they agree).
 */
export async function incrementsAgree(
  m: IncrementPackage,
  store: Attrmap.Attrmap,
  other: Attrmap.Attrmap,
  source: () => Attrmap.Attrmap,
  next: () => number,
  rounds: number,
  settled: () => Promise<unknown>,
): Promise<{ problems: string[]; increments: number }> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const people = await store.partitionedMap<{ n: number }>("people", { partitionCount: 5 });
  const peopleElsewhere = await other.partitionedMap<{ n: number }>("people");
  const events = await store.chunkedLog<{ n: number }>("events", { chunkSize: 3 });
  const keys = Array.from({ length: 12 }, (_, i) => `k${i}`).concat(["__proto__", "é"]);
  const engine: Engine = new Map();
  const problems: string[] = [];
  let checkpoint = await applyExport(m, engine, store);
  let increments = 0;
  for (let round = 0; round < rounds; round++) {
    const op = next();
    if (op < 0.25) await people.upsert(pick(keys), { n: round });
    else if (op < 0.35)
      await peopleElsewhere.upsertMany([
        [pick(keys), { n: round }],
        [pick(keys), { n: -round - 1 }], // never -0, which JSON cannot hold
      ]);
    else if (op < 0.45) await people.delete(pick(keys));
    else if (op < 0.5) await people.update(pick(keys), (v) => ({ n: (v?.n ?? 0) + 1 }));
    else if (op < 0.53) await people.resize(1 + Math.floor(next() * 7));
    else if (op < 0.55) await people.clear();
    else if (op < 0.7) await events.appendMany(Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({ n: round })));
    else if (op < 0.73) await events.changeChunkSize(1 + Math.floor(next() * 4));
    else if (op < 0.77) {
      const { records, nextSequence } = await events.stats();
      if (records > 0) {
        const token = await events.pageOf(nextSequence - 1 - Math.floor(next() * records));
        if (token !== "current") await events.dropArchivesBefore(token);
      }
    } else if (op < 0.8) {
      // An import that replaces the map with another database's.
      const from = source();
      await (await from.partitionedMap<{ n: number }>("people", { partitionCount: 3 })).upsertMany([
        [pick(keys), { n: 1000 + round }],
        [pick(keys), { n: 2000 + round }],
      ]);
      await m.importData(store, await m.exportText(from), { replace: true });
    } else {
      const increment = await exported(m, store, checkpoint);
      apply(engine, increment.writes);
      const once = new Map(engine);
      apply(engine, increment.writes);
      if (!same(engine, once)) problems.push(`round ${round}: the same increment applied twice changed the engine`);
      checkpoint = increment.checkpoint;
      increments++;
    }
  }
  await settled();
  await applyExport(m, engine, store, checkpoint);
  const full: Engine = new Map();
  await applyExport(m, full, store);
  for (const [k, v] of full) if (engine.get(k) !== v) problems.push(`${k}: ${engine.get(k)} after increments, ${v} in full`);
  for (const k of engine.keys()) if (!full.has(k)) problems.push(`${k}: left by the increments, not in a full export`);
  return { problems, increments };
}
