// The locks a context's transactions pass to one another (ContextLocks, over a lock manager that
// stands for the browser's): a lock waited for in the same context is handed on without a request
// to the browser, at most PASSES times in a row, after which the browser's queue has its turn;
// shared holders share, an exclusive one waits for them; `ifAvailable` and abort as Web Locks
// have them. These tests load the shipped module itself (dist/), which the exports map hides.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { InProcessLocks, type LockGrant, type LockManagerLike, type LockRequestOptions } from "attrmap";

const dist = join(dirname(fileURLToPath(import.meta.resolve("attrmap/package.json"))), "dist");
const { ContextLocks, PASSES } = (await import(pathToFileURL(join(dist, "concurrency/context-locks.js")).href)) as {
  ContextLocks: new (browser: LockManagerLike) => LockManagerLike;
  PASSES: number;
};

/** The browser's lock manager, counting the requests made to it. */
function browser(): LockManagerLike & { requests: number } {
  const locks = new InProcessLocks();
  const counted = {
    requests: 0,
    request<T>(name: string, options: LockRequestOptions, callback: (lock: LockGrant | null) => Promise<T> | T) {
      counted.requests++;
      return locks.request(name, options, callback);
    },
  };
  return counted;
}

const tick = () => new Promise((r) => setTimeout(r, 1));

/** Takes `name` through `locks` and holds it until the returned release is called; resolves once held. */
async function hold(locks: LockManagerLike, name: string, options: LockRequestOptions = {}): Promise<() => Promise<void>> {
  let release = () => {};
  let held = () => {};
  const granted = new Promise<void>((r) => (held = r));
  const done = locks.request(name, options, () => {
    held();
    return new Promise<void>((r) => (release = r));
  });
  await granted;
  return async () => {
    release();
    await done;
  };
}

test("holders of one context waiting for a lock get it in order, with one request to the browser", async () => {
  const outer = browser();
  const locks = new ContextLocks(outer);
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      locks.request("a", {}, async () => {
        order.push(i);
        await tick();
      }),
    ),
  );
  assert.deepEqual(
    order,
    Array.from({ length: 10 }, (_, i) => i),
  );
  assert.equal(outer.requests, 1);
});

test(`after ${PASSES} local grants in a row the lock goes back to the browser, and a waiter there has its turn`, async () => {
  const outer = browser();
  const locks = new ContextLocks(outer);
  const order: string[] = [];
  const first = await hold(locks, "a");
  const local = Array.from({ length: PASSES + 5 }, (_, i) => locks.request("a", {}, () => void order.push(`local ${i}`)));
  // Another context (the browser's own queue) asks while this context holds it.
  const other = outer.request("a", {}, () => void order.push("other"));
  await first();
  await Promise.all([...local, other]);
  // The holder was grant 1: PASSES - 1 more local grants, then the other context, then the rest.
  assert.equal(order.indexOf("other"), PASSES - 1);
  assert.equal(order.length, PASSES + 6);
});

test("shared holders hold together; an exclusive one waits for them and holds alone", async () => {
  const locks = new ContextLocks(browser());
  const events: string[] = [];
  const shared = [await hold(locks, "a", { mode: "shared" }), await hold(locks, "a", { mode: "shared" })];
  const exclusive = locks.request("a", { mode: "exclusive" }, () => void events.push("exclusive"));
  const later = locks.request("a", { mode: "shared" }, () => void events.push("later shared"));
  await tick();
  assert.deepEqual(events, []);
  for (const release of shared) await release();
  await Promise.all([exclusive, later]);
  assert.deepEqual(events, ["exclusive", "later shared"]);
});

test("ifAvailable: granted when free, null when held here or elsewhere; an aborted waiter leaves the queue", async () => {
  const outer = browser();
  const locks = new ContextLocks(outer);
  const answer = (name: string) => locks.request(name, { ifAvailable: true }, (lock) => lock !== null);
  assert.equal(await answer("free"), true);
  const here = await hold(locks, "held here");
  assert.equal(await answer("held here"), false);
  const elsewhere = await hold(outer, "held elsewhere");
  assert.equal(await answer("held elsewhere"), false);
  const controller = new AbortController();
  const aborted = locks.request("held here", { signal: controller.signal }, () => "granted");
  const after = locks.request("held here", {}, () => "granted");
  controller.abort(new Error("stop"));
  await assert.rejects(aborted, /stop/);
  await here();
  assert.equal(await after, "granted");
  await elsewhere();
});
