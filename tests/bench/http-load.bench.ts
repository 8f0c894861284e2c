// make bench, HTTP part: the demo's service worker under load from 4 tabs of one origin, as
// clients of the reference server would load it. 100 registers at once (25 a tab), each
// retrying a 409 up to 50 times after 5 to 25 ms of random sleep; then 200 profile upserts at
// once to distinct emails. Printed: how many clients succeeded, how many 409s were answered,
// the attempts per client and the total time. Figures, not tests: what is stored is checked by
// the http suite, not here.
import "../browser/page-types.js";
import { dispose, launchBrowser, type Tab } from "../browser/engines.js";
import { openPage, serveWww } from "../browser/harness.js";

const TABS = 4;
const RUNS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHUNKED = "/patterns/sequentially-chunked-attribute-map";
const PARTITIONED = "/patterns/hash-partitioned-attribute-map";

interface Load {
  ok: number;
  conflicts: number;
  attempts: number[];
  ms: number;
}

/** `clients` requests at once from `tab`, each retried on 409 as a reference SDK client would. */
function load(tab: Tab, work: { path: string; method: string; bodies: unknown[] }): Promise<Omit<Load, "ms">> {
  return tab.evaluate(async ({ path, method, bodies }) => {
    let conflicts = 0;
    const client = async (body: unknown) => {
      for (let attempt = 1; attempt <= 50; attempt++) {
        const r = await fetch(path, { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } });
        if (r.ok) return attempt;
        if (r.status !== 409) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
        conflicts++;
        await new Promise((ok) => setTimeout(ok, 5 + Math.random() * 20));
      }
      return 0; // gave up
    };
    const attempts = await Promise.all(bodies.map(client));
    return { ok: attempts.filter((a) => a > 0).length, conflicts, attempts };
  }, work);
}

async function burst(tabs: Tab[], work: (tab: number) => { path: string; method: string; bodies: unknown[] }): Promise<Load> {
  const t0 = performance.now();
  const each = await Promise.all(tabs.map((tab, i) => load(tab, work(i))));
  return {
    ok: each.reduce((n, l) => n + l.ok, 0),
    conflicts: each.reduce((n, l) => n + l.conflicts, 0),
    attempts: each.flatMap((l) => l.attempts),
    ms: performance.now() - t0,
  };
}

const server = await serveWww();
const rows: Array<{ run: number; what: string; load: Load }> = [];
for (let run = 0; run < RUNS; run++) {
  const browser = await launchBrowser("chromium");
  const tabs = [];
  for (let i = 0; i < TABS; i++) tabs.push(await openPage(browser, server.origin, "/")); // the demo: its service worker answers
  const registers = await burst(tabs, (t) => ({
    path: `${CHUNKED}/register`,
    method: "POST",
    bodies: Array.from({ length: 25 }, (_, i) => ({ subscriberId: `t${t}-${i}`, deliveryAddress: `t${t}-${i}@example.com` })),
  }));
  rows.push({ run, what: "100 registers, 4 tabs", load: registers });
  const upserts = await burst(tabs, (t) => ({
    path: `${PARTITIONED}/customer-profile`,
    method: "PUT",
    bodies: Array.from({ length: 50 }, (_, i) => ({ emailAddress: `t${t}-${i}@example.com`, fullName: `T ${t} ${i}` })),
  }));
  rows.push({ run, what: "200 profile upserts, 4 tabs", load: upserts });
  await dispose(browser);
}
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log("\nHTTP API through the demo's service worker in chromium: clients retry a 409 up to 50 times (5 to 25 ms apart)");
console.log(
  `${"load".padEnd(30)}${"run".padStart(4)}${"succeeded".padStart(11)}${"409s".padStart(7)}` +
    `${"attempts: median".padStart(18)}${"max".padStart(5)}${"first try".padStart(11)}${"total".padStart(10)}`,
);
for (const { run, what, load: l } of rows) {
  const tries = l.attempts.filter((a) => a > 0);
  console.log(
    `${what.padEnd(30)}${String(run + 1).padStart(4)}` +
      `${`${l.ok}/${l.attempts.length}`.padStart(11)}${String(l.conflicts).padStart(7)}` +
      `${String(tries.length ? median(tries) : "-").padStart(18)}${String(Math.max(0, ...tries)).padStart(5)}` +
      `${String(l.attempts.filter((a) => a === 1).length).padStart(11)}${`${(l.ms / 1000).toFixed(2)} s`.padStart(10)}`,
  );
}
