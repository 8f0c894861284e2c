// The README's recipes for other frameworks, as written: the Vue composable type-checks under
// strict TypeScript and runs with Vue's own reactivity (an effect scope, as a component has).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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
