// Writers serialize through the Web Locks API: one exclusive lock per instance written,
// named after database, map and instance, so tabs, workers and service workers of one
// origin wait for each other. Readers take no lock.
import { AttrmapError, storageError } from "./errors.js";

/** How a write waits for its locks. */
export type LockWait = "wait" | "ifAvailable";

export interface WriteOptions {
  /**
   * `"wait"` (default) queues for the lock, bounded by `timeoutMs` and `signal`;
   * `"ifAvailable"` fails at once with a `lock_conflict` error when another writer holds it
   * (like the reference server, which never waits). Retry those with `retryOnConflict`.
   */
  lock?: LockWait;
  /** With `"wait"`: give up with `lock_timeout` after this many milliseconds. */
  timeoutMs?: number;
  /** With `"wait"`: give up with `aborted` when this signal aborts. It only bounds the wait. */
  signal?: AbortSignal;
}

/** The part of `LockManager` this package uses, so a fallback can stand in for it. */
export interface LockManagerLike {
  request<T>(name: string, options: LockOptions, callback: (lock: Lock | null) => Promise<T> | T): Promise<T>;
}

/** The lock name of one instance: unambiguous for any database, map and instance names. */
export function lockName(database: string, map: string, instance: string): string {
  return "attrmap:" + JSON.stringify([database, map, instance]);
}

/**
 * An in-process lock manager for where `navigator.locks` does not exist (Node before 24,
 * insecure contexts). It serializes writers of this JavaScript realm only: other tabs,
 * workers and processes are NOT held back.
 */
export class InProcessLocks implements LockManagerLike {
  private readonly held = new Set<string>();
  private readonly waiting = new Map<string, Array<() => void>>();

  async request<T>(name: string, options: LockOptions, callback: (lock: Lock | null) => Promise<T> | T): Promise<T> {
    if (this.held.has(name)) {
      if (options.ifAvailable) return callback(null);
      await this.queue(name, options.signal);
    }
    this.held.add(name);
    try {
      return await callback({ name, mode: options.mode ?? "exclusive" } as Lock);
    } finally {
      const next = this.waiting.get(name)?.shift();
      if (next) next(); // hand over directly: the name stays held
      else this.held.delete(name);
    }
  }

  private queue(name: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const queue = this.waiting.get(name) ?? [];
      this.waiting.set(name, queue);
      const onAbort = () => {
        queue.splice(queue.indexOf(grant), 1);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      queue.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** `navigator.locks` where it exists, else one shared in-process fallback. */
export function defaultLocks(): LockManagerLike {
  const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
  return nav?.locks ?? (sharedFallback ??= new InProcessLocks());
}
let sharedFallback: InProcessLocks | undefined;

/** The signal that bounds a wait: the caller's, the timeout's, or both. */
function waitSignal(options: WriteOptions): { signal?: AbortSignal; timedOut(): boolean; dispose(): void } {
  // A plain timer rather than AbortSignal.timeout, whose timer Node does not wait for: a
  // wait bounded by a timeout must end by the timeout, not when the event loop runs dry.
  const timeout = options.timeoutMs === undefined ? undefined : new AbortController();
  const timer = timeout && setTimeout(() => timeout.abort(new DOMException("lock wait timed out", "TimeoutError")), options.timeoutMs);
  const signals = [options.signal, timeout?.signal].filter((s): s is AbortSignal => s !== undefined);
  return {
    signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    timedOut: () => timeout?.signal.aborted === true,
    dispose: () => clearTimeout(timer),
  };
}

/**
 * Runs `body` holding exclusive locks on `names` (taken in sorted order, so writers that
 * need several never deadlock), and releases them when it settles.
 */
export async function withLocks<T>(locks: LockManagerLike, names: readonly string[], options: WriteOptions, body: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(names)].sort();
  const ifAvailable = options.lock === "ifAvailable";
  const wait = ifAvailable ? undefined : waitSignal(options);
  const signal = wait?.signal;
  const acquire = (i: number): Promise<T> => {
    const name = sorted[i];
    if (name === undefined) {
      wait?.dispose(); // every lock is held: the wait is over
      return body();
    }
    const request: LockOptions = ifAvailable ? { mode: "exclusive", ifAvailable: true } : { mode: "exclusive", signal };
    return locks.request(name, request, (lock) => {
      if (lock === null) throw new AttrmapError("lock_conflict", `${describe(name)} is locked by another writer; retry later`);
      return acquire(i + 1);
    });
  };
  try {
    return await acquire(0);
  } catch (e) {
    wait?.dispose();
    if (signal?.aborted && e === signal.reason) {
      if (wait?.timedOut()) throw new AttrmapError("lock_timeout", `timed out after ${options.timeoutMs} ms waiting for ${sorted.map(describe).join(", ")}`, { cause: e });
      throw new AttrmapError("aborted", `the wait for ${sorted.map(describe).join(", ")} was aborted`, { cause: e });
    }
    // The lock manager itself failed (the body's errors are AttrmapErrors already).
    throw storageError(e, `locking ${sorted.map(describe).join(", ")}`);
  }
}

function describe(name: string): string {
  const [database, map, instance] = JSON.parse(name.slice("attrmap:".length)) as [string, string, string];
  return `instance "${instance}" of map "${map}" in database "${database}"`;
}

export interface RetryOptions {
  /** Attempts in all, the first included (default 8). */
  attempts?: number;
  /** Backoff before the second attempt; it doubles each time, with full jitter (default 5 ms). */
  baseDelayMs?: number;
  /** Largest backoff (default 250 ms). */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * Retries an idempotent write while it fails with `lock_conflict`, with exponential
 * backoff and jitter. Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(operation: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 8, baseDelayMs = 5, maxDelayMs = 250, signal } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (e) {
      if (!(e instanceof AttrmapError && e.code === "lock_conflict") || attempt >= attempts) throw e;
    }
    const delay = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    await sleep(delay, signal);
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
