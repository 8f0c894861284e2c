// The Web Locks of one JavaScript context's transactions (store.transaction), passed from one
// transaction to the next of the same context that waits for it, without going back to the
// browser's lock manager in between: in Chromium a release and a grant cost about half a
// millisecond each, and transactions started together (a burst of transfers) would spend most of
// their time on them. A lock is passed at most PASSES times in a row; then it is let go, and the
// browser's queue (other tabs, workers, this context's single writes) has its turn. A
// transaction takes its locks through them with holdForTransaction; loaded with the first one.
import {
  heldByTransactions,
  inNameOrder,
  inOrder,
  type LockGrant,
  type LockManagerLike,
  type LockRequest,
  type LockRequestOptions,
  type WriteOptions,
} from "./locks.js";

type Mode = "exclusive" | "shared";

/** Local grants of a lock between two requests to the browser's lock manager. */
export const PASSES = 32;

interface Waiter {
  mode: Mode;
  grant(): void;
  fail(error: unknown): void;
}

/** One lock name, as this context holds it. */
interface Slot {
  /** The mode the browser granted it in; undefined while it is not held. */
  held: Mode | undefined;
  /** Whether a request to the browser is pending. */
  asking: boolean;
  /** Stops that request once no one here waits for it any more. */
  stopAsking: AbortController | undefined;
  /** Local holders, and whether the one holder is exclusive. */
  holders: number;
  exclusive: boolean;
  /** Local grants since the browser granted it. */
  passes: number;
  waiters: Waiter[];
  /** Ends the browser's grant. */
  letGo(): void;
}

/** A lock manager that holds `browser`'s locks for this context and passes them on locally (see above). */
export class ContextLocks implements LockManagerLike {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly browser: LockManagerLike) {}

  async request<T>(name: string, options: LockRequestOptions, callback: (lock: LockGrant | null) => Promise<T> | T): Promise<T> {
    const mode = options.mode ?? "exclusive";
    const slot = this.slot(name);
    if (options.ifAvailable) {
      const free = slot.held === undefined && !slot.asking && slot.holders === 0 && slot.waiters.length === 0;
      // A grant from the browser is taken in `ask`, before anything else can run.
      if (free ? !(await this.ask(name, slot, mode, true)) : !(slot.waiters.length === 0 && this.fits(slot, mode)))
        return callback(null);
      if (!free) this.take(slot, mode);
    } else {
      await this.wait(name, slot, mode, options.signal);
    }
    try {
      return await callback({ name, mode });
    } finally {
      slot.holders--;
      slot.exclusive = false;
      this.pump(name, slot);
    }
  }

  private slot(name: string): Slot {
    let slot = this.slots.get(name);
    if (!slot) {
      slot = {
        held: undefined,
        asking: false,
        stopAsking: undefined,
        holders: 0,
        exclusive: false,
        passes: 0,
        waiters: [],
        letGo: () => {},
      };
      this.slots.set(name, slot);
    }
    return slot;
  }

  /** Whether a local grant of `mode` can be made now, under the browser's grant, within PASSES. */
  private fits(slot: Slot, mode: Mode): boolean {
    if (slot.held === undefined || slot.passes >= PASSES || slot.exclusive) return false;
    return mode === "shared" || (slot.held === "exclusive" && slot.holders === 0);
  }

  private take(slot: Slot, mode: Mode): void {
    slot.holders++;
    slot.exclusive = mode === "exclusive";
    slot.passes++;
  }

  /** Queues for a local grant (asking the browser when no one here holds or asks for the lock). */
  private wait(name: string, slot: Slot, mode: Mode, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const onAbort = () => {
        slot.waiters.splice(slot.waiters.indexOf(waiter), 1);
        reject(signal?.reason);
        this.pump(name, slot);
      };
      const waiter: Waiter = {
        mode,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        fail: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      slot.waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pump(name, slot);
    });
  }

  /** Grants what the browser's grant allows, in order; lets it go when no one here can use it; asks for the next. */
  private pump(name: string, slot: Slot): void {
    while (slot.waiters.length > 0 && this.fits(slot, slot.waiters[0]!.mode)) {
      const next = slot.waiters.shift()!;
      this.take(slot, next.mode);
      next.grant();
    }
    if (slot.held !== undefined && slot.holders === 0) {
      slot.held = undefined;
      slot.letGo();
    }
    if (slot.waiters.length === 0) {
      slot.stopAsking?.abort();
      if (slot.held === undefined && !slot.asking && slot.holders === 0) this.slots.delete(name);
      return;
    }
    if (slot.held === undefined && !slot.asking) void this.ask(name, slot, slot.waiters[0]!.mode, false);
  }

  /**
   * Asks the browser for the lock in `mode` (only if it is free, with `ifAvailable`); once
   * granted, holds it until `pump` lets it go. Resolves whether it was granted.
   */
  private ask(name: string, slot: Slot, mode: Mode, ifAvailable: boolean): Promise<boolean> {
    slot.asking = true;
    const stop = ifAvailable ? undefined : new AbortController();
    slot.stopAsking = stop;
    return new Promise<boolean>((answer) => {
      const options: LockRequestOptions = ifAvailable ? { mode, ifAvailable } : { mode, signal: stop!.signal };
      this.browser
        .request(name, options, (lock) => {
          slot.asking = false;
          slot.stopAsking = undefined;
          if (!lock) return answer(false);
          slot.held = mode;
          slot.passes = 0;
          return new Promise<void>((letGo) => {
            slot.letGo = letGo;
            if (ifAvailable) this.take(slot, mode);
            answer(true);
            if (!ifAvailable) this.pump(name, slot);
          });
        })
        .catch((e: unknown) => {
          // Stopped (no one waits any more), or the lock manager failed: the waiters fail with it.
          slot.asking = false;
          slot.stopAsking = undefined;
          answer(false);
          if (!stop?.signal.aborted) for (const waiter of slot.waiters.splice(0)) waiter.fail(e);
          this.pump(name, slot);
        });
    });
  }
}

/** The ContextLocks of each lock manager, which its transactions take their locks through. */
const contexts = new WeakMap<LockManagerLike, ContextLocks>();

/**
 * @internal
 * A transaction's locks: exactly `requests` (no escalation: a transaction's reads rely on each
 * instance lock), one per name, exclusive winning, taken in name order as every writer takes
 * them, through this context's ContextLocks (passed on from a transaction of this context that
 * held them). While `body` runs, writes of this context that need them fail at once (withLocks).
 */
export async function holdForTransaction<T>(
  locks: LockManagerLike,
  requests: readonly LockRequest[],
  options: WriteOptions,
  body: () => Promise<T>,
): Promise<T> {
  const sorted = inNameOrder(requests);
  let context = contexts.get(locks);
  if (!context) contexts.set(locks, (context = new ContextLocks(locks)));
  return inOrder(context, sorted, options, async () => {
    let table = heldByTransactions.get(locks);
    if (!table) heldByTransactions.set(locks, (table = new Map()));
    for (const [name, { mode }] of sorted) {
      const by = table.get(name);
      table.set(name, { mode: by?.mode === "exclusive" ? "exclusive" : mode, count: (by?.count ?? 0) + 1 });
    }
    try {
      return await body();
    } finally {
      for (const [name] of sorted) {
        const by = table.get(name)!;
        if (--by.count === 0) table.delete(name);
      }
    }
  });
}
