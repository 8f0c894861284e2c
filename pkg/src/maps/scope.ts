// What a transaction may write, as its caller names it: `map.at(key)` (the instance that holds
// a key), a whole map, or a log.
import type { PartitionedMap } from "./partitioned-map.js";

/** The partition instance of a map that holds `key`: made by `map.at(key)`, for a transaction's scope. */
export class KeyScope {
  /** @internal */
  constructor(
    /** @internal */ readonly map: PartitionedMap<unknown>,
    readonly key: string,
  ) {}
}
