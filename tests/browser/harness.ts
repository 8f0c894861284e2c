// Shared set-up for the browser suites: a static server for www/ on 127.0.0.1 (a secure
// context, as service workers and Web Locks need), a browser of this run's engine (engines.ts)
// for each test file (the suite's own if it runs under suite-browser.ts), and Playwright's
// Chromium for the suites that need CDP or its input.
import { appendFileSync, createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  browserForFile,
  CHROMIUM_ARGS,
  connectChromium,
  DRIVEN_PAGE_SCRIPT,
  ENGINE,
  ENGINES,
  type EngineBrowser,
  launchBrowser,
  suiteBrowserAddress,
  type Tab,
  within,
} from "./engines.js";

export { CHROMIUM_ARGS, type Tab, within };

export const WWW = resolve(fileURLToPath(new URL("../../www", import.meta.url)));
const SHARED = resolve(fileURLToPath(new URL("../shared", import.meta.url)));
/** Test modules of tests/shared/, served as JavaScript so pages and workers can import them. */
export const SHARED_PATH = "/__tests__/";
export const ARTIFACTS = resolve(fileURLToPath(new URL("../artifacts", import.meta.url)));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".map": "application/json",
  ".svg": "image/svg+xml",
};

/** A blank page of the origin with the package (every entry but the React binding) on `window.attrmap`, for storage tests. */
export const TEST_PAGE = "/__attrmap_test__.html";
const TEST_PAGE_HTML = `<!doctype html><meta charset="utf-8"><title>attrmap test</title>
<script>${DRIVEN_PAGE_SCRIPT}</script>
<script type="module">
import * as core from "/attrmap/dist/index.js";
import * as dex from "/attrmap/dist/dex/index.js";
import * as exportImport from "/attrmap/dist/export-import/index.js";
import * as http from "/attrmap/dist/http/index.js";
window.attrmap = { ...core, ...exportImport, ...dex, ...http };
document.documentElement.dataset.ready = "true";
</script>`;

export interface StaticServer {
  origin: string;
  /** Extra files a test serves at a path of the origin: path to content type and body. */
  files: Map<string, { type: string; body: string }>;
  close(): Promise<void>;
}

/** Serves www/ (or another folder, `root`) with the test page and the shared test modules. */
export async function serveWww(root = WWW): Promise<StaticServer> {
  const files: StaticServer["files"] = new Map();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const extra = files.get(path);
    if (extra) {
      res.writeHead(200, { "content-type": extra.type, "cache-control": "no-store" }).end(extra.body);
      return;
    }
    if (path === TEST_PAGE) {
      res.writeHead(200, { "content-type": TYPES[".html"], "cache-control": "no-store" }).end(TEST_PAGE_HTML);
      return;
    }
    const shared = path.startsWith(SHARED_PATH) && /^[a-z-]+\.js$/.exec(path.slice(SHARED_PATH.length));
    if (shared) {
      try {
        const source = readFileSync(join(SHARED, shared[0].replace(/\.js$/, ".ts")), "utf8");
        res
          .writeHead(200, { "content-type": TYPES[".js"], "cache-control": "no-store" })
          .end(transformSync(source, { loader: "ts", format: "esm" }).code);
      } catch {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      }
      return;
    }
    if (path === "/favicon.ico") {
      res.writeHead(204).end(); // Chromium asks for it on every non-HTML document
      return;
    }
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      const size = statSync(file).size;
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "content-length": size,
        // www/ does not change while the suites run (it is built before them): a second page loads
        // the package from the cache (a quarter of a page's CPU in Chromium). Another root (a
        // bundler's output) may be served next on the same port with other files: never cached.
        "cache-control": root === WWW ? "max-age=86400" : "no-store",
      });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  const port = await listenOnNewOrigin(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    files,
    // Without closeAllConnections, close() waits for every connection to end, and a socket
    // Chromium opened ahead of a request it never sent ends only at the server's headers timeout
    // (60 s, checked every 30 s): the demo's tests waited up to 100 s here under load.
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

/**
 * Listens on 127.0.0.1: on any free port, or, under a suite's shared browser, on a port no
 * server of the suite had before, so that the shared profile has seen nothing of the origin (no
 * storage, no service worker of an earlier file). Those are taken in turn from a range of the
 * engine's own below the ports the system hands out (32768 and up).
 */
async function listenOnNewOrigin(server: Server): Promise<number> {
  const suite = suiteBrowserAddress();
  const first = 20_000 + 4_000 * ENGINES.indexOf(ENGINE);
  for (;;) {
    let port = 0;
    if (suite) {
      appendFileSync(suite.ports, "."); // one test file runs at a time: the length is this server's number
      port = first + statSync(suite.ports).size;
      if (port >= first + 4_000) throw new Error(`the suite has used every port of ${first} to ${port - 1}`);
    }
    const listened = await new Promise<Error | undefined>((done) => {
      server.once("error", done).listen(port, "127.0.0.1", () => {
        server.off("error", done);
        done(undefined);
      });
    });
    if (!listened) return (server.address() as AddressInfo).port;
    if (!suite || (listened as NodeJS.ErrnoException).code !== "EADDRINUSE") throw listened;
  }
}

/** A port for a tool's server that is told its port (a dev server, a framework's): a new origin, free now. */
export async function newOriginPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnNewOrigin(server);
  await new Promise((closed) => server.close(closed));
  return port;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core"); // only where Chromium runs (see engines.ts)
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
}

/** Records console errors and uncaught exceptions of a page, to assert there are none. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** A screenshot in tests/artifacts/: the whole page, or the element `selector` matches. */
export async function screenshot(page: Page, name: string, selector?: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  if (selector) await page.locator(selector).screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
}

export interface ChromiumProfileEnv {
  server: StaticServer;
  /** Chromium with an on-disk profile, through Playwright; each page is a tab. */
  context: BrowserContext;
}

/** Chromium for the calling file (chromiumForFile), from before its first test to after its last. */
export function useChromium(): { context: BrowserContext } {
  const env = {} as { context: BrowserContext };
  let dispose: (() => Promise<void>) | undefined;
  before(async () => {
    const browser = await chromiumForFile();
    env.context = browser.context;
    dispose = () => browser.dispose();
  });
  after(async () => {
    await dispose?.();
  });
  return env;
}

/** For the Chromium-only suites (they use CDP): one server and one Chromium profile for the calling file. */
export function useChromiumProfile(): ChromiumProfileEnv {
  const env = useChromium() as ChromiumProfileEnv;
  before(async () => {
    env.server = await serveWww();
  });
  after(async () => {
    await env.server?.close();
  });
  return env;
}

/** Names for fresh databases: `<prefix>-<pid>-1`, `-2`, ... */
export function uniqueNames(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}-${process.pid}-${++n}`;
}

export interface ProfileEnv {
  server: StaticServer;
  /** A browser of this run's engine (ENGINE) with an on-disk profile; each page is a tab. */
  browser: EngineBrowser;
}

/**
 * One server and one browser of this run's engine for the calling test file, started before
 * its tests, then `setup` (top-level `before` hooks of one file are not run one after another).
 */
export function useProfile(setup?: (env: ProfileEnv) => Promise<void>): ProfileEnv {
  const env = {} as ProfileEnv;
  let release: (() => Promise<void>) | undefined;
  before(async () => {
    env.server = await serveWww();
    ({ browser: env.browser, release } = await browserForFile());
    await setup?.(env);
  });
  after(async () => {
    await release?.();
    await env.server?.close();
  });
  return env;
}

/** Opens `path` of `origin` in a new tab of `browser` and waits for the page to say it is ready. */
export async function openPage(browser: EngineBrowser, origin: string, path = TEST_PAGE): Promise<Tab> {
  const tab = await within(`a new ${browser.engine} tab`, browser.newTab());
  await within(`loading ${path}`, tab.goto(origin + path));
  await until(`${path} to be ready`, () => tab.evaluate(() => document.documentElement.dataset.ready === "true"));
  return tab;
}

/** What can run a function in a page: a Tab of any engine, or a Playwright Page. */
type Evaluates = Pick<Tab, "evaluate">;

/**
 * Makes `page` take the Web Lock `name` and hold it, as a writer in another tab would; resolves
 * once it is held, with a function that releases it.
 */
export async function holdLock(page: Evaluates, name: string): Promise<() => Promise<void>> {
  type Held = { heldLocks?: Record<string, () => void> };
  await page.evaluate(
    (name) =>
      new Promise<void>((held) => {
        void navigator.locks.request(name, () => {
          held();
          return new Promise<void>((release) => (((window as Held).heldLocks ??= {})[name] = release));
        });
      }),
    name,
  );
  return () => page.evaluate((name) => (window as Held).heldLocks![name]!(), name);
}

/** Polls `check` every `everyMs` until it returns true; fails naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 60_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  const late = () => new Error(`gave up after ${ms / 1000} s waiting for ${what}`);
  // A check that outlasts the deadline is reported as the whole wait, not as its own remainder.
  const checked = () =>
    within(what, check(), Math.max(0, deadline - Date.now())).catch((e: unknown) => {
      throw Date.now() >= deadline ? late() : e;
    });
  while (!(await checked())) {
    if (Date.now() >= deadline) throw late();
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A Chromium with an on-disk profile in a fresh temporary folder (two pages = two tabs). */
export async function persistentContext(
  profileDir = mkdtempSync(join(tmpdir(), "attrmap-profile-")),
): Promise<{ context: BrowserContext; profileDir: string; dispose(): Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    profileDir,
    async dispose() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Chromium for a Chromium-only file that needs no profile of its own: the suite's browser's
 * default context if the file runs under suite-browser.ts (`dispose` closes the pages the file
 * opened and lets go), else persistentContext().
 */
export async function chromiumForFile(): Promise<{ context: BrowserContext; dispose(): Promise<void> }> {
  const suite = suiteBrowserAddress();
  if (suite?.engine !== "chromium") return persistentContext();
  const { context, disconnect } = await connectChromium(suite.endpoint!);
  const earlier = new Set(context.pages());
  return {
    context,
    async dispose() {
      for (const page of context.pages()) if (!earlier.has(page)) await page.close();
      await disconnect();
    },
  };
}

/** A new tab that records its console errors and can run the tests' compiled functions. */
export async function newTab(context: BrowserContext): Promise<Page & { errors: string[] }> {
  const page = await context.newPage();
  // tsx compiles tests with esbuild's keepNames, which wraps named functions in __name(...);
  // functions passed to page.evaluate carry those calls into the page, so it defines __name.
  await page.addInitScript("globalThis.__name = (f) => f;");
  return Object.assign(page, { errors: collectErrors(page) });
}

/** Opens `path` in a new tab and waits for the page to say it is ready. */
export async function openTab(context: BrowserContext, origin: string, path = TEST_PAGE): Promise<Page & { errors: string[] }> {
  const page = await newTab(context);
  await page.goto(origin + path);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

/**
 * A browser launched on a new profile (`setup`), and `launch` for more on the same profile, all
 * keeping their site data for a kill and a relaunch (LaunchOptions.keepData).
 * Every browser of the test is closed however it ends, and the profile removed; every launch is
 * bounded, so a hang fails where it happens instead of holding the file until its timeout.
 */
export async function onOneProfile(t: { after(fn: () => Promise<void>): void }) {
  const launched: EngineBrowser[] = [];
  const launch = async (step: string, profileDir?: string) => {
    const browser = await within(`${step}: the browser to start`, launchBrowser(ENGINE, profileDir, { keepData: true }));
    launched.push(browser);
    return browser;
  };
  const setup = await launch("set-up");
  const profileDir = setup.profileDir;
  t.after(async () => {
    for (const browser of launched) await browser.close();
    rmSync(profileDir, { recursive: true, force: true });
  });
  return { setup, profileDir, launch };
}
