// attrmap/export-import: a database's maps out as the export format and back in, all or
// nothing (docs/export-format.md), as functions of the store: a page that neither exports nor
// imports loads none of it, nor the export verifier's wasm module.
import { type Attrmap, contextOf } from "../store/attrmap.js";
import { ready } from "../wasm/core-module.js";
import { type ExportOptions, type ExportWholeOptions, exportParts, exportStream } from "./export-data.js";
import { type ImportOptions, type ImportSummary, importInto } from "./import-data.js";

export type { ExportOptions, ExportProgress, ExportWholeOptions } from "./export-data.js";
export type { ImportOptions, ImportProgress, ImportSummary } from "./import-data.js";

/** The media type of an export file. */
export const EXPORT_MEDIA_TYPE = "application/x-ndjson";

/**
 * The maps of `store` (all, or `options.maps`) as the export format: newline-delimited JSON,
 * written lazily (memory holds one instance), the same bytes for the same data. A value JSON
 * cannot hold exactly (a Date, a Map, undefined, NaN, a bigint, a cycle) errors the stream with
 * `not_exportable`, naming map, instance and key; `exportBlob` and `exportText` reject with it.
 */
export function exportData(store: Attrmap, options: ExportOptions = {}): ReadableStream<Uint8Array> {
  return exportStream(contextOf(store), options);
}

/**
 * The export (as `exportData`) whole, as a Blob of type `application/x-ndjson`, ready to
 * download or upload; it rejects with the export's own error. Memory holds the whole export.
 */
export async function exportBlob(store: Attrmap, options: ExportWholeOptions = {}): Promise<Blob> {
  await ready();
  return new Blob(await exportParts(contextOf(store), options), { type: EXPORT_MEDIA_TYPE });
}

/** The export (as `exportData`) whole, as text; it rejects with the export's own error. */
export async function exportText(store: Attrmap, options: ExportWholeOptions = {}): Promise<string> {
  await ready();
  return (await exportParts(contextOf(store), options)).join("");
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
  await ready();
  return importInto(contextOf(store), source, options);
}
