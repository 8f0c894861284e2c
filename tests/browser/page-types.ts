// What the test page exposes, for typing the functions run inside it with page.evaluate.
import type * as Attrmap from "attrmap";

declare global {
  interface Window {
    attrmap: typeof Attrmap;
    /** IndexedDB calls recorded by the instrumentation script, when installed. */
    __idb?: {
      requests: Array<{ op: string; store: string; key?: string }>;
      transactions: Array<{ stores: string[]; mode: string }>;
    };
  }
}
