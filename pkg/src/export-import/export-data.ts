// Reading maps out in the export format's order (docs/export-format.md): per map in name
// order, its layout, a log's state, then its instances in name order, one instance in memory
// at a time. A log is read from one snapshot of its state and `current`: archives never change,
// so the export is consistent while appends go on; a resize or retention that happens while a
// map is read makes the export fail with `layout_changed` rather than mix two layouts.

import * as args from "../common/args.js";
import { CURRENT, EXPORT_FORMAT, EXPORT_VERSION } from "../common/constants.js";
import type { Context } from "../common/context.js";
import { AttrmapError, corrupt } from "../common/errors.js";
import { publicDefinition } from "../indexes/definition.js";
import { type Layout, type LogState, readMeta } from "../maps/layout.js";
import * as wasm from "../wasm/core-module.js";
import { exactJson, NotExactJson, partitionJson } from "./exact-json.js";
import { mapNames } from "./staging.js";

/** One piece of an export, in file order. */
export type ExportItem =
  | { kind: "layout"; map: string; layout: Layout }
  | { kind: "state"; map: string; state: LogState }
  /** A partition (`Map` of canonical key to value) or a chunk (array of records, oldest first). */
  | { kind: "instance"; map: string; instance: string; layout: Layout; value: Map<string, unknown> | unknown[] };

/** What `exportData(store, options)` exports. */
export interface ExportOptions {
  /** The maps to export (default: every map of the database), by name. */
  maps?: readonly string[] | undefined;
}

function layoutOf(meta: ReturnType<typeof readMeta>): Layout {
  if (meta === undefined) throw new AttrmapError("layout_changed", "a map was removed while it was being exported");
  // Definitions only (a build in progress too, which the import completes): entries are rebuilt.
  const indexes = ("meta" in meta ? meta.meta : meta).indexes;
  const defined = indexes ? { indexes: indexes.map(publicDefinition) } : {};
  return "meta" in meta
    ? { kind: "chunked", layoutVersion: meta.meta.layoutVersion, segments: meta.meta.segments, ...defined }
    : {
        kind: "partitioned",
        layoutVersion: meta.layoutVersion,
        partitionCount: meta.partitionCount,
        keyRule: meta.keyRule,
        ...defined,
      };
}

/** The maps an export reads: every map, or those asked for (each must exist), in name order. */
async function mapsToExport(ctx: Context, wanted: string[] | undefined): Promise<string[]> {
  const all = await mapNames(ctx.instances);
  if (wanted === undefined) return all;
  const present = new Set(all);
  const missing = wanted.find((m) => !present.has(m));
  if (missing !== undefined) throw new AttrmapError("not_found", `there is no map "${missing}" to export`);
  return [...new Set(wanted)].sort();
}

/** @internal Every item of an export of `ctx`'s database. */
export async function* exportItems(ctx: Context, wanted: string[] | undefined): AsyncGenerator<ExportItem> {
  for (const map of await mapsToExport(ctx, wanted)) {
    const doing = `exporting map "${map}"`;
    const { meta, values } = await ctx.instances.read(map, [CURRENT]);
    const read = readMeta(map, meta);
    const layout = layoutOf(read);
    if (layout.kind === "partitioned" && layout.keyRule === "") {
      throw new AttrmapError(
        "not_exportable",
        `map "${map}" was written by attrmap 0.1, which stored no key rule: ` +
          "open it once (partitionedMap, customerDirectory) to record one, then export",
      );
    }
    yield { kind: "layout", map, layout };
    const same = (raw: unknown) => {
      const now = layoutOf(readMeta(map, raw));
      if (now.layoutVersion !== layout.layoutVersion)
        throw new AttrmapError("layout_changed", `map "${map}" changed its layout while it was being exported`);
    };
    if (read && "meta" in read) {
      yield { kind: "state", map, state: { ...read.meta.state } };
      // Archives older than the snapshot's `current`; later ones were added since, and `current` comes last.
      const end = read.currentFirst > 1 ? wasm.archiveToken(read.currentFirst) : "";
      let archives = 0;
      for (let after: string | undefined; ; ) {
        const step = await ctx.instances.readNext(map, after, doing);
        if (step.instance === undefined || step.instance >= end) break;
        same(step.meta);
        if (!Array.isArray(step.value))
          throw corrupt(map, step.instance, `a chunk must be an array, found ${args.describeType(step.value)}`);
        yield { kind: "instance", map, instance: step.instance, layout, value: step.value };
        archives++;
        after = step.instance;
      }
      if (archives !== read.archivedChunks)
        throw new AttrmapError("layout_changed", `archives of log "${map}" were dropped while it was being exported`);
      const current = values[0];
      if (current !== undefined) {
        if (!Array.isArray(current)) throw corrupt(map, CURRENT, `a chunk must be an array, found ${args.describeType(current)}`);
        yield { kind: "instance", map, instance: CURRENT, layout, value: current };
      }
      continue;
    }
    for (let after: string | undefined; ; ) {
      const step = await ctx.instances.readNext(map, after, doing);
      if (step.instance === undefined) break;
      same(step.meta);
      if (!(step.value instanceof Map))
        throw corrupt(map, step.instance, `a partition must be a Map, found ${args.describeType(step.value)}`);
      yield { kind: "instance", map, instance: step.instance, layout, value: step.value as Map<string, unknown> };
      after = step.instance;
    }
  }
}

/** The JSON of an instance's value; a part JSON cannot hold exactly fails naming map, instance and key. */
function valueJson(item: Extract<ExportItem, { kind: "instance" }>): string {
  try {
    return item.value instanceof Map ? partitionJson(item.value) : exactJson(item.value);
  } catch (e) {
    if (!(e instanceof NotExactJson)) throw e;
    const where = item.value instanceof Map ? e.path : `record ${e.path}`;
    throw new AttrmapError(
      "not_exportable",
      `map "${item.map}", instance "${item.instance}", ${where}: ${e.what} cannot be exported as JSON exactly`,
      { cause: e },
    );
  }
}

/** One line of the export file for `item` (without its newline). */
function exportLine(item: ExportItem): string {
  const map = JSON.stringify(item.map);
  switch (item.kind) {
    case "layout":
      return `{"map":${map},"layout":${JSON.stringify(item.layout)}}`;
    case "state": {
      const { nextSequence, latestArchivedChunkToken } = item.state; // in this order, whatever the stored order
      return `{"map":${map},"state":${JSON.stringify({ nextSequence, latestArchivedChunkToken })}}`;
    }
    case "instance":
      return `{"map":${map},"instance":${JSON.stringify(item.instance)},"value":${valueJson(item)}}`;
  }
}

/** @internal The export's lines, the header first, each with its newline; nothing is read before the first. */
export async function* exportLines(ctx: Context, wanted: string[] | undefined): AsyncGenerator<string> {
  await wasm.ready();
  yield `${JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION })}\n`;
  for await (const item of exportItems(ctx, wanted)) yield `${exportLine(item)}\n`;
}

/** How far `exportBlob` or `exportText` has got: lines and UTF-16 code units read so far. */
export interface ExportProgress {
  lines: number;
  characters: number;
}

/** What `exportBlob(store, options)` and `exportText(store, options)` export, and whom they tell how far they are. */
export interface ExportWholeOptions extends ExportOptions {
  /** Called after each line. */
  onProgress?: ((progress: ExportProgress) => void) | undefined;
}

/** @internal The export's lines, all read (its errors reject, unchanged), with progress. */
export async function exportParts(ctx: Context, wanted: string[] | undefined, options: unknown): Promise<string[]> {
  const progress = args.field("options", args.options("options", options), "onProgress");
  const onProgress = progress === undefined ? undefined : args.func<(p: ExportProgress) => void>("options.onProgress", progress);
  const parts: string[] = [];
  let characters = 0;
  for await (const line of exportLines(ctx, wanted)) {
    parts.push(line);
    characters += line.length;
    onProgress?.({ lines: parts.length, characters });
  }
  return parts;
}
