// The reference HTTP API served by the demo's service worker, called with plain fetch from
// a page it controls: every endpoint's success, bad-input, not-found and before-start answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { tokenVectors } from "../vectors.js";
import "./page-types.js";
import { holdLock, openPage, serveWww, type Tab, useProfile } from "./harness.js";

const HASH = "/patterns/hash-partitioned-attribute-map";
const CHUNKED = "/patterns/sequentially-chunked-attribute-map";

let page: Tab;
const env = useProfile(async ({ browser, server }) => {
  // A page of the origin that installs the service worker but starts no flow.
  page = await openPage(browser, server.origin);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
    if (!navigator.serviceWorker.controller)
      await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
  });
});

interface Answer {
  status: number;
  body: unknown;
  type: string | null;
}

function call(method: string, path: string, body?: unknown): Promise<Answer> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const init: RequestInit = { method };
      if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
      const response = await fetch(path, init);
      return { status: response.status, body: await response.json(), type: response.headers.get("content-type") };
    },
    { method, path, body },
  );
}

test("the page is controlled by the service worker and other paths pass through", async () => {
  assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), `${env.server.origin}/sw.js`);
  assert.equal(await page.evaluate(async () => (await fetch("/style.css")).status), 200);
});

test("before start: every flow endpoint answers 404 flow is not started", async () => {
  const cases: Array<[string, string, unknown?]> = [
    ["PUT", `${HASH}/customer-profile`, { emailAddress: "a@b" }],
    ["GET", `${HASH}/customer-profile?emailAddress=a@b`],
    ["POST", `${CHUNKED}/register`, { subscriberId: "s", deliveryAddress: "d" }],
    ["GET", `${CHUNKED}/subscribers?pageToken=current`],
  ];
  for (const [method, path, body] of cases) {
    const flow = path.startsWith(HASH) ? "customer-directory" : "chunked-subscriber-archive";
    assert.deepEqual(
      await call(method, path, body),
      { status: 404, body: { error: `flow "${flow}" is not started` }, type: "application/json; charset=utf-8" },
      `${method} ${path}`,
    );
  }
});

test("start answers the flow and run ID, and a repeated start changes nothing", async () => {
  const first = await call("POST", `${HASH}/start`);
  assert.equal(first.status, 200);
  const body = first.body as { flowID: string; runID: string };
  assert.equal(body.flowID, "customer-directory");
  assert.match(body.runID, /^[0-9a-f-]{36}$/);
  assert.deepEqual(await call("POST", `${HASH}/start`), first);
  const chunked = await call("POST", `${CHUNKED}/start`);
  assert.equal((chunked.body as { flowID: string }).flowID, "chunked-subscriber-archive");
  assert.deepEqual(await call("POST", `${CHUNKED}/start`), chunked);
});

test("customer profile: upsert and get, bad input 400, unknown 404, wrong method 405", async () => {
  const saved = { emailAddress: "alice@example.com", fullName: "Alice <b>A</b>", companyName: "Example", customerTier: "gold" };
  assert.deepEqual(await call("PUT", `${HASH}/customer-profile`, { ...saved, emailAddress: " Alice@Example.COM " }), {
    status: 200,
    body: saved,
    type: "application/json; charset=utf-8",
  });
  assert.deepEqual(
    (await call("GET", `${HASH}/customer-profile?emailAddress=${encodeURIComponent(" ALICE@example.com ")}`)).body,
    saved,
  );
  const bad = async (method: string, path: string, body: unknown, error: string | RegExp) => {
    const answer = await call(method, path, body);
    assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    const message = (answer.body as { error: string }).error;
    if (typeof error === "string") assert.equal(message, error);
    else assert.match(message, error);
  };
  await bad("PUT", `${HASH}/customer-profile`, { fullName: "x" }, "emailAddress is required");
  await bad(
    "PUT",
    `${HASH}/customer-profile`,
    { emailAddress: "josé@example.com" },
    "emailAddress must contain only ASCII characters",
  );
  await bad("PUT", `${HASH}/customer-profile`, "{not json", /^invalid JSON body/);
  await bad("PUT", `${HASH}/customer-profile`, "[1,2]", "body must be an object, got array");
  await bad(
    "PUT",
    `${HASH}/customer-profile`,
    { emailAddress: "a@b", fullName: 5 },
    "body.fullName must be a string, got number",
  );
  await bad("GET", `${HASH}/customer-profile`, undefined, "emailAddress is required");
  await bad("GET", `${HASH}/customer-profile?emailAddress=%20%09`, undefined, "emailAddress is required");
  assert.deepEqual(await call("GET", `${HASH}/customer-profile?emailAddress=Nobody@Example.com`), {
    status: 404,
    body: { error: 'customer profile "nobody@example.com" not found' },
    type: "application/json; charset=utf-8",
  });
  const wrong = await call("DELETE", `${HASH}/customer-profile`);
  assert.equal(wrong.status, 405);
});

test("subscribers: register and page, bad input 400, missing page 404", async () => {
  const registered = await call("POST", `${CHUNKED}/register`, { subscriberId: "s-1", deliveryAddress: "s1@example.com" });
  assert.deepEqual(registered.body, { sequence: 1, subscriberId: "s-1", deliveryAddress: "s1@example.com" });
  for (let i = 2; i <= 101; i++)
    await call("POST", `${CHUNKED}/register`, { subscriberId: `s-${i}`, deliveryAddress: `s${i}@example.com` });
  const current = (await call("GET", `${CHUNKED}/subscribers?pageToken=current`)).body as {
    pageToken: string;
    subscribers: Array<{ sequence: number }>;
    nextPageToken: string;
  };
  assert.deepEqual(
    [current.pageToken, current.subscribers.map((s) => s.sequence), current.nextPageToken],
    ["current", [101], "00000000000000000001"],
  );
  for (const missingToken of [`${CHUNKED}/subscribers`, `${CHUNKED}/subscribers?pageToken=`]) {
    assert.deepEqual((await call("GET", missingToken)).body, current, "a missing or empty pageToken means current");
  }
  const archived = (await call("GET", `${CHUNKED}/subscribers?pageToken=00000000000000000001`)).body as {
    subscribers: Array<{ sequence: number }>;
    nextPageToken: string;
  };
  assert.deepEqual([archived.subscribers.length, archived.subscribers[0]!.sequence, archived.nextPageToken], [100, 100, ""]);
  const status = async (method: string, path: string, body?: unknown) => {
    const a = await call(method, path, body);
    return [a.status, (a.body as { error: string }).error];
  };
  assert.deepEqual(await status("POST", `${CHUNKED}/register`, { deliveryAddress: "x" }), [400, "subscriberId is required"]);
  assert.deepEqual(await status("POST", `${CHUNKED}/register`, { subscriberId: "x", deliveryAddress: "" }), [
    400,
    "deliveryAddress is required",
  ]);
  assert.deepEqual((await status("POST", `${CHUNKED}/register`, "nope"))[0], 400);
  assert.deepEqual(await status("GET", `${CHUNKED}/subscribers?pageToken=00000000000000000100`), [
    400,
    'invalid page token "00000000000000000100"',
  ]);
  assert.deepEqual(await status("GET", `${CHUNKED}/subscribers?pageToken=Current`), [400, 'invalid page token "Current"']);
  assert.deepEqual(await status("GET", `${CHUNKED}/subscribers?pageToken=00000000000000000101`), [
    404,
    'subscriber page "00000000000000000101" not found',
  ]);
  // The vectors' error-transport case: status, content type and body as the contract says.
  const { request, expect } = tokenVectors.errorTransport;
  const answer = await call(request.split(" ")[0]!, request.split(" ")[1]!);
  assert.deepEqual([answer.status, answer.type?.split(";")[0], answer.body], [expect.status, expect.contentType, expect.body]);
});

test("a write while another tab holds the partition's lock answers 409", async () => {
  const lock = await page.evaluate(() => {
    const { lockName, emailPartition } = window.attrmap;
    return lockName({
      database: "attrmap",
      map: "CustomerProfilesByEmailPartition",
      instance: emailPartition("busy@example.com").partitionName,
    });
  });
  assert.ok(lock.includes("partition-"));
  const release = await holdLock(page, lock);
  const answer = await call("PUT", `${HASH}/customer-profile`, { emailAddress: "busy@example.com" });
  assert.equal(answer.status, 409);
  assert.match((answer.body as { error: string }).error, /is locked by another writer/);
  await release();
  assert.equal((await call("PUT", `${HASH}/customer-profile`, { emailAddress: "busy@example.com" })).status, 200);
});

test("HEAD on a GET endpoint answers as GET without a body; a huge page token is not echoed whole", async () => {
  await call("POST", `${CHUNKED}/start`);
  const head = await page.evaluate(async (path) => {
    const response = await fetch(path, { method: "HEAD" });
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
  }, `${CHUNKED}/subscribers?pageToken=current`);
  assert.deepEqual(head, { status: 200, type: "application/json; charset=utf-8", body: "" });
  const wrong = await page.evaluate(async (path) => {
    const response = await fetch(path, { method: "PATCH" });
    return [response.status, response.headers.get("allow")];
  }, `${CHUNKED}/subscribers`);
  assert.deepEqual(wrong, [405, "GET, HEAD"]);
  // 500,000 characters: Firefox refuses URLs of 1 MiB or more before they are sent.
  const huge = await call("GET", `${CHUNKED}/subscribers?pageToken=${"7".repeat(500_000)}`);
  assert.equal(huge.status, 400);
  const message = (huge.body as { error: string }).error;
  assert.equal(message, `invalid page token "${"7".repeat(64)}... (500000 characters)"`);
});

test("the service worker forgets a failed open: once the cause is gone, the next request succeeds", async (t) => {
  // An origin of its own: the database is made unusable before the service worker opens it.
  const server = await serveWww();
  t.after(() => server.close());
  const tab = await openPage(env.browser, server.origin);
  // Another program holds "attrmap" at a schema version this library does not know.
  await tab.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const req = indexedDB.open("attrmap", 99);
        req.onsuccess = () => {
          req.result.close();
          resolve();
        };
      }),
  );
  await tab.evaluate(async () => {
    await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
    if (!navigator.serviceWorker.controller)
      await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
  });
  const start = () =>
    tab.evaluate(async (path): Promise<[number, string]> => {
      const response = await fetch(path, { method: "POST" });
      return [response.status, ((await response.json()) as { error?: string }).error ?? "started"];
    }, `${HASH}/start`);
  const failed = await start();
  assert.equal(failed[0], 500);
  assert.match(failed[1], /^opening database "attrmap" at version 6 failed: VersionError/);
  await tab.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.deleteDatabase("attrmap");
        req.onsuccess = () => resolve();
        req.onerror = () => reject(req.error);
      }),
  );
  assert.deepEqual(await start(), [200, "started"]);
});

test("100 registrations at once from 4 tabs, each retrying a 409 at most 50 times: all land, each once", async () => {
  await call("POST", `${CHUNKED}/start`); // idempotent: started by the tests before, if they ran
  const tabs = [page];
  for (let i = 1; i < 4; i++) tabs.push(await openPage(env.browser, env.server.origin)); // controlled: the worker is active
  // A client of the reference server: on 409, sleep 5 to 25 ms and try again, 50 tries at most.
  const sequences = await Promise.all(
    tabs.map((tab, t) =>
      tab.evaluate(
        ({ path, t }) =>
          Promise.all(
            Array.from({ length: 25 }, async (_, i) => {
              const body = JSON.stringify({ subscriberId: `load-${t}-${i}`, deliveryAddress: `load${t}.${i}@example.com` });
              for (let attempt = 0; attempt < 50; attempt++) {
                const r = await fetch(path, { method: "POST", body });
                if (r.status === 200) return ((await r.json()) as { sequence: number }).sequence;
                if (r.status !== 409) return `HTTP ${r.status}`;
                await new Promise((ok) => setTimeout(ok, 5 + Math.random() * 20));
              }
              return "gave up";
            }),
          ),
        { path: `${CHUNKED}/register`, t },
      ),
    ),
  );
  const answered = sequences.flat();
  assert.ok(
    answered.every((s) => typeof s === "number"),
    `not every client succeeded: ${answered.filter((s) => typeof s !== "number")}`,
  );
  // What is stored: every client's subscriber exactly once, under the sequence it was answered.
  const stored = await page.evaluate(async (path) => {
    const seen: Array<[string, number]> = [];
    let token = "current";
    do {
      const p = (await (await fetch(`${path}?pageToken=${token}`)).json()) as {
        subscribers: Array<{ sequence: number; subscriberId: string }>;
        nextPageToken: string;
      };
      for (const s of p.subscribers) if (s.subscriberId.startsWith("load-")) seen.push([s.subscriberId, s.sequence]);
      token = p.nextPageToken;
    } while (token !== "");
    return seen;
  }, `${CHUNKED}/subscribers`);
  const expected = sequences.flatMap((list, t) => list.map((s, i) => [`load-${t}-${i}`, s]));
  const byId = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : 1);
  assert.deepEqual([...stored].sort(byId), expected.sort(byId as never));
  assert.equal(new Set(answered).size, 100, "sequences are distinct");
  for (const tab of tabs.slice(1)) await tab.close();
});
