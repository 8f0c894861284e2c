// Runs a command (a suite's test runner) with one browser of ENGINE started for it, on an on-disk
// profile, and stopped after it. The test files connect to that browser (harness.ts: useProfile,
// chromiumForFile) instead of each launching its own, which cost more CPU than most files' tests:
// a launch and close 1.6 to 4 CPU-s, a connection 0.1 to 1. Each file's servers are origins the
// shared profile has not seen. Tests that kill or relaunch a browser, or need a profile or
// preferences of their own, still launch their own.
//   usage: ENGINE=firefox node --import tsx browser/suite-browser.ts node --test ...
import { spawn } from "node:child_process";
import { ENGINE, SUITE_BROWSER, startSuiteBrowser } from "./engines.js";

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: suite-browser.ts <command> [args...]");
const suite = await startSuiteBrowser(ENGINE);
const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, [SUITE_BROWSER]: JSON.stringify(suite.address) } });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
const code = await new Promise<number>((done) => child.once("exit", (code) => done(code ?? 1)));
await suite.stop();
process.exit(code);
