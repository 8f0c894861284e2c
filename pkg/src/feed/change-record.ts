// A record of the change feed (docs/change-feed.md), as stored and as `store.changes()` gives it:
// plain data, in a module of its own so that the public types need no DOM types.

/** One committed write: the instances of `map` it put or deleted. */
export interface ChangeRecord {
  /** One more than the record before; the order of the commits. */
  seq: number;
  map: string;
  instances: string[];
  /** When it was committed, in milliseconds since 1970 (`Date.now()` of the writing context). */
  at: number;
}
