// The README's recipes for other frameworks, as written: the Vue composable type-checks under
// strict TypeScript and runs with Vue's own reactivity (an effect scope, as a component has);
// and every code block of the README and docs/ (JavaScript, the React and Svelte examples)
// type-checks as a TypeScript user would paste it, under the strictest settings.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Attrmap, InProcessLocks, openAttrmap } from "attrmap";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import ts from "typescript";
import { effectScope, type Ref } from "vue";
import { appFolder, TESTS } from "../browser/apps.js";
import { until } from "../browser/harness.js";
import { typeCheck } from "./type-checks.js";

const README = readFileSync(join(TESTS, "../README.md"), "utf8");
const VUE = /<!-- recipe: vue -->\n```ts\n([\s\S]*?)```/.exec(README)![1]!;
const folder = appFolder("recipes", { "use-live-query.ts": VUE });
after(() => folder.remove());
/** What the recipe exports, as the README writes it. */
interface VueRecipe {
  useLiveQuery<T>(store: Attrmap, query: (s: Attrmap) => Promise<T> | T): { value: Ref<T | undefined>; error: Ref<unknown> };
}

test("the Vue recipe type-checks, strict", typeCheck, () => {
  const file = join(folder.dir, "use-live-query.ts");
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  assert.deepEqual(
    ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    [],
  );
});

/** The strictest settings a user's project has; `lib` and what a file declares differ by where a snippet runs. */
const STRICTEST: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noPropertyAccessFromIndexSignature: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
};

/** Every js, jsx, tsx and svelte block of the README and docs/ (a Svelte block's script), with where it runs. */
const DOC_BLOCKS = ["README.md", ...readdirSync(join(TESTS, "../docs")).map((f) => `docs/${f}`)].flatMap((file) =>
  [
    ...readFileSync(join(TESTS, "..", file), "utf8").matchAll(
      /(?:<!-- snippet: ([a-z-]+) -->\n)?```(js|jsx|tsx|svelte)\n([\s\S]*?)```/g,
    ),
  ].map(([, where, lang, code], i) => ({
    name: `${file.replace(/\W/g, "-")}-${i}.${lang === "js" || lang === "svelte" ? "ts" : "tsx"}`,
    where: where ?? lang!,
    code: lang === "svelte" ? /<script[^>]*>([\s\S]*?)<\/script>/.exec(code!)![1]! : code!,
  })),
);

/** What a strict user passes on from optional values of their own: undefined where a field is optional, null where documented. */
const MAYBE = `import { openAttrmap } from "attrmap";
declare const maybe: string | undefined;
declare const count: number | undefined;
const store = openAttrmap({ name: maybe, locks: undefined });
await store.partitionedMap("m", { partitionCount: count, keyRule: undefined });
await store.chunkedLog("l", { chunkSize: count });
const directory = await store.customerDirectory({ partitionCount: undefined, mapName: maybe });
await directory.upsertProfile({ emailAddress: "a@example.com", fullName: maybe, companyName: null, customerTier: undefined });
const log = await store.chunkedLog<number>("n");
const first = await log.page({ limit: 10 });
await log.page({ before: first.older, limit: 10 });
await log.page({ after: first.newer, limit: 10 });
const map = await store.partitionedMap<number>("p");
await map.page({ after: (await map.page({ limit: 1 })).next, limit: 1 });
await map.upsert("k", 1, { lock: undefined, timeoutMs: count, signal: undefined });`;

test(
  "every code block of the README and docs/ type-checks as TypeScript, strict and exactOptionalPropertyTypes",
  typeCheck,
  () => {
    assert.ok(DOC_BLOCKS.length >= 12, `${DOC_BLOCKS.length} blocks`);
    assert.deepEqual([...new Set(DOC_BLOCKS.map((b) => b.where))].sort(), [
      "node",
      "page",
      "service-worker",
      "svelte",
      "tsx",
      "worker",
    ]);
    const checked = [...DOC_BLOCKS, { name: "maybe.ts", where: "page", code: MAYBE }];
    const blocks = appFolder(
      "doc-blocks",
      Object.fromEntries(
        checked.map((b) => [
          b.name,
          // A service worker in TypeScript says what `self` is, as TypeScript's own docs have it.
          `${b.where === "service-worker" ? "declare const self: ServiceWorkerGlobalScope;\n" : ""}${b.code}\nexport {};\n`,
        ]),
      ),
    );
    try {
      const compile = (where: (w: string) => boolean, lib: string[], types: string[]) => {
        const files = checked.filter((b) => where(b.where)).map((b) => join(blocks.dir, b.name));
        const program = ts.createProgram(files, { ...STRICTEST, lib, types });
        return ts.getPreEmitDiagnostics(program).map((d) => {
          const at = d.file
            ? `${d.file.fileName.slice(blocks.dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1}`
            : "";
          return `${at} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
        });
      };
      const workers = (w: string) => w === "worker" || w === "service-worker";
      assert.deepEqual(
        compile((w) => !workers(w), ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"], ["node"]),
        [],
      );
      assert.deepEqual(compile(workers, ["lib.es2022.d.ts", "lib.webworker.d.ts"], []), []);
    } finally {
      blocks.remove();
    }
  },
);

/**
 * What the README's prose calls its values: an inline call such as `map.page({ after, limit })`
 * type-checks with these in scope, or it is not a call a reader can paste.
 */
const PROSE_VALUES = `
import type { Attrmap, Change, PartitionedMap, ChunkedLog, LogRecord, ScopeItem, Transaction } from "attrmap";
import type { DexExportOptions, DexMapNames } from "attrmap/dex";
declare const store: Attrmap;
declare const map: PartitionedMap<unknown>;
declare const log: ChunkedLog<unknown, LogRecord<unknown>>;
declare const query: (s: Attrmap) => Promise<unknown>;
declare const scope: ScopeItem[];
declare const work: (tx: Transaction) => Promise<unknown>;
declare const options: DexExportOptions;
declare const names: Record<string, DexMapNames>;
declare const flowId: string, name: string, token: string, key: string, value: string, file: Blob;
declare const since: number, sequence: number, n: number, limit: number;
declare const older: number | null, newer: number | null, next: string | null;
declare const response: { attributes: [] };
declare const locks: LockManager;
declare const listener: (change: Change) => void;
`;

/** Inline code of the README's prose that calls something of attrmap's (not another library's, not elided with "..."). */
function proseCalls(exported: Set<string>): string[] {
  const prose = README.replace(/```[\s\S]*?```/g, "");
  const known = new Set([...exported, ...[...PROSE_VALUES.matchAll(/declare const (\w+)/g)].map((m) => m[1]!)]);
  return [...new Set([...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))].filter(
    (code) => /^[\w$.<>, ]+\(.*\)[\w.()]*$/.test(code) && !code.includes("...") && known.has(/^\w+/.exec(code)![0]),
  );
}

test("every call the README's prose shows in code type-checks as written, strict", typeCheck, async () => {
  const entries = ["attrmap", "attrmap/dex", "attrmap/export-import", "attrmap/http", "attrmap/react"];
  const imported = await Promise.all(entries.map(async (e) => [e, Object.keys(await import(e))] as const));
  const calls = proseCalls(new Set(imported.flatMap(([, names]) => names)));
  assert.ok(calls.length >= 25, `${calls.length} calls: ${calls.join(", ")}`);
  // Only what the calls use: an entry's other exports could clash with the context's types.
  const used = new Set(calls.map((c) => /^\w+/.exec(c)![0]));
  const imports = imported
    .map(([entry, names], i) => {
      const own = names.filter((n) => used.has(n) && !imported.slice(0, i).some(([, earlier]) => earlier.includes(n)));
      return own.length ? `import { ${own.join(", ")} } from "${entry}";` : "";
    })
    .join("\n");
  const body = calls.map((c, i) => `export async function call${i}() { return await ${c}; }`).join("\n");
  const folder = appFolder("prose-calls", { "calls.ts": `${imports}\n${PROSE_VALUES}\n${body}\n` });
  try {
    const file = join(folder.dir, "calls.ts");
    const program = ts.createProgram([file], {
      ...STRICTEST,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      types: [],
    });
    const source = program.getSourceFile(file)!;
    const failed = ts.getPreEmitDiagnostics(program).map((d) => {
      const line = source.getLineAndCharacterOfPosition(d.start ?? 0).line;
      const call = /export async function call(\d+)/.exec(source.text.split("\n")[line] ?? "")?.[1];
      const where = call === undefined ? "(context)" : calls[Number(call)];
      return `\`${where}\`: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    });
    assert.deepEqual(failed, []);
  } finally {
    folder.remove();
  }
});

test("the Vue recipe follows writes in its scope and stops with it", async () => {
  const { useLiveQuery } = (await import(join(folder.dir, "use-live-query.ts"))) as VueRecipe;
  const store = openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
  const settings = await store.partitionedMap<string>("settings");
  const scope = effectScope();
  const runs: unknown[] = [];
  const { value, error } = scope.run(() =>
    useLiveQuery(store, async (s) => {
      const theme = await (await s.partitionedMap<string>("settings")).get("theme");
      runs.push(theme);
      if (theme === "broken") throw new Error("no such theme");
      return theme;
    }),
  )!;
  await until("the first run", async () => runs.length === 1, 10_000);
  await settings.upsert("theme", "dark");
  await until("the value after a write", async () => value.value === "dark", 10_000);
  await settings.upsert("theme", "broken");
  await until("the error", async () => (error.value as Error | undefined)?.message === "no such theme", 10_000);
  scope.stop();
  await settings.upsert("theme", "light");
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(runs, [undefined, "dark", "broken"], "no run after the scope stopped");
});
