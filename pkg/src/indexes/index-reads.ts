// A query's reads (docs/indexes.md, "Queries"), for a map and a log alike: the ranges of its
// condition, read from the `entries` object store in one readonly transaction with the owner's
// metadata, which tells whether the index is still there (and built) as the entries were read.
// No lock: a query sees one committed state. A query's pages and iteration are here too.
// Loaded at a page's first query.

import * as args from "../common/args.js";
import type { AttrmapError } from "../common/errors.js";
import type { EntryKey } from "../idb/keys.js";
import { type StoredIndex, sameDefinition } from "./definition.js";
import { entryKeyOf } from "./entries.js";
import { countEntries, searchEntries } from "./entry-reads.js";
import type { IndexHost } from "./index-host.js";
import type { IndexReader, QueryPage, ReadPlan } from "./query.js";
import { planRanges } from "./ranges.js";

/** The entry keys of `plan` on index `index` of `host`, and the entries, each as `plan.read` asks. */
export async function readIndex<E>(
  host: IndexHost<E>,
  index: string,
  plan: ReadPlan,
): Promise<{ keys: EntryKey[]; entries: E[] }> {
  return (await readOnce(host, index, plan, true)) ?? (await readOnce(host, index, plan, false))!;
}

/**
 * One read of `readIndex`. With `derive`, the keys of a forward read of an index that is not
 * multi-entry (one entry per owner) are worked out from its entries' values, one request fewer
 * than reading them; undefined when one cannot be: the index was made again with another
 * definition since this object read it, or a value does not give its key (stored by a version
 * that read other properties).
 */
function readOnce<E>(
  host: IndexHost<E>,
  index: string,
  plan: ReadPlan,
  derive: boolean,
): Promise<{ keys: EntryKey[]; entries: E[] } | undefined> {
  return host.withLayout(async (check) => {
    const def = await findIndex(host, index);
    const ranges = planRanges(host.name, def, plan);
    // A reverse read's cursor gives each key with its entry anyway.
    const derived = derive && plan.read === "both" && !def.multiEntry && !plan.reverse;
    const read = {
      reverse: plan.reverse,
      limit: plan.limit,
      keys: plan.read !== "entries" && !derived,
      values: plan.read !== "keys",
    };
    const found = await searchEntries(
      host.ctx.instances,
      host.name,
      ranges,
      read,
      `reading index "${index}" of ${host.noun} "${host.name}"`,
    );
    check(found.meta);
    const stored = checkQueryable(found.meta, host, index);
    const entries = found.values.map((held) => host.decode(held, index));
    if (!derived) return { keys: found.keys, entries };
    const keys = sameDefinition(stored, def) ? entries.map((e) => keyOf(host, def, e)) : undefined;
    return keys === undefined || keys.includes(undefined) ? undefined : { keys: keys as EntryKey[], entries };
  });
}

/** The key `entry` is stored under in index `def`, or undefined when its value gives it none. */
function keyOf<E>(host: IndexHost<E>, def: StoredIndex, entry: E): EntryKey | undefined {
  const [owner, value] = host.indexed(entry);
  return entryKeyOf(host.name, def, owner, value);
}

/** How many entries `plan`'s ranges hold in index `index` of `host`. */
export function countIndex(host: IndexHost, index: string, plan: ReadPlan): Promise<number> {
  return host.withLayout(async (check) => {
    const ranges = planRanges(host.name, await findIndex(host, index), plan);
    const doing = `counting index "${index}" of ${host.noun} "${host.name}"`;
    const { meta, count } = await countEntries(host.ctx.instances, host.name, ranges, doing);
    check(meta);
    checkQueryable(meta, host, index);
    return count;
  });
}

/** The definition of index `name`, reading the layout again once if this object has not seen it. */
async function findIndex(host: IndexHost, name: string): Promise<StoredIndex> {
  let found = host.stored().find((i) => i.name === name);
  if (!found) {
    await host.refresh();
    found = host.stored().find((i) => i.name === name);
  }
  if (!found) throw noIndex(host, name);
  return found;
}

/** The error of a query of an index `host` does not have. */
function noIndex(host: IndexHost, name: string): AttrmapError {
  return args.invalid(`${host.noun} "${host.name}" has no index "${name}"`);
}

/**
 * Checks that index `name` is in `raw`, the metadata a query's transaction read with its
 * entries, and gives its definition there: one dropped since is `invalid_argument`, as an
 * unknown name, and so is one being built, whose entries are not yet every value's.
 */
function checkQueryable(raw: unknown, host: IndexHost, name: string): StoredIndex {
  const stored = (raw as { indexes?: StoredIndex[] } | undefined)?.indexes?.find((i) => i.name === name);
  if (stored === undefined) throw noIndex(host, name);
  if (stored.building)
    throw args.invalid(
      `index "${name}" of ${host.noun} "${host.name}" is being built (or its build was interrupted: createIndex again)`,
    );
  return stored;
}

/** Entries a step of a query's `entries()` reads: each step is one transaction. */
const ITERATION_PAGE = 1000;

/** `query.page(options)`, for the query whose condition and order `plan` holds. */
export async function queryPage<E>(
  reader: IndexReader<E>,
  index: string,
  plan: ReadPlan,
  options: unknown,
): Promise<QueryPage<E>> {
  const o = args.options("options", options);
  const limit = args.pageLimit("options.limit", args.field("options", o, "limit"));
  const cursor = args.field("options", o, "after");
  const after = cursor == null ? undefined : tailOfCursor("options.after", cursor);
  const { keys, entries } = await reader.readIndex(index, { ...plan, limit: limit + 1, read: "both", after });
  if (entries.length <= limit) return { entries, next: null };
  return { entries: entries.slice(0, limit), next: JSON.stringify(keys[limit - 1]!.slice(2)) };
}

/** `query.entries()`, a page of ITERATION_PAGE per transaction. */
export async function* queryEntries<E>(reader: IndexReader<E>, index: string, plan: ReadPlan): AsyncGenerator<E> {
  let after: Array<string | number> | undefined;
  for (;;) {
    const { keys, entries } = await reader.readIndex(index, { ...plan, limit: ITERATION_PAGE, read: "both", after });
    yield* entries;
    if (entries.length < ITERATION_PAGE) return;
    after = keys.at(-1)!.slice(2);
  }
}

/** A page cursor as the entry tail it stands for; anything else is `invalid_argument`. */
function tailOfCursor(name: string, value: unknown): Array<string | number> {
  const text = args.string(name, value);
  let tail: unknown;
  try {
    tail = JSON.parse(text);
  } catch {
    tail = undefined;
  }
  const ok =
    Array.isArray(tail) &&
    tail.length >= 2 &&
    tail.every((t) => typeof t === "string" || (typeof t === "number" && Number.isFinite(t)));
  if (!ok) throw args.invalid(`${name} must be the next cursor of an earlier page, got ${JSON.stringify(text.slice(0, 80))}`);
  return tail as Array<string | number>;
}
