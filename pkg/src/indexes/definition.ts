// An index's definition (docs/indexes.md, "Defining an index"): what a caller gives, what a map's
// layout stores, and the one check of each. A definition is data: what it means for a value is
// entries.ts's business.

import * as args from "../common/args.js";
import { MAX_COMPOUND_LENGTH } from "../common/constants.js";
import { AttrmapError } from "../common/errors.js";
import type { WriteOptions } from "../concurrency/locks.js";

/** The longest index name, in UTF-16 code units: a name is part of every entry's key. */
const MAX_INDEX_NAME_LENGTH = 256;
/** The most indexes one map may have: every write computes the entries of each. */
export const MAX_INDEXES = 64;

/** An index of a map or log, as `map.indexes()` lists it. */
export interface IndexDefinition {
  name: string;
  /** A dotted path into the value, or (a compound index) 1 to 16 of them. */
  keyPath: string | string[];
  /** Two entries may not hold the same value (`constraint_violation`). */
  unique: boolean;
  /** An array found at the path is indexed once for each distinct element. */
  multiEntry: boolean;
}

/**
 * A definition as a layout stores it: `building` while its entries are being written (see
 * build.ts), with the last instance the build has walked (null: none yet).
 */
export interface StoredIndex extends IndexDefinition {
  building?: { after: string | null };
}

/** How deep a key path's type goes into the value's: four properties (`"a.b.c.d"`). */
type Depth = [never, 0, 1, 2, 3];

/** The dotted paths into values of type `V`, `D` properties deep at most. */
type PathOf<V, D extends number> = [D] extends [never]
  ? never
  : V extends Date | readonly unknown[] | ReadonlyMap<unknown, unknown> | ReadonlySet<unknown>
    ? never
    : V extends object
      ? { [K in keyof V & string]-?: K | `${K}.${PathOf<NonNullable<V[K]>, Depth[D]>}` }[keyof V & string]
      : never;

/**
 * A key path into values of type `V`: a path its properties name (four deep at most), so that a
 * misspelled one does not compile; any string where `V` is `unknown` (a map of untyped values).
 */
export type KeyPath<V> = unknown extends V ? string : PathOf<V, 4>;

/**
 * `T`, from which TypeScript infers nothing (its `NoInfer`, written so that TypeScript before 5.4
 * reads it too): a map's value type comes from its type argument, never from its index paths.
 */
export type Uninferred<T> = [T][T extends unknown ? 0 : never];

/** The names `where` takes given the names a map declared: any string when it declared none (`indexes: {}` infers `never`). */
export type IndexNames<N extends string> = [N] extends [never] ? string : N;

/** How an index is declared: its key path (or paths, compound) alone, or with its options. */
export type IndexSpec<V = unknown> =
  | KeyPath<V>
  | readonly KeyPath<V>[]
  | { keyPath: KeyPath<V> | readonly KeyPath<V>[]; unique?: boolean | undefined; multiEntry?: boolean | undefined };

/** An index name, checked. */
export function indexName(name: string, value: unknown): string {
  const s = args.string(name, value);
  if (s.length === 0 || s.length > MAX_INDEX_NAME_LENGTH)
    throw args.invalid(`${name} must be 1 to ${MAX_INDEX_NAME_LENGTH} characters, got ${s.length}`);
  return s;
}

function onePath(name: string, value: unknown): string {
  const path = args.string(name, value);
  if (path.length === 0 || path.length > MAX_INDEX_NAME_LENGTH || path.split(".").some((part) => part === ""))
    throw args.invalid(
      `${name} must be a dotted path of non-empty property names ("companyName", "address.city"), ` +
        `at most ${MAX_INDEX_NAME_LENGTH} characters, got ${JSON.stringify(path)}`,
    );
  return path;
}

/** A key path, checked: one dotted path, or an array of 1 to 16 of them. */
function keyPath(name: string, value: unknown): string | string[] {
  if (!args.isArray(value)) return onePath(name, value);
  const paths = args.list<unknown>(name, value, MAX_COMPOUND_LENGTH).map((p, i) => onePath(`${name}[${i}]`, p));
  if (paths.length === 0) throw args.invalid(`${name} must name at least one path`);
  return paths;
}

function flag(owner: string, o: object, key: string): boolean {
  const v = args.field(owner, o, key);
  return v === undefined ? false : args.boolean(`${owner}.${key}`, v);
}

/** A definition from its name, key path and options (`unique`, `multiEntry`), checked. */
export function definition(name: string, path: unknown, options: object, owner = "options"): IndexDefinition {
  const def = {
    name,
    keyPath: keyPath("keyPath", path),
    unique: flag(owner, options, "unique"),
    multiEntry: flag(owner, options, "multiEntry"),
  };
  if (def.multiEntry && Array.isArray(def.keyPath))
    throw args.invalid(`index "${name}": a compound key path cannot be multiEntry (as in IndexedDB)`);
  return def;
}

/** Whether two definitions index the same values the same way. */
export function sameDefinition(a: IndexDefinition, b: IndexDefinition): boolean {
  const paths = (d: IndexDefinition) => JSON.stringify(d.keyPath);
  return a.name === b.name && paths(a) === paths(b) && a.unique === b.unique && a.multiEntry === b.multiEntry;
}

/** The definition as `indexes()` gives it: a copy, without the stored build flag. */
export function publicDefinition(d: IndexDefinition): IndexDefinition {
  return {
    name: d.name,
    keyPath: Array.isArray(d.keyPath) ? [...d.keyPath] : d.keyPath,
    unique: d.unique,
    multiEntry: d.multiEntry,
  };
}

/** The `indexes` field of a stored layout, checked (absent: none); anything else is `corrupt_data` named by `where`. */
export function storedIndexes(where: string, raw: unknown): StoredIndex[] {
  if (raw === undefined) return [];
  const bad = (why: string) => new AttrmapError("corrupt_data", `${where}: the layout's indexes ${why}`);
  if (!Array.isArray(raw) || raw.length > MAX_INDEXES) throw bad(`are not an array of at most ${MAX_INDEXES} definitions`);
  const seen = new Set<string>();
  return raw.map((d: unknown, i) => {
    if (typeof d !== "object" || d === null) throw bad(`[${i}] is not an object`);
    const r = d as Record<string, unknown>;
    let def: IndexDefinition;
    try {
      def = definition(indexName("name", r.name), r.keyPath, r);
    } catch (e) {
      throw bad(`[${i}] is not a definition (${(e as Error).message})`);
    }
    if (seen.has(def.name)) throw bad(`name "${def.name}" twice`);
    seen.add(def.name);
    if (r.building === undefined) return def;
    const after = typeof r.building === "object" && r.building !== null ? (r.building as { after?: unknown }).after : undefined;
    if (after !== null && typeof after !== "string") throw bad(`[${i}] has a building state that is not { after }`);
    return { ...def, building: { after } };
  });
}

/** How far a build has got: instances read (partitions, a log's chunks), of all of them. */
export interface IndexBuildProgress {
  done: number;
  total: number;
}

/** How `createIndex` waits, reports and stops. */
export interface CreateIndexOptions extends WriteOptions {
  unique?: boolean | undefined;
  multiEntry?: boolean | undefined;
  /** Called after each step of the build. */
  onProgress?: ((progress: IndexBuildProgress) => void) | undefined;
}
