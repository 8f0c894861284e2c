// attrmap/react: live queries as React state. React (18 or 19) is the caller's; the store is
// any attrmap store, from "attrmap" or "attrmap/browser".

export type { LiveQueryStore } from "./use-live-query.js";
export { useLiveQuery } from "./use-live-query.js";
