// What the test page exposes, for typing the functions run inside it with page.evaluate.
import type * as Attrmap from "attrmap";
import type * as Dex from "attrmap/dex";
import type * as ExportImport from "attrmap/export-import";
import type * as Http from "attrmap/http";

declare global {
  interface Window {
    /** Every entry's exports but the React binding's (harness.ts). */
    attrmap: typeof Attrmap & typeof ExportImport & typeof Dex & typeof Http;
    /** IndexedDB calls recorded by the instrumentation script, when installed. */
    __idb?: {
      requests: Array<{ op: string; store: string; key?: string }>;
      transactions: Array<{ stores: string[]; mode: string }>;
    };
  }
}
