// The package in every engine: imported as an ES module by a page and by a module worker
// (the inlined wasm compiles synchronously in both), and through its browser entry (the wasm
// file fetched and compiled streaming), running every cross-SDK vector; and the export
// verifier's and the maintenance modules, loaded at their first calls, in a page and in a
// module service worker.
import assert from "node:assert/strict";
import { test } from "node:test";
import { refPartition } from "../shared/reference.js";
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

/** The file names `tab` has fetched so far. */
const fetched = (tab: Tab) =>
  tab.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname.split("/").pop()));

/**
 * Asserts that the tab has not fetched wasm module `name` (nor its inlined copy) yet, that
 * `window.started()` (left by the test) answers `expected`, and that it fetched the file then.
 */
async function loadsAtFirstCall(tab: Tab, name: string, expected: unknown): Promise<void> {
  const files = [`${name}_bg.wasm`, `${name}_inline.js`];
  const before = await fetched(tab); // the module's glue comes with the entry; the module does not
  assert.ok(!before.some((f) => files.includes(f!)), before.join(", "));
  assert.deepEqual(await tab.evaluate(() => (window as unknown as { started: () => Promise<unknown> }).started()), expected);
  const after = await fetched(tab);
  assert.ok(after.includes(files[0]), after.join(", "));
  assert.ok(!after.includes(files[1]), after.join(", "));
  assert.deepEqual(tab.errors, []);
}

test(`${ENGINE}: the export verifier's wasm file is fetched at the first import, not with the entry`, async () => {
  const tab = await openBlank();
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
  await loadsAtFirstCall(tab, "attrmap_verifier", { maps: 1, instances: 1, entries: 1 });
  await tab.close();
});

test(`${ENGINE}: the maintenance wasm file is fetched at the first chunk-size change, not with the entry`, async () => {
  const tab = await openBlank();
  await tab.evaluate(async (origin) => {
    const { openAttrmap } = await import(`${origin}/attrmap/dist/browser/index.js`);
    const log = await openAttrmap({ name: "maintenance-file" }).chunkedLog("l");
    await log.appendMany([1, 2, 3, 4, 5]);
    const sequences = (page: { records: { sequence: number }[] }) => page.records.map((r) => r.sequence);
    (window as unknown as { started: () => Promise<unknown> }).started = async () => {
      await log.changeChunkSize(2); // archives records 1-5 as a shorter chunk
      await log.appendMany([6, 7, 8]); // 6-7 fill a chunk of 2; 8 is current
      const newest = await log.page();
      const dropped = await log.dropArchivesBefore(newest.nextPageToken); // the chunk of 1-5
      const older = await log.page(newest.nextPageToken);
      return { dropped, newest: sequences(newest), older: sequences(older), next: older.nextPageToken };
    };
  }, env.server.origin);
  // docs/chunked-log.md: chunks of 2 from record 6 on; retention drops whole chunks; the oldest retained page ends the chain.
  await loadsAtFirstCall(tab, "attrmap_maintenance", { dropped: 1, newest: [8], older: [7, 6], next: "" });
  await tab.close();
});

test(`${ENGINE}: the maintenance wasm file is fetched at the first resize, not with the entry`, async () => {
  const tab = await openBlank();
  await tab.evaluate(async (origin) => {
    const { openAttrmap } = await import(`${origin}/attrmap/dist/browser/index.js`);
    const map = await openAttrmap({ name: "maintenance-resize" }).partitionedMap("m", { partitionCount: 10 });
    await map.upsertMany([
      ["alice@example.com", 1],
      ["bob@example.com", 2],
    ]);
    (window as unknown as { started: () => Promise<unknown> }).started = async () => {
      await map.resize(1000);
      return { sizes: Object.fromEntries(await map.partitionSizes()), bob: await map.get("bob@example.com") };
    };
  }, env.server.origin);
  // SPEC's golden values: the two keys' partitions of 1000 (FNV-1a of the key as it is).
  await loadsAtFirstCall(tab, "attrmap_maintenance", { sizes: { "partition-145": 1, "partition-278": 1 }, bob: 2 });
  await tab.close();
});

// A service worker forbids top-level await and import(): the verifier's and the maintenance
// modules' files must start there.
const IMPORTING_SERVICE_WORKER = `
import { openAttrmap } from "/attrmap/dist/index.js";
import { exportText, importData } from "/attrmap/dist/export-import/index.js";
self.addEventListener("message", (event) => {
  const copy = async () => {
    const source = openAttrmap({ name: "sw-source" });
    await (await source.partitionedMap("m")).upsert("k", 1);
    const log = await source.chunkedLog("l");
    await log.appendMany([1, 2, 3]);
    await log.changeChunkSize(2);
    const summary = await importData(openAttrmap({ name: "sw-copy" }), await exportText(source), { replace: true });
    const { chunkSize, archivedChunks, currentRecords } = await log.stats();
    return { summary, chunkSize, archivedChunks, currentRecords };
  };
  event.waitUntil(copy().catch((e) => ({ error: String(e) })).then((answer) => event.source.postMessage(answer)));
});`;

/** Registers `body` as the module service worker of `scope`, sends it a message and answers its reply. */
async function askServiceWorker(tab: Tab, file: string, body: string): Promise<unknown> {
  env.server.files.set(file, { type: "text/javascript", body });
  return tab.evaluate(async (url) => {
    const registration = await navigator.serviceWorker.register(url, { type: "module", scope: `${url}-scope/` });
    const worker = (registration.installing ?? registration.waiting ?? registration.active)!;
    await new Promise<void>((resolve) => {
      if (worker.state === "activated") resolve();
      else worker.addEventListener("statechange", () => worker.state === "activated" && resolve());
    });
    return new Promise<unknown>((resolve) => {
      navigator.serviceWorker.onmessage = (e) => resolve(e.data);
      worker.postMessage("go");
    });
  }, file);
}

test(`${ENGINE}: a module service worker exports, imports, changes a chunk size (late modules start from files)`, async () => {
  const tab = await openBlank();
  const answer = await askServiceWorker(tab, "/importing-sw.js", IMPORTING_SERVICE_WORKER);
  // Two maps: one partition; the log's archive of records 1-3 (archived at the change of chunk
  // size, docs/chunked-log.md) and its emptied current.
  assert.deepEqual(answer, {
    summary: { maps: 2, instances: 3, entries: 4 },
    chunkSize: 2,
    archivedChunks: 1,
    currentRecords: 0,
  });
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: a service worker of "attrmap/browser" is told to import "attrmap" at a call whose code loads late`, async () => {
  const tab = await openBlank();
  const answer = await askServiceWorker(
    tab,
    "/browser-entry-sw.js",
    `import { openAttrmap } from "/attrmap/dist/browser/index.js";
self.addEventListener("message", (event) => {
  const run = async () => {
    const store = openAttrmap({ name: "sw-browser-entry" });
    const map = await store.partitionedMap("m");
    await map.upsert("k", 1); // the core's calls load at start
    try {
      await store.transaction([map.at("k")], async () => {});
      return { value: await map.get("k"), transaction: "ran" };
    } catch (e) {
      return { value: await map.get("k"), code: e.code, message: e.message };
    }
  };
  event.waitUntil(run().catch((e) => ({ error: String(e) })).then((answer) => event.source.postMessage(answer)));
});`,
  );
  // A service worker may not import() (the HTML specification): the error says what to do instead.
  assert.deepEqual(answer, {
    value: 1,
    code: "unavailable",
    message:
      'store.transaction() loads its code at the first call, and a service worker may not import(): import "attrmap" ' +
      'in a service worker (not "attrmap/browser"), which loads every part at start',
  });
  await tab.close();
});

test(`${ENGINE}: a page of "attrmap/browser" fetches the code of each part it did not use, at its first call`, async () => {
  const tab = await openBlank();
  await tab.evaluate(async (origin) => {
    const { openAttrmap } = await import(`${origin}/attrmap/dist/browser/index.js`);
    const exportImport = await import(`${origin}/attrmap/dist/export-import/index.js`);
    const dex = await import(`${origin}/attrmap/dist/dex/index.js`);
    const store = openAttrmap({ name: "late-parts" });
    const map = await store.partitionedMap("m", { partitionCount: 4 });
    await map.upsertMany([
      ["a", { n: 1 }],
      ["b", { n: 2 }],
    ]);
    const log = await store.chunkedLog("l", { chunkSize: 2 });
    await log.appendMany([1, 2, 3, 4, 5]);
    await log.page();
    const all = async <T>(items: AsyncIterable<T>) => {
      const out: T[] = [];
      for await (const item of items) out.push(item);
      return out;
    };
    // Each call, after the module file it needs (its path in dist/), in the order the test makes them.
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["indexes/catalog.js indexes/entries.js idb/entry-store.js", async () => (await map.createIndex("byN", "n")) === map],
      ["indexes/index-reads.js", () => map.where("byN").above(1).keys()],
      ["maps/map-pages.js", async () => (await map.page({ limit: 1 })).entries.map(([k]: [string]) => k)],
      ["logs/log-iteration.js", async () => (await all<{ sequence: number }>(log.records())).map((r) => r.sequence)],
      ["feed/change-feed.js", async () => (await store.changes({ limit: 1 })).changes.length],
      [
        "transactions/transaction.js",
        () =>
          store.transaction(
            [map.at("a")],
            async (tx: { upsert: (...a: unknown[]) => Promise<{ n: number }> }) => (await tx.upsert(map, "a", { n: 3 })).n,
          ),
      ],
      [
        "maps/resize.js",
        async () => {
          await map.resize(2);
          return map.partitionCount;
        },
      ],
      ["logs/retention.js", async () => log.dropArchivesBefore(await log.pageOf(3))],
      [
        "export-import/export-data.js",
        async () => (await exportImport.exportText(store)).startsWith('{"format":"attrmap-export"'),
      ],
      ["dex/index-partition.js", async () => (await dex.indexPartition("Acme", 10)).partitionName],
      [
        "dex/set-attributes.js",
        async () =>
          (await all(dex.exportDexRequests(store, { flowId: "late-parts", maps: ["m"], names: { m: { attributeMap: "m" } } })))
            .length,
      ],
    ];
    (window as unknown as { calls: typeof calls }).calls = calls;
  }, env.server.origin);
  type Calls = { calls: Array<[string, () => Promise<unknown>]> };
  const modules = async () =>
    (await tab.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname))).filter((p) =>
      p.startsWith("/attrmap/dist/"),
    );
  const atStart = await modules();
  const files = await tab.evaluate(() => (window as unknown as Calls).calls.map(([file]) => file));
  const answers: unknown[] = [];
  for (const [i, named] of files.entries()) {
    for (const file of named.split(" ")) assert.ok(!atStart.some((p) => p.endsWith(`/${file}`)), `${file} was fetched at start`);
    answers.push(await tab.evaluate((n) => (window as unknown as Calls).calls[n]![1](), i));
    const now = await modules();
    for (const file of named.split(" "))
      assert.ok(
        now.some((p) => p.endsWith(`/${file}`)),
        `${file} was not fetched at its first call`,
      );
  }
  // From docs/ and the test's own FNV-1a: createIndex resolves to the map; the index holds b alone above 1; map order is
  // partition order, so the first page holds the key of the lower partition of 4; records come
  // newest first; the feed has a change; the transaction stores 3; the map has 2 partitions
  // after the resize; chunks of 2 put records 1-2 in the one archive before record 3's; the
  // export starts with its header; "Acme" is placed by its canonical text, the JSON string.
  const first = ["a", "b"].sort((x, y) => refPartition(x, 4).index - refPartition(y, 4).index || (x < y ? -1 : 1))[0];
  assert.deepEqual(answers.slice(0, 10), [
    true,
    ["b"],
    [first],
    [5, 4, 3, 2, 1],
    1,
    3,
    2,
    1,
    true,
    refPartition('"Acme"', 10).name,
  ]);
  assert.ok((answers[10] as number) > 0);
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: "attrmap/browser" fetches the read-back of a write in doubt at the first write, not at a read`, async () => {
  const name = `read-back-late-${Date.now()}`; // the profile outlives a run
  type Map = { get(k: string): Promise<unknown>; upsert(k: string, v: number): Promise<unknown> };
  const open = (tab: Tab) =>
    tab.evaluate(
      async ([origin, name]) => {
        const { openAttrmap } = await import(`${origin}/attrmap/dist/browser/index.js`);
        const map = await openAttrmap({ name }).partitionedMap("m");
        (window as unknown as { map: Map }).map = map;
        return map.get("a");
      },
      [env.server.origin, name] as const,
    );
  const first = await openBlank(); // creates the map (a write): the second tab opens it with a read
  await open(first);
  await first.close();
  const tab = await openBlank();
  const fetchedReadBack = () =>
    tab.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/instances/read-back.js")));
  assert.equal(await open(tab), undefined);
  assert.equal(await fetchedReadBack(), false);
  await tab.evaluate(() => (window as unknown as { map: Map }).map.upsert("a", 1));
  // Fetched in the background: the write does not wait for it.
  for (let i = 0; i < 100 && !(await fetchedReadBack()); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await fetchedReadBack(), true);
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: a page that opened a map before another tab indexed it keeps the index with its next write`, async () => {
  // Page A opens the map with no index, so it has not loaded the index write path; tab B adds a
  // unique index; A's next writes must keep its entries all the same (docs/indexes.md).
  const [a, b] = [await openBlank(), await openBlank()];
  type Map = {
    upsert(k: string, v: unknown): Promise<unknown>;
    createIndex(name: string, path: string, o: object): Promise<unknown>;
    where(index: string): { equals(v: unknown): { keys(): Promise<string[]> } };
  };
  const name = `indexed-elsewhere-${Date.now()}`; // the profile outlives a run
  const open = (tab: Tab) =>
    tab.evaluate(
      async ([origin, name]) => {
        const { openAttrmap } = await import(`${origin}/attrmap/dist/browser/index.js`);
        const map = await openAttrmap({ name }).partitionedMap("m", { partitionCount: 4 });
        (window as unknown as { map: Map }).map = map;
        await map.upsert("a", { n: 1 });
      },
      [env.server.origin, name] as const,
    );
  await open(a);
  await open(b);
  await b.evaluate(async () => {
    await (window as unknown as { map: Map }).map.createIndex("byN", "n", { unique: true });
  });
  const aFetched = () =>
    a.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/indexes/entries.js")));
  assert.equal(await aFetched(), false);
  await a.evaluate(() => (window as unknown as { map: Map }).map.upsert("c", { n: 5 }));
  assert.equal(await aFetched(), true);
  assert.deepEqual(await b.evaluate(() => (window as unknown as { map: Map }).map.where("byN").equals(5).keys()), ["c"]);
  // The unique index holds in A too: a second owner of 5 is refused there.
  const refused = await a.evaluate(() =>
    (window as unknown as { map: Map }).map.upsert("d", { n: 5 }).then(
      () => "stored",
      (e: { code: string }) => e.code,
    ),
  );
  assert.equal(refused, "constraint_violation");
  assert.deepEqual([a.errors, b.errors], [[], []]);
  await Promise.all([a.close(), b.close()]);
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

test(`${ENGINE}: "attrmap/browser" fetches nothing on import; a rule before ready() is not_ready`, async () => {
  const tab = await openBlank();
  const seen = await tab.evaluate(async (origin) => {
    const wasmFetches = () => performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".wasm")).length;
    const m = await import(`${origin}/attrmap/dist/browser/index.js`);
    const imported = wasmFetches();
    let early: string;
    try {
      early = m.emailPartition("Alice@Example.com").partitionName;
    } catch (e) {
      early = `${(e as { code: string }).code}: ${(e as Error).message}`;
    }
    await (await m.openAttrmap({ name: "first-operation" }).partitionedMap("m")).upsert("k", 1);
    return { imported, early, started: wasmFetches(), after: m.emailPartition("Alice@Example.com").partitionName };
  }, env.server.origin);
  assert.equal(seen.imported, 0);
  assert.match(seen.early, /^not_ready: .*await ready\(\)/);
  assert.equal(seen.started, 1);
  // docs/partitioned-map.md's golden value: alice@example.com lives in partition-278 of 1000.
  assert.equal(seen.after, "partition-278");
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
  assert.ok(loaded.includes("dist/wasm/init-streaming.js"), loaded.join(", "));
  assert.deepEqual(
    loaded.filter((path) => ["dist/index.js", "dist/wasm/init.js", "wasm/attrmap_inline.js"].includes(path)),
    [],
    "nothing of the inlined entry",
  );
  assert.deepEqual(tab.errors, []);
  await tab.close();
});

test(`${ENGINE}: the bundled entries (exports' default) pass every vector and share one copy of each module`, async () => {
  // What a page that imports the package's files itself gets (pkg/package.json: each entry's
  // `default`); one esbuild run over every entry, so a store of the browser entry is one the dex
  // and export entries know.
  const exportsMap = (await import("attrmap/package.json", { with: { type: "json" } })).default.exports;
  const file = (entry: "./browser" | "./dex" | "./export-import") => exportsMap[entry].default.slice(2);
  assert.match(file("./browser"), /^dist\/bundle\//);
  const tab = await openBlank();
  await passesVectorsInPage(tab, file("./browser"));
  const answers = await tab.evaluate(
    async ([origin, browser, dex, exportImport]) => {
      const m = await import(`${origin}/attrmap/${browser}`);
      const d = await import(`${origin}/attrmap/${dex}`);
      const e = await import(`${origin}/attrmap/${exportImport}`);
      const store = m.openAttrmap({ name: `bundled-${Date.now()}` });
      await (await store.partitionedMap("m", { partitionCount: 4 })).upsert("k", { n: 1 });
      const requests = [];
      for await (const r of d.exportDexRequests(store, { flowId: "f", maps: ["m"], names: { m: { attributeMap: "m" } } }))
        requests.push(r);
      const text: string = await e.exportText(store);
      const modules = performance.getEntriesByType("resource").filter((r) => r.name.includes("/attrmap/dist/"));
      return {
        requests: requests.length,
        header: text.split("\n")[0],
        unbundled: modules.filter((r) => !r.name.includes("/dist/bundle/")).length,
      };
    },
    [env.server.origin, file("./browser"), file("./dex"), file("./export-import")] as const,
  );
  assert.equal(answers.requests, 1);
  assert.match(answers.header!, /^\{"format":"attrmap-export"/);
  assert.equal(answers.unbundled, 0, "a module of dist/ was fetched beside the bundle");
  assert.deepEqual(tab.errors, []);
  await tab.close();
});
