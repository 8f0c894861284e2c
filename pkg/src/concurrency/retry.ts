// Retrying writes that found their lock held (`lock: "ifAvailable"`), with backoff.
import * as args from "../common/args.js";
import { AttrmapError } from "../common/errors.js";

/** How often and how far apart `retryOnConflict` tries again. */
export interface RetryOptions {
  /** Attempts in all, the first included: an integer from 1 (default 8). */
  attempts?: number | undefined;
  /** Backoff before the second attempt in milliseconds; it doubles each time, with full jitter (default 5). */
  baseDelayMs?: number | undefined;
  /** Largest backoff in milliseconds (default 250). */
  maxDelayMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

function retryOptions(value: unknown): Required<Omit<RetryOptions, "signal">> & { signal?: AbortSignal } {
  const o = args.options("options", value);
  const get = (key: string) => args.field("options", o, key);
  const or = <T>(key: string, fallback: T, check: (name: string, v: unknown) => T) =>
    get(key) === undefined ? fallback : check(`options.${key}`, get(key));
  return {
    attempts: or("attempts", 8, (n, v) => args.count(n, v, 1)),
    baseDelayMs: or("baseDelayMs", 5, (n, v) => args.duration(n, v, false)),
    maxDelayMs: or("maxDelayMs", 250, (n, v) => args.duration(n, v, false)),
    signal: args.signal("options.signal", get("signal")),
  };
}

/**
 * Retries an idempotent write while it fails with `lock_conflict`, with exponential
 * backoff and jitter. Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(operation: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const run = args.func<() => Promise<T>>("operation", operation);
  const { attempts, baseDelayMs, maxDelayMs, signal } = retryOptions(options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof AttrmapError && e.code === "lock_conflict") || attempt >= attempts) throw e;
    }
    await sleep(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)), signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AttrmapError("aborted", "retry aborted", { cause: signal.reason }));
    const done = () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AttrmapError("aborted", "retry aborted", { cause: signal?.reason }));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
