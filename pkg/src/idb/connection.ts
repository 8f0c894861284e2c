// One database's connection over its life: opened at the first use, recognized by its
// identity (another database in its place is a loss, told once), let go when another context
// upgrades or deletes it or the browser closes it, and reached again through a fresh frame
// when WebKit's storage process dies. It knows nothing of maps or logs.
import { AttrmapError, isDOMException, noIndexedDB, serverLost, storageError } from "../common/errors.js";
import { Events } from "../common/events.js";
import { freshIndexedDB, unreachable } from "./frame.js";
import { dataLost, type Identity, storedIdentity } from "./identity.js";
import { attempt, request } from "./requests.js";
import { BASES, CHANGES, DATABASE, DB_VERSION, ENTRIES, IDENTITY, INSTANCES, MAPS, ours, SENT, upgrade } from "./schema.js";

/** Opens tried after a connection was closed under the store, before the next call's own (50 ms, then doubling). */
const LOOK_AGAIN_TRIES = 6;

/** One database's connection: opened lazily, checked by identity, reopened as needed. */
export class Connection {
  private connection: Promise<IDBDatabase> | undefined;
  private opened: IDBDatabase | undefined;
  /** The identity of the database this store has used; once set, any other database is a loss. */
  private seen: Identity | undefined;
  /** Set once the data is lost (`data_lost`) or storage is out of reach (`connection_closed`): every call fails with it. */
  private failure: AttrmapError | undefined;
  /** `datalost`, `unavailable`, and `reset` when a loss is acknowledged. */
  readonly events = new Events();

  /**
   * What a value read becomes before it is used: itself, or once the store reads through a
   * frame's IndexedDB (see frame.ts), a copy made in this realm, so that `instanceof Map` and
   * the caller's own checks hold.
   */
  toThisRealm: <V>(value: V) => V = (value) => value;

  constructor(
    readonly name: string,
    /** Undefined where there is no IndexedDB: every open then fails with `unavailable`. */
    private factory: IDBFactory | undefined,
    /** The `IDBKeyRange` class of the IndexedDB in use: a frame's, once this connection reached one (see open). */
    public keyRange: typeof IDBKeyRange,
  ) {}

  /** Throws `unavailable` where there is no IndexedDB: a caller checks this before any other work. */
  needIndexedDB(): void {
    if (!this.factory) throw noIndexedDB(this.name);
  }

  private open(reconnected = false): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      const doing = `opening database "${this.name}" at version ${DB_VERSION}`;
      const factory = this.factory;
      let req: IDBOpenDBRequest;
      try {
        if (!factory) throw noIndexedDB(this.name);
        req = factory.open(this.name, DB_VERSION);
      } catch (e) {
        reject(storageError(e, doing));
        return;
      }
      let replaced = false;
      let foreign = false;
      req.onupgradeneeded = (event) => {
        // This store used the database at this version: one that must be created or upgraded is
        // another. Aborting the upgrade writes nothing (a database it was creating is not made).
        if (this.seen) {
          replaced = true;
          req.transaction!.abort();
          return;
        }
        if (event.oldVersion > 0 && !ours(req.result)) {
          foreign = true;
          req.transaction!.abort();
          return;
        }
        upgrade(req.transaction!, event.oldVersion);
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another context wants a newer schema: let go, reopen on next use. It deletes the
        // database, or the browser closed us (site data cleared, storage evicted): let go, and
        // look again at once, so that a loss is told when it happens.
        db.onversionchange = (event) => this.drop(db, event.newVersion === null);
        db.onclose = () => this.drop(db, true);
        this.recognize(db).then(
          () => {
            this.opened = db;
            resolve(db);
          },
          (e: unknown) => {
            db.close();
            reject(e);
          },
        );
      };
      req.onerror = (event) => {
        event.preventDefault(); // handled here: not an uncaught error of the page
        const error = storageError(req.error, doing);
        if (replaced) return reject(this.fail("datalost", dataLost(this.name, this.seen!)));
        if (foreign)
          return reject(
            new AttrmapError(
              "storage_error",
              `${doing} failed: it is another program's database (it has no "${INSTANCES}" and "${MAPS}" stores); left as it is`,
            ),
          );
        if (!serverLost(req.error)) return reject(error);
        // The storage process died (WebKit): connect again through a fresh document, once.
        const fresh = reconnected ? undefined : freshIndexedDB(factory);
        if (!fresh) return reject(this.fail("unavailable", unreachable(this.name, error)));
        this.factory = fresh.factory;
        this.keyRange = fresh.keyRange;
        this.toThisRealm = (value) => structuredClone(value);
        resolve(this.open(true));
      };
    });
  }

  /** Reads the identity of a database just opened: the first one seen is this store's; another is a loss. */
  private async recognize(db: IDBDatabase): Promise<void> {
    const doing = `reading the identity of database "${this.name}"`;
    const tx = attempt(doing, () => db.transaction(DATABASE, "readonly"));
    const found = this.toThisRealm(await request(tx.objectStore(DATABASE).get(IDENTITY), doing));
    tx.commit?.();
    const identity = found === undefined && this.seen ? undefined : storedIdentity(this.name, found);
    if (!this.seen) this.seen = identity;
    else if (identity?.id !== this.seen.id) throw this.fail("datalost", dataLost(this.name, this.seen));
  }

  /** Enters the failed state (once: the first failure stays) and tells its listeners. */
  private fail(event: "datalost" | "unavailable", error: AttrmapError): AttrmapError {
    if (this.failure) return this.failure;
    this.failure = error;
    this.events.emit(event, error);
    return error;
  }

  /** The database's identity, as `store.identity()` gives it. */
  async identity(): Promise<Identity> {
    await this.db();
    return this.seen!;
  }

  /**
   * After a `data_lost`: forgets the lost database, so that the next call opens (or creates)
   * the one there is now. No-op otherwise.
   */
  acknowledgeDataLoss(): void {
    if (this.failure?.code !== "data_lost") return;
    const lost = this.failure;
    this.failure = undefined;
    this.seen = undefined;
    this.events.emit("reset", lost);
  }

  /** Closes `db`; with `lookAgain`, opens a new connection at once (see open). */
  drop(db: IDBDatabase, lookAgain = false): void {
    db.close();
    // Forget it only if it is still the current one: a newer connection may be open already.
    if (this.opened === db) {
      this.opened = undefined;
      this.connection = undefined;
      if (lookAgain) this.lookAgain();
    }
  }

  /** Opens a connection now, to learn whether the database is still this store's; a failed open is tried again a few times. */
  private lookAgain(attempt = 0): void {
    this.db().catch(() => {
      // A browser still clearing the site's data fails opens for a moment ("The connection was closed").
      if (this.failure || attempt >= LOOK_AGAIN_TRIES) return;
      const timer = setTimeout(() => this.lookAgain(attempt + 1), 50 * 2 ** attempt);
      (timer as { unref?: () => void }).unref?.(); // in Node, never what keeps the process alive
    });
  }

  private db(): Promise<IDBDatabase> {
    if (this.failure) return Promise.reject(this.failure);
    const connection = (this.connection ??= this.open());
    connection.catch(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    return connection;
  }

  /**
   * A new transaction over instances, maps, index entries, the change feed and the bases; a connection found closing
   * (version change, shutdown) gets one fresh try.
   */
  async begin(mode: IDBTransactionMode, doing: string): Promise<IDBTransaction> {
    for (let retried = false; ; retried = true) {
      const db = await this.db();
      try {
        return db.transaction([INSTANCES, MAPS, ENTRIES, CHANGES, BASES, SENT], mode);
      } catch (e) {
        if (retried || !isDOMException(e) || e.name !== "InvalidStateError") throw storageError(e, doing);
        this.drop(db);
      }
    }
  }

  /** Closes the connection; the next call opens a new one. */
  close(): void {
    void this.connection?.then(
      (db) => this.drop(db),
      () => undefined,
    );
  }
}
