// Move money between accounts: one store.transaction over two accounts of a map and a ledger
// log. The balances and the ledger record land together or not at all; a live query of the
// balances (read together) shows their total, which no transfer changes.
import { js, libraryCall } from "./code.js";
import { $, clearOnInvalid, describeError, result, row, text } from "./dom.js";

/** The panel's map and log. */
export const ACCOUNTS_MAP = "demo-accounts";
export const LEDGER_LOG = "demo-ledger";
const ACCOUNTS = ["alice", "bob", "carol"];
const OPENING = 100;
/** The ledger records the panel shows, newest first. */
const SHOWN = 3;

let store;
let accounts;
let ledger;

function options(select, selected) {
  for (const name of ACCOUNTS) select.append(new Option(name, name, name === selected, name === selected));
}

async function transfer(event) {
  event.preventDefault();
  const from = $("transfer-from").value;
  const to = $("transfer-to").value;
  const amount = Number($("transfer-amount").value);
  const fail = $("transfer-fail").checked;
  const work = [
    `const accounts = await store.partitionedMap(${js(ACCOUNTS_MAP)});`,
    `const ledger = await store.chunkedLog(${js(LEDGER_LOG)});`,
    `await store.transaction([accounts.at(${js(from)}), accounts.at(${js(to)}), ledger], async (tx) => {`,
    `  const balances = await tx.getMany(accounts, [${js(from)}, ${js(to)}]);`,
    `  if (balances.get(${js(from)}) < ${amount}) throw new RangeError("not enough money"); // nothing written`,
    `  await tx.upsert(accounts, ${js(from)}, balances.get(${js(from)}) - ${amount});`,
    `  await tx.upsert(accounts, ${js(to)}, balances.get(${js(to)}) + ${amount});`,
    `  await tx.append(ledger, { from: ${js(from)}, to: ${js(to)}, amount: ${amount} });`,
    ...(fail ? [`  throw new Error("failed after writing"); // so nothing is written`] : []),
    "});",
  ];
  text("transfer-code", libraryCall(work));
  if (from === to) return result("transfer-message", false, "Choose two different accounts.");
  try {
    const record = await store.transaction([accounts.at(from), accounts.at(to), ledger], async (tx) => {
      const balances = await tx.getMany(accounts, [from, to]);
      if (balances.get(from) < amount) throw new RangeError(`${from} has ${balances.get(from)}, not ${amount}`);
      await tx.upsert(accounts, from, balances.get(from) - amount);
      await tx.upsert(accounts, to, balances.get(to) + amount);
      const written = await tx.append(ledger, { from, to, amount });
      if (fail) throw new Error("failed after writing, as asked: nothing was written");
      return written;
    });
    result("transfer-message", true, `Moved ${amount} from ${from} to ${to}: ledger record ${record.sequence}.`);
  } catch (error) {
    result("transfer-message", false, describeError(error));
  }
}

/** The balances and the ledger's newest records, as read now. */
function show(balances, records) {
  $("transfer-rows").replaceChildren(
    ...ACCOUNTS.map((name) => row([name, balances.get(name) ?? 0])),
    row(["total", [...balances.values()].reduce((a, b) => a + b, 0)]),
  );
  const lines = records.map(({ sequence, value }) => `${sequence}. ${value.from} to ${value.to}, ${value.amount}`);
  text("transfer-ledger", lines.length === 0 ? "The ledger is empty." : `Ledger, newest first: ${lines.join("; ")}.`);
}

export async function initTransfer(s) {
  store = s;
  accounts = await store.partitionedMap(ACCOUNTS_MAP, { partitionCount: 16 });
  ledger = await store.chunkedLog(LEDGER_LOG);
  // Opened once, in a transaction over the whole map, so two tabs opening it at once open it once.
  await store.transaction([accounts], async (tx) => {
    if ((await tx.getMany(accounts, ACCOUNTS)).size === 0) for (const name of ACCOUNTS) await tx.upsert(accounts, name, OPENING);
  });
  options($("transfer-from"), ACCOUNTS[0]);
  options($("transfer-to"), ACCOUNTS[1]);
  $("transfer-form").addEventListener("submit", transfer);
  clearOnInvalid($("transfer-form"), "transfer-message");
  store
    .liveQuery(async (view) => {
      const [balances, log] = await Promise.all([view.partitionedMap(ACCOUNTS_MAP), view.chunkedLog(LEDGER_LOG)]);
      return [await balances.getMany(ACCOUNTS), (await log.page({ limit: SHOWN })).records];
    })
    .subscribe({
      next: ([balances, records]) => show(balances, records),
      error: (error) => result("transfer-message", false, describeError(error)),
    });
}
