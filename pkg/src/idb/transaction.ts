// The transaction runner: a body's requests in one IndexedDB transaction, committed when the
// body resolves and aborted when it throws, and what a transaction that the browser's storage
// failed means for the caller (nothing written, or a commit in doubt).
import { AttrmapError, isDOMException, storageError } from "../common/errors.js";
import type { Connection } from "./connection.js";

/**
 * Runs `body` in one transaction; resolves when it has committed, rejects (with nothing
 * written) otherwise. `body`'s own error (a caller's callback's, too) is passed on as it is.
 * A readwrite transaction the storage process failed after it was asked to commit is
 * `outcome_unknown` when `seen` (see read-back.ts), else `transaction_aborted`.
 */
export async function runTransaction<T>(
  connection: Connection,
  mode: IDBTransactionMode,
  doing: string,
  body: (tx: IDBTransaction) => Promise<T>,
  seen: boolean,
): Promise<T> {
  const tx = await connection.begin(mode, doing);
  return new Promise<T>((resolve, reject) => {
    let result: T;
    let failure: { error: unknown } | undefined;
    let committing = false;
    tx.oncomplete = () => resolve(result);
    tx.onabort = () => {
      const error = failure
        ? failure.error
        : storageError(tx.error ?? new DOMException("transaction aborted", "AbortError"), doing);
      // The storage process died (WebKit: "An internal error was encountered in the Indexed
      // Database server", for a request or the whole transaction): this connection is done. A
      // write asked to commit may have landed all the same; the caller reads back what it wrote.
      if (!(error instanceof AttrmapError && isDOMException(error.cause) && error.cause.name === "UnknownError"))
        return reject(error);
      connection.drop(tx.db, true);
      if (mode === "readonly") return reject(error);
      reject(committing && seen ? outcomeUnknown(doing, error) : notWritten(doing, error));
    };
    body(tx).then(
      (r) => {
        result = r;
        committing = true;
        tx.commit?.();
      },
      (e: unknown) => {
        failure = { error: e };
        try {
          tx.abort();
        } catch {
          // Already finished: onabort or oncomplete has run or will run.
        }
      },
    );
  });
}

/**
 * A readonly transaction with the requests `issue` makes at once, resolved as soon as they
 * have succeeded: what a readonly transaction read is final then, and waiting for its
 * completion event costs a round trip more (BENCHMARKS.md). `issue` makes every request
 * before it first awaits: the transaction is committed when it returns.
 */
export async function readOnly<T>(connection: Connection, doing: string, issue: (tx: IDBTransaction) => Promise<T>): Promise<T> {
  const tx = await connection.begin("readonly", doing);
  const reads = issue(tx);
  // Ended now, not when this context's event loop next goes idle: a page that is navigated
  // away (or frozen) right after the read would otherwise leave it open, and WebKit then
  // holds every later readwrite transaction of the origin behind it.
  tx.commit?.();
  return reads;
}

/** The `transaction_aborted` of a write the browser's storage failed before it committed. */
export function notWritten(doing: string, cause: AttrmapError): AttrmapError {
  return new AttrmapError(
    "transaction_aborted",
    `${doing} failed: the browser's storage failed before the write committed; nothing was written`,
    { cause },
  );
}

/** The `outcome_unknown` of a write whose transaction the browser reported aborted after it was asked to commit. */
function outcomeUnknown(doing: string, cause: AttrmapError): AttrmapError {
  return new AttrmapError(
    "outcome_unknown",
    `${doing}: the browser's storage failed while the write committed, and what it wrote could not be read back: ` +
      "the write may have landed",
    { cause },
  );
}
