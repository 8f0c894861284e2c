// Checks of a caller's arguments by JavaScript type, before anything reaches the Rust core:
// values are never coerced, and an object is read here, field by field, so no caller code
// (a getter, a proxy trap) runs while wasm is on the stack. Value rules (ranges, formats)
// stay in Rust; these checks only make sure Rust receives the primitives it expects.

import { MAX_TEXT_LENGTH } from "./constants.js";
import { AttrmapError } from "./errors.js";
import { MAX_PAGE_LIMIT } from "./limits.js";

/** `f()`, or `fallback` when a caller's proxy or getter throws inside it. */
function safely<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** `Array.isArray(value)`, false for a revoked proxy (which throws there). */
export const isArray = (value: unknown): boolean => safely(() => Array.isArray(value), false);

/** The JavaScript type of `value` as a message names it: `number`, `null`, `array`, `Uint16Array`, ... */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  if (typeof value !== "object") return typeof value;
  if (isArray(value)) return "array";
  const name = safely(
    () => (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name,
    undefined,
  );
  return typeof name === "string" && name !== "Object" && name !== "" ? name : "object";
}

/** The `invalid_argument` error every check throws. */
export function invalid(message: string, cause?: unknown): AttrmapError {
  return new AttrmapError("invalid_argument", message, cause === undefined ? undefined : { cause });
}

function wrongType(name: string, wanted: string, value: unknown): AttrmapError {
  return invalid(`${name} must be ${wanted}, got ${describeType(value)}`);
}

/** One of `choices` (strings), for an option or an event name. */
export function oneOf<T extends string>(name: string, value: unknown, choices: readonly T[]): T {
  if ((choices as readonly unknown[]).includes(value)) return value as T;
  const listed = choices.map((c) => `"${c}"`);
  const wanted = `${listed.slice(0, -1).join(", ")} or ${listed.at(-1)}`;
  throw invalid(`${name} must be ${wanted}, got ${typeof value === "string" ? `"${value}"` : describeType(value)}`);
}

/** A string of any length (stored as it is, never sent to wasm). */
export function string(name: string, value: unknown): string {
  if (typeof value !== "string") throw wrongType(name, "a string", value);
  return value;
}

/** A string short enough to cross into wasm. */
export function text(name: string, value: unknown): string {
  const s = string(name, value);
  if (s.length > MAX_TEXT_LENGTH) throw invalid(`${name} must be at most ${MAX_TEXT_LENGTH} characters, got ${s.length}`);
  return s;
}

/** A number (its range is the core's to check). */
export function number(name: string, value: unknown): number {
  if (typeof value !== "number") throw wrongType(name, "a number", value);
  return value;
}

/** A number, or undefined for a field left out. */
export function optionalNumber(name: string, value: unknown): number | undefined {
  return value === undefined ? undefined : number(name, value);
}

/** A number of milliseconds from 0 to 2^31 - 1 (what timers take), or Infinity where `infinite` allows it. */
export function duration(name: string, value: unknown, infinite: boolean): number {
  const ms = number(name, value);
  if ((ms >= 0 && ms <= 2 ** 31 - 1) || (infinite && ms === Infinity)) return ms;
  throw invalid(`${name} must be a number of milliseconds from 0 to 2147483647${infinite ? " or Infinity" : ""}, got ${ms}`);
}

/**
 * A whole number from `min` to `max` (attempt counts, limits): no NaN, no Infinity, no
 * coercion; the message states both bounds.
 */
export function count(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = number(name, value);
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
  throw invalid(`${name} must be an integer from ${min} to ${max}, got ${n}`);
}

/** The `limit` of a page: a whole number from 1 to `MAX_PAGE_LIMIT`. */
export function pageLimit(name: string, value: unknown): number {
  return count(name, value, 1, MAX_PAGE_LIMIT);
}

/** A boolean: `true` or `false`, never a truthy value. */
export function boolean(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw wrongType(name, "a boolean", value);
  return value;
}

/** A function (a callback of the caller's). */
export function func<F extends (...args: never[]) => unknown>(name: string, value: unknown): F {
  if (typeof value !== "function") throw wrongType(name, "a function", value);
  return value as F;
}

/** An object to read fields from (not null, not an array, not a function). */
export function object(name: string, value: unknown): object {
  if (typeof value !== "object" || value === null || isArray(value)) throw wrongType(name, "an object", value);
  return value;
}

/** `options` of a call: absent, or an object. */
export function options(name: string, value: unknown): object {
  return value === undefined ? {} : object(name, value);
}

/** Reads one field of a caller's object; a getter or proxy that throws becomes `invalid_argument`. */
export function field(owner: string, value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch (e) {
    throw invalid(`${owner}.${key} could not be read: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** The own enumerable names of a caller's object; a proxy that throws becomes `invalid_argument`. */
export function keysOf(name: string, value: object): string[] {
  try {
    return Object.keys(value);
  } catch (e) {
    throw invalid(`${name} could not be read: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/**
 * An array (or other iterable) copied into a plain array of at most `max` items, so a huge
 * sparse array is refused before it is walked.
 */
export function list<T>(name: string, value: unknown, max: number): T[] {
  if (isArray(value)) {
    const length = (value as unknown[]).length;
    if (length > max) throw invalid(`${name} may hold at most ${max} items, got ${length}`);
  } else if (
    typeof value !== "object" ||
    value === null ||
    typeof safely(() => (value as { [Symbol.iterator]?: unknown })[Symbol.iterator], undefined) !== "function"
  ) {
    throw wrongType(name, "an array or iterable", value);
  }
  const out: T[] = [];
  try {
    for (const item of value as Iterable<T>) {
      if (out.length === max) throw invalid(`${name} may hold at most ${max} items`);
      out.push(item);
    }
  } catch (e) {
    throw iterationError(name, e);
  }
  return out;
}

/** What a caller's iterable that threw while it was walked is: its own AttrmapError, else `invalid_argument` naming it. */
export function iterationError(name: string, e: unknown): AttrmapError {
  if (e instanceof AttrmapError) return e;
  return invalid(`${name} could not be iterated: ${e instanceof Error ? e.message : String(e)}`, e);
}

/** A `[key, value]` entry of a caller's list. */
export function entry<V>(name: string, value: unknown): readonly [unknown, V] {
  if (!isArray(value) || (value as unknown[]).length < 2) throw wrongType(name, "a [key, value] array", value);
  return [(value as unknown[])[0], (value as unknown[])[1] as V];
}

// The intrinsic getter that reads a typed array's own kind from its internal slot: a plain
// object dressed up as a Uint8Array (its own Symbol.toStringTag, length, buffer) is not one.
const typedArrayKind = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, Symbol.toStringTag)!
  .get!;
const bufferOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, "buffer")!.get!;
const offsetOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, "byteOffset")!.get!;
const lengthOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, "byteLength")!.get!;

/** A Uint8Array (a Node Buffer too, or one from another realm), as a view of this realm over its bytes. */
export function bytes(name: string, value: unknown): Uint8Array {
  if (typedArrayKind.call(value) !== "Uint8Array") throw wrongType(name, "a Uint8Array", value);
  try {
    return new Uint8Array(
      bufferOf.call(value) as ArrayBufferLike,
      offsetOf.call(value) as number,
      lengthOf.call(value) as number,
    );
  } catch (e) {
    throw invalid(`${name} can't be read: ${e instanceof Error ? e.message : String(e)}`, e); // a detached buffer
  }
}

/** `value instanceof type`: false when the platform lacks `type`, or for a revoked proxy (its prototype can't be read). */
export function isInstance(value: unknown, type: { [Symbol.hasInstance](value: unknown): boolean } | undefined): boolean {
  return type !== undefined && safely(() => value instanceof type, false);
}

/** An AbortSignal, or absent. */
export function signal(name: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (isInstance(value, globalThis.AbortSignal)) return value as AbortSignal;
  throw wrongType(name, "an AbortSignal", value);
}
