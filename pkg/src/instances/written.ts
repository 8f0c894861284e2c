// What a write leaves in each instance it names, in the order Instances issues its requests
// (a range delete, deletes, then puts and adds): what a read-back expects to find, and what an
// announcement says was removed.
import type { MapWrites } from "./instances.js";

/**
 * What a write leaves in each instance it names: the value put or added, `undefined` for one
 * deleted and not written again (deletes are issued first: see Instances.issue).
 */
export function written(writes: MapWrites): Map<string, unknown> {
  return new Map<string, unknown>([
    ...(writes.delete ?? []).map((i) => [i, undefined] as const),
    ...(writes.put ?? []),
    ...(writes.add ?? []),
  ]);
}

/** The instances a write leaves gone: those it deleted, or its range delete `dropped`, and did not write again. */
export function removedBy(writes: MapWrites, dropped: readonly string[]): string[] {
  const left = written(writes);
  return [...new Set([...left.keys(), ...dropped])].filter((i) => left.get(i) === undefined);
}
