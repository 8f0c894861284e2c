// What an index holds (docs/indexes.md): the value a key path finds, when it is one an index can
// order. This module is the one home of that rule. Each element becomes a pair `[kind, payload]`:
// the kinds are numbered in the index's order (null < false < true < numbers < dates < strings,
// the Rust core's IndexValueKind), so that pairs compare as the values do.
import {
  INDEX_VALUE_KIND_DATE,
  INDEX_VALUE_KIND_FALSE,
  INDEX_VALUE_KIND_NULL,
  INDEX_VALUE_KIND_NUMBER,
  INDEX_VALUE_KIND_TEXT,
  INDEX_VALUE_KIND_TRUE,
} from "../common/constants.js";

/** One element of an index value: `null`, a boolean, a finite number, a valid `Date` or a string. */
export type IndexElement = null | boolean | number | string | Date;
/** An index value: one element, or a compound index's elements in the order of its key paths. */
export type IndexValue = IndexElement | readonly IndexElement[];

/** An element as an index holds it: its kind, and its number (a date's time value), string or 0. */
export type IndexPair = readonly [kind: number, payload: number | string];

// The intrinsic reads a Date's own time value (a Date of any realm; a lookalike or a proxy throws).
const timeOf = Date.prototype.getTime;

/** `found` as an index holds it, or undefined when no index holds it (undefined, objects, NaN, an invalid Date). */
export function indexPair(found: unknown): IndexPair | undefined {
  switch (typeof found) {
    case "string":
      return [INDEX_VALUE_KIND_TEXT, found];
    case "boolean":
      return [found ? INDEX_VALUE_KIND_TRUE : INDEX_VALUE_KIND_FALSE, 0];
    case "number":
      // -0 is 0, as IndexedDB and the core order it.
      return Number.isFinite(found) ? [INDEX_VALUE_KIND_NUMBER, found + 0] : undefined;
    case "object": {
      if (found === null) return [INDEX_VALUE_KIND_NULL, 0];
      let time: number;
      try {
        time = timeOf.call(found);
      } catch {
        return undefined;
      }
      return Number.isNaN(time) ? undefined : [INDEX_VALUE_KIND_DATE, time + 0];
    }
    default:
      return undefined;
  }
}
