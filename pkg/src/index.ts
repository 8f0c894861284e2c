// attrmap: hash-partitioned maps and sequentially chunked logs in IndexedDB, with the rules
// of docs/ in a Rust core compiled to WebAssembly. This entry starts the module from bytes
// inlined in the JavaScript, synchronously, and holds every part at start: what a page of
// "attrmap/browser", "attrmap/export-import", "attrmap/dex" or "attrmap/http" loads at its
// first call (common/lazy-module.ts). It runs in Node, workers and service workers, which may
// not import().
import "./wasm/init.js";
import * as dexEntryChanges from "./dex/entry-changes.js";
import { dexEntryChangesCode, dexPullCode, dexRequestsCode, indexPartitionCode } from "./dex/index.js";
import * as indexPlacement from "./dex/index-partition.js";
import * as dexPull from "./dex/pull.js";
import * as dexRequests from "./dex/set-attributes.js";
import * as exporting from "./export-import/export-data.js";
import * as importing from "./export-import/import-data.js";
import { exportCode, importCode } from "./export-import/index.js";
import * as feedReader from "./feed/change-feed.js";
import { serverCode } from "./http/handler.js";
import * as httpServer from "./http/server.js";
import * as entryStore from "./idb/entry-store.js";
import { entryStoreCode } from "./idb/index-entries.js";
import * as catalog from "./indexes/catalog.js";
import * as entryWrites from "./indexes/entries.js";
import { catalogCode, entryWritesCode, indexReadsCode } from "./indexes/index-host.js";
import * as indexReads from "./indexes/index-reads.js";
import { readBackCode } from "./instances/instances.js";
import * as readBack from "./instances/read-back.js";
import { logIterationCode, retentionCode } from "./logs/chunked-log.js";
import * as logIteration from "./logs/log-iteration.js";
import * as retention from "./logs/retention.js";
import * as mapPages from "./maps/map-pages.js";
import { mapPagesCode, resizeCode } from "./maps/partitioned-map.js";
import * as resize from "./maps/resize.js";
import { feedReaderCode, transactionCode } from "./store/attrmap.js";
import * as transaction from "./transactions/transaction.js";

dexEntryChangesCode.provide(dexEntryChanges);
dexPullCode.provide(dexPull);
dexRequestsCode.provide(dexRequests);
indexPartitionCode.provide(indexPlacement);
exportCode.provide(exporting);
importCode.provide(importing);
feedReaderCode.provide(feedReader);
serverCode.provide(httpServer);
catalogCode.provide(catalog);
indexReadsCode.provide(indexReads);
entryWritesCode.provide(entryWrites);
entryStoreCode.provide(entryStore);
logIterationCode.provide(logIteration);
retentionCode.provide(retention);
mapPagesCode.provide(mapPages);
readBackCode.provide(readBack);
resizeCode.provide(resize);
transactionCode.provide(transaction);

export * from "./api.js";
