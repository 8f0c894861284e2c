// Code a page loads at the first call that needs it (an index's build or query, a transaction,
// a resize, retention, paging, the feed's reader; an export, an import, the engine's requests,
// the HTTP handler's answers; the write path of indexes when a map with indexes opens): a
// module imported dynamically, so that a page which never calls it never loads it. A service
// worker may not import() (the HTML specification forbids it), so the "attrmap" entry, which
// service workers, Node and bundled workers use, provides every such module at start instead
// (src/index.ts).
import { AttrmapError } from "./errors.js";

/** A module loaded at its first use, or provided at start. */
export interface LazyModule<T> {
  /** The module: provided, or imported now (once). */
  load(): Promise<T>;
  /**
   * The module, for synchronous code (a write's transaction) that cannot wait for it: throws
   * `CodeNeeded` when it is not loaded yet, and the caller loads it and runs again.
   */
  now(): T;
  /** Starts loading the module without waiting for it (a failure is left to the next `load`). */
  preload(): void;
  /** Gives the module at start, so that `load` never imports. */
  provide(module: T): void;
}

/** A module `importIt` imports at the first `load`; `what` names the calls that need it, in errors. */
export function lazyModule<T>(importIt: () => Promise<T>, what: string): LazyModule<T> {
  let module: T | Promise<T> | undefined;
  let ready: { module: T } | undefined;
  return {
    async load() {
      module ??= importIt();
      try {
        const loaded = await module;
        ready = { module: loaded };
        return loaded;
      } catch (e) {
        module = undefined; // a failed fetch is tried again at the next call
        throw unloadable(what, e);
      }
    },
    now() {
      if (ready === undefined) throw new CodeNeeded(this);
      return ready.module;
    },
    preload() {
      if (module === undefined) this.load().catch(() => {});
    },
    provide(given) {
      module = given;
      ready = { module: given };
    },
  };
}

/**
 * Thrown inside a transaction whose code needs `module` not loaded yet (a write to a map that
 * another tab gave its first index): the transaction aborts, writing nothing, and
 * Instances.writeMaps loads the module and runs the write again.
 */
export class CodeNeeded {
  constructor(readonly module: LazyModule<unknown>) {}
}

/** The error of a module that did not load: in a service worker, where import() is refused, what to import instead. */
function unloadable(what: string, cause: unknown): AttrmapError {
  const worker = (globalThis as { ServiceWorkerGlobalScope?: abstract new () => unknown }).ServiceWorkerGlobalScope;
  if (worker !== undefined && globalThis instanceof worker)
    return new AttrmapError(
      "unavailable",
      `${what} loads its code at the first call, and a service worker may not import(): ` +
        'import "attrmap" in a service worker (not "attrmap/browser"), which loads every part at start',
      { cause },
    );
  return new AttrmapError("unavailable", `the code of ${what} could not be loaded`, { cause });
}
