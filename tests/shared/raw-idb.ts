// Plain IndexedDB access for tests (in a page, or in Node with a factory passed in): writing
// what another program could have written into attrmap's database, behind the library's back.

/** Opens `database` at whatever version it has, runs `body` in one readwrite transaction over `store`, and closes. */
export function rawWrite(database: string, store: string, body: (s: IDBObjectStore) => void, factory = indexedDB): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = factory.open(database);
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const tx = db.transaction(store, "readwrite");
      body(tx.objectStore(store));
      tx.oncomplete = () => {
        db.close();
        resolve();
      };
      tx.onabort = () => {
        db.close();
        reject(tx.error);
      };
    };
  });
}

/** Puts `value` under `key` in `store` of `database`. */
export function rawPut(database: string, store: string, key: IDBValidKey, value: unknown, factory?: IDBFactory): Promise<void> {
  return rawWrite(database, store, (s) => void s.put(value, key), factory);
}

/** Reads `key` of `store` in `database`. */
export function rawGet(database: string, store: string, key: IDBValidKey, factory = indexedDB): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = factory.open(database);
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const get = db.transaction(store).objectStore(store).get(key);
      get.onsuccess = () => {
        db.close();
        resolve(get.result);
      };
      get.onerror = () => {
        db.close();
        reject(get.error);
      };
    };
  });
}

/** The code (or "ok") a promise settles with, for compact assertions. */
export async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === "function" ? p() : p);
    return "ok";
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${(e as Error).message}` : `not coded: ${String(e)}`;
  }
}
