// The engine's attributes as a pull reads them (docs/sync.md): a GetAttributes or GetFlowState
// response in protobuf JSON (text or parsed), or `{ key, value }` pairs one at a time, and each
// value as the JSON an export wrote into it. A value the engine has not loaded (a blob ID) or of
// another kind than the export writes is refused, naming the attribute.
import * as args from "../common/args.js";
import { MAX_TEXT_LENGTH } from "../common/constants.js";
import { AttrmapError } from "../common/errors.js";
import type { DexAttribute } from "./sync-types.js";

/** Whether a caller's object has method `key` (a proxy that throws has none, and is read as a response). */
function hasMethod(v: object, key: symbol): boolean {
  try {
    return typeof (v as Record<symbol, unknown>)[key] === "function";
  } catch {
    return false;
  }
}

/** The attributes of `source`, each `{ key, value }` checked for shape (the value is `decodeValue`'s). */
export async function* attributesOf(source: unknown): AsyncGenerator<DexAttribute> {
  let items: Iterable<unknown> | AsyncIterable<unknown>;
  if (typeof source === "string") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch (e) {
      throw args.invalid(`source is not JSON: ${(e as Error).message}`, e);
    }
    items = responseAttributes(parsed);
  } else if (
    typeof source === "object" &&
    source !== null &&
    (hasMethod(source, Symbol.iterator) || hasMethod(source, Symbol.asyncIterator))
  ) {
    items = source as Iterable<unknown> | AsyncIterable<unknown>;
  } else {
    items = responseAttributes(source);
  }
  let i = 0;
  try {
    for await (const item of items) {
      const name = `source.attributes[${i++}]`;
      const o = args.object(name, item);
      const key = args.text(`${name}.key`, args.field(name, o, "key"));
      yield { key, value: args.field(name, o, "value") };
    }
  } catch (e) {
    throw args.iterationError("source", e);
  }
}

/** The `attributes` of a GetAttributes or GetFlowState response (absent: none, as protobuf JSON leaves an empty list out). */
function responseAttributes(response: unknown): readonly unknown[] {
  const o = args.object("source", response);
  const list = args.field("source", o, "attributes");
  if (list === undefined) return [];
  if (!args.isArray(list))
    throw args.invalid(`source.attributes must be an array of { key, value }, got ${args.describeType(list)}`);
  return list as readonly unknown[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The text whose UTF-8 bytes a protobuf JSON `bytes` field holds (base64, standard or URL-safe,
 * padded or not, as atob reads it): undefined when it is not base64; a TypeError when the bytes
 * are not UTF-8.
 */
function base64Text(payload: string): string | undefined {
  const standard = /[-_]/.test(payload) ? payload.replace(/-/g, "+").replace(/_/g, "/") : payload;
  let binary: string;
  try {
    binary = atob(standard.length % 4 === 0 ? standard : standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
  } catch {
    return undefined;
  }
  // ASCII is its own UTF-8 (most JSON): the bytes are the text.
  if (!/[\x80-\xff]/.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8.decode(bytes);
}

/**
 * The JSON value an attribute holds (undefined: the engine's null value, nothing stored), or
 * `invalid_argument` naming `key`: a blob ID the backend must first load, a kind of value the
 * export never writes, or a payload that is not JSON.
 */
export function decodeValue(key: string, value: unknown): unknown {
  const where = `attribute ${JSON.stringify(key)}`;
  if (typeof value !== "object" || value === null)
    throw args.invalid(`${where} has no value object, got ${args.describeType(value)}`);
  const v = value as Record<string, unknown>;
  if ("internalBlobIdForObjValue" in v || "internalBlobIdForStringValue" in v)
    throw args.invalid(
      `${where} holds a blob ID, not its value: the engine answers values over its blob threshold (1 KiB by default) so ` +
        "until they are loaded; have the backend hydrate them with LoadBlobs before passing them on",
    );
  if ("nullValue" in v) return undefined;
  const obj = v.objValue;
  if (typeof obj !== "object" || obj === null)
    throw args.invalid(
      `${where} is not an object value (objValue) of JSON, as an export writes; found ${Object.keys(v).join(", ") || "nothing"}`,
    );
  const { encoding, payload } = obj as { encoding?: unknown; payload?: unknown };
  if (encoding !== "json") throw args.invalid(`${where} has encoding ${JSON.stringify(encoding)}, not "json"`);
  if (typeof payload !== "string" || payload.length > (MAX_TEXT_LENGTH * 4) / 3)
    throw args.invalid(`${where} has no base64 payload of at most ${MAX_TEXT_LENGTH} bytes`);
  let text: string | undefined;
  try {
    text = base64Text(payload);
    if (text === undefined) throw args.invalid(`${where} has a payload that is not base64`);
    return JSON.parse(text);
  } catch (e) {
    if (e instanceof AttrmapError) throw e;
    throw args.invalid(`${where} has a payload that is not JSON in UTF-8: ${(e as Error).message}`, e);
  }
}
