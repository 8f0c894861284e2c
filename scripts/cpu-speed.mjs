// A fixed piece of CPU work on one core, timed in milliseconds: `make test` prints it at its start
// and at its end beside the suites' times, so that runs on a machine whose speed varies from one
// run to the next (a virtual machine's) can be compared. Native work (SHA-256 of 512 MiB) and
// JIT-compiled JavaScript (a loop of integer arithmetic): 0.3 s and 0.4 s on the machine of
// BENCHMARKS.md's suite times (2026-12-04).
import { createHash } from "node:crypto";

const started = performance.now();
const block = Buffer.alloc(1 << 20, 7);
const hash = createHash("sha256");
for (let i = 0; i < 512; i++) hash.update(block);
hash.digest();
let x = 0;
for (let i = 0; i < 1e8; i++) x = (x + Math.imul(i, 2654435761)) >>> 0;
if (x === 0.5) console.log(x); // keeps the loop from being optimized away
console.log(Math.round(performance.now() - started));
