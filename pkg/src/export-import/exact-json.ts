// JSON for values that JSON represents exactly: what comes back from JSON.parse is what was
// stored. Anything else (a Date, a Map, undefined, NaN, -0, a bigint, a cycle, a sparse array)
// is refused with the path to it, rather than silently changed.

/** Where in a value the first part JSON cannot represent exactly is, and what it is. */
export class NotExactJson extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${what} at ${path || "the value itself"}`);
  }
}

function kind(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value !== "object" || value === null) return typeof value;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return `a ${name || "object"}`;
}

function write(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (Number.isFinite(value) && !Object.is(value, -0)) return JSON.stringify(value);
      throw new NotExactJson(path, kind(value));
    case "object": {
      if (value === null) return "null";
      if (ancestors.has(value)) throw new NotExactJson(path, "a cycle");
      const proto = Object.getPrototypeOf(value) as unknown;
      ancestors.add(value);
      try {
        if (Array.isArray(value) && proto === Array.prototype) {
          if (Object.keys(value).length !== value.length) throw new NotExactJson(path, "an array with holes or extra properties");
          return `[${value.map((v, i) => write(v, `${path}[${i}]`, ancestors)).join(",")}]`;
        }
        if (proto === Object.prototype || proto === null) {
          const parts = Object.keys(value).map(
            (k) => `${JSON.stringify(k)}:${write((value as Record<string, unknown>)[k], `${path}.${k}`, ancestors)}`,
          );
          return `{${parts.join(",")}}`;
        }
        throw new NotExactJson(path, kind(value));
      } finally {
        ancestors.delete(value);
      }
    }
    default:
      throw new NotExactJson(path, kind(value));
  }
}

/**
 * Whether `value` is plain JSON data (finite numbers but -0, strings, booleans, null, arrays
 * without holes or extra properties, plain objects), checked without building any path: the
 * fast way, after which the engine's own JSON.stringify writes it. Too deep (a cycle, or
 * nesting past JSON.parse's comfort) is false too: write() then says where.
 */
function plain(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object": {
      if (value === null) return true;
      if (depth > MAX_PLAIN_DEPTH) return false;
      const proto = Object.getPrototypeOf(value) as unknown;
      if (Array.isArray(value) && proto === Array.prototype) {
        if (Object.keys(value).length !== value.length) return false;
        for (const v of value) if (!plain(v, depth + 1)) return false;
        return true;
      }
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k of Object.keys(value)) if (!plain((value as Record<string, unknown>)[k], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** Nesting the fast check follows: deeper values take the slow way (which also finds cycles). */
const MAX_PLAIN_DEPTH = 100;

/** `value` as JSON text; throws NotExactJson where JSON cannot represent it exactly. */
export function exactJson(value: unknown): string {
  return plain(value, 0) ? JSON.stringify(value) : write(value, "", new Set());
}

/** The entries of a partition (a Map) as one JSON object, keys in UTF-16 code unit order. */
export function partitionJson(entries: ReadonlyMap<unknown, unknown>): string {
  const keys = [...entries.keys()];
  const bad = keys.find((k) => typeof k !== "string");
  if (bad !== undefined) throw new NotExactJson("", `a key that is ${kind(bad)}`);
  return `{${(keys as string[])
    .sort()
    .map((k) => {
      try {
        return `${JSON.stringify(k)}:${exactJson(entries.get(k))}`;
      } catch (e) {
        throw e instanceof NotExactJson ? new NotExactJson(`key ${JSON.stringify(k)}${e.path}`, e.what) : e;
      }
    })
    .join(",")}}`;
}

/**
 * `value`'s canonical JSON: object keys in UTF-16 code unit order at every depth, so that two
 * values equal as data are equal as text whatever order their keys were written in; undefined
 * when JSON cannot represent `value` exactly (such a value equals no JSON value).
 */
export function canonicalJson(value: unknown): string | undefined {
  return plain(value, 0) ? canonical(value) : undefined;
}

/** The canonical JSON of a value `plain` accepted. */
function canonical(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + canonical(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++)
    out += `${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:${canonical((value as Record<string, unknown>)[keys[i]!])}`;
  return `${out}}`;
}
