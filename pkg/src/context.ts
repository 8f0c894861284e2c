// What every map of one database shares: the instance store and the lock manager.
import type { InstanceStore } from "./idb.js";
import { lockName, type LockManagerLike } from "./locks.js";

export interface Context {
  readonly store: InstanceStore;
  readonly locks: LockManagerLike;
}

export function instanceLock(ctx: Context, map: string, instance: string): string {
  return lockName(ctx.store.name, map, instance);
}
