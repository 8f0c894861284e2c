// The package in every engine: imported as an ES module by a page and by a module worker
// (the inlined wasm compiles synchronously in both), and through its browser entry (the wasm
// file fetched and compiled streaming), running every cross-SDK vector; and the export
// verifier's module, loaded at the first import, in a page and in a module service worker.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ENGINE } from "./engines.js";
import { type Tab, useProfile } from "./harness.js";
import { RUN_VECTORS, vectors } from "./vector-runner.js";

const env = useProfile();

/** A tab on a same-origin document that is not the test page (nothing imported yet). */
async function openBlank(): Promise<Tab> {
  const tab = await env.browser.newTab();
  await tab.goto(`${env.server.origin}/style.css`);
  return tab;
}

/** Imports the package's `entry` into a page and runs every vector there; asserts they all pass. */
async function passesVectorsInPage(tab: Tab, entry: string): Promise<void> {
  const result = await tab.evaluate(
    // biome-ignore lint/security/noGlobalEval: the vector runner, sent into the page as text
    ([src, url, v]) => globalThis.eval(src)(url, v) as Promise<{ fails: string[]; checked: number }>,
    [RUN_VECTORS, `${env.server.origin}/attrmap/${entry}`, vectors] as const,
  );
  assert.deepEqual(result.fails, []);
  assert.ok(result.checked > 240, `checked ${result.checked}`);
}

test(`${ENGINE}: a page imports the package and passes every vector`, async () => {
  const tab = await openBlank();
  await passesVectorsInPage(tab, "dist/index.js");
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: the export verifier's wasm file is fetched at the first import, not with the entry`, async () => {
  const tab = await openBlank();
  const fetched = () =>
    tab.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname.split("/").pop()));
  const summary = await tab.evaluate(async (origin) => {
    const core = await import(`${origin}/attrmap/dist/browser/index.js`);
    const exportImport = await import(`${origin}/attrmap/dist/export-import/index.js`);
    const store = core.openAttrmap({ name: "verifier-file" });
    await (await store.partitionedMap("m")).upsert("k", 1);
    const file = await exportImport.exportText(store);
    (window as unknown as { started: () => Promise<unknown> }).started = () =>
      exportImport.importData(core.openAttrmap({ name: "verifier-copy" }), file);
    return file.split("\n").length;
  }, env.server.origin);
  assert.ok(summary > 2);
  const before = await fetched(); // the verifier's glue comes with the entry; its module does not
  assert.ok(!before.some((f) => f === "attrmap_verifier_bg.wasm" || f === "attrmap_verifier_inline.js"), before.join(", "));
  assert.deepEqual(await tab.evaluate(() => (window as unknown as { started: () => Promise<unknown> }).started()), {
    maps: 1,
    instances: 1,
    entries: 1,
  });
  const after = await fetched();
  assert.ok(after.includes("attrmap_verifier_bg.wasm"), after.join(", "));
  assert.ok(!after.includes("attrmap_verifier_inline.js"), after.join(", "));
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

// A service worker forbids top-level await and import(): the verifier's file must start there.
const IMPORTING_SERVICE_WORKER = `
import { openAttrmap } from "/attrmap/dist/index.js";
import { exportText, importData } from "/attrmap/dist/export-import/index.js";
self.addEventListener("message", (event) => {
  const copy = async () => {
    const source = openAttrmap({ name: "sw-source" });
    await (await source.partitionedMap("m")).upsert("k", 1);
    return { summary: await importData(openAttrmap({ name: "sw-copy" }), await exportText(source), { replace: true }) };
  };
  event.waitUntil(copy().catch((e) => ({ error: String(e) })).then((answer) => event.source.postMessage(answer)));
});`;

test(`${ENGINE}: a module service worker exports and imports (the verifier's module starts from its file there)`, async () => {
  env.server.files.set("/importing-sw.js", { type: "text/javascript", body: IMPORTING_SERVICE_WORKER });
  const tab = await openBlank();
  const answer = await tab.evaluate(async () => {
    const registration = await navigator.serviceWorker.register("/importing-sw.js", { type: "module", scope: "/importing/" });
    const worker = (registration.installing ?? registration.waiting ?? registration.active)!;
    await new Promise<void>((resolve) => {
      if (worker.state === "activated") resolve();
      else worker.addEventListener("statechange", () => worker.state === "activated" && resolve());
    });
    return new Promise<unknown>((resolve) => {
      navigator.serviceWorker.onmessage = (e) => resolve(e.data);
      worker.postMessage("copy");
    });
  });
  assert.deepEqual(answer, { summary: { maps: 1, instances: 1, entries: 1 } });
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: a module worker imports the package and passes every vector`, async () => {
  const tab = await openBlank();
  const result = await tab.evaluate(
    ([src, url, v]) =>
      new Promise<{ fails: string[]; checked: number }>((resolve, reject) => {
        const code = `self.onmessage = async (e) => {
          try { postMessage(await (${src})(e.data.url, e.data.v)); } catch (err) { postMessage({ crash: String(err) }); }
        };`;
        const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => (e.data.crash ? reject(new Error(e.data.crash)) : resolve(e.data));
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage({ url, v });
      }),
    [RUN_VECTORS, `${env.server.origin}/attrmap/dist/index.js`, vectors] as const,
  );
  assert.deepEqual(result.fails, []);
  assert.ok(result.checked > 240);
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: a page imports the browser entry: the wasm file is fetched, the inlined module never loads`, async () => {
  const tab = await openBlank();
  await passesVectorsInPage(tab, "dist/browser/index.js");
  const loaded = await tab.evaluate(() =>
    performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname.replace(/^.*\/attrmap\//, "")),
  );
  assert.ok(loaded.includes("wasm/attrmap_bg.wasm"), loaded.join(", "));
  assert.ok(loaded.includes("dist/init-streaming.js"), loaded.join(", "));
  assert.deepEqual(
    loaded.filter((path) => ["dist/index.js", "dist/init.js", "wasm/attrmap_inline.js"].includes(path)),
    [],
    "nothing of the inlined entry",
  );
  assert.deepEqual(tab.errors, []);
  await tab.close();
});
