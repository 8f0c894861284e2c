// make bench, transaction part: writes over two maps, and transfers between accounts with a
// ledger, as one step in attrmap (store.transaction), plain IndexedDB (one transaction over two
// object stores under Web Locks: the floor) and Dexie (db.transaction), and in attrmap without a
// transaction (one single write per map), in one browser with an on-disk profile (see rounds.ts;
// tests/shared/transaction-bench.ts is the page side). Printed: the median time per operation and
// attrmap's ratios to each peer. Figures, not tests.
import "../browser/page-types.js";
import { SHARED_PATH } from "../browser/harness.js";
import type { TransactionContender, TransactionLibraries, TransactionOptions } from "../shared/transaction-bench.js";
import { TRANSACTION_ROWS } from "../shared/transaction-bench.js";
import { printTable } from "./report.js";
import { ENGINE, inRounds } from "./rounds.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const OPTIONS = { ops: 300, concurrent: 1000, accounts: 20 };
const CONTENDERS: TransactionContender[] = ["attrmap", "singles", "raw", "dexie"];

const results = await inRounds(
  CONTENDERS,
  ROUNDS,
  (round) => CONTENDERS.map((who) => `tx-${who}-${round}`),
  (tab, order, round) =>
    tab.evaluate(
      async ({ order, options, path }) => {
        const bench = (await import(`${path}transaction-bench.js`)) as typeof import("../shared/transaction-bench.js");
        const Dexie = ((await import("/vendor/dexie.mjs" as string)) as { Dexie: TransactionLibraries["Dexie"] }).Dexie;
        return bench.runTransactionRound({ attrmap: window.attrmap, Dexie }, order, options);
      },
      { order, options: { ...OPTIONS, round } satisfies TransactionOptions, path: SHARED_PATH },
    ),
);
printTable(
  `Transactions in ${ENGINE} (on-disk profile), ${OPTIONS.accounts} accounts, ${ROUNDS} rounds: median time per operation; ` +
    "attrmap's ratio to each peer, median (min to max of the rounds). singles: attrmap, one single write per map, no transaction",
  CONTENDERS,
  Object.values(TRANSACTION_ROWS),
  results,
);
