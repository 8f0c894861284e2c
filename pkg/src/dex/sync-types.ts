// The public types of sync (docs/sync.md): what importDexAttributes reads, takes and answers, and
// what exportDexEntryChanges gives. Types only, so that a project's declarations need nothing of
// the code behind them (no IndexedDB types in a Node project).
import type { LogState } from "../maps/layout.js";
import type { DexMapNames, DexSdk } from "./sample-names.js";

/** One attribute as the engine answers it (protobuf JSON of its `KV`). */
export interface DexAttribute {
  key: string;
  value: unknown;
}

/** What a pull reads: a GetAttributes or GetFlowState response, as text or parsed, or its attributes one by one. */
export type DexAttributeSource =
  | string
  | { attributes?: readonly DexAttribute[] }
  | Iterable<DexAttribute>
  | AsyncIterable<DexAttribute>;

/** An entry both the store and the engine changed, as `onConflict` is asked about it (undefined: absent). */
export interface DexEntryConflict {
  map: string;
  key: string;
  local: unknown;
  remote: unknown;
}

/** A conflict a pull met: an entry (with the value kept), or a log both sides appended to (nothing of it written). */
export type DexConflict =
  | (DexEntryConflict & { kind: "entry"; kept: unknown })
  | { kind: "log"; map: string; local: LogState; remote: LogState };

/** The layout of a map the store does not have yet, as the engine's copy was written under (default: a new map's). */
export interface DexLayout {
  /** A partitioned map's partitions (default 1000). */
  partitionCount?: number | undefined;
  /** A partitioned map's key rule: `"exact"` (default; the customer directory's is `"email"`) or `"email"`. */
  keyRule?: "exact" | "email" | undefined;
  /** A log's records per chunk (default 100). */
  chunkSize?: number | undefined;
}

/** How far a pull has got. */
export interface DexImportProgress {
  /** `"reading"` the attributes, `"merging"` them with the store's copy, `"committing"` the one transaction. */
  phase: "reading" | "merging" | "committing";
  /** Attributes read so far. */
  attributes: number;
}

/** How `importDexAttributes(store, source, options)` reads, merges, reports and stops. */
export interface DexImportOptions {
  /** Names of a reference SDK's sample for its two maps... */
  sdk?: DexSdk | undefined;
  /** ...or names of your own flow, per stored map. */
  names?: Readonly<Record<string, DexMapNames>> | undefined;
  /** The maps to apply (default: every map named); attributes of others are ignored. */
  maps?: readonly string[] | undefined;
  /** Layouts of maps the store does not have yet. */
  layouts?: Readonly<Record<string, DexLayout>> | undefined;
  /**
   * The source holds some instances of its maps only (GetAttributes with `keys`): an instance it
   * does not hold is left as it is. By default it is the flow's whole copy (`allKeys`,
   * GetFlowState): an instance with a base that it does not hold was deleted on the engine.
   */
  partial?: boolean | undefined;
  /** The value to keep of an entry both sides changed (undefined deletes it); without it, the engine's. */
  onConflict?: ((conflict: DexEntryConflict) => unknown) | undefined;
  /** Aborting before the transaction writes nothing. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: DexImportProgress) => void) | undefined;
}

/** What a pull did. */
export interface DexImportResult {
  /** Instances written, per map. */
  applied: Record<string, number>;
  /** Instances of the engine's copy the store held equal already, per map. */
  unchanged: Record<string, number>;
  /** Keys of attributes of no map named (an index's, another flow's). */
  ignored: string[];
  conflicts: DexConflict[];
}

/** Which changes `exportDexEntryChanges(store, options)` gives, and under which names. */
export interface DexEntryChangesOptions {
  /** The checkpoint of the change feed the changes are after (the last `checkpoint` given, acknowledged or not). */
  since: number;
  /** The partitioned maps to send (default: every one named). */
  maps?: readonly string[] | undefined;
  sdk?: DexSdk | undefined;
  names?: Readonly<Record<string, DexMapNames>> | undefined;
}

/** One entry to set (`value`, as an export writes it: its record fields renamed) or to delete (`value: null`). */
export interface DexEntryChange {
  attributeMap: string;
  /** The partition: the attribute's key is `<attributeMap>/<instance>`. */
  instance: string;
  key: string;
  value: unknown;
}

/** The entry changes after a checkpoint, and the checkpoint they bring the engine to (the next `since`). */
export interface DexEntryChanges {
  checkpoint: number;
  changes: DexEntryChange[];
  /** Logs written since, which entry changes do not send (see the top of the file). */
  logs: string[];
}
