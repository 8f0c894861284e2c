// What happens to a database as a whole, told to whoever listens: its data was lost, or the
// browser's storage became unreachable from this context. Each is told once per occurrence.
import type { AttrmapError } from "./errors.js";

/** The events of `store.on`: `datalost` (code `data_lost`) and `unavailable` (code `connection_closed`). */
export type StoreEvent = "datalost" | "unavailable";

/** The events a store tells its own parts: the public ones, and `reset` once a loss was acknowledged. */
export type InternalEvent = StoreEvent | "reset";

type Listener = (error: AttrmapError) => void;

/** Listeners by event; a listener that throws is reported and does not stop the others. */
export class Events {
  private readonly listeners = new Map<InternalEvent, Set<Listener>>();

  /** Calls `listener` with the error of each `event`; returns a function that stops it. */
  on(event: InternalEvent, listener: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set);
    // A wrapper, so the same function given twice is called twice and each stop removes one.
    const entry: Listener = (error) => listener(error);
    set.add(entry);
    return () => void set.delete(entry);
  }

  emit(event: InternalEvent, error: AttrmapError): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(error);
      } catch (e) {
        report(e);
      }
    }
  }
}

/** Reports an error nobody can catch: `reportError` where it exists, else `console.error`. */
export function report(error: unknown): void {
  const global = globalThis as { reportError?: (e: unknown) => void };
  if (typeof global.reportError === "function") global.reportError(error);
  else console.error(error);
}
