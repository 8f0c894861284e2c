// Errors a caller did not ask for still show: a live query's error with no error handler
// (a Svelte store's subscriber, a bare `next`), and an export stream's error behind a reader
// that replaces it. And live queries as Svelte stores, with Svelte's own `derived` and `get`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttrmapError, InProcessLocks, openAttrmap } from "attrmap";
import { exportBlob, exportData, exportText } from "attrmap/export-import";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { derived, get } from "svelte/store";
import { until } from "../browser/harness.js";

const fresh = () => openAttrmap({ indexedDB: new IDBFactory(), IDBKeyRange, locks: new InProcessLocks() });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
// A change reaches live queries through a BroadcastChannel, in its own time: wait for it.
const eventually = (what: string, done: () => boolean) => until(what, async () => done(), 10_000);

/** Runs `body` with `reportError` (or, with `asConsole`, `console.error` alone) recording what it is given. */
async function reported(body: (seen: unknown[]) => Promise<void>, asConsole = false): Promise<unknown[]> {
  const seen: unknown[] = [];
  const g = globalThis as { reportError?: (e: unknown) => void };
  const [before, error] = [g.reportError, console.error];
  if (asConsole) delete g.reportError;
  else g.reportError = (e) => seen.push(e);
  console.error = (e: unknown) => seen.push(e);
  try {
    await body(seen);
  } finally {
    if (before) g.reportError = before;
    else delete g.reportError;
    console.error = error;
  }
  return seen;
}

test("a live query is a Svelte store: derived follows writes, get reads synchronously", async () => {
  const store = fresh();
  const settings = await store.partitionedMap<number>("settings");
  const visits = store.liveQuery(async (s) => (await (await s.partitionedMap<number>("settings")).get("visits")) ?? 0);
  const doubled = derived(visits, (n) => (n === undefined ? "waiting" : n * 2));
  const seen: unknown[] = [];
  const stop = doubled.subscribe((v) => seen.push(v));
  await eventually("first result", () => seen.length === 2);
  await settings.upsert("visits", 5);
  await eventually("result after the write", () => seen.length === 3);
  stop();
  await settings.upsert("visits", 6);
  await tick(300);
  assert.deepEqual(seen, ["waiting", 0, 10]);
  assert.equal(get(visits), undefined, "the first result comes later than a synchronous get");
});

test("a failing query under derived() is reported, not handed to Svelte's invalidate", async () => {
  const store = fresh();
  const failing = store.liveQuery(async (s) => (await s.customerDirectory()).getProfile("not an email at all \u00e9"));
  const errors = await reported(async (seen) => {
    const stop = derived(failing, (p) => p).subscribe(() => {});
    await eventually("report", () => seen.length > 0);
    await tick(100); // and no second one
    stop();
  });
  assert.equal(errors.length, 1, String(errors));
  assert.ok(errors[0] instanceof AttrmapError && errors[0].code === "invalid_email", String(errors[0]));
  // Where there is no reportError (Node before 24), console.error shows it.
  const logged = await reported(async (seen) => {
    const stop = failing.subscribe(() => {});
    await eventually("console.error", () => seen.length > 0);
    stop();
  }, true);
  assert.ok(logged[0] instanceof AttrmapError && logged[0].code === "invalid_email", String(logged[0]));
  // An observer with its own `error` gets it, and nothing is reported.
  const handled: unknown[] = [];
  const quiet = await reported(async () => {
    const sub = failing.subscribe({ error: (e) => handled.push(e) });
    await eventually("the error", () => handled.length > 0);
    await tick(100);
    sub.unsubscribe();
  });
  assert.deepEqual([quiet.length, (handled[0] as AttrmapError).code], [0, "invalid_email"]);
});

test("an export's error reaches the caller of exportBlob and exportText, and a stream's reader, once", async () => {
  const store = fresh();
  const m = await store.partitionedMap<unknown>("m", { partitionCount: 1 });
  await m.upsert("bad key", { when: new Date(0) });
  const named = /^not_exportable: map "m", instance "partition-0", key "bad key"/;
  const isNamed = (e: unknown) => e instanceof AttrmapError && named.test(`${e.code}: ${e.message}`);
  const errors = await reported(async () => {
    for (const whole of [exportBlob(store), exportText(store)]) await assert.rejects(whole, isNamed);
    const reader = exportData(store).getReader();
    await assert.rejects(async () => {
      while (!(await reader.read()).done);
    }, isNamed);
  });
  assert.deepEqual(errors, [], "an error that reached its caller is not reported again");
  // A bad argument is an error of the call, before any stream.
  assert.throws(() => exportData(store, { maps: "m" } as never), /options\.maps must be/);
  await m.delete("bad key");
  await m.upsert("good", { n: 1 });
  const progress: Array<{ lines: number; characters: number }> = [];
  const text = await exportText(store, { onProgress: (p) => progress.push(p) });
  assert.equal(text, await new Response(exportData(store)).text());
  const blob = await exportBlob(store);
  assert.deepEqual([blob.type, await blob.text()], ["application/x-ndjson", text]);
  assert.deepEqual(progress.at(-1), { lines: text.split("\n").length - 1, characters: text.length });
});
