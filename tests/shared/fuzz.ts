// The hardening fuzz, written once and run in Node (against the packed package), in a
// Chromium page and in a module worker: every export and every store method called with
// values of every JavaScript type, thousands of times, mixed with good calls. Each call
// must answer or throw an AttrmapError with a known code; afterwards the SPEC golden values
// must still come out. It imports nothing: the package is passed in.
import type * as Attrmap from "attrmap";
import type * as Dex from "attrmap/dex";
import type * as ExportImport from "attrmap/export-import";
import type * as Http from "attrmap/http";

/** Every entry's exports but the React binding's, as one object. */
type M = typeof Attrmap & typeof ExportImport & typeof Dex & typeof Http;

export interface FuzzOptions {
  /** Times every call is made with every bad value. */
  rounds: number;
  /** How to open a store, or false for the pure functions only. */
  storage: false | { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange; name: string };
}

export interface FuzzReport {
  calls: number;
  /** How many calls ended each way: "ok" or an error code. */
  outcomes: Record<string, number>;
  /** Calls that threw something other than an AttrmapError, or golden values that went wrong. */
  failures: string[];
  /** The five calls that took longest in all (every bad value, every round), in ms: where an engine spends the time. */
  slowest: Array<[call: string, ms: number]>;
}

/** Words of Rust, serde or the engine that a message for a caller must not show. */
const INTERNALS = /JsValue|floating point|invalid type|unit value|Reflect\.get|unreachable|out of bounds|wasm|serde/i;

/** Values of every type a careless or hostile caller could pass, made fresh for each call. */
export function badValues(): Array<[string, () => unknown]> {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const thrower = () => {
    throw new Error("a getter threw");
  };
  return [
    ["undefined", () => undefined],
    ["null", () => null],
    ["0", () => 0],
    ["-1", () => -1],
    ["1.5", () => 1.5],
    ["NaN", () => NaN],
    ["Infinity", () => Infinity],
    ["2^53", () => 2 ** 53],
    ["12345", () => 12345],
    ["bigint", () => 10n],
    ["true", () => true],
    ["false", () => false],
    ["empty string", () => ""],
    ["lone surrogate", () => "\ud800"],
    ["NUL", () => "a\u0000b"],
    ["plain object", () => ({})],
    ["object with toString", () => ({ toString: () => "a@example.com" })],
    ["object with valueOf", () => ({ valueOf: () => 10 })],
    ["empty array", () => []],
    ["array of a string", () => ["a@example.com"]],
    // 67 times the longest list any argument takes (1,000,000), so a list read before its length
    // is checked would show; sparse in every engine when made by setting the length of an empty
    // array (new Array(2^26) allocates every slot in WebKit: 0.25 s each, most of its fuzz's time).
    // Not 2^30: stored as a value (map.upsert(k, x), log.append(x)), WebKit's structured clone
    // walks every hole, 7 s a write at 2^30.
    ["huge sparse array", () => Object.assign([], { length: 2 ** 26 })],
    ["fake array-like", () => ({ length: 2 ** 31 })],
    ["fake Uint8Array", () => ({ [Symbol.toStringTag]: "Uint8Array", length: 2 ** 31, byteLength: 2 ** 31 })],
    ["Uint8Array", () => new Uint8Array([102, 111, 111])],
    ["Uint16Array", () => new Uint16Array([1, 2, 3])],
    ["ArrayBuffer", () => new ArrayBuffer(8)],
    ["DataView", () => new DataView(new ArrayBuffer(8))],
    ["symbol", () => Symbol("s")],
    ["function", () => () => "a@example.com"],
    [
      "throwing getters",
      () => new Proxy({}, { get: thrower, has: thrower, ownKeys: thrower, getOwnPropertyDescriptor: thrower }),
    ],
    ["revoked proxy", () => revoked.proxy],
    ["Date", () => new Date(0)],
  ];
}

/** A value no call should have trouble with, per argument kind, so one position at a time is bad. */
type Call = [name: string, run: (bad: unknown) => unknown];

function pureCalls(m: M): Call[] {
  const ok = async () => 1;
  return [
    ["canonicalEmailAddress(x)", (x) => m.canonicalEmailAddress(x as string)],
    ["emailPartition(x)", (x) => m.emailPartition(x as string)],
    ["emailPartition(email, x)", (x) => m.emailPartition("a@example.com", x as number)],
    ["keyPartition(x)", (x) => m.keyPartition(x as string)],
    ["keyPartition(key, x)", (x) => m.keyPartition("k", x as number)],
    ["partitionName(x)", (x) => m.partitionName(x as number)],
    ["partitionName(1, x)", (x) => m.partitionName(1, x as number)],
    ["placeCustomerProfile(x)", (x) => m.placeCustomerProfile(x as Attrmap.CustomerProfileInput)],
    ["placeCustomerProfile({emailAddress: x})", (x) => m.placeCustomerProfile({ emailAddress: x as string })],
    [
      "placeCustomerProfile({fullName: x})",
      (x) => m.placeCustomerProfile({ emailAddress: "a@example.com", fullName: x as string }),
    ],
    ["placeCustomerProfile(p, x)", (x) => m.placeCustomerProfile({ emailAddress: "a@example.com" }, x as number)],
    ["validatePageToken(x)", (x) => m.validatePageToken(x as string)],
    ["validatePageToken(token, x)", (x) => m.validatePageToken("", x as number)],
    ["archiveChunkToken(x)", (x) => m.archiveChunkToken(x as number)],
    ["fnv1a32(x)", (x) => m.fnv1a32(x as Uint8Array)],
    ["indexPartition(x)", (x) => m.indexPartition(x as Dex.IndexValue)],
    ["indexPartition([x])", (x) => m.indexPartition([x as Dex.IndexElement])],
    ["indexPartition(value, x)", (x) => m.indexPartition("Acme", x as number)],
    ["lockName(x)", (x) => m.lockName(x as Attrmap.LockKey)],
    ["lockName({map: x})", (x) => m.lockName({ database: "d", map: x as string })],
    ["retryOnConflict(x)", (x) => m.retryOnConflict(x as () => Promise<number>)],
    ["retryOnConflict(f, x)", (x) => m.retryOnConflict(ok, x as Attrmap.RetryOptions)],
    ["retryOnConflict(f, {attempts: x})", (x) => m.retryOnConflict(ok, { attempts: x as number })],
    ["retryOnConflict(f, {baseDelayMs: x})", (x) => m.retryOnConflict(ok, { baseDelayMs: x as number })],
    ["retryOnConflict(f, {signal: x})", (x) => m.retryOnConflict(ok, { signal: x as AbortSignal })],
    ["watchChanges(x, f)", (x) => m.watchChanges(x as string, () => undefined)()],
    ["watchChanges(db, x)", (x) => m.watchChanges("db", x as () => void)()],
    ["openAttrmap(x)", (x) => m.openAttrmap(x as Attrmap.OpenOptions)],
    ["openAttrmap({name: x})", (x) => m.openAttrmap({ name: x as string })],
    ["openAttrmap({indexedDB: x})", (x) => m.openAttrmap({ indexedDB: x as IDBFactory })],
    ["openAttrmap({locks: x})", (x) => m.openAttrmap({ locks: x as Attrmap.LockManagerLike })],
    ["openAttrmap({maxChanges: x})", (x) => m.openAttrmap({ maxChanges: x as number })],
  ];
}

interface Stores {
  store: Attrmap.Attrmap;
  map: Attrmap.PartitionedMap<unknown>;
  log: Attrmap.ChunkedLog<unknown, Attrmap.LogRecord<unknown>>;
  /** Where bad values are stored (see storageCalls). */
  values: Attrmap.ChunkedLog<unknown, Attrmap.LogRecord<unknown>>;
  dir: Attrmap.CustomerDirectory;
  archive: Attrmap.SubscriberArchive;
}

function storageCalls(m: M, s: Stores): Call[] {
  const { store, map, log, values, dir, archive } = s;
  // A stored bad value gets a key and a log of its own (chunks of one record, archived at once):
  // no later write rewrites it. WebKit clones a huge sparse array hole by hole at every read and
  // write of what holds it (about a second each, several at a time under a loaded make test).
  let slot = 0;
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it) void _;
  };
  const pulled = { names: { "fuzz-pulled": { attributeMap: "fuzz_pulled" } } };
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    while (!(await reader.read()).done);
  };
  return [
    ["exportData(x)", (x) => read(m.exportData(x as Attrmap.Attrmap))],
    ["createHandler(x)", (x) => m.createHandler(x as Attrmap.Attrmap)],
    ["createHandler(store, x)", (x) => m.createHandler(store, x as Http.HandlerOptions)],
    ["exportData(store, x)", (x) => read(m.exportData(store, x as ExportImport.ExportOptions))],
    ["importData(store, x)", (x) => m.importData(store, x as string)],
    [
      "importData(store, file, x)",
      (x) => m.importData(store, '{"format":"attrmap-export","version":1}\n', x as ExportImport.ImportOptions),
    ],
    ["exportDexRequests(store, x)", (x) => drain(m.exportDexRequests(store, x as Dex.DexExportOptions))],
    ["exportDexRequests(store, {sdk: x})", (x) => drain(m.exportDexRequests(store, { flowId: "f", sdk: x as Dex.DexSdk }))],
    [
      "exportDexRequests(store, {since: x})",
      (x) => drain(m.exportDexRequests(store, { flowId: "f", sdk: "go", since: x as number })),
    ],
    [
      "exportDexRequests(store, {indexes: x})",
      (x) => drain(m.exportDexRequests(store, { flowId: "f", sdk: "go", indexes: x as Dex.DexExportOptions["indexes"] })),
    ],
    // A pull and the entry changes name a map of their own, which no other call writes.
    ["importDexAttributes(store, x, o)", (x) => m.importDexAttributes(store, x as Dex.DexAttributeSource, pulled)],
    ["importDexAttributes(store, s, x)", (x) => m.importDexAttributes(store, { attributes: [] }, x as Dex.DexImportOptions)],
    [
      "importDexAttributes(store, s, {onConflict: x})",
      (x) => m.importDexAttributes(store, { attributes: [] }, { ...pulled, onConflict: x as () => unknown }),
    ],
    [
      "importDexAttributes(store, s, {layouts: x})",
      (x) => m.importDexAttributes(store, { attributes: [] }, { ...pulled, layouts: x as Dex.DexImportOptions["layouts"] }),
    ],
    ["exportDexEntryChanges(store, x)", (x) => m.exportDexEntryChanges(store, x as Dex.DexEntryChangesOptions)],
    ["exportDexEntryChanges(store, {since: x})", (x) => m.exportDexEntryChanges(store, { ...pulled, since: x as number })],
    [
      "store.liveQuery(x)",
      (x) =>
        store
          .liveQuery(x as () => number)
          .subscribe(() => undefined)
          .unsubscribe(),
    ],
    [
      "store.liveQuery(f).subscribe(x)",
      (x) =>
        store
          .liveQuery(() => 1)
          .subscribe(x as () => void)
          .unsubscribe(),
    ],
    ["store.partitionedMap(x)", (x) => store.partitionedMap(x as string)],
    ["store.partitionedMap(name, x)", (x) => store.partitionedMap("fuzz-new", x as Attrmap.PartitionedMapOptions)],
    ["store.partitionedMap({partitionCount: x})", (x) => store.partitionedMap("fuzz-count", { partitionCount: x as number })],
    ["store.partitionedMap({keyRule: x})", (x) => store.partitionedMap("fuzz-rule", { keyRule: x as string })],
    [
      "store.partitionedMap({canonicalizeKey: x})",
      (x) => store.partitionedMap("fuzz-canon", { canonicalizeKey: x as (k: string) => string }),
    ],
    ["store.chunkedLog({chunkSize: x})", (x) => store.chunkedLog("fuzz-log", { chunkSize: x as number })],
    ["store.customerDirectory(x)", (x) => store.customerDirectory(x as Attrmap.CustomerDirectoryOptions)],
    ["store.subscriberArchive({chunkSize: x})", (x) => store.subscriberArchive({ chunkSize: x as number })],
    ["store.watch(x)", (x) => store.watch(x as () => void)()],
    ["store.changes(x)", (x) => store.changes(x as Attrmap.ChangesOptions)],
    ["store.changes({after: x})", (x) => store.changes({ after: x as number })],
    ["store.changes({limit: x})", (x) => store.changes({ limit: x as number })],
    ["store.acknowledgeChanges(x)", (x) => store.acknowledgeChanges(x as number)],
    ["map.get(x)", (x) => map.get(x as string)],
    ["map.upsert(x, v)", (x) => map.upsert(x as string, 1)],
    ["map.upsert(k, x)", (x) => map.upsert(`value-slot-${slot++}`, x)],
    ["map.upsert(k, v, x)", (x) => map.upsert("k", 1, x as Attrmap.WriteOptions)],
    ["map.upsert(k, v, {lock: x})", (x) => map.upsert("k", 1, { lock: x as Attrmap.LockWait })],
    ["map.upsert(k, v, {timeoutMs: x})", (x) => map.upsert("k", 1, { timeoutMs: x as number })],
    ["map.upsert(k, v, {signal: x})", (x) => map.upsert("k", 1, { signal: x as AbortSignal })],
    ["map.upsertMany(x)", (x) => map.upsertMany(x as Array<[string, unknown]>)],
    ["map.upsertMany([x])", (x) => map.upsertMany([x as [string, unknown]])],
    ["map.getMany(x)", (x) => map.getMany(x as string[])],
    ["map.update(x, f)", (x) => map.update(x as string, () => 1)],
    ["map.update(k, x)", (x) => map.update("k", x as () => number)],
    ["map.delete(x)", (x) => map.delete(x as string)],
    ["map.deleteMany(x)", (x) => map.deleteMany(x as string[])],
    ["map.clear(x)", (x) => map.clear(x as Attrmap.WriteOptions)],
    ["map.createIndex(i, x)", (x) => map.createIndex("fuzz-index", x as string)],
    ["map.where(x)", (x) => map.where(x as string).count()],
    [
      "map.where(i).equals(x)",
      (x) =>
        map
          .where("by-value")
          .equals(x as string)
          .toArray(),
    ],
    [
      "map.where(i).between(x, x)",
      (x) =>
        map
          .where("by-value")
          .between(x as string, x as string, x as object)
          .keys(),
    ],
    [
      "map.where(i).startsWith(x)",
      (x) =>
        map
          .where("by-value")
          .startsWith(x as string)
          .count(),
    ],
    ["map.where(i).page(x)", (x) => map.where("by-value").page(x as Attrmap.QueryPageOptions)],
    [
      "map.where(i).anyOf(x)",
      (x) =>
        map
          .where("by-value")
          .anyOf(x as Attrmap.IndexValue[])
          .keys(),
    ],
    [
      "map.where(i).above(x)",
      (x) =>
        map
          .where("by-value")
          .above(x as Attrmap.IndexValue)
          .count(),
    ],
    ["map.where(i).toArray(x)", (x) => map.where("by-value").toArray(x as Attrmap.QueryLimit)],
    ["map.page(x)", (x) => map.page(x as Attrmap.MapPageOptions)],
    ["map.page({after: x})", (x) => map.page({ after: x as string, limit: 2 })],
    ["map.dropIndex(x)", (x) => map.dropIndex(x as string)],
    ["map.at(x)", (x) => map.at(x as string)],
    ["dir.at(x)", (x) => dir.at(x as string)],
    ["store.transaction(x, f)", (x) => store.transaction(x as Attrmap.ScopeItem[], async () => 1)],
    ["store.transaction([x], f)", (x) => store.transaction([x as Attrmap.ScopeItem], async () => 1)],
    ["store.transaction(scope, x)", (x) => store.transaction([map.at("k")], x as () => number)],
    ["store.transaction(scope, f, x)", (x) => store.transaction([log], async () => 1, x as Attrmap.TransactionOptions)],
    [
      "store.transaction(scope, f, {workTimeoutMs: x})",
      (x) => store.transaction([log], async () => 1, { workTimeoutMs: x as number }),
    ],
    ["store.transaction(scope, f, {lock: x})", (x) => store.transaction([log], async () => 1, { lock: x as Attrmap.LockWait })],
    ["tx.get(x, k)", (x) => store.transaction([map.at("k")], (tx) => tx.get(x as Attrmap.PartitionedMap<unknown>, "k"))],
    ["tx.get(map, x)", (x) => store.transaction([map.at("k")], (tx) => tx.get(map, x as string))],
    ["tx.getMany(map, x)", (x) => store.transaction([map.at("k")], (tx) => tx.getMany(map, x as string[]))],
    ["tx.upsert(map, x, v)", (x) => store.transaction([map.at("k")], (tx) => tx.upsert(map, x as string, 1))],
    [
      "tx.upsert(map, k, x)",
      (x) => {
        const key = `value-slot-${slot++}`;
        return store.transaction([map.at(key)], (tx) => tx.upsert(map, key, x));
      },
    ],
    [
      "tx.upsert(dir, email, x)",
      (x) =>
        store.transaction([dir.at("a@example.com")], (tx) => tx.upsert(dir, "a@example.com", x as Attrmap.CustomerProfileInput)),
    ],
    ["tx.delete(map, x)", (x) => store.transaction([map.at("k")], (tx) => tx.delete(map, x as string))],
    ["tx.append(x, v)", (x) => store.transaction([values], (tx) => tx.append(x as typeof values, 1))],
    [
      // A log of its own for each stored bad value, as for log.append: no later transaction reads it back.
      "tx.append(log, x)",
      async (x) => {
        const own = await store.chunkedLog(`fuzz-values-${slot++}`, { chunkSize: 1 });
        return store.transaction([own], (tx) => tx.append(own, x));
      },
    ],
    ["tx.append(archive, x)", (x) => store.transaction([archive], (tx) => tx.append(archive, x as Attrmap.NewSubscriber))],
    ["log.append(x)", (x) => values.append(x)],
    ["log.appendMany(x)", (x) => log.appendMany(x as unknown[])],
    ["log.page({before: x})", (x) => log.page({ before: x as number, limit: 2 })],
    ["log.page(x)", (x) => log.page(x as string)],
    ["log.records(x)", (x) => drain(log.records(x as Attrmap.RecordsOptions))],
    ["log.changeChunkSize(x)", (x) => log.changeChunkSize(x as number)],
    ["log.dropArchivesBefore(x)", (x) => log.dropArchivesBefore(x as string)],
    ["log.createIndex(i, x)", (x) => log.createIndex("fuzz-index", x as string)],
    [
      "log.where(i).equals(x)",
      (x) =>
        log
          .where("by-value")
          .equals(x as Attrmap.IndexValue)
          .toArray(),
    ],
    ["store.partitionedMap({indexes: x})", (x) => store.partitionedMap("fuzz", { indexes: x as Record<string, string> })],
    ["store.chunkedLog({indexes: x})", (x) => store.chunkedLog("fuzz-log", { indexes: x as Record<string, string> })],
    ["dir.upsertProfile(x)", (x) => dir.upsertProfile(x as Attrmap.CustomerProfileInput)],
    ["dir.upsertProfile({emailAddress: x})", (x) => dir.upsertProfile({ emailAddress: x as string })],
    ["dir.upsertProfiles(x)", (x) => dir.upsertProfiles(x as Attrmap.CustomerProfileInput[])],
    ["dir.getProfile(x)", (x) => dir.getProfile(x as string)],
    ["dir.deleteProfile(x)", (x) => dir.deleteProfile(x as string)],
    ["archive.registerSubscriber(x)", (x) => archive.registerSubscriber(x as Attrmap.NewSubscriber)],
    [
      "archive.registerSubscriber({subscriberId: x})",
      (x) => archive.registerSubscriber({ subscriberId: x as string, deliveryAddress: "d" }),
    ],
    ["archive.registerSubscribers(x)", (x) => archive.registerSubscribers(x as Attrmap.NewSubscriber[])],
    ["archive.getSubscriberPage(x)", (x) => archive.getSubscriberPage(x as string)],
  ];
}

/** The golden values of SPEC.md section 1 and 2, and a stored round trip: they must survive everything. */
async function golden(m: M, s: Stores | undefined): Promise<string[]> {
  const wrong: string[] = [];
  const p = m.emailPartition(" Alice@Example.COM ");
  if (p.canonicalEmail !== "alice@example.com" || p.hash !== 2493822278 || p.partitionName !== "partition-278")
    wrong.push(`alice: ${JSON.stringify(p)}`);
  if (m.emailPartition("bob@example.com").hash !== 3055529145) wrong.push("bob");
  if (m.emailPartition("support+west@example.org").partitionName !== "partition-632") wrong.push("support");
  if (m.fnv1a32(new TextEncoder().encode("foobar")) !== 0xbf9cf968) wrong.push("fnv foobar");
  if (m.validatePageToken("00000000000000000101") !== "00000000000000000101") wrong.push("token 101");
  if (m.archiveChunkToken(99999999999999999901n) !== "99999999999999999901") wrong.push("archive token");
  if (s) {
    const value = { kept: ["exact", 1, null] };
    await s.map.upsert("__proto__", value);
    if (JSON.stringify(await s.map.get("__proto__")) !== JSON.stringify(value)) wrong.push("map round trip");
    const saved = await s.dir.upsertProfile({ emailAddress: " Golden@Example.COM ", fullName: "G" });
    if (saved.emailAddress !== "golden@example.com" || (await s.dir.getProfile("GOLDEN@example.com"))?.fullName !== "G")
      wrong.push("directory round trip");
  }
  return wrong;
}

/** Runs the fuzz against the package `m`; see FuzzOptions. */
export async function fuzz(m: M, options: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = { calls: 0, outcomes: {}, failures: [], slowest: [] };
  const spent = new Map<string, number>();
  let stores: Stores | undefined;
  if (options.storage) {
    const store = m.openAttrmap(options.storage);
    stores = {
      store,
      map: await store.partitionedMap("fuzz", { indexes: { "by-value": "v" } }),
      log: await store.chunkedLog("fuzz-log", { chunkSize: 3, indexes: { "by-value": "v" } }),
      values: await store.chunkedLog("fuzz-values", { chunkSize: 1 }),
      dir: await store.customerDirectory({ partitionCount: 16 }),
      archive: await store.subscriberArchive({ chunkSize: 3 }),
    };
  }
  const calls = [...pureCalls(m), ...(stores ? storageCalls(m, stores) : [])];
  // The codes docs/errors.md lists, as the package exports them (checked against the docs by docs.test).
  const codes = new Set<string>(m.ERROR_CODES);
  const record = (name: string, outcome: unknown) => {
    report.calls++;
    if (outcome === "ok") return void (report.outcomes.ok = (report.outcomes.ok ?? 0) + 1);
    const code = outcome instanceof m.AttrmapError ? outcome.code : undefined;
    const internal = outcome instanceof Error && INTERNALS.exec(outcome.message);
    if (internal && report.failures.length < 50)
      report.failures.push(
        `${name}: a message in the words of the implementation (${internal[0]}): ${(outcome as Error).message}`,
      );
    if (code !== undefined && codes.has(code)) report.outcomes[code] = (report.outcomes[code] ?? 0) + 1;
    else if (report.failures.length < 50)
      report.failures.push(`${name}: ${outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : String(outcome)}`);
  };
  const attempt = async (name: string, run: () => unknown) => {
    try {
      await run();
      record(name, "ok");
    } catch (e) {
      record(name, e);
    }
  };
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, run] of calls) {
      const started = performance.now();
      for (const [label, make] of badValues()) await attempt(`${name} with ${label}`, () => run(make()));
      spent.set(name, (spent.get(name) ?? 0) + performance.now() - started);
    }
    report.failures.push(...(await golden(m, stores)).map((w) => `round ${round}: ${w}`));
  }
  // What killed Node 20 in 0.1: a bad emailPartition among good ones, thousands of times
  // once the caller is optimized; and throwing getters, each of which leaked wasm stack.
  for (let i = 0; i < 20_000; i++) {
    if (i % 2 === 0) await attempt("emailPartition(42)", () => m.emailPartition(42 as unknown as string));
    else if (m.emailPartition(`user${i}@example.com`).canonicalEmail !== `user${i}@example.com`)
      report.failures.push(`good call ${i}`);
  }
  const getter = {
    get emailAddress(): string {
      throw new Error("no email for you");
    },
  };
  for (let i = 0; i < 10_000; i++) await attempt("placeCustomerProfile(throwing getter)", () => m.placeCustomerProfile(getter));
  // Strings past what may cross into wasm, once (they are large).
  const huge = "a".repeat(16 * 1024 * 1024);
  await attempt("emailPartition(16 MiB)", () => m.emailPartition(huge));
  await attempt("validatePageToken(16 MiB)", () => m.validatePageToken(huge));
  if (stores) await attempt("map.get(16 MiB)", () => stores.map.get(huge));
  report.failures.push(...(await golden(m, stores)).map((w) => `at the end: ${w}`));
  report.slowest = [...spent]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([call, ms]) => [call, Math.round(ms)]);
  return report;
}
