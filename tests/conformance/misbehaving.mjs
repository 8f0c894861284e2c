// A testee that misbehaves on purpose, for the runner's tests: it passes each request to a
// real testee (the command after --) and its answer back, except where MODE says otherwise.
//   node misbehaving.mjs MODE -- COMMAND [ARGS...]
// MODE: wrong-archive-token=FIRST (answers that archive token one too low), error-at=ID (an error
// in its own words there), null-id-at=ID (answers it unsupported with "id": null, as for a line
// it could not parse), crash-at=ID,
// hang-at=ID, garbage-at=ID, wrong-id-at=ID, unsupported-at=ID, silent (never answers), slow=MS (each answer late),
// stuck-at=ID (stops for good there: reads nothing more and never exits, as a program blocked in
// its own code does, whatever happens to its standard input), locale-digits-at=ID (the digits of
// its result's strings in Arabic-Indic, as a formatter under the ar-EG locale writes them),
// answer-at=ID:JSON (that answer there: `{"result": ...}` or `{"error": ...}`), start-delay=MS
// (its first answer MS late, as a slow start is).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [mode = "", sep, command, ...args] = process.argv.slice(2);
if (sep !== "--" || !command) throw new Error("usage: misbehaving.mjs MODE -- COMMAND [ARGS...]");
const [what, value = ""] = mode.split(/=(.*)/s);
const at = Number(value.split(":")[0]);

const real = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const waiting = [];
createInterface({ input: real.stdout }).on("line", (line) => waiting.shift()?.(line));
const ask = (line) => new Promise((resolve) => waiting.push(resolve) && real.stdin.write(`${line}\n`));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** `value` with the ASCII digits of its strings as Arabic-Indic ones (U+0660 to U+0669). */
const arabic = (value) =>
  typeof value === "string"
    ? value.replace(/[0-9]/g, (d) => String.fromCharCode(0x660 + Number(d)))
    : Array.isArray(value)
      ? value.map(arabic)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, arabic(v)]))
        : value;

let started = false;
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  if (what === "silent" || (what === "hang-at" && request.id === at)) continue;
  if (what === "stuck-at" && request.id === at) {
    setInterval(() => {}, 1 << 30);
    await new Promise(() => {});
  }
  if (what === "crash-at" && request.id === at) {
    process.stderr.write(`misbehaving: crashing at request ${at}\n`);
    process.exit(3);
  }
  let answer = await ask(line);
  if (what === "slow" || (what === "start-delay" && !started)) await sleep(at);
  started = true;
  if (what === "garbage-at" && request.id === at) answer = "this is not JSON";
  if (what === "unsupported-at" && request.id === at) answer = JSON.stringify({ id: at, unsupported: true });
  if (what === "null-id-at" && request.id === at) answer = JSON.stringify({ id: null, unsupported: true });
  if (what === "error-at" && request.id === at) answer = JSON.stringify({ id: at, error: "an error in the testee's own words" });
  if (what === "answer-at" && request.id === at)
    answer = JSON.stringify({ id: at, ...JSON.parse(value.slice(value.indexOf(":") + 1)) });
  if (what === "locale-digits-at" && request.id === at)
    answer = JSON.stringify({ id: at, result: arabic(JSON.parse(answer).result) });
  if (what === "wrong-id-at" && request.id === at) answer = JSON.stringify({ ...JSON.parse(answer), id: at + 1000 });
  if (what === "wrong-archive-token" && request.op === "archiveToken" && request.input.firstSequence === value)
    answer = JSON.stringify({ id: request.id, result: (BigInt(value) - 1n).toString().padStart(20, "0") });
  process.stdout.write(`${answer}\n`);
}
real.stdin.end();
