// Whether two structured-clone values are the same value, for reading back a write whose
// commit the browser could not confirm: what is stored now is compared with what the write
// stored, and with what was there before it. `undefined` means it cannot tell (a Blob's
// bytes cannot be read synchronously), and the caller must not guess.

type Verdict = boolean | undefined;

const tag = (v: object): string => Object.prototype.toString.call(v);

/** `true` when `a` and `b` hold the same data (as structured clone copies it), `false` when not, `undefined` when unknowable. */
export function sameValue(a: unknown, b: unknown, seen = new Map<object, object>()): Verdict {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (tag(a) !== tag(b)) return false;
  // A cycle: the pair is being compared further up; the other fields decide.
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  switch (tag(a)) {
    case "[object Array]":
    case "[object Object]":
      return sameFields(a as Record<string, unknown>, b as Record<string, unknown>, seen);
    case "[object Map]":
      return sameMaps(a as Map<unknown, unknown>, b as Map<unknown, unknown>, seen);
    case "[object Set]": {
      const [x, y] = [a as Set<unknown>, b as Set<unknown>];
      if ([...x, ...y].some((v) => typeof v === "object" && v !== null)) return undefined; // object members: not matched here
      return x.size === y.size && [...x].every((v) => y.has(v));
    }
    case "[object Date]":
      return Object.is((a as Date).getTime(), (b as Date).getTime());
    case "[object Error]": {
      const [x, y] = [a as Error, b as Error];
      return x.name === y.name && x.message === y.message;
    }
    case "[object RegExp]":
      return String(a) === String(b);
    case "[object Boolean]":
    case "[object Number]":
    case "[object String]":
    case "[object BigInt]":
      return Object.is((a as { valueOf(): unknown }).valueOf(), (b as { valueOf(): unknown }).valueOf());
    case "[object ArrayBuffer]":
      return sameBytes(new Uint8Array(a as ArrayBuffer), new Uint8Array(b as ArrayBuffer));
    default:
      if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b))
        return sameBytes(
          new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
          new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
        );
      return undefined; // Blob, File, ImageData, ...: not comparable here
  }
}

function both(verdicts: Iterable<Verdict>): Verdict {
  let known: Verdict = true;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === undefined) known = undefined;
  }
  return known;
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, seen: Map<object, object>): Verdict {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length || !keys.every((k) => Object.hasOwn(b, k))) return false;
  return both(keys.map((k) => sameValue(a[k], b[k], seen)));
}

function sameMaps(a: Map<unknown, unknown>, b: Map<unknown, unknown>, seen: Map<object, object>): Verdict {
  if (a.size !== b.size) return false;
  const verdicts: Verdict[] = [];
  for (const [k, v] of a) {
    if (typeof k === "object" && k !== null) return undefined; // object keys: not matched here
    if (!b.has(k)) return false;
    verdicts.push(sameValue(v, b.get(k), seen));
  }
  return both(verdicts);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
