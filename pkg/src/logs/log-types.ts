// The public types of a chunked log: how it opens, what a page, a window of records and the
// stats hold, and the order `records()` walks in.
import type { IndexSpec } from "../indexes/definition.js";

/** How `store.chunkedLog(name, options)` opens or creates a log (`V`: its records' values; `N`: its declared indexes' names). */
export interface ChunkedLogOptions<V = unknown, N extends string = string> {
  /**
   * Records per chunk (1 to 1,000,000). Left out: 100 for a new log, the size in force for an
   * existing one. Given for an existing log, it must be the size in force: another is
   * `layout_mismatch` (`changeChunkSize()` changes it).
   */
  chunkSize?: number | undefined;
  /**
   * Indexes the log must have (docs/indexes.md), on its records' values: by name, a key path or
   * `{ keyPath, unique, multiEntry }`. A missing one is built at open; one stored with another
   * definition is `layout_mismatch`; stored ones not declared are kept. Their names are the ones
   * `where` takes (README, "Typed index names").
   */
  indexes?: Readonly<Record<N, IndexSpec<V>>> | undefined;
}

/** One page of a log. */
export interface LogPage<R> {
  /** "current" or the 20-digit token of the page. */
  pageToken: string;
  /** Newest first. */
  records: R[];
  /** Token of the next older page, or "" when this is the oldest retained one. */
  nextPageToken: string;
}

/** What a log holds, as read now. */
export interface LogStats {
  /** Records retained (all records, unless `dropArchivesBefore` removed old chunks). */
  records: number;
  /** Records in `current`, the one chunk appends rewrite. */
  currentRecords: number;
  /** Archived chunks retained. */
  archivedChunks: number;
  /** Records per chunk for new archives. */
  chunkSize: number;
  /** The sequence the next record gets. */
  nextSequence: number;
}

/** Which records `log.page(options)` holds: the newest, or those next to a cursor of an earlier page. */
export interface LogWindowOptions {
  /** The older neighbours of record `before` (the `older` cursor of a page): sequences below it. */
  before?: number | null | undefined;
  /** The newer neighbours of record `after` (the `newer` cursor of a page): sequences above it. */
  after?: number | null | undefined;
  /** Records on the page, 1 to 10,000. */
  limit: number;
}

/** A page of `log.page(options)`: up to `limit` records, newest first, with cursors to its neighbours. */
export interface LogWindow<R> {
  /** Newest first. */
  records: R[];
  /** `before` of the next older page, or null when the page reaches the oldest retained record. */
  older: number | null;
  /** `after` of the next newer page, or null when the page reaches the newest record (as read). */
  newer: number | null;
}

/** The order `records()` walks a log in. */
export interface RecordsOptions {
  order?: "newest" | "oldest" | undefined;
}
