// make bench: emailPartition through the package (JS -> wasm -> JS) side by side with a
// plain-JS implementation in the same process (the size of what ships is size.bench.ts).
// Figures, not a test: nothing here fails on time.
import { emailPartition } from "attrmap";

// ---- the baseline: a straightforward plain-JS implementation of the same rule ----------
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the rule being checked
const NON_ASCII = /[^\x00-\x7f]/;
const isWs = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

function plainEmailPartition(email: string, count = 1000) {
  if (NON_ASCII.test(email)) throw new Error("emailAddress must contain only ASCII characters");
  let start = 0;
  let end = email.length;
  while (start < end && isWs(email.charCodeAt(start))) start++;
  while (end > start && isWs(email.charCodeAt(end - 1))) end--;
  if (start === end) throw new Error("emailAddress is required");
  const canonicalEmail = email.slice(start, end).toLowerCase(); // ASCII only here: same as A-Z
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonicalEmail.length; i++) hash = Math.imul(hash ^ canonicalEmail.charCodeAt(i), 0x01000193);
  hash >>>= 0;
  const partitionIndex = hash % count;
  return {
    canonicalEmail,
    hash,
    partitionIndex,
    partitionName: `partition-${String(partitionIndex).padStart(String(count - 1).length, "0")}`,
  };
}

// ---- timing ------------------------------------------------------------------------------
function measure(fn: (s: string) => unknown, inputs: string[], minMs = 400): number {
  let sink = 0;
  const once = (n: number) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += (fn(inputs[i % inputs.length]!) as { hash: number }).hash & 1;
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  once(20_000); // warm up the JIT
  let n = 10_000;
  while (once(n) < 50) n *= 2;
  const rounds: number[] = [];
  const deadline = Date.now() + minMs;
  while (rounds.length < 5 || Date.now() < deadline) rounds.push((once(n) * 1e6) / n);
  if (sink < 0) console.log(sink); // keep the results alive
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!; // median ns per call
}

const typical = Array.from({ length: 4096 }, (_, i) => ` User.${i * 7919}@Example.COM`); // about 20-25 bytes
const long = Array.from({ length: 256 }, (_, i) => `${"Ab".repeat(506)}${i}@example.com`.slice(0, 1024)); // 1 KiB
for (const s of [...typical.slice(0, 50), ...long.slice(0, 20)]) {
  const a = emailPartition(s);
  const b = plainEmailPartition(s);
  if (a.canonicalEmail !== b.canonicalEmail || a.hash !== b.hash || a.partitionName !== b.partitionName) {
    throw new Error(`baseline disagrees with the package on ${JSON.stringify(s)}`);
  }
}

const fmt = (ns: number) => `${(1e9 / ns / 1e6).toFixed(2).padStart(7)} M ops/s  ${ns.toFixed(0).padStart(6)} ns/op`;
console.log(`emailPartition, Node ${process.version}, median of timed rounds`);
console.log("keys            attrmap (wasm)                 plain JS baseline              ratio");
for (const [label, inputs] of [
  ["typical ~22 B", typical],
  ["long 1 KiB", long],
] as const) {
  const wasm = measure((s) => emailPartition(s), inputs);
  const plain = measure((s) => plainEmailPartition(s), inputs);
  console.log(`${label.padEnd(15)} ${fmt(wasm)}   ${fmt(plain)}   ${(wasm / plain).toFixed(2)}x`);
}
