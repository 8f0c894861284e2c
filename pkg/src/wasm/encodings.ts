// The encodings that Rust and TypeScript share at the wasm boundary, written once on this side
// (the Rust side's are in src/bindings/mod.rs and Segments::from_numbers): a log's bookkeeping,
// segment lists, and many keys as one buffer of bytes. Which number is where in a result comes
// from the generated constants (constants.ts), never from a position written here by hand.
import { LOG_BOOK_LENGTH, LOG_BOOK_NEXT_SEQUENCE, LOG_BOOK_RETAINED_FROM } from "../common/constants.js";

/** From `fromSequence` on, chunks hold `chunkSize` records. */
export interface Segment {
  fromSequence: number;
  chunkSize: number;
}

/** A log's bookkeeping as the core takes it: `book` (LogBookSlot's numbers, then segments) and the latest archive's token. */
export interface LogBook {
  book: Float64Array;
  latest: string;
}

/**
 * Segments as they cross: `[fromSequence, chunkSize]` pairs one after another, from index
 * `at` of a new array of `at` more numbers (the caller fills those). `pair` reads each item,
 * checking it as the caller must.
 */
export function segmentNumbers<S>(
  list: readonly S[],
  pair: (item: S, i: number) => readonly [number, number],
  at = 0,
): Float64Array {
  const flat = new Float64Array(at + list.length * 2);
  for (const [i, item] of list.entries()) flat.set(pair(item, i), at + i * 2);
  return flat;
}

/** The segments of `flat` from index `at` on (see segmentNumbers). */
export function segmentsOf(flat: Float64Array, at = 0): Segment[] {
  const segments: Segment[] = [];
  for (let i = at; i < flat.length; i += 2) segments.push({ fromSequence: flat[i]!, chunkSize: flat[i + 1]! });
  return segments;
}

/** A log's bookkeeping, as it crosses, from its stored parts. */
export function logBook(nextSequence: number, retainedFrom: number, segments: readonly Segment[], latest: string): LogBook {
  const book = segmentNumbers(segments, (s) => [s.fromSequence, s.chunkSize], LOG_BOOK_LENGTH);
  book[LOG_BOOK_NEXT_SEQUENCE] = nextSequence;
  book[LOG_BOOK_RETAINED_FROM] = retainedFrom;
  return { book, latest };
}

/** The parts of a log's bookkeeping as the core gave it. */
export function bookParts(book: Float64Array): { nextSequence: number; retainedFrom: number; segments: Segment[] } {
  return {
    nextSequence: book[LOG_BOOK_NEXT_SEQUENCE]!,
    retainedFrom: book[LOG_BOOK_RETAINED_FROM]!,
    segments: segmentsOf(book, LOG_BOOK_LENGTH),
  };
}

const encoder = new TextEncoder();

/**
 * Keys as they cross for hashing: their UTF-8 bytes one after another (lone surrogates as
 * U+FFFD, as placeKey hashes them), and `ends[i]` where key `i` ends.
 */
export function keyBytes(keys: readonly string[]): { bytes: Uint8Array; ends: Uint32Array } {
  // ASCII first (emails, base64, most JSON): a byte per code unit, in a buffer of that size.
  return encoded(keys, (k) => k.length) ?? encoded(keys, keyRoom)!;
}

/** `keys` encoded one after another into a buffer with `room(key)` bytes for each; undefined if one does not fit. */
function encoded(keys: readonly string[], room: (key: string) => number): { bytes: Uint8Array; ends: Uint32Array } | undefined {
  const bytes = new Uint8Array(keys.reduce((n, k) => n + room(k), 0));
  const ends = new Uint32Array(keys.length);
  let at = 0;
  for (let i = 0; i < keys.length; i++) {
    const { read, written } = encoder.encodeInto(keys[i]!, bytes.subarray(at));
    if (read !== keys[i]!.length) return undefined;
    at += written;
    ends[i] = at;
  }
  return { bytes: bytes.subarray(0, at), ends };
}

/** The most bytes `key` can take as UTF-8: three per UTF-16 code unit. */
export function keyRoom(key: string): number {
  return key.length * 3;
}

/**
 * An index value's `[kind, payload]` pairs (indexes/values.ts) as they cross: the kinds, a
 * number each (a string's length), and the strings' UTF-16 code units one after another.
 */
export function indexValueEncoding(pairs: readonly (readonly [number, number | string])[]): {
  kinds: Uint8Array;
  numbers: Float64Array;
  units: Uint16Array;
} {
  const strings = pairs.flatMap(([, payload]) => (typeof payload === "string" ? [payload] : []));
  const units = new Uint16Array(strings.reduce((n, s) => n + s.length, 0));
  let at = 0;
  for (const s of strings) for (let i = 0; i < s.length; i++) units[at++] = s.charCodeAt(i);
  return {
    kinds: Uint8Array.from(pairs, ([kind]) => kind),
    numbers: Float64Array.from(pairs, ([, payload]) => (typeof payload === "string" ? payload.length : payload)),
    units,
  };
}
