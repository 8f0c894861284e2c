// The one error class of the package and its stable codes (docs/errors.md), and the helpers
// that make them from what the core, IndexedDB and stored data report.
/** Every code an AttrmapError can carry; branch on these, not on messages (docs/errors.md says when each happens). */
export const ERROR_CODES = [
  // Bad input (HTTP 400)
  "invalid_email",
  "invalid_page_token",
  "invalid_argument",
  // Absent data (HTTP 404)
  "not_found",
  // Lock waits
  "lock_conflict",
  "lock_timeout",
  "aborted",
  // Stored layout and data
  "layout_mismatch",
  "layout_changed",
  "already_exists",
  "constraint_violation",
  "not_exportable",
  "checkpoint_expired",
  "sequence_exhausted",
  "corrupt_data",
  // IndexedDB failures; the stored data is as before the call
  "quota_exceeded",
  "transaction_aborted",
  "connection_closed",
  "version_conflict",
  "storage_error",
  // The database as a whole (docs/storage.md, "When data is lost")
  "data_lost",
  "outcome_unknown",
  // Where the store cannot run yet, or at all (docs/errors.md, "Server-side rendering")
  "unavailable",
  "not_ready",
] as const;

/** Stable codes for every error the package throws. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error class the package throws. `message` is the contract's exact text where it gives one. */
export class AttrmapError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "AttrmapError";
    this.code = code;
  }
}

/**
 * @internal An error of the Rust core as an `AttrmapError`; anything else as it is. The core's
 * errors are plain `Error`s renamed to their code (src/bindings/mod.rs); any other error a core
 * call can throw is of another class (a `TypeError`, wasm's `RuntimeError`) or keeps the name "Error".
 */
export function toAttrmapError(e: unknown): unknown {
  const coded = e instanceof Error && Object.getPrototypeOf(e) === Error.prototype && e.name !== "Error";
  return coded ? new AttrmapError(e.name as ErrorCode, e.message) : e;
}

/** @internal Calls into the Rust core and rethrows its coded errors as `AttrmapError`. */
export function callCore<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw toAttrmapError(e);
  }
}

/** @internal `callCore` for a check of stored data: any rule it breaks is `corrupt_data`, saying where. */
export function checkStored<T>(where: string, call: () => T): T {
  try {
    return callCore(call);
  } catch (e) {
    throw e instanceof AttrmapError ? new AttrmapError("corrupt_data", `${where}: ${e.message}`, { cause: e }) : e;
  }
}

const DOM_ERROR_CODES: Record<string, ErrorCode> = {
  QuotaExceededError: "quota_exceeded",
  AbortError: "transaction_aborted",
  InvalidStateError: "connection_closed",
  VersionError: "version_conflict",
  DataCloneError: "invalid_argument",
  ConstraintError: "corrupt_data",
};

/**
 * @internal Whether `e` is a DOMException of any realm: once a store reads through a frame's
 * IndexedDB (frame.ts), its errors are the frame's DOMExceptions, which `instanceof` misses.
 */
export function isDOMException(e: unknown): e is DOMException {
  return Object.prototype.toString.call(e) === "[object DOMException]";
}

/**
 * @internal WebKit's answer on every request once its storage process (the network process)
 * died under the page: "Connection to Indexed Database server lost. Refresh the page to try again".
 */
export function serverLost(error: unknown): boolean {
  return isDOMException(error) && error.name === "UnknownError" && /server lost/i.test(error.message);
}

/** @internal An IndexedDB failure (a DOMException) as an AttrmapError saying what was being done. */
export function storageError(error: unknown, doing: string): AttrmapError {
  if (error instanceof AttrmapError) return error;
  const known = error instanceof Error || isDOMException(error);
  const name = known ? error.name : "";
  const detail = known ? error.message : String(error);
  const code = serverLost(error) ? "connection_closed" : (DOM_ERROR_CODES[name] ?? "storage_error");
  return new AttrmapError(code, `${doing} failed: ${name || "error"}${detail ? `: ${detail}` : ""}`, { cause: error });
}

/** The error of every operation of a store made where there is no IndexedDB. */
export function noIndexedDB(database: string): AttrmapError {
  return new AttrmapError(
    "unavailable",
    `no IndexedDB for database "${database}": under server-side rendering, call the store in the browser; ` +
      "in Node, pass openAttrmap({ indexedDB, IDBKeyRange })",
  );
}

/** An AttrmapError for stored data that breaks a rule, naming the map and the instance (or index) that holds it. */
export function corrupt(map: string, at: string | { index: string } | undefined, reason: string, cause?: unknown): AttrmapError {
  const of = typeof at === "object" ? `index "${at.index}" of ` : at === undefined ? "" : `instance "${at}" of `;
  const where = `${of}map "${map}"`;
  return new AttrmapError("corrupt_data", `${where}: ${reason}`, cause === undefined ? undefined : { cause });
}
