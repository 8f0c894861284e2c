// Writers serialize through the Web Locks API: one exclusive lock per instance written,
// named after database, map and instance, so tabs, workers and service workers of one
// origin wait for each other. Readers take no lock.
import * as args from "../common/args.js";
import { AttrmapError, storageError } from "../common/errors.js";

/** How a write waits for its locks. */
export type LockWait = "wait" | "ifAvailable";

/** How a write waits for its Web Locks; every writing method takes these. */
export interface WriteOptions {
  /**
   * `"wait"` (default) queues for the lock, bounded by `timeoutMs` and `signal`;
   * `"ifAvailable"` fails at once with a `lock_conflict` error when another writer holds it
   * (like the reference server, which never waits). Retry those with `retryOnConflict`.
   */
  lock?: LockWait | undefined;
  /** With `"wait"`: give up with `lock_timeout` after this many milliseconds (0 to 2147483647; `Infinity`: never). */
  timeoutMs?: number | undefined;
  /** With `"wait"`: give up with `aborted` when this signal aborts. It only bounds the wait. */
  signal?: AbortSignal | undefined;
}

/** @internal Checks a caller's write options, field by field. */
export function writeOptions(value: unknown, name = "options"): WriteOptions {
  const o = args.options(name, value);
  const lock = args.field(name, o, "lock");
  const timeout = args.field(name, o, "timeoutMs");
  return {
    lock: lock === undefined ? undefined : args.oneOf<LockWait>(`${name}.lock`, lock, ["wait", "ifAvailable"]),
    timeoutMs: timeout === undefined ? undefined : args.duration(`${name}.timeoutMs`, timeout, true),
    signal: args.signal(`${name}.signal`, args.field(name, o, "signal")),
  };
}

/** @internal Whether a waiting write's wait is bounded: it has a `signal` or a finite `timeoutMs`. */
export function boundedWait(options: WriteOptions): boolean {
  return options.signal !== undefined || (options.timeoutMs !== undefined && options.timeoutMs !== Infinity);
}

/** A granted lock, as `navigator.locks` hands it to its callback. */
export interface LockGrant {
  readonly name: string;
  readonly mode: "exclusive" | "shared";
}

/** The options of the lock requests this package makes. */
export interface LockRequestOptions {
  mode?: "exclusive" | "shared" | undefined;
  ifAvailable?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/** The part of `LockManager` (`navigator.locks`) this package uses, so a fallback can stand in for it. */
export interface LockManagerLike {
  request<T>(name: string, options: LockRequestOptions, callback: (lock: LockGrant | null) => Promise<T> | T): Promise<T>;
}

type Mode = "exclusive" | "shared";

/** What one lock stands for: a whole map (`instance` absent), or one instance of it. */
export interface LockKey {
  database: string;
  map: string;
  instance?: string | undefined;
}

function nameOf(key: LockKey): string {
  const parts = key.instance === undefined ? [key.database, key.map] : [key.database, key.map, key.instance];
  return `attrmap:${JSON.stringify(parts)}`;
}

/**
 * The Web Lock name of a key: `attrmap:["<database>","<map>"]` or
 * `attrmap:["<database>","<map>","<instance>"]`, unambiguous for any names.
 */
export function lockName(key: LockKey): string {
  const k = args.object("key", key);
  const instance = args.field("key", k, "instance");
  return nameOf({
    database: args.string("key.database", args.field("key", k, "database")),
    map: args.string("key.map", args.field("key", k, "map")),
    instance: instance === undefined ? undefined : args.string("key.instance", instance),
  });
}

function describe(key: LockKey): string {
  const where = `map "${key.map}" in database "${key.database}"`;
  return key.instance === undefined ? where : `instance "${key.instance}" of ${where}`;
}

/** @internal One lock a write needs: shared locks of one name may be held together, an exclusive one alone. */
export interface LockRequest {
  key: LockKey;
  mode: Mode;
}

interface Waiter {
  mode: Mode;
  grant(): void;
}

/**
 * An in-process lock manager for where `navigator.locks` does not exist (Node before 24,
 * insecure contexts). It serializes writers of this JavaScript realm only: other tabs,
 * workers and processes are NOT held back. Like Web Locks, it grants in request order.
 */
export class InProcessLocks implements LockManagerLike {
  private readonly held = new Map<string, { mode: Mode; count: number }>();
  private readonly waiting = new Map<string, Waiter[]>();

  async request<T>(name: string, options: LockRequestOptions, callback: (lock: LockGrant | null) => Promise<T> | T): Promise<T> {
    const mode = options.mode ?? "exclusive";
    if (this.available(name, mode)) this.take(name, mode);
    else if (options.ifAvailable) return callback(null);
    else await this.queue(name, mode, options.signal);
    try {
      return await callback({ name, mode });
    } finally {
      this.release(name);
    }
  }

  private available(name: string, mode: Mode): boolean {
    const held = this.held.get(name);
    return !this.waiting.get(name)?.length && (!held || (held.mode === "shared" && mode === "shared"));
  }

  private take(name: string, mode: Mode): void {
    const held = this.held.get(name);
    if (held) held.count++;
    else this.held.set(name, { mode, count: 1 });
  }

  private release(name: string): void {
    const held = this.held.get(name)!;
    if (--held.count > 0) return;
    this.held.delete(name);
    // Hand over in order: the next exclusive waiter alone, or every shared waiter at the head.
    const queue = this.waiting.get(name) ?? [];
    while (
      queue.length > 0 &&
      (!this.held.has(name) || (queue[0]!.mode === "shared" && this.held.get(name)!.mode === "shared"))
    ) {
      const next = queue.shift()!;
      this.take(name, next.mode);
      next.grant();
      if (next.mode === "exclusive") break;
    }
    if (queue.length === 0) this.waiting.delete(name);
  }

  private queue(name: string, mode: Mode, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const queue = this.waiting.get(name) ?? [];
      this.waiting.set(name, queue);
      const onAbort = () => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        mode,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      queue.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** @internal `navigator.locks` where it exists, else one shared in-process fallback. */
export function defaultLocks(): LockManagerLike {
  const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
  return (nav?.locks as LockManagerLike | undefined) ?? (sharedFallback ??= new InProcessLocks());
}
let sharedFallback: InProcessLocks | undefined;

/** The signal that bounds a wait: the caller's, the timeout's, or both. */
function waitSignal(options: WriteOptions): { signal?: AbortSignal; timedOut(): boolean; dispose(): void } {
  // A plain timer rather than AbortSignal.timeout, whose timer Node does not wait for: a
  // wait bounded by a timeout must end by the timeout, not when the event loop runs dry.
  const bounded = options.timeoutMs !== undefined && options.timeoutMs !== Infinity;
  const timeout = bounded ? new AbortController() : undefined;
  const timer =
    timeout && setTimeout(() => timeout.abort(new DOMException("lock wait timed out", "TimeoutError")), options.timeoutMs);
  const signals = [options.signal, timeout?.signal].filter((s): s is AbortSignal => s !== undefined);
  return {
    signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    timedOut: () => timeout?.signal.aborted === true,
    dispose: () => clearTimeout(timer),
  };
}

/**
 * A write that needs more instance locks of one map than this takes the map's lock,
 * exclusive, instead: each lock is a round trip to the browser's lock manager (about 0.4 ms in
 * Chromium), and a bulk write to 1000 partitions spent most of its time taking them.
 */
const MAX_INSTANCE_LOCKS = 16;

/** @internal One request per lock name (exclusive wins), in name order: the order every writer takes its locks in. */
export function inNameOrder(requests: Iterable<LockRequest>): Array<[string, LockRequest]> {
  const byName = new Map<string, LockRequest>();
  for (const r of requests) {
    const name = nameOf(r.key);
    if (byName.get(name)?.mode !== "exclusive") byName.set(name, r);
  }
  return [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The locks a write takes for `requests`: escalated per map past MAX_INSTANCE_LOCKS, in name order. */
function plan(requests: readonly LockRequest[]): Array<[string, LockRequest]> {
  const perMap = new Map<string, number>();
  for (const r of requests) {
    if (r.key.instance === undefined) continue;
    const map = nameOf({ database: r.key.database, map: r.key.map });
    perMap.set(map, (perMap.get(map) ?? 0) + 1);
  }
  return inNameOrder(
    requests.map((r) => {
      const map: LockKey = { database: r.key.database, map: r.key.map };
      return (perMap.get(nameOf(map)) ?? 0) > MAX_INSTANCE_LOCKS ? { key: map, mode: "exclusive" } : r;
    }),
  );
}

/**
 * @internal The locks the running transactions of this JavaScript context hold (store.transaction), by
 * lock manager: a write of the same context that needs one of them would wait for a
 * transaction that may be waiting for it.
 */
export const heldByTransactions = new WeakMap<LockManagerLike, Map<string, { mode: Mode; count: number }>>();

/** Refuses, at once, locks that a running transaction of this context holds (see heldByTransactions). */
function refuseHeld(locks: LockManagerLike, sorted: ReadonlyArray<readonly [string, LockRequest]>): void {
  const held = heldByTransactions.get(locks);
  if (!held) return;
  for (const [name, { key, mode }] of sorted) {
    const by = held.get(name);
    if (by && (mode === "exclusive" || by.mode === "exclusive"))
      throw args.invalid(
        `${describe(key)} is held by a running store.transaction() of this context; ` +
          "write it through that transaction's tx (tx.upsert, tx.delete, tx.append)",
      );
  }
}

/**
 * @internal
 * Runs `body` holding the locks of `requests` (taken in name order, so writers that need
 * several never deadlock), and releases them when it settles. A lock that a running
 * transaction of this context holds is `invalid_argument` at once (see heldByTransactions).
 */
export async function withLocks<T>(
  locks: LockManagerLike,
  requests: readonly LockRequest[],
  options: WriteOptions,
  body: () => Promise<T>,
): Promise<T> {
  const sorted = plan(requests);
  refuseHeld(locks, sorted);
  return inOrder(locks, sorted, options, body);
}

/** @internal Takes the locks of `sorted` one at a time, in their order, then runs `body`; see withLocks. */
export async function inOrder<T>(
  locks: LockManagerLike,
  sorted: ReadonlyArray<readonly [string, LockRequest]>,
  options: WriteOptions,
  body: () => Promise<T>,
): Promise<T> {
  const ifAvailable = options.lock === "ifAvailable";
  const wait = ifAvailable ? undefined : waitSignal(options);
  const signal = wait?.signal;
  const all = () => sorted.map(([, r]) => describe(r.key)).join(", ");
  let waiting = true;
  const acquire = (i: number): Promise<T> => {
    const next = sorted[i];
    if (next === undefined) {
      waiting = false;
      wait?.dispose(); // every lock is held: the wait is over
      return body();
    }
    const [name, { key, mode }] = next;
    const request: LockRequestOptions = ifAvailable ? { mode, ifAvailable: true } : { mode, signal };
    return locks.request(name, request, (lock) => {
      if (lock === null) throw new AttrmapError("lock_conflict", `${describe(key)} is locked by another writer; retry later`);
      return acquire(i + 1);
    });
  };
  try {
    return await acquire(0);
  } catch (e) {
    wait?.dispose();
    // Chromium and Firefox reject with the signal's reason; WebKit with an AbortError of its own.
    if (waiting && signal?.aborted) {
      if (wait?.timedOut())
        throw new AttrmapError("lock_timeout", `timed out after ${options.timeoutMs} ms waiting for ${all()}`, { cause: e });
      throw new AttrmapError("aborted", `the wait for ${all()} was aborted`, { cause: e });
    }
    if (!waiting || e instanceof AttrmapError || !(e instanceof DOMException)) throw e; // the body's own error, as it is
    // The lock manager itself failed.
    throw storageError(e, `locking ${all()}`);
  }
}
