// What every map of one database shares: Instances and the lock manager.

import type { LockKey, LockManagerLike } from "../concurrency/locks.js";
import type { Instances } from "../instances/instances.js";

/** One database's instances and lock manager, as every map and log of it uses them. */
export interface Context {
  readonly instances: Instances;
  readonly locks: LockManagerLike;
}

/** The lock key of a map (`instance` absent) or of one of its instances. */
export function lockKey(ctx: Context, map: string, instance?: string): LockKey {
  return instance === undefined ? { database: ctx.instances.name, map } : { database: ctx.instances.name, map, instance };
}
