// attrmap/export-import: a database's maps out as the export format and back in, all or
// nothing (docs/export-format.md), as functions of the store: a page that neither exports nor
// imports loads none of it, nor the export verifier's wasm module, and one that imports this
// entry loads the export's and the import's code at the first call of each.

import { lazyModule } from "../common/lazy-module.js";
import { type Attrmap, contextOf } from "../store/attrmap.js";
import { ready } from "../wasm/core-module.js";
import type { ExportOptions, ExportWholeOptions } from "./export-data.js";
import type { ImportOptions, ImportSummary } from "./import-data.js";
import { wantedMaps } from "./maps-option.js";

export type { ExportOptions, ExportProgress, ExportWholeOptions } from "./export-data.js";
export type { ImportOptions, ImportProgress, ImportSummary } from "./import-data.js";

/** @internal The export's code. */
export const exportCode = /* @__PURE__ */ lazyModule(
  () => import("./export-data.js"),
  "exportData(), exportBlob() and exportText()",
);

/** @internal The import's code, and the export verifier's module glue. */
export const importCode = /* @__PURE__ */ lazyModule(() => import("./import-data.js"), "importData()");

/** The media type of an export file. */
export const EXPORT_MEDIA_TYPE = "application/x-ndjson";

/**
 * The maps of `store` (all, or `options.maps`) as the export format: newline-delimited JSON,
 * written lazily (memory holds one instance), the same bytes for the same data. A value JSON
 * cannot hold exactly (a Date, a Map, undefined, NaN, a bigint, a cycle) errors the stream with
 * `not_exportable`, naming map, instance and key; `exportBlob` and `exportText` reject with it.
 */
export function exportData(store: Attrmap, options: ExportOptions = {}): ReadableStream<Uint8Array> {
  const ctx = contextOf(store);
  const wanted = wantedMaps(options); // checked at the call; an error while reading errors the stream
  const encoder = new TextEncoder();
  let lines: AsyncGenerator<string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      lines ??= (await exportCode.load()).exportLines(ctx, wanted);
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines?.return(undefined);
    },
  });
}

/**
 * The export (as `exportData`) whole, as a Blob of type `application/x-ndjson`, ready to
 * download or upload; it rejects with the export's own error. Memory holds the whole export.
 */
export async function exportBlob(store: Attrmap, options: ExportWholeOptions = {}): Promise<Blob> {
  const ctx = contextOf(store);
  const wanted = wantedMaps(options);
  const [{ exportParts }] = await Promise.all([exportCode.load(), ready()]);
  return new Blob(await exportParts(ctx, wanted, options), { type: EXPORT_MEDIA_TYPE });
}

/** The export (as `exportData`) whole, as text; it rejects with the export's own error. */
export async function exportText(store: Attrmap, options: ExportWholeOptions = {}): Promise<string> {
  const ctx = contextOf(store);
  const wanted = wantedMaps(options);
  const [{ exportParts }] = await Promise.all([exportCode.load(), ready()]);
  return (await exportParts(ctx, wanted, options)).join("");
}

/**
 * Imports an export (a stream, a Blob or a string) into `store`, all or nothing: every line is
 * checked before any map changes, and a bad one rejects with `invalid_argument` naming its
 * line. A map that exists is `already_exists` unless `replace: true`.
 */
export async function importData(
  store: Attrmap,
  source: ReadableStream<Uint8Array> | Blob | string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const ctx = contextOf(store);
  const [{ importInto }] = await Promise.all([importCode.load(), ready()]);
  return importInto(ctx, source, options);
}
