// The indexes of one map or log (docs/indexes.md, "Defining an index"): what `createIndex`,
// `dropIndex`, `indexes()`, the `indexes` option and a query's look-up do, for a partitioned map
// and a chunked log alike. The map or log says where its definitions are and how to read them
// again; the build itself is build.ts's.

import * as args from "../common/args.js";
import { AttrmapError } from "../common/errors.js";
import type { WriteOptions } from "../concurrency/locks.js";
import { buildIndex, dropIndex, type Indexed } from "./build.js";
import {
  type CreateIndexOptions,
  definition,
  type IndexDefinition,
  indexName,
  publicDefinition,
  type StoredIndex,
  sameDefinition,
} from "./definition.js";

/** A map or log, as its indexes see it. */
export interface IndexOwner {
  readonly indexed: Indexed;
  /** Its indexes as this object last read its layout. */
  stored(): readonly StoredIndex[];
  /** Reads its layout again (after a change of indexes, here or in another context). */
  refresh(): Promise<void>;
}

/** Builds `def` (or finishes its interrupted build), then reads the layout again. */
async function build(owner: IndexOwner, def: IndexDefinition, options: CreateIndexOptions): Promise<void> {
  await buildIndex(owner.indexed, def, options);
  await owner.refresh();
}

/**
 * The `indexes` option at open: builds each declared index that is missing or whose build was
 * interrupted; one stored with another definition is `layout_mismatch`; others are kept.
 */
export async function ensureIndexes(owner: IndexOwner, declared: readonly IndexDefinition[]): Promise<void> {
  for (const def of declared) {
    const stored = owner.stored().find((i) => i.name === def.name);
    if (stored && !sameDefinition(stored, def))
      throw new AttrmapError(
        "layout_mismatch",
        `map "${owner.indexed.name}" has index "${def.name}" on ${JSON.stringify(stored.keyPath)}` +
          `${stored.unique ? " (unique)" : ""}${stored.multiEntry ? " (multiEntry)" : ""}, ` +
          "but was opened with another definition",
      );
    if (!stored || stored.building) await build(owner, def, {});
  }
}

/** `createIndex(name, keyPath, options)`, checked and built. */
export function createIndex(owner: IndexOwner, name: unknown, keyPath: unknown, options: unknown): Promise<void> {
  const opts = args.options("options", options);
  return build(owner, definition(indexName("name", name), keyPath, opts), opts as CreateIndexOptions);
}

/** `dropIndex(name, options)`: whether the index was there. */
export async function removeIndex(owner: IndexOwner, name: unknown, options: WriteOptions): Promise<boolean> {
  const dropped = await dropIndex(owner.indexed, indexName("name", name), options);
  await owner.refresh();
  return dropped;
}

/** `indexes()`: the definitions as stored now, without those being built. */
export async function listIndexes(owner: IndexOwner): Promise<IndexDefinition[]> {
  await owner.refresh();
  return owner.stored().flatMap((i) => (i.building ? [] : [publicDefinition(i)]));
}

/** The definition of index `name`, reading the layout again once if this object has not seen it. */
export async function findIndex(owner: IndexOwner, name: string): Promise<StoredIndex> {
  let found = owner.stored().find((i) => i.name === name);
  if (!found) {
    await owner.refresh();
    found = owner.stored().find((i) => i.name === name);
  }
  if (!found) throw args.invalid(`map "${owner.indexed.name}" has no index "${name}"`);
  return found;
}

/**
 * Index `name` in `raw`, the metadata a query's transaction read (undefined when it is not
 * there); `invalid_argument` while it is being built, whose entries are not yet every value's.
 */
export function queryableIndex(raw: unknown, map: string, name: string): StoredIndex | undefined {
  const stored = (raw as { indexes?: StoredIndex[] } | undefined)?.indexes?.find((i) => i.name === name);
  if (stored?.building)
    throw args.invalid(`index "${name}" of map "${map}" is being built (or its build was interrupted: createIndex again)`);
  return stored;
}
