// One way to drive the three browser engines, so a scenario is written once: Chromium through
// Playwright (over CDP), Firefox through puppeteer-core (WebDriver BiDi), WebKit (WebKitGTK's
// MiniBrowser, Safari's engine) through webdriverio (classic WebDriver, under Xvfb). A browser
// runs on an on-disk profile, opens tabs of the test origin, evaluates functions in them (all
// at once if asked: each engine here runs tabs concurrently), and can be killed, its whole
// process group at once, then relaunched on the same profile. ENGINE picks the engine. A suite
// can run under one browser that its files connect to (suite-browser.ts, browserForFile).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Each engine's driver library is imported where that engine is launched: a test process runs
// one engine, and loading all three cost 1.1 s at the start of every browser test file.
import type { BrowserContext, Page as PlaywrightPage } from "playwright-core";
import type { Browser as PuppeteerBrowser, Page as PuppeteerPage } from "puppeteer-core";

export type EngineName = "chromium" | "firefox" | "webkit";
export const ENGINES: readonly EngineName[] = ["chromium", "firefox", "webkit"];

/** The engine of this run: `ENGINE=firefox` or `ENGINE=webkit`, Chromium otherwise. */
export const ENGINE: EngineName = ((): EngineName => {
  const name = process.env.ENGINE ?? "chromium";
  if (!(ENGINES as readonly string[]).includes(name)) throw new Error(`ENGINE must be one of ${ENGINES.join(", ")}, not ${name}`);
  return name as EngineName;
})();

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

// tsx compiles tests with esbuild's keepNames, which wraps named functions in __name(...);
// functions sent into a page carry those calls with them, so every page defines __name.
const DEFINE_NAME = "globalThis.__name = globalThis.__name || ((f) => f);";

/** A tab of one engine. Functions given to `evaluate` run in the page: they take one JSON-like argument. */
export interface Tab {
  /** Uncaught errors (and, in Chromium and Firefox, console errors) of the page. */
  readonly errors: string[];
  evaluate<R>(fn: () => R | Promise<R>): Promise<R>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  goto(url: string): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/** A browser on an on-disk profile. */
export interface EngineBrowser {
  readonly engine: EngineName;
  readonly profileDir: string;
  newTab(): Promise<Tab>;
  /** SIGKILLs every process of the browser at once (no shutdown) and waits until none holds the profile. */
  kill(): Promise<void>;
  /** Closes the browser; the profile stays (for a relaunch). */
  close(): Promise<void>;
  /**
   * WebKit with `keepData` only: SIGKILLs the browser's network process, which holds its
   * IndexedDB (the browser starts a new one), and waits until it is gone; resolves with its pid.
   */
  killStorageProcess?(): Promise<number>;
}

export interface LaunchOptions {
  /**
   * Website data must outlive the browser (for a kill and a relaunch on the profile). Chromium
   * and Firefox keep it anyway. WebKit under WebDriver keeps it in memory only (an automation
   * session is ephemeral), so WebKit then runs without a driver: pages take their orders from
   * a hub over HTTP (see DRIVEN_PAGE_SCRIPT), and only the test page can be driven.
   */
  keepData?: boolean;
  /** Firefox only: preferences set in the profile (e.g. a small fixed storage quota). */
  firefoxPrefs?: Record<string, unknown>;
}

/** Launches `engine` on `profileDir` (a fresh temporary one by default). */
export function launchBrowser(
  engine: EngineName = ENGINE,
  profileDir = mkdtempSync(join(tmpdir(), `attrmap-${engine}-`)),
  options: LaunchOptions = {},
): Promise<EngineBrowser> {
  if (engine === "webkit" && options.keepData) return launchDrivenWebKit(profileDir);
  if (engine === "firefox") return firefoxProfile(profileDir).then((dir) => launchFirefox(dir, options.firefoxPrefs));
  return { chromium: launchChromium, webkit: launchWebKit }[engine](profileDir);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `promise`, or an error naming `what` once `ms` have passed without it settling: a step that
 * hangs fails the test where it hangs (and lets its browsers be disposed) instead of holding the
 * whole file until its timeout.
 */
export function within<T>(what: string, promise: Promise<T>, ms = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${ms / 1000} s waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** How long a browser may take to quit before it is killed. */
const QUIT_BOUND_MS = 10_000;
/** How long a browser may take to die before killGroup gives up, naming what is left. */
const KILL_BOUND_MS = 30_000;

/**
 * Kills the process group of `proc` and waits until none of its live processes (a zombie
 * holds no file), and none naming `profileDir`, is left. The kill is sent again while any is:
 * a process forked while the first kill went through the group escapes it.
 */
async function killGroup(proc: ChildProcess, profileDir: string): Promise<void> {
  const exited = proc.exitCode === null && proc.signalCode === null ? new Promise((r) => proc.once("exit", r)) : undefined;
  const kill = () => {
    try {
      process.kill(-proc.pid!, "SIGKILL");
    } catch {
      // already gone
    }
    spawnSync("pkill", ["-KILL", "-f", profileDir]);
  };
  kill();
  await exited;
  const running = (...args: string[]) => spawnSync("pgrep", args).status === 0;
  const deadline = Date.now() + KILL_BOUND_MS;
  while (running("-r", "D,R,S,T", "-g", String(proc.pid)) || running("-f", profileDir)) {
    if (Date.now() > deadline) {
      const left = spawnSync("pgrep", ["-a", "-f", profileDir], { encoding: "utf8" }).stdout;
      throw new Error(`processes of the browser on ${profileDir} still alive ${KILL_BOUND_MS / 1000} s after SIGKILL:\n${left}`);
    }
    await sleep(50);
    kill();
  }
}

/** A browser whose driver runs `proc` (in a process group of its own) and ends with `quit`. */
function driven(
  engine: EngineName,
  profileDir: string,
  proc: ChildProcess,
  newTab: () => Promise<Tab>,
  quit: () => Promise<unknown>,
): EngineBrowser {
  return {
    engine,
    profileDir,
    newTab,
    kill: () => killGroup(proc, profileDir),
    async close() {
      // A quit that fails or hangs (a driver that lost its browser) is given up for the kill.
      await within("the browser to quit", quit(), QUIT_BOUND_MS).catch(() => undefined);
      await killGroup(proc, profileDir);
    },
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// ---- Chromium: spawned in its own process group, driven by Playwright over CDP ----------

/** Chromium started on `profileDir` in a process group of its own, with its CDP endpoint. */
async function startChromium(profileDir: string): Promise<{ proc: ChildProcess; endpoint: string }> {
  const proc = spawn(
    "/usr/bin/chromium",
    ["--headless=new", ...CHROMIUM_ARGS, `--user-data-dir=${profileDir}`, "--remote-debugging-port=0", "about:blank"],
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = "";
    proc.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]!);
    });
    proc.once("exit", () => reject(new Error(`chromium exited: ${seen}`)));
  });
  return { proc, endpoint };
}

/** Playwright connected to the Chromium at `endpoint`: its (on-disk) default context. */
export async function connectChromium(endpoint: string): Promise<{ context: BrowserContext; disconnect(): Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.connectOverCDP(endpoint);
  return { context: browser.contexts()[0]!, disconnect: () => browser.close() }; // a browser connected over CDP is left running
}

/** Tabs of the Chromium at `endpoint`. */
async function chromiumTabs(endpoint: string): Promise<{ newTab(): Promise<Tab>; disconnect(): Promise<void> }> {
  const { context, disconnect } = await connectChromium(endpoint);
  const newTab = async () => {
    const page = await context.newPage();
    await page.addInitScript(DEFINE_NAME);
    return playwrightTab(page);
  };
  return { newTab, disconnect };
}

async function launchChromium(profileDir: string): Promise<EngineBrowser> {
  const { proc, endpoint } = await startChromium(profileDir);
  const { newTab, disconnect } = await chromiumTabs(endpoint);
  return driven("chromium", profileDir, proc, newTab, disconnect);
}

/** A Tab over a Playwright page (also what the Chromium-only suites use). */
export function playwrightTab(page: PlaywrightPage): Tab {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return {
    errors,
    evaluate: ((fn: (arg: unknown) => unknown, arg?: unknown) => page.evaluate(fn, arg)) as Tab["evaluate"],
    goto: async (url) => void (await page.goto(url)),
    screenshot: async (path) => void (await page.screenshot({ path, fullPage: true })),
    close: () => page.close(),
  };
}

// ---- Firefox: puppeteer-core over WebDriver BiDi ---------------------------------------

let firefoxTemplate: Promise<string> | undefined;

/** `profileDir`, made a copy of the started profile first if it is new or empty (see startedFirefoxProfile). */
async function firefoxProfile(profileDir: string): Promise<string> {
  if (!existsSync(profileDir) || readdirSync(profileDir).length === 0)
    cpSync(await startedFirefoxProfile(), profileDir, { recursive: true });
  return profileDir;
}

/**
 * A Firefox profile that has started once, shared by every test process on the machine (one per
 * Firefox version): a fresh profile's first start writes the files every later start only reads,
 * 3 s of launch here where a profile that has started takes 1.5 s. A new test profile starts as
 * a copy of it; no test runs in it, so it holds no site data.
 */
function startedFirefoxProfile(): Promise<string> {
  firefoxTemplate ??= (async () => {
    const version = spawnSync("/usr/bin/firefox-esr", ["--version"], { encoding: "utf8" }).stdout.trim();
    const path = join(tmpdir(), `attrmap-firefox-profile-${version.replace(/[^\w.]+/g, "-")}`);
    if (existsSync(path)) return path;
    const making = mkdtempSync(join(tmpdir(), "attrmap-firefox-profile-making-"));
    const browser = await launchFirefox(making);
    await (await browser.newTab()).goto("about:blank");
    await browser.close();
    try {
      renameSync(making, path); // whole or not at all: another process may be reading it already
    } catch {
      rmSync(making, { recursive: true, force: true }); // another process made it first
    }
    return path;
  })();
  return firefoxTemplate;
}

/** Firefox started on `profileDir` (its process group its own), driven by puppeteer. */
async function startFirefox(profileDir: string, prefs?: Record<string, unknown>): Promise<PuppeteerBrowser> {
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({
    browser: "firefox",
    executablePath: "/usr/bin/firefox-esr",
    headless: true,
    userDataDir: profileDir,
    protocol: "webDriverBiDi",
    extraPrefsFirefox: prefs,
  });
}

async function launchFirefox(profileDir: string, prefs?: Record<string, unknown>): Promise<EngineBrowser> {
  const browser = await startFirefox(profileDir, prefs);
  return driven("firefox", profileDir, browser.process()!, firefoxTabs(browser), () => browser.close());
}

/** New tabs of a Firefox that puppeteer drives. */
function firefoxTabs(browser: PuppeteerBrowser): () => Promise<Tab> {
  return async () => {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(DEFINE_NAME);
    return puppeteerTab(page);
  };
}

function puppeteerTab(page: PuppeteerPage): Tab {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${errorText(e)}`));
  return {
    errors,
    evaluate: ((fn: (arg: unknown) => unknown, arg?: unknown) => page.evaluate(fn, arg)) as Tab["evaluate"],
    goto: async (url) => void (await page.goto(url)),
    screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png`, fullPage: true })),
    close: () => page.close(),
  };
}

// ---- WebKit: WebKitWebDriver under Xvfb, webdriverio in classic mode --------------------

/** Resolves once something accepts connections on `port` of 127.0.0.1 (the driver has started). */
async function listening(port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
      setTimeout(() => socket.destroy(), 1000);
    });
    if (open) return;
    if (attempt > 200) throw new Error(`WebKitWebDriver did not start listening on port ${port}`);
    await sleep(50);
  }
}

/** WebKit's data, cache and configuration folders, made inside `profileDir`. */
function xdgDirs(profileDir: string): Record<string, string> {
  const dirs: Record<string, string> = {};
  for (const dir of ["data", "cache", "config"]) {
    mkdirSync(join(profileDir, dir), { recursive: true });
    dirs[`XDG_${dir.toUpperCase()}_HOME`] = join(profileDir, dir);
  }
  return dirs;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * WebDriver and the hub answer in JSON; the other drivers keep undefined, NaN, infinities, -0 and bigints,
 * so results are tagged in the page (`encode`) and untagged here, plain objects wrapped so that
 * no object of the test's can be mistaken for a tag.
 */
const ENCODE = `const encode = (v) => {
  if (v === undefined) return { $u: 1 };
  if (typeof v === "bigint") return { $b: String(v) };
  if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))) return { $n: Object.is(v, -0) ? "-0" : String(v) };
  if (Array.isArray(v)) return { $a: v.map(encode) };
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = encode(v[k]);
    return { $o: o };
  }
  return v;
};`;

/**
 * What runs a test's function in a page, for the drivers that only send text: errors of the
 * page are collected in `__attrmapErrors`, and `settle(run, report)` reports how `run` ended.
 */
const IN_PAGE = `${DEFINE_NAME}
if (!globalThis.__attrmapErrors) {
  const seen = (globalThis.__attrmapErrors = []);
  const reason = (e) => (e.reason && e.reason.message) || e.reason;
  addEventListener("error", (e) => seen.push("pageerror: " + e.message));
  addEventListener("unhandledrejection", (e) => seen.push("pageerror: " + reason(e)));
}
${ENCODE}
const settle = (run, report) =>
  Promise.resolve()
    .then(run)
    .then(
      (value) => report({ done: true, value: encode(value) }),
      (e) => report({ done: true, error: String((e && e.stack) || e) }),
    );`;

function decode(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const t = v as { $u?: 1; $b?: string; $n?: string; $a?: unknown[]; $o?: Record<string, unknown> };
  if (t.$u) return undefined;
  if (t.$b !== undefined) return BigInt(t.$b);
  if (t.$n !== undefined) return Number(t.$n);
  if (t.$a) return t.$a.map(decode);
  return Object.fromEntries(Object.entries(t.$o ?? {}).map(([k, x]) => [k, decode(x)]));
}

const WEBKIT_CAPABILITIES = {
  browserName: "MiniBrowser",
  "wdio:enforceWebDriverClassic": true,
  "webkitgtk:browserOptions": {
    binary: MINIBROWSER,
    args: ["--automation", "--javascript-can-open-windows-automatically=true"],
  },
} as WebdriverIO.Capabilities;

/** WebKitWebDriver (under Xvfb, in a process group of its own) and a session of MiniBrowser. */
async function startWebKit(profileDir: string): Promise<{ proc: ChildProcess; wd: WebdriverIO.Browser; port: number }> {
  const port = await freePort();
  // MiniBrowser under automation keeps website data in memory only (an ephemeral session):
  // the profile folder holds what the WebKit processes write (caches), nothing of the origin.
  const proc = spawn("xvfb-run", ["-a", "WebKitWebDriver", `--port=${port}`], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, ...xdgDirs(profileDir) },
  });
  await listening(port);
  const { remote } = await import("webdriverio");
  const wd = await remote({ hostname: "127.0.0.1", port, capabilities: WEBKIT_CAPABILITIES, logLevel: "error" });
  await wd.setTimeout({ script: 600_000 });
  return { proc, wd, port };
}

async function launchWebKit(profileDir: string): Promise<EngineBrowser> {
  const { proc, wd } = await startWebKit(profileDir);
  // The session's first window opens every tab and is never one: a window a script opened can
  // close itself, and the session never runs out of windows.
  const newTab = webkitTabs(wd, await wd.getWindowHandle());
  return driven("webkit", profileDir, proc, newTab, () => wd.deleteSession());
}

/**
 * Classic WebDriver has one current window per session and runs one command at a time, and an
 * async script blocks the session until it ends. So a function is started in its window by one
 * command, its promise settles into a slot of the page, and the slot is polled: tabs run at
 * once. Commands (a window switch and what it is for) are serialized through one queue.
 * New tabs are opened by the window `opener`.
 */
function webkitTabs(wd: WebdriverIO.Browser, opener: string): () => Promise<Tab> {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
  let next = 0;
  const tab = (handle: string): Tab => {
    const errors: string[] = [];
    const inWindow = <T>(work: () => Promise<T>) =>
      serial(async () => {
        await wd.switchToWindow(handle);
        return work();
      });
    return {
      errors,
      async evaluate(fn: (arg: unknown) => unknown, arg?: unknown) {
        const slot = `r${next++}`;
        await inWindow(() =>
          wd.execute(
            `${IN_PAGE}
            const slots = (globalThis.__attrmapSlots = globalThis.__attrmapSlots || {});
            const slot = arguments[0];
            slots[slot] = { done: false };
            settle(() => (${fn.toString()})(arguments[1]), (result) => (slots[slot] = result));`,
            slot,
            arg ?? null,
          ),
        );
        for (;;) {
          const state = (await inWindow(() =>
            wd.execute(
              `const slots = globalThis.__attrmapSlots || {};
              const s = slots[arguments[0]];
              if (s && s.done) delete slots[arguments[0]];
              return { s: s || { lost: true }, errors: (globalThis.__attrmapErrors || []).splice(0) };`,
              slot,
            ),
          )) as { s: { done?: boolean; value?: unknown; error?: string; lost?: boolean }; errors: string[] };
          errors.push(...state.errors);
          if (state.s.lost) throw new Error("the page navigated while a function ran in it");
          if (state.s.error !== undefined) throw new Error(state.s.error);
          if (state.s.done) return decode(state.s.value);
          await sleep(5);
        }
      },
      goto: (url) => inWindow(async () => void (await wd.url(url))),
      screenshot: (path) => inWindow(async () => void (await wd.saveScreenshot(path))),
      // Closed by its own script, not by WebDriver's close (which WebKitWebDriver answers with
      // no windows left, ending webdriverio's session) nor by navigating away (WebKit may keep
      // the page in its back-forward cache, frozen with a transaction open, which then holds
      // every later transaction of the origin).
      close: () => inWindow(async () => void (await wd.execute("window.close()"))),
    } as Tab;
  };
  return () =>
    serial(async () => {
      // WebKitWebDriver's "new window" answers the current window; a page's window.open opens one.
      await wd.switchToWindow(opener);
      const before = new Set(await wd.getWindowHandles());
      await wd.execute("window.open('about:blank', '_blank')");
      for (;;) {
        const opened = (await wd.getWindowHandles()).find((h) => !before.has(h));
        if (opened !== undefined) return tab(opened);
        await sleep(20);
      }
    });
}

// ---- WebKit without a driver: MiniBrowser keeps its data, pages are driven over HTTP ------

/**
 * What the test page runs when its URL's hash says `drive=<hub>`: it asks the hub for functions
 * (a long poll), runs each as it comes, concurrently, and posts the tagged result back.
 */
export const DRIVEN_PAGE_SCRIPT = `(() => {
  const hub = new URLSearchParams(location.hash.slice(1)).get("drive");
  if (!hub) return;
  ${IN_PAGE}
  const send = (m) => fetch(hub + "/done", { method: "POST", body: JSON.stringify({ ...m, errors: __attrmapErrors.splice(0) }) });
  const next = () => fetch(hub + "/next", { cache: "no-store" }).then((r) => (r.status === 200 ? r.json() : undefined));
  (async () => {
    for (;;) {
      const job = await next().catch(() => new Promise((r) => setTimeout(r, 100))); // undefined, a moment later
      if (job) settle(() => (0, eval)("(" + job.fn + ")")(job.arg), (result) => send({ id: job.id, ...result }));
    }
  })();
})();`;

interface DrivenTab {
  jobs: string[];
  /** The page's open long poll, if it waits for a job. */
  poll?: ServerResponse;
  /** Resolves when the page (after a navigation) first asks for a job. */
  connected?: () => void;
}

/**
 * MiniBrowser launched on the test page's URL, without --automation, keeps website data in
 * the profile (XDG_DATA_HOME) across a kill. More tabs are opened by a driven page's
 * window.open; a hub on a port of its own (CORS open) hands out the functions.
 */
async function launchDrivenWebKit(profileDir: string): Promise<EngineBrowser> {
  const tabs = new Map<string, DrivenTab>();
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; errors: string[] }>();
  let nextJob = 0;
  const hub = createHttpServer((req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    const [, tabId, verb] = /^\/tab\/(\d+)\/(next|done)$/.exec(req.url ?? "") ?? [];
    const tab = tabs.get(tabId ?? "");
    if (!tab) return void res.writeHead(404).end();
    if (verb === "next") {
      tab.connected?.();
      tab.connected = undefined;
      const job = tab.jobs.shift();
      if (job !== undefined) return void res.writeHead(200, { "content-type": "application/json" }).end(job);
      tab.poll = res;
      const drop = () => tab.poll === res && (tab.poll = undefined);
      res.setTimeout(20_000, () => {
        drop();
        res.writeHead(204).end(); // the page asks again
      });
      res.once("close", drop);
      return;
    }
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      res.writeHead(204).end();
      const done = JSON.parse(body) as { id: number; value?: unknown; error?: string; errors: string[] };
      const job = waiting.get(done.id);
      waiting.delete(done.id);
      job?.errors.push(...done.errors);
      if (done.error !== undefined) job?.reject(new Error(done.error));
      else job?.resolve(decode(done.value));
    });
  });
  await new Promise<void>((ok) => hub.listen(0, "127.0.0.1", ok));
  const hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}`;
  const send = (tab: DrivenTab, job: object) => {
    const text = JSON.stringify(job);
    if (tab.poll && !tab.poll.writableEnded) {
      tab.poll.writeHead(200, { "content-type": "application/json" }).end(text);
      tab.poll = undefined;
    } else tab.jobs.push(text);
  };
  /**
   * Sends a page to `url` without waiting for an answer (the page may be gone before its answer
   * is sent), and forgets its long poll: work sent now waits for the next page's first poll.
   */
  const navigate = (tab: DrivenTab, url: string) => {
    send(tab, { id: -1, fn: "(u) => void location.assign(u)", arg: url });
    tab.poll = undefined;
  };
  let proc: ChildProcess | undefined;
  let home: Promise<Tab> | undefined;
  const drivenUrl = (url: string, id: string) => `${url.replace(/#.*/, "")}#drive=${encodeURIComponent(`${hubUrl}/tab/${id}`)}`;
  /** The window MiniBrowser starts with, on the first page asked for: it opens every tab and is never closed. */
  const opener = (url: string) =>
    (home ??= (async () => {
      const tab = makeTab();
      const connected = new Promise<void>((r) => (tab.state.connected = r));
      proc = spawn("xvfb-run", ["-a", MINIBROWSER, "--javascript-can-open-windows-automatically=true", drivenUrl(url, tab.id)], {
        detached: true,
        stdio: "ignore",
        env: { ...process.env, ...xdgDirs(profileDir) },
      });
      await connected;
      return tab.tab;
    })());
  const makeTab = () => {
    const id = String(tabs.size + 1);
    const state: DrivenTab = { jobs: [] };
    tabs.set(id, state);
    let open = false;
    const errors: string[] = [];
    const tab: Tab = {
      errors,
      evaluate: ((fn: (arg: unknown) => unknown, arg?: unknown) =>
        new Promise((resolve, reject) => {
          const job = nextJob++;
          waiting.set(job, { resolve, reject, errors });
          send(state, { id: job, fn: fn.toString(), arg: arg ?? null });
        })) as Tab["evaluate"],
      async goto(url) {
        const driven = drivenUrl(url, id);
        const connected = new Promise<void>((r) => (state.connected = r));
        if (open) navigate(state, driven);
        else await (await opener(url)).evaluate((u) => void window.open(u, "_blank"), driven);
        open = true;
        const late = setTimeout(
          () => state.connected && console.error(`tab ${id}: ${driven} has not asked for work in 30 s`),
          30_000,
        );
        await connected;
        clearTimeout(late);
      },
      screenshot: () => Promise.reject(new Error("WebKit without a driver takes no screenshots")),
      // Closed by its own script (its opener's window.open made it closable), as under WebDriver.
      close: async () => {
        send(state, { id: -1, fn: "() => void window.close()", arg: null });
        state.poll = undefined;
      },
    };
    return { id, state, tab };
  };
  const newTab = async () => makeTab().tab;
  let stopped: Promise<void> | undefined;
  // No shutdown is gentler than a kill for MiniBrowser: what committed is on disk either way.
  const stop = () =>
    (stopped ??= (async () => {
      if (proc) await killGroup(proc, profileDir);
      hub.closeAllConnections();
      await new Promise((ok) => hub.close(ok));
      for (const job of waiting.values()) job.reject(new Error("the browser was killed"));
    })());
  const killStorageProcess = async () => {
    const found = spawnSync("pgrep", ["-g", String(proc?.pid), "-f", "WebKitNetworkProcess"], { encoding: "utf8" });
    const pid = Number(found.stdout.trim().split(/\s+/)[0]);
    if (!proc || !pid) throw new Error("no network process of the browser to kill");
    process.kill(pid, "SIGKILL");
    // Dead once gone, or a zombie its parent has not reaped yet.
    while (
      spawnSync("pgrep", ["-r", "D,R,S,T", "-g", String(proc.pid), "-f", "WebKitNetworkProcess"]).stdout.includes(String(pid))
    )
      await sleep(20);
    return pid;
  };
  return { engine: "webkit", profileDir, newTab, kill: stop, close: stop, killStorageProcess };
}

// ---- One browser for a whole suite ----------------------------------------------------

/** The environment variable that tells a suite's test files where its browser is (JSON, SuiteBrowserAddress). */
export const SUITE_BROWSER = "ATTRMAP_SUITE_BROWSER";

/** Where a suite's browser (suite-browser.ts) is. */
export interface SuiteBrowserAddress {
  engine: EngineName;
  profileDir: string;
  /** A file each new server of the suite appends to: its length numbers the suite's servers (harness.ts). */
  ports: string;
  /** Chromium's CDP endpoint, or Firefox's WebDriver BiDi one. */
  endpoint?: string;
  /** WebKit's WebDriver session, and its window that opens every tab. */
  webdriver?: { port: number; sessionId: string; opener: string };
}

/** Starts a suite's browser of `engine` on a new profile: where it is, and `stop` (which removes the profile). */
export async function startSuiteBrowser(engine: EngineName): Promise<{ address: SuiteBrowserAddress; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `attrmap-suite-${engine}-`));
  const base = { engine, profileDir: join(dir, "profile"), ports: join(dir, "ports") };
  let proc: ChildProcess;
  let address: SuiteBrowserAddress;
  let quit = async () => {};
  if (engine === "chromium") {
    const started = await startChromium(base.profileDir);
    proc = started.proc;
    address = { ...base, endpoint: started.endpoint };
  } else if (engine === "firefox") {
    const browser = await startFirefox(await firefoxProfile(base.profileDir));
    proc = browser.process()!;
    address = { ...base, endpoint: browser.wsEndpoint() };
    await browser.disconnect(); // Firefox has one WebDriver BiDi session at a time: the files' own
  } else {
    const started = await startWebKit(base.profileDir);
    proc = started.proc;
    const { wd, port } = started;
    address = { ...base, webdriver: { port, sessionId: wd.sessionId, opener: await wd.getWindowHandle() } };
    quit = () => wd.deleteSession();
  }
  return {
    address,
    async stop() {
      await within("the browser to quit", quit(), QUIT_BOUND_MS).catch(() => undefined);
      await killGroup(proc, base.profileDir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The address of the suite's browser of ENGINE, if this test file runs under one. */
export function suiteBrowserAddress(): SuiteBrowserAddress | undefined {
  const text = process.env[SUITE_BROWSER];
  const address = text === undefined ? undefined : (JSON.parse(text) as SuiteBrowserAddress);
  return address?.engine === ENGINE ? address : undefined;
}

/**
 * The suite's browser connected for one test file: the tabs it opens are the file's, and `close`
 * closes them and lets go (the browser stays for the next file); it cannot be killed.
 */
async function connectSuiteBrowser(address: SuiteBrowserAddress): Promise<EngineBrowser> {
  let newTab: () => Promise<Tab>;
  let disconnect = async () => {};
  if (address.engine === "chromium") ({ newTab, disconnect } = await chromiumTabs(address.endpoint!));
  else if (address.engine === "firefox") {
    const { default: puppeteer } = await import("puppeteer-core");
    const browser = await puppeteer.connect({ browserWSEndpoint: address.endpoint!, protocol: "webDriverBiDi" });
    newTab = firefoxTabs(browser);
    disconnect = () => browser.disconnect(); // ends the session: the next file starts its own
  } else {
    const { attach } = await import("webdriverio");
    const { port, sessionId, opener } = address.webdriver!;
    const wd = await attach({ sessionId, hostname: "127.0.0.1", port, capabilities: WEBKIT_CAPABILITIES });
    newTab = webkitTabs(wd, opener);
    // The session's current window must be one that stays open: the next file's attach asks for it.
    disconnect = async () => void (await wd.switchToWindow(opener));
  }
  const open = new Set<Tab>();
  return {
    engine: address.engine,
    profileDir: address.profileDir,
    newTab: async () => {
      const tab = await newTab();
      open.add(tab);
      const close = tab.close;
      return Object.assign(tab, {
        close: () => {
          open.delete(tab);
          return close();
        },
      });
    },
    kill: () => Promise.reject(new Error("a suite's browser is shared by its files: a test that kills one launches its own")),
    async close() {
      // A tab that closed itself (window.close() in the page) is already gone.
      for (const tab of open) await within("a tab to close", tab.close(), QUIT_BOUND_MS).catch(() => undefined);
      await disconnect();
    },
  };
}

/**
 * A browser of ENGINE on an on-disk profile for one test file: the suite's, connected, if the
 * file runs under suite-browser.ts, else one launched for it. `release` lets go of the suite's
 * (its tabs closed) or closes the launched one and removes its profile.
 */
export async function browserForFile(): Promise<{ browser: EngineBrowser; release(): Promise<void> }> {
  const suite = suiteBrowserAddress();
  const browser = suite ? await connectSuiteBrowser(suite) : await launchBrowser();
  return { browser, release: () => (suite ? browser.close() : dispose(browser)) };
}

/** Closes a browser and removes its profile folder. */
export async function dispose(browser: EngineBrowser): Promise<void> {
  await browser.close();
  rmSync(browser.profileDir, { recursive: true, force: true });
}
