// The indexes of one map or log (docs/indexes.md, "Defining an index"): what `createIndex`,
// `dropIndex`, `indexes()`, the `indexes` option do, for a partitioned map
// and a chunked log alike. The map or log says where its definitions are and how to read them
// again (IndexHost); the build itself is build.ts's.

import * as args from "../common/args.js";
import { AttrmapError } from "../common/errors.js";
import type { WriteOptions } from "../concurrency/locks.js";
import { buildIndex, dropIndex } from "./build.js";
import {
  type CreateIndexOptions,
  definition,
  type IndexDefinition,
  indexName,
  MAX_INDEXES,
  publicDefinition,
  sameDefinition,
} from "./definition.js";
import type { IndexHost } from "./index-host.js";

/** The definitions of the `indexes` option: `{ name: keyPath | { keyPath, unique, multiEntry } }`. */
export function declared(name: string, value: unknown): IndexDefinition[] {
  if (value === undefined) return [];
  const o = args.object(name, value);
  const names = args.keysOf(name, o);
  if (names.length > MAX_INDEXES) throw args.invalid(`${name} may declare at most ${MAX_INDEXES} indexes, got ${names.length}`);
  return names.map((key) => {
    const index = indexName(`${name} key`, key);
    const spec = args.field(name, o, key);
    if (typeof spec === "string" || args.isArray(spec)) return definition(index, spec, {});
    const s = args.object(`${name}.${key}`, spec);
    return definition(index, args.field(`${name}.${key}`, s, "keyPath"), s, `${name}.${key}`);
  });
}

/** Builds `def` (or finishes its interrupted build), then reads the layout again. */
async function build(host: IndexHost, def: IndexDefinition, options: CreateIndexOptions): Promise<void> {
  await buildIndex(host, def, options);
  await host.refresh();
}

/**
 * The `indexes` option at open: builds each declared index that is missing or whose build was
 * interrupted; one stored with another definition is `layout_mismatch`; others are kept.
 */
export async function ensureIndexes(host: IndexHost, declared: readonly IndexDefinition[]): Promise<void> {
  for (const def of declared) {
    const stored = host.stored().find((i) => i.name === def.name);
    if (stored && !sameDefinition(stored, def))
      throw new AttrmapError(
        "layout_mismatch",
        `${host.noun} "${host.name}" has index "${def.name}" on ${JSON.stringify(stored.keyPath)}` +
          `${stored.unique ? " (unique)" : ""}${stored.multiEntry ? " (multiEntry)" : ""}, ` +
          "but was opened with another definition",
      );
    if (!stored || stored.building) await build(host, def, {});
  }
}

/** `createIndex(name, keyPath, options)`, checked and built. */
export function createIndex(host: IndexHost, name: unknown, keyPath: unknown, options: unknown): Promise<void> {
  const opts = args.options("options", options);
  return build(host, definition(indexName("name", name), keyPath, opts), opts as CreateIndexOptions);
}

/** `dropIndex(name, options)`: whether the index was there. */
export async function removeIndex(host: IndexHost, name: unknown, options: WriteOptions): Promise<boolean> {
  const dropped = await dropIndex(host, indexName("name", name), options);
  await host.refresh();
  return dropped;
}

/** `indexes()`: the definitions as stored now, without those being built. */
export async function listIndexes(host: IndexHost): Promise<IndexDefinition[]> {
  await host.refresh();
  return host.stored().flatMap((i) => (i.building ? [] : [publicDefinition(i)]));
}
