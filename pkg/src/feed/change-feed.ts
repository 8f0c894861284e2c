// The change feed, as a store gives it (docs/change-feed.md): the records of the committed
// writes after a checkpoint, the checkpoint now, and acknowledging what has been moved. Records
// are appended by every write (feed-records.ts); these only read them, or drop the oldest.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { AttrmapError } from "../common/errors.js";
import { request } from "../idb/requests.js";
import { CHANGES } from "../idb/schema.js";
import { promoteSent } from "../idb/sent.js";
import type { ChangeRecord } from "./change-record.js";
import { firstSequence, lastSequence } from "./feed-records.js";

export type { ChangeRecord } from "./change-record.js";

/** Which records `store.changes(options)` gives. */
export interface ChangesOptions {
  /** The sequence to read after: a checkpoint (`changesCheckpoint()`, or a page's `next`); default 0, the start. */
  after?: number | undefined;
  /** Records at most, 1 to 10,000 (default 1,000). */
  limit?: number | undefined;
}

/** A page of the feed, oldest first. */
export interface ChangesPage {
  changes: ChangeRecord[];
  /** `after` of the next page: the last sequence here (or `after` itself when there is none). */
  next: number;
  /** The oldest sequence kept (0 when the feed is empty): a checkpoint below `oldest - 1` has expired. */
  oldest: number;
}

const DEFAULT_LIMIT = 1000;

/** A sequence given by a caller: a whole number from 0 to 2^53 - 1. */
function sequence(name: string, value: unknown): number {
  return args.count(name, value, 0);
}

/** The error of a checkpoint the feed cannot continue from: never a silent gap. */
function expired(after: number, oldest: number, last: number): AttrmapError {
  const what =
    after > last
      ? `checkpoint ${after} is past the end of this feed, ${last}, so it belongs to another database or another copy of this one`
      : `checkpoint ${after} has expired, since the records after it up to ${oldest - 1} were dropped ` +
        "(acknowledged, or past the feed's bound)";
  return new AttrmapError("checkpoint_expired", `${what}; move the whole database again (exportDexRequests without since)`);
}

/** @internal `store.changes(options)`: the records after `options.after`, oldest first, in one readonly transaction. */
export async function changes(ctx: Context, options: unknown): Promise<ChangesPage> {
  const o = args.options("options", options);
  const given = args.field("options", o, "after");
  const after = given === undefined ? 0 : sequence("options.after", given);
  const limitGiven = args.field("options", o, "limit");
  const limit = limitGiven === undefined ? DEFAULT_LIMIT : args.pageLimit("options.limit", limitGiven);
  const doing = "reading the change feed";
  const read = await ctx.instances.reading(
    "",
    "feed",
    doing,
    async (tx) => {
      const range = ctx.instances.connection.keyRange.lowerBound(after, true);
      const [oldest, last, records] = await Promise.all([
        firstSequence(tx, doing),
        lastSequence(tx, doing),
        request(tx.objectStore(CHANGES).getAll(range, limit), doing),
      ]);
      return { oldest, last, records: records as ChangeRecord[] };
    },
    { walk: true },
  );
  const { oldest, last, records } = read;
  if (after > last || (oldest > 0 && after < oldest - 1)) throw expired(after, oldest, last);
  // The fields in the documented order (the key generator adds `seq` last), in this realm.
  const changes = records.map(({ seq, map, instances, at }) => ({ seq, map, instances: [...instances], at }));
  return { changes, next: changes.at(-1)?.seq ?? after, oldest };
}

/** @internal `store.changesCheckpoint()`: the last sequence of the feed (0 before the first write). */
export function checkpoint(ctx: Context): Promise<number> {
  const doing = "reading the change feed's checkpoint";
  return ctx.instances.reading("", "feed", doing, (tx) => lastSequence(tx, doing), { walk: true });
}

/**
 * @internal `store.acknowledgeChanges(seq)`: the records up to `seq` have been moved and may go; the
 * newest record stays (it holds the checkpoint). What exports sent up to `seq` becomes the base
 * of its instances (docs/sync.md). How many records were dropped.
 */
export function acknowledge(ctx: Context, seq: unknown): Promise<number> {
  const upTo = sequence("seq", seq);
  const doing = `acknowledging the changes up to ${upTo}`;
  return ctx.instances.transaction("readwrite", doing, async (tx) => {
    const [oldest, last] = await Promise.all([firstSequence(tx, doing), lastSequence(tx, doing)]);
    if (upTo > last) throw args.invalid(`seq must be at most the feed's last sequence, ${last}, got ${upTo}`);
    await promoteSent(tx, upTo, ctx.instances.connection.keyRange, doing);
    const drop = Math.min(upTo, last - 1);
    if (oldest === 0 || drop < oldest) return 0;
    await request(tx.objectStore(CHANGES).delete(ctx.instances.connection.keyRange.bound(oldest, drop)), doing);
    return drop - oldest + 1;
  });
}
