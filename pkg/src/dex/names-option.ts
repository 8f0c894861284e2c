// Which names the stored maps have in a flow (options.sdk or options.names of the engine's
// requests and of a pull), checked and copied, and how an instance's name and a record's fields
// are written under them and read back.
import * as args from "../common/args.js";
import { DEX_SAMPLE_NAMES, type DexMapNames, type DexSdk } from "./sample-names.js";

/** An instance name as the TypeScript SDK escapes it in a key (the others agree on partition names and tokens). */
export function escapeInstance(instance: string): string {
  return encodeURIComponent(instance).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A record (a plain object) with its fields renamed as `fields` says; anything else as it is. */
export function renamed(value: unknown, fields: Readonly<Record<string, string>>): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, fields[k] ?? k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** An optional string field of a caller's object. */
export function optionalString(owner: string, o: object, key: string): string | undefined {
  const value = args.field(owner, o, key);
  return value === undefined ? undefined : args.string(`${owner}.${key}`, value);
}

/** An optional object of string fields, copied (`__proto__` stays an own field, never a prototype). */
function stringFields(owner: string, o: object, key: string, keys?: readonly string[]): Record<string, string> | undefined {
  const value = args.field(owner, o, key);
  if (value === undefined) return undefined;
  const from = args.object(`${owner}.${key}`, value);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const k of keys ?? args.keysOf(`${owner}.${key}`, from))
    out[k] = args.string(`${owner}.${key}.${k}`, args.field(`${owner}.${key}`, from, k));
  return out;
}

/** Record fields that rename something, or undefined (a record is sent as it is). */
function renaming(fields: Record<string, string> | undefined): Record<string, string> | undefined {
  return fields && Object.keys(fields).length > 0 ? fields : undefined;
}

/** The caller's Dex names for one map, checked and copied, or undefined when it has none. */
function namesOf(names: object, map: string, given: boolean): DexMapNames | undefined {
  if (!Object.hasOwn(names, map)) return undefined;
  const owner = given ? `options.names[${JSON.stringify(map)}]` : `the ${map} preset`;
  const o = args.object(owner, args.field("options.names", names, map));
  const attributeMap = args.string(`${owner}.attributeMap`, args.field(owner, o, "attributeMap"));
  if (attributeMap === "") throw args.invalid(`${owner}.attributeMap must not be empty`);
  const state = stringFields(owner, o, "stateFields", ["nextSequence", "latestArchivedChunkToken"]);
  return {
    attributeMap,
    valueField: optionalString(owner, o, "valueField"),
    recordFields: renaming(stringFields(owner, o, "recordFields")),
    stateAttribute: optionalString(owner, o, "stateAttribute"),
    stateFields: state && { nextSequence: state.nextSequence!, latestArchivedChunkToken: state.latestArchivedChunkToken! },
    indexes: stringFields(owner, o, "indexes"),
  };
}

/** The names of `options`: a reference SDK's preset (`sdk`), or the caller's own (`names`). */
function namesSource(o: object): { names: object; given: boolean } {
  const sdk = args.field("options", o, "sdk");
  const names = args.field("options", o, "names");
  if ((sdk === undefined) === (names === undefined))
    throw args.invalid('pass exactly one of options.sdk ("python", "typescript", "go", "java", "rust") and options.names');
  if (names !== undefined) return { names: args.object("options.names", names), given: true };
  const name = args.string("options.sdk", sdk);
  if (!Object.hasOwn(DEX_SAMPLE_NAMES, name))
    throw args.invalid(`options.sdk must be "python", "typescript", "go", "java" or "rust", got "${name}"`);
  return { names: DEX_SAMPLE_NAMES[name as DexSdk], given: false };
}

/** The names to send each map under: a reference SDK's preset, or the caller's own. */
export function namesOption(o: object): (map: string) => DexMapNames | undefined {
  const { names, given } = namesSource(o);
  return (map) => namesOf(names, map, given);
}

/** Every map `options` names, with its names, checked: what a pull reads back. */
export function everyName(o: object): Map<string, DexMapNames> {
  const { names, given } = namesSource(o);
  const out = new Map<string, DexMapNames>();
  for (const map of args.keysOf(given ? "options.names" : "the preset", names)) out.set(map, namesOf(names, map, given)!);
  return out;
}
