/** Stable codes for every error the package throws; branch on these, not on messages. */
export type ErrorCode =
  | "invalid_email"
  | "invalid_page_token"
  | "invalid_argument"
  | "not_found"
  | "sequence_exhausted"
  | "corrupt_data";

/** The one error class the package throws. `message` is the exact text of SPEC.md. */
export class AttrmapError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "AttrmapError";
    this.code = code;
  }
}

function hasCode(e: unknown): e is Error & { code: ErrorCode } {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/** Calls into the Rust core and rethrows its coded errors as `AttrmapError`. */
export function callCore<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw hasCode(e) ? new AttrmapError(e.code, e.message) : e;
  }
}
