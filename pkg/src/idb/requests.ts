// IndexedDB's requests as promises, and its synchronous calls with their errors made
// AttrmapErrors: the one place a request's success or failure is read.
import { AttrmapError, isDOMException, storageError } from "../common/errors.js";

/** A request's result; a failed request rejects with the AttrmapError for it. */
export function request<T>(req: IDBRequest<T>, doing: string): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(storageError(req.error, doing));
  });
}

/**
 * Resolves once every write request of a transaction has succeeded; rejects with the first
 * failure (the quota, a taken key). A transaction body awaits this before it returns, so that
 * commit() is called with nothing pending: Firefox and WebKit do not abort a transaction for a
 * request that fails after commit() was called, and its other writes would land without it.
 */
export function settledBeforeCommit(requests: readonly IDBRequest[], doing: string): Promise<unknown> {
  return Promise.all(requests.map((r) => request(r, doing)));
}

/**
 * Runs synchronous IndexedDB calls: a DOMException (DataCloneError, ...) becomes its
 * AttrmapError; anything else was thrown by the caller's value while it was being cloned
 * (a getter, a proxy trap), so the value is what is wrong.
 */
export function attempt<T>(doing: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (isDOMException(e)) throw storageError(e, doing);
    throw new AttrmapError(
      "invalid_argument",
      `${doing} failed: a value could not be copied for storage: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}
