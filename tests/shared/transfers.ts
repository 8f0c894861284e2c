// Transfers between accounts with a ledger, as store.transaction runs them in pages, workers and
// the service worker (tests/browser/transactions.test.ts, crash.test.ts), and what the test
// checks them against: the same transfers added up in plain arithmetic. It imports no library:
// attrmap is passed in.
import type * as Attrmap from "attrmap";
import { seeded } from "./random.js";

/** Accounts of a bank, each opened with START. */
export const ACCOUNTS = 20;
export const START = 1000;

export interface Transfer {
  from: string;
  to: string;
  amount: number;
}

export const account = (i: number) => `account-${i}`;

/** `n` transfers between two distinct accounts each, drawn from `seed`. */
export function transfers(seed: number, n: number): Transfer[] {
  const random = seeded(seed);
  return Array.from({ length: n }, () => {
    const from = Math.floor(random() * ACCOUNTS);
    const to = (from + 1 + Math.floor(random() * (ACCOUNTS - 1))) % ACCOUNTS;
    return { from: account(from), to: account(to), amount: 1 + Math.floor(random() * 50) };
  });
}

/** Balances after `done` (in any order: addition does not care), from START. */
export function balancesAfter(done: readonly Transfer[]): Record<string, number> {
  const balances: Record<string, number> = {};
  for (let i = 0; i < ACCOUNTS; i++) balances[account(i)] = START;
  for (const t of done) {
    balances[t.from]! -= t.amount;
    balances[t.to]! += t.amount;
  }
  return balances;
}

/**
 * The bank of database `name`: the accounts (16 partitions: accounts share them, so transfers of
 * other accounts meet on their locks too) and the ledger. `open` also opens every account with
 * START, in one transaction over the whole map, if none is open yet.
 */
export async function openBank(attrmap: typeof Attrmap, name: string, { open = false } = {}) {
  const store = attrmap.openAttrmap({ name });
  const accounts = await store.partitionedMap<number>("accounts", { partitionCount: 16 });
  const ledger = await store.chunkedLog<Transfer>("ledger", { chunkSize: 10 });
  const names = Array.from({ length: ACCOUNTS }, (_, i) => account(i));
  if (open)
    await store.transaction([accounts], async (tx) => {
      if ((await tx.getMany(accounts, names)).size === 0) for (const a of names) await tx.upsert(accounts, a, START);
    });
  return { store, accounts, ledger, names };
}

/**
 * A turn of the event loop that a background tab does not throttle (its timers wait a second
 * there, in Firefox): a message to itself.
 */
function turn(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Runs `list` through store.transaction, `inFlight` at a time, each naming its scope in an order
 * drawn from `seed` and letting the event loop turn a few times between its reads and its writes
 * (so that works interleave). Resolves with the sequences the ledger gave.
 */
export async function runTransfers(
  attrmap: typeof Attrmap,
  name: string,
  list: readonly Transfer[],
  { inFlight, seed }: { inFlight: number; seed: number },
): Promise<number[]> {
  const { store, accounts, ledger } = await openBank(attrmap, name);
  const random = seeded(seed);
  const sequences: number[] = [];
  let next = 0;
  const one = async (t: Transfer) => {
    const scope = [accounts.at(t.from), accounts.at(t.to), ledger];
    for (let i = scope.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [scope[i], scope[j]] = [scope[j]!, scope[i]!];
    }
    const turns = Math.floor(random() * 4);
    const record = await store.transaction(scope, async (tx) => {
      const balances = await tx.getMany(accounts, [t.from, t.to]);
      for (let i = 0; i < turns; i++) await turn();
      await tx.upsert(accounts, t.from, balances.get(t.from)! - t.amount);
      await tx.upsert(accounts, t.to, balances.get(t.to)! + t.amount);
      return tx.append(ledger, t);
    });
    sequences.push(record.sequence);
  };
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < list.length) await one(list[next++]!);
    }),
  );
  return sequences;
}

/**
 * What the bank holds, read in one snapshot per map: the balances, and the ledger's records
 * oldest first. Each transfer whole or absent means: the balances are START plus the ledger.
 */
export async function readBank(attrmap: typeof Attrmap, name: string) {
  const { accounts, ledger, names } = await openBank(attrmap, name);
  const balances = Object.fromEntries(await accounts.getMany(names));
  const records: Array<{ sequence: number } & Transfer> = [];
  for await (const r of ledger.records({ order: "oldest" })) records.push({ sequence: r.sequence, ...r.value });
  return { balances, records };
}
