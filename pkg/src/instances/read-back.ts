// The read-back of a write in doubt: WebKit's storage process can die while a write commits,
// and the browser then reports the transaction aborted though it may have landed. The writer
// still holds its locks, so it reads back what it wrote, through a new connection, and tells
// landed, not written, or (if it cannot tell) `outcome_unknown`. A page loads this code in the
// background at its first write (Instances.transaction), since the fetch of a later chunk is
// what may fail once the storage process has died.
import type { AttrmapError } from "../common/errors.js";
import { notWritten } from "../idb/transaction.js";
import type { Instances, MapWrites, Snapshot } from "./instances.js";
import { sameValue } from "./same-value.js";
import { written } from "./written.js";

/** What a read-back found: the write there, everything as before it, or neither (it cannot tell). */
export type ReadBack = "landed" | "kept" | "unknown";

/**
 * After `outcome_unknown`: reads back what `writes` changed in `map` (whose instances `read`
 * were `before` it), and tells whether it landed, everything is as before it, or it cannot tell.
 */
export async function readBack(
  instances: Instances,
  map: string,
  doing: string,
  read: readonly string[],
  before: Snapshot,
  writes: MapWrites,
): Promise<ReadBack> {
  const landing = written(writes);
  const names = [...landing.keys()];
  let now: Snapshot;
  let leftInRange = 0;
  try {
    now = await instances.read(map, names);
    if (writes.deleteRange) leftInRange = await instances.countRange(map, writes.deleteRange, `reading back ${doing}`);
  } catch {
    return "unknown";
  }
  // An instance the write did not read (an archive it added) was absent before it.
  const previous = (name: string) => before.values[read.indexOf(name)];
  const pairs: Array<[now: unknown, landed: unknown, kept: unknown]> = names.map((n, i) => [
    now.values[i],
    landing.get(n),
    previous(n),
  ]);
  if (writes.meta !== undefined) pairs.push([now.meta, writes.meta ?? undefined, before.meta]);
  const landed = pairs.every(([n, l]) => sameValue(n, l) === true) && leftInRange === 0;
  const kept = pairs.every(([n, , k]) => sameValue(n, k) === true) && (writes.deleteRange === undefined || leftInRange > 0);
  return landed ? "landed" : kept ? "kept" : "unknown";
}

/**
 * What a write in doubt (`unknown`, its `outcome_unknown`) did, from the read-backs of the maps it
 * wrote: returns when it landed in all of them; throws `transaction_aborted` when all are as
 * before it, and `unknown` otherwise.
 */
export function settleInDoubt(found: readonly ReadBack[], doing: string, unknown: AttrmapError): void {
  if (found.every((f) => f === "landed")) return;
  throw found.every((f) => f === "kept") ? notWritten(doing, unknown) : unknown;
}
