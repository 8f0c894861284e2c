// A way back to IndexedDB for a page whose connection to the browser's storage process died.
// WebKit keeps IndexedDB in its network process; when that process dies, every document that
// had used IndexedDB keeps a dead connection ("Connection to Indexed Database server lost.
// Refresh the page to try again"), and so do the dedicated workers it starts. A document made
// after the crash connects to the new process: a same-origin about:blank iframe of the page
// does, and its `indexedDB` serves the page (measured: docs/storage.md).
import { AttrmapError } from "../common/errors.js";

/** An IndexedDB of a fresh document of this page, and the IDBKeyRange that goes with it. */
export interface FreshIndexedDB {
  factory: IDBFactory;
  keyRange: typeof IDBKeyRange;
}

type FrameWindow = Window & { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange };

/** The frame made last, shared by every store of the page: after one crash, one frame. */
let current: { frame: HTMLIFrameElement; fresh: FreshIndexedDB } | undefined;

/**
 * A fresh document's IndexedDB to replace `failed`, whose connection is dead; `undefined`
 * where there is no document (a worker) or `failed` is not the page's own (one a caller passed).
 */
export function freshIndexedDB(failed: IDBFactory): FreshIndexedDB | undefined {
  const page = globalThis as { document?: Document; indexedDB?: IDBFactory };
  if (page.document === undefined || (failed !== page.indexedDB && failed !== current?.fresh.factory)) return undefined;
  // Another store of the page already made a frame since `failed` died.
  if (current && current.fresh.factory !== failed) return current.fresh;
  current?.frame.remove(); // its connection died too
  const frame = page.document.createElement("iframe");
  frame.hidden = true;
  frame.title = "attrmap storage connection";
  (page.document.body ?? page.document.documentElement).append(frame);
  const w = frame.contentWindow as FrameWindow | null;
  if (!w?.indexedDB) {
    frame.remove();
    return undefined;
  }
  current = { frame, fresh: { factory: w.indexedDB, keyRange: w.IDBKeyRange } };
  return current.fresh;
}

/** The `connection_closed` of a store whose browser storage is out of reach from this page for good. */
export function unreachable(database: string, cause: AttrmapError): AttrmapError {
  return new AttrmapError(
    "connection_closed",
    `database "${database}" cannot be reached: the browser's storage process stopped and this page cannot connect to ` +
      "the new one; reload the page (nothing was written after the connection was lost)",
    { cause },
  );
}
