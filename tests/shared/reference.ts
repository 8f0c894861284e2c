// An independent implementation of SPEC.md's rules, written here from the text of the spec,
// sharing no code with the package: the expected values of the tests that generate inputs.

/** SPEC's trimmed whitespace: 0x20 and 0x09..0x0D. */
const WS = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

export function refCanonical(email: string): string {
  for (let i = 0; i < email.length; i++) {
    if (email.charCodeAt(i) > 0x7f) throw new Error("emailAddress must contain only ASCII characters");
  }
  let start = 0;
  let end = email.length;
  while (start < end && WS.has(email.charCodeAt(start))) start++;
  while (end > start && WS.has(email.charCodeAt(end - 1))) end--;
  if (start === end) throw new Error("emailAddress is required");
  let out = "";
  for (let i = start; i < end; i++) {
    const c = email.charCodeAt(i);
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 32 : c);
  }
  return out;
}

/** FNV-1a (32 bits) of the UTF-8 bytes of well-formed text. */
export function refFnv(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

export function refPartitionName(index: number, count: number): string {
  return `partition-${String(index).padStart(String(count - 1).length, "0")}`;
}

export function refToken(token: string, chunk: bigint): string | undefined {
  if (token === "" || token === "current") return "current";
  if (!/^[0-9]{20}$/.test(token)) return undefined;
  const v = BigInt(token);
  return v >= 1n && (v - 1n) % chunk === 0n ? token : undefined;
}

/** Partition index and name of a canonical key under `count` partitions. */
export function refPartition(canonical: string, count: number): { hash: number; index: number; name: string } {
  const hash = refFnv(canonical);
  return { hash, index: hash % count, name: refPartitionName(hash % count, count) };
}
