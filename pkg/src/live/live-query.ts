// Live queries: a query reads through a view of the store that tells which instances it read
// (or looked for and did not find: Instances tells every read, see ReadObserver); it
// runs again when a change announced on the database's channel touches one of them, whichever
// context of the origin wrote it.

import * as args from "../common/args.js";
import { CURRENT } from "../common/constants.js";
import type { Context } from "../common/context.js";
import { report } from "../common/events.js";
import { inRange, type KeyBounds, overlap } from "../idb/keys.js";
import type { Attrmap } from "../store/attrmap.js";
import { type Change, type MapChange, watchChanges } from "./changes.js";

/** What a live query's results go to, as an Observable's observer. */
export interface LiveQueryObserver<T> {
  next?(value: T): void;
  /** An error of the query; it runs again at the next relevant change. */
  error?(error: unknown): void;
}

/**
 * A live query's subscription: a function that stops the query (no result is delivered after
 * the call), which is also an Observable's (Dexie's, RxJS's) subscription object.
 */
export interface Subscription {
  (): void;
  /** The same as calling the subscription. */
  unsubscribe(): void;
  readonly closed: boolean;
}

/**
 * A live query, an Observable in shape and a Svelte store: `subscribe` runs it now and again
 * after each change to what it read.
 */
export interface LiveQuery<T> {
  /**
   * Delivers each result, in order, to `observer.next` and each error to `observer.error`.
   * An error with no `error` to go to is reported (`reportError`, else `console.error`).
   */
  subscribe(observer: LiveQueryObserver<T>): Subscription;
  /**
   * Delivers each result to `next`, as a Svelte store does: `invalidate` (Svelte's, for
   * `derived`) is called just before each result. Errors are reported (`reportError`, else
   * `console.error`); give an observer object with `error` to handle them.
   */
  subscribe(next: (value: T) => void, invalidate?: () => void): Subscription;
}

/** Everything of `map` (an iteration or a count read it whole). */
const WHOLE_MAP = "\u0000*";

/** What one run of a query read: instances (`map\0instance`), ranges of index entries by map, and whether the feed. */
interface Reads {
  instances: Set<string>;
  entries: Map<string, KeyBounds[]>;
  feed: boolean;
}

/** A context whose instances note what each read covers into `deps`; writes pass through. */
function tracking(ctx: Context, deps: Reads): Context {
  const note = (map: string, instance: string) => deps.instances.add(`${map}\u0000${instance}`);
  const instances = ctx.instances.observed((map, scope) => {
    // Opening a map reads its layout, on every run: a change of layout shows in every later read.
    if (scope === "layout") return;
    if (scope === "feed") return void (deps.feed = true);
    if (scope === "all") return note(map, WHOLE_MAP);
    if (!Array.isArray(scope)) {
      // A query of an index: a build's steps and a drop announce entries of its ranges too.
      const { entries } = scope as { entries: readonly KeyBounds[] };
      return void deps.entries.set(map, [...(deps.entries.get(map) ?? []), ...entries]);
    }
    // A read of the metadata alone uses a log's state, which every append changes with `current`.
    if (scope.length === 0) note(map, CURRENT);
    for (const instance of scope) note(map, instance);
  });
  return { instances, locks: ctx.locks };
}

type Callback = (value: unknown) => void;

/** An optional callback: undefined, or a function. */
function optionalFunc(name: string, value: unknown): Callback | undefined {
  return value === undefined ? undefined : args.func<Callback>(name, value);
}

/**
 * `next` and `error` of `subscribe(next, invalidate)` or `subscribe({ next, error })`, checked
 * and read once. With no `error`, an error is reported rather than dropped.
 */
function callbacks(observer: unknown, invalidate: unknown): [next: Callback | undefined, error: Callback] {
  if (typeof observer === "function") {
    const before = optionalFunc("invalidate", invalidate);
    const next = observer as Callback;
    const told: Callback = (value) => {
      before?.(undefined);
      next(value);
    };
    return [told, report];
  }
  const o = args.object("observer", observer);
  const bound = (key: string) => optionalFunc(`observer.${key}`, args.field("observer", o, key))?.bind(o);
  return [bound("next"), bound("error") ?? report];
}

function touches(deps: Reads, change: Change): boolean {
  // A write adds a change record to the feed for each map whose instances it changed.
  if (deps.feed && change.maps.some((changed) => changed.instances.length > 0)) return true;
  return change.maps.some((changed) => touchesMap(deps, changed));
}

function touchesMap(deps: Reads, change: MapChange): boolean {
  const read = (instance: string) => deps.instances.has(`${change.map}\u0000${instance}`);
  if (read(WHOLE_MAP) || change.instances.some(read)) return true;
  const ranges = deps.entries.get(change.map);
  if (!ranges || !change.entries) return false;
  const { keys, ranges: changed } = change.entries;
  return ranges.some((r) => keys.some((k) => inRange(k, r)) || changed.some((c) => overlap(r, c)));
}

/** @internal The live query of `query`, run over views of `ctx` that `view` makes. */
export function liveQuery<T>(
  ctx: Context,
  query: (store: Attrmap) => Promise<T> | T,
  view: (ctx: Context) => Attrmap,
): LiveQuery<T> {
  return {
    subscribe(observer: LiveQueryObserver<T> | ((value: T) => void), invalidate?: () => void) {
      const [next, error] = callbacks(observer, invalidate);
      let stopped = false;
      let running = false;
      let deps: Reads = { instances: new Set(), entries: new Map(), feed: false };
      // Changes announced while the query runs: they are checked against what this run reads.
      let during: Change[] = [];
      // The database was lost or a loss acknowledged while the query ran: it runs again anyway.
      let reset = false;
      const run = async () => {
        running = true;
        let again: boolean;
        do {
          during = [];
          reset = false;
          const read: Reads = { instances: new Set(), entries: new Map(), feed: false };
          try {
            const value = await query(view(tracking(ctx, read)));
            deps = read;
            if (!stopped) next?.(value);
          } catch (e) {
            deps = read;
            if (!stopped) error(e);
          }
          again = reset || during.some((c) => touches(deps, c));
        } while (again && !stopped);
        running = false;
      };
      const stopWatching = watchChanges(ctx.instances.name, (change) => {
        if (stopped) return;
        if (running) during.push(change);
        else if (touches(deps, change)) void run();
      });
      // A loss is told as the query's error (its reads now fail with data_lost); once it is
      // acknowledged, the query shows the new database.
      const rerun = () => {
        if (stopped) return;
        if (running) reset = true;
        else void run();
      };
      const stops = [
        stopWatching,
        ctx.instances.connection.events.on("datalost", rerun),
        ctx.instances.connection.events.on("reset", rerun),
      ];
      void run();
      const unsubscribe = () => {
        stopped = true;
        for (const stop of stops) stop();
      };
      return Object.defineProperties(unsubscribe, {
        unsubscribe: { value: unsubscribe },
        closed: { get: () => stopped },
      }) as Subscription;
    },
  };
}
