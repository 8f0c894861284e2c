// How a browser bench runs: one browser with an on-disk profile (Chromium unless BENCH_ENGINE
// says firefox or webkit), the test server with Dexie and idb-keyval served to the page, and
// several rounds, each in a fresh tab, the contenders in a Williams order. Each round's
// databases are deleted at the start of the next, once its tab is closed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import "../browser/page-types.js";
import { dispose, ENGINES, type EngineName, launchBrowser, type Tab } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";
import { RELEASED } from "../shared/storage-bench.js";
import { type RoundResult, williamsOrder } from "./report.js";

export const ENGINE = (process.env.BENCH_ENGINE ?? "chromium") as EngineName;
if (!ENGINES.includes(ENGINE)) throw new Error(`BENCH_ENGINE must be one of ${ENGINES.join(", ")}, not ${ENGINE}`);

/** Where the page imports it from. */
export const RELEASED_PATH = `/vendor/attrmap-${RELEASED}/dist/index.js`;

/** Serves the JavaScript of the last release's tarball under /vendor/attrmap-<version>/ (its inlined-wasm entry suffices). */
function serveRelease(server: Awaited<ReturnType<typeof serveWww>>): void {
  const dir = mkdtempSync(join(tmpdir(), "attrmap-released-"));
  try {
    execFileSync("tar", ["xzf", join(import.meta.dirname, `../fixtures/attrmap-${RELEASED}.tgz`), "-C", dir]);
    const walk = (at: string): string[] =>
      readdirSync(at).flatMap((f) => (statSync(join(at, f)).isDirectory() ? walk(join(at, f)) : [join(at, f)]));
    for (const file of walk(join(dir, "package")).filter((f) => f.endsWith(".js")))
      server.files.set(`/vendor/attrmap-${RELEASED}/${relative(join(dir, "package"), file)}`, {
        type: "text/javascript",
        body: readFileSync(file, "utf8"),
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `rounds` rounds: `round(tab, order, round)` runs one in a fresh tab and gives each
 * contender's result; `databases(round)` names the databases it made. Returns the results by
 * contender, round by round.
 */
export async function inRounds<C extends string>(
  contenders: readonly C[],
  rounds: number,
  databases: (round: number) => string[],
  round: (tab: Tab, order: C[], round: number) => Promise<Record<string, RoundResult>>,
): Promise<Map<C, RoundResult[]>> {
  const require = createRequire(import.meta.url);
  const server = await serveWww();
  for (const [path, pkg] of [
    ["/vendor/dexie.mjs", "dexie/dist/dexie.mjs"],
    ["/vendor/idb-keyval.js", "idb-keyval/dist/index.js"],
  ])
    server.files.set(path!, { type: "text/javascript", body: readFileSync(require.resolve(pkg!), "utf8") });
  serveRelease(server);
  // On disk in every engine: WebKit without a driver (under WebDriver its site data would be
  // in memory only; see LaunchOptions.keepData).
  const browser = await launchBrowser(ENGINE, undefined, { keepData: true });
  const results = new Map<C, RoundResult[]>(contenders.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    const tab = await openPage(browser, server.origin);
    // The previous round's tab is closed: its databases can go now, before the timing. WebKit
    // without a driver closes a tab by a message the page reads a moment later, so its
    // connections may outlive the close: each deletion is awaited 2 s at most, and finishes later.
    await tab.evaluate(
      (names) =>
        Promise.all(
          names.map(
            (name) =>
              new Promise((done) => {
                indexedDB.deleteDatabase(name).onsuccess = done;
                setTimeout(done, 2000);
              }),
          ),
        ),
      r === 0 ? [] : databases(r - 1),
    );
    const result = await round(tab, williamsOrder(contenders, r), r);
    await tab.close();
    for (const who of contenders) results.get(who)!.push(result[who]!);
    process.stderr.write(`round ${r + 1} of ${rounds} done\n`);
  }
  await dispose(browser);
  await server.close();
  return results;
}
