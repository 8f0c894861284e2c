// Tabs closed and browsers killed mid-write, in every engine: a SIGKILL of the browser's whole
// process group (no shutdown at all), then a browser relaunched on the same profile finds
// every committed write and a valid layout (and, in the change feed, a record of each write
// that landed and of nothing else), and transfers between accounts whole or absent. WebKit keeps
// data across a relaunch only without a driver (LaunchOptions.keepData), which these tests use.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import "./page-types.js";
import { balancesAfter } from "../shared/transfers.js";
import { dispose, ENGINE, launchBrowser, type Tab } from "./engines.js";
import { onOneProfile, openPage, SHARED_PATH, type StaticServer, serveWww, until, within } from "./harness.js";

const KEEP_DATA = { keepData: true };
/** Each test fails on its own, by name, well before the file's timeout if something hangs. */
const STEP_BOUND = { timeout: 180_000 };

let server: StaticServer;
before(async () => {
  server = await serveWww();
});
after(async () => {
  await server?.close();
});

/** Every invariant a chunked log keeps, checked from its stored instances after the fact. */
async function logInvariants(page: Tab, db: string, chunkSize: number): Promise<{ problems: string[]; total: number }> {
  const checked = page.evaluate(
    async ({ db, chunkSize }) => {
      const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize });
      const state = await archive.log.state();
      const problems: string[] = [];
      const seen: number[] = [];
      let token = "";
      let pages = 0;
      // A page that fails is read again 1 s and 3 s later, each time in a new transaction: the
      // answers tell stored data that disagrees with itself (the same error each time) from a
      // read that saw a moment no commit left (issue 48's Firefox flake after a closed tab).
      const pageOf = async (t: string) => {
        try {
          return await archive.getSubscriberPage(t);
        } catch (e) {
          const again: string[] = [];
          for (const ms of [1000, 2000]) {
            await new Promise((r) => setTimeout(r, ms));
            const p = await archive.getSubscriberPage(t).then(
              (p) => `${p.subscribers.length} records, newest ${p.subscribers[0]?.sequence}`,
              (e2: Error) => e2.message,
            );
            again.push(p);
          }
          const state = await archive.log.state();
          throw new Error(
            `${(e as Error).message}; read again after 1 s and 3 s: ${again.join(" / ")}; state now ${JSON.stringify(state)}`,
          );
        }
      };
      do {
        const p = await pageOf(token);
        const seqs = p.subscribers.map((s) => s.sequence);
        if (p.pageToken === "current" && seqs.length === 0 && state.nextSequence !== 1)
          problems.push("current is empty but the log is not");
        if (p.pageToken === "current" && (seqs.length < 1 ? state.nextSequence !== 1 : seqs.length > chunkSize))
          problems.push(`current holds ${seqs.length}`);
        if (p.pageToken !== "current" && seqs.length !== chunkSize) problems.push(`archive ${p.pageToken} holds ${seqs.length}`);
        if (p.pageToken !== "current" && BigInt(p.pageToken) !== BigInt(seqs.at(-1) ?? -1))
          problems.push(`archive ${p.pageToken} starts at ${seqs.at(-1)}`);
        seen.push(...seqs);
        token = p.nextPageToken;
      } while (token !== "" && ++pages < 10_000);
      const total = state.nextSequence - 1;
      const expected = Array.from({ length: total }, (_, i) => total - i);
      if (JSON.stringify(seen) !== JSON.stringify(expected))
        problems.push(`records are not ${total}..1 newest first: ${seen.slice(0, 5)}...`);
      const latest =
        total > chunkSize ? String(Math.floor((total - 1) / chunkSize) * chunkSize - chunkSize + 1).padStart(20, "0") : "";
      if (state.latestArchivedChunkToken !== latest)
        problems.push(`latest archive ${state.latestArchivedChunkToken}, expected ${latest}`);
      return { problems, total };
    },
    { db, chunkSize },
  );
  return within(`the log "${db}" to be read back`, checked);
}

/** Starts a stream of single appends (with rollovers every 10) that runs until the tab dies; returns once 45 have committed. */
async function startAppendStream(page: Tab, db: string): Promise<void> {
  await page.evaluate((db) => {
    void (async () => {
      const archive = await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize: 10 });
      for (let i = 0; ; i++) await archive.registerSubscriber({ subscriberId: `s${i}`, deliveryAddress: "x".repeat(2000) });
    })();
  }, db);
  const appended = () =>
    page.evaluate(
      async (db) =>
        (await (await window.attrmap.openAttrmap({ name: db }).subscriberArchive({ chunkSize: 10 })).log.state()).nextSequence -
        1,
      db,
    );
  await until("45 appends to commit", async () => (await appended()) >= 45);
}

test("a tab closed in the middle of a stream of appends and rollovers leaves a valid log", STEP_BOUND, async (t) => {
  const browser = await launchBrowser();
  t.after(() => dispose(browser));
  const writer = await openPage(browser, server.origin);
  await startAppendStream(writer, "closed-tab");
  await within("the writer's tab to close", writer.close()); // no beforeunload: transactions in flight go too
  const checker = await openPage(browser, server.origin);
  const { problems, total } = await logInvariants(checker, "closed-tab", 10);
  assert.deepEqual(problems, []);
  assert.ok(total >= 45, `only ${total} appends landed`);
});

test("a browser killed in the middle of a stream of appends leaves a valid log on reopen", STEP_BOUND, async (t) => {
  const killed = await launchBrowser(ENGINE, undefined, KEEP_DATA);
  const writer = await openPage(killed, server.origin);
  await startAppendStream(writer, "killed");
  await killed.kill();
  const reopened = await launchBrowser(ENGINE, killed.profileDir, KEEP_DATA);
  t.after(() => dispose(reopened));
  const checker = await openPage(reopened, server.origin);
  const { problems, total } = await logInvariants(checker, "killed", 10);
  assert.deepEqual(problems, []);
  // The change feed holds one record for each append that landed, and nothing else: append s
  // wrote `current` and, when it began a chunk, archived the one before (docs/chunked-log.md).
  const feed = await within(
    "the change feed to be read",
    checker.evaluate(async () => {
      const store = window.attrmap.openAttrmap({ name: "killed" });
      const records = [];
      for (let after = 0; ; ) {
        const page = await store.changes({ after, limit: 10_000 });
        records.push(...page.changes.map((r) => ({ seq: r.seq, map: r.map, instances: [...r.instances].sort() })));
        if (page.next === after) return records;
        after = page.next;
      }
    }),
  );
  const token = (first: number) => String(first).padStart(20, "0");
  assert.deepEqual(
    feed,
    Array.from({ length: total }, (_, i) => {
      const s = i + 1;
      const instances = s > 10 && (s - 1) % 10 === 0 ? [token(s - 10), "current"] : ["current"];
      return { seq: s, map: "SubscriberChunks", instances };
    }),
  );
  assert.ok(total >= 45, `only ${total} appends survived`);
});

/** The bank's database (tests/shared/transfers.ts) in the kill test below. */
const BANK = "transfers";

/** Starts an endless stream of transfers in `page`, one at a time, opening the bank first if it is new. */
async function startTransfers(page: Tab, round: number): Promise<void> {
  await page.evaluate(
    async ({ name, path, round }) => {
      const bank = (await import(`${path}transfers.js`)) as typeof import("../shared/transfers.js");
      await bank.openBank(window.attrmap, name, { open: true });
      void (async () => {
        for (let k = 0; ; k++)
          await bank.runTransfers(window.attrmap, name, bank.transfers(round * 100_000 + k, 4), { inFlight: 1, seed: k });
      })();
    },
    { name: BANK, path: SHARED_PATH, round },
  );
}

/**
 * After a kill: the balances are the opening ones plus exactly the transfers the ledger holds,
 * numbered 1..n, and the feed has the accounts' opening and then a record for the accounts and
 * one for the ledger per transfer. Returns how many transfers there are.
 */
async function checkBank(page: Tab, round: number, seen: number): Promise<number> {
  const stored = await within(
    `round ${round}: the bank to be read back`,
    page.evaluate(
      async ({ name, path }) => {
        const bank = (await import(`${path}transfers.js`)) as typeof import("../shared/transfers.js");
        const read = await bank.readBank(window.attrmap, name);
        const feed = (await window.attrmap.openAttrmap({ name }).changes({ limit: 10_000 })).changes;
        return { ...read, feed: feed.map((c) => c.map) };
      },
      { name: BANK, path: SHARED_PATH },
    ),
  );
  assert.deepEqual(stored.balances, balancesAfter(stored.records), `round ${round}`);
  assert.deepEqual(
    stored.records.map((r) => r.sequence),
    Array.from({ length: stored.records.length }, (_, i) => i + 1),
  );
  assert.deepEqual(stored.feed, ["accounts", ...stored.records.flatMap(() => ["accounts", "ledger"])], `round ${round}`);
  assert.ok(stored.records.length >= seen, `round ${round}: ${stored.records.length} transfers after ${seen} were seen`);
  await page.close();
  return stored.records.length;
}

test(
  "a browser killed three times while resizing 20,000 entries and moving money: every entry once, every transfer whole or absent",
  STEP_BOUND,
  async (t) => {
    const ENTRIES = 20_000;
    // Four browsers on one profile: each is killed in a resize while another tab runs transfers
    // between accounts, one after another (a kill finds one taking its locks, in its work, or
    // committing); the next browser checks the map and the bank, resizes the map once to the
    // end, then runs the next round (the last only checks). One kill serves both: a launch on a
    // profile is most of such a test's time. (Two transfers at a time kept IndexedDB so busy that
    // a resize killed after its last write was never found committed.)
    const { setup, profileDir, launch } = await onOneProfile(t);
    let landed = 0; // transfers seen committed
    const filled = (await openPage(setup, server.origin)).evaluate(async (n) => {
      const map = await window.attrmap.openAttrmap({ name: "resized" }).partitionedMap<string>("m", { partitionCount: 1000 });
      await map.upsertMany(Array.from({ length: n }, (_, i) => [`key-${i}`, `value-${i}`] as [string, string]));
    }, ENTRIES);
    await within(`set-up: ${ENTRIES} entries to be written`, filled);
    let killable = setup;
    let partitions = 1000;
    const outcomes: string[] = [];
    // Killed as the resize starts (reading), half way through its writes, and after its last write (committing).
    for (const [round, killAt] of [0, 0.5, 1].entries()) {
      const target = partitions + 500 + round;
      const bank = await openPage(killable, server.origin);
      await startTransfers(bank, round);
      const since = landed;
      await until(`round ${round}: 15 more transfers to commit`, async () => {
        landed = await bank.evaluate(
          async (name) => (await window.attrmap.openAttrmap({ name }).chunkedLog("ledger")).count(),
          BANK,
        );
        return landed >= since + 15;
      });
      const page = await openPage(killable, server.origin);
      // The page says when the resize has got there (a wait on its progress: a poll would take
      // turns with the resize for the page's thread). -1: the map is not open yet; 0: the resize
      // has not written (its lock, its reads).
      await page.evaluate(
        ({ target, killAt }) => {
          const w = window as unknown as { progress: number; reached: Promise<void> };
          w.progress = -1;
          w.reached = new Promise((reached, failed) => {
            window.attrmap
              .openAttrmap({ name: "resized" })
              .partitionedMap<string>("m")
              .then((map) => {
                w.progress = 0;
                if (killAt === 0) reached();
                return map.resize(target, {
                  onProgress: (p) => (w.progress = p.done / p.total) >= killAt && reached(),
                });
              })
              .catch((e: unknown) => failed(new Error(`the resize failed: ${e}`)));
          });
          w.reached.catch(() => undefined); // awaited below, maybe after it fails
        },
        { target, killAt },
      );
      const reached = page.evaluate(() => (window as unknown as { reached: Promise<void> }).reached);
      // A resize takes 2-5 s here; twice in 58 runs one had not got there after 60 s.
      await within(`round ${round}: the resize to reach ${killAt * 100}%`, reached, 120_000).catch(async (e: Error) => {
        // Where it is and what it waits on, if anything: twice in full suites under load it stayed at 0.
        const state = await page
          .evaluate(async () => {
            const { held = [], pending = [] } = await navigator.locks.query();
            const at = (window as unknown as { progress: number }).progress;
            const names = (locks: LockInfo[]) => JSON.stringify(locks.map((l) => l.name));
            return `it was at ${at}; held ${names(held)}, pending ${names(pending)}`;
          })
          .catch((why: Error) => `its state not read: ${why.message}`);
        throw new Error(`${e.message} (${state})`);
      });
      await within(`round ${round}: the browser to die`, killable.kill());
      const reopened = await launch(`round ${round}, reopened`, profileDir);
      const checked = (await openPage(reopened, server.origin)).evaluate(async (n) => {
        const map = await window.attrmap.openAttrmap({ name: "resized" }).partitionedMap<string>("m");
        const seen = new Map<string, string>();
        let doubled = 0;
        for await (const [key, value] of map.entries()) {
          if (seen.has(key)) doubled++;
          seen.set(key, value);
        }
        let wrong = 0;
        for (let i = 0; i < n; i++) if (seen.get(`key-${i}`) !== `value-${i}`) wrong++;
        const partitionCount = map.partitionCount;
        const count = await map.count();
        await map.resize(partitionCount + 1); // a later resize succeeds
        return { partitionCount, count, doubled, wrong, size: seen.size, afterResize: await map.count() };
      }, ENTRIES);
      const check = await within(`round ${round}: the map to be read and resized again after the kill`, checked);
      landed = await checkBank(await openPage(reopened, server.origin), round, landed);
      // As before the resize or as after it, never a mix: every entry once, with its value.
      assert.ok([partitions, target].includes(check.partitionCount), `round ${round}: ${check.partitionCount} partitions`);
      const whole = { count: ENTRIES, doubled: 0, wrong: 0, size: ENTRIES, afterResize: ENTRIES };
      assert.deepEqual({ ...check, partitionCount: undefined }, { ...whole, partitionCount: undefined }, `round ${round}`);
      outcomes.push(check.partitionCount === target ? "after" : "before");
      partitions = check.partitionCount + 1;
      killable = reopened;
    }
    await within("the last browser to close", killable.close());
    t.diagnostic(`the killed resizes were found: ${outcomes.join(", ")}; ${landed} transfers survived`);
  },
);
