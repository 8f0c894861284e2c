// A live query as React state, as dexie-react-hooks' useLiveQuery is: the component renders
// again with each result, and an error is thrown where React's error boundaries catch it.
import { type DependencyList, useEffect, useState } from "react";
import type { LiveQueryObserver } from "../live/live-query.js";

/**
 * What the hook needs of a store: a `liveQuery` whose results it can subscribe to with an
 * observer. A store of `"attrmap"` or of `"attrmap/browser"` is one (the hook takes either).
 */
export interface LiveQueryStore<S> {
  liveQuery<T>(query: (store: S) => Promise<T> | T): { subscribe(observer: LiveQueryObserver<T>): { unsubscribe(): void } };
}

/** The hook's state: the latest result, or the error the next render throws. */
type State<T> = { value: T } | { error: unknown };

/**
 * The result of `query`, run as `store.liveQuery(query)`: `undefined` until its first result,
 * then each new result as any context of the origin changes what it read. It runs again when
 * a value of `deps` changes (the previous result stays until then) and stops on unmount. A query
 * that throws makes the render throw that error, for the nearest error boundary. The store is
 * called only in an effect, so a server rendering the component renders the initial value; with
 * no store yet (`undefined` or `null`, as a `typeof window` guard gives) the hook returns it too.
 */
export function useLiveQuery<S, T>(
  store: LiveQueryStore<S> | null | undefined,
  query: (store: S) => Promise<T> | T,
  deps?: DependencyList,
): T | undefined;
/** As above, with `initial` until the first result. */
export function useLiveQuery<S, T, I>(
  store: LiveQueryStore<S> | null | undefined,
  query: (store: S) => Promise<T> | T,
  deps: DependencyList,
  initial: I,
): T | I;
export function useLiveQuery<S, T, I>(
  store: LiveQueryStore<S> | null | undefined,
  query: (store: S) => Promise<T> | T,
  deps: DependencyList = [],
  initial?: I,
): T | I | undefined {
  const [state, setState] = useState<State<T | I | undefined>>({ value: initial });
  // `query` is a new function each render: as with useEffect, it runs again when `deps` change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: deps are the caller's, as in dexie-react-hooks
  useEffect(() => {
    if (!store) return;
    const subscription = store.liveQuery(query).subscribe({
      next: (value) => setState({ value }),
      error: (error) => setState({ error }),
    });
    return subscription.unsubscribe;
  }, [store, ...deps]);
  if ("error" in state) throw state.error;
  return state.value;
}
