// The npm package as a testee of attrmap-conformance (docs/conformance.md), in this process:
// each request is answered by the package's public functions, and the requests about stored
// logs, exports and HTTP by a real store (fake-indexeddb, as in the Node suites) of its own.
//   npx attrmap-conformance -- node --import tsx conformance/testee.ts
import { createInterface } from "node:readline";
import {
  AttrmapError,
  archiveChunkToken,
  canonicalEmailAddress,
  emailPartition,
  fnv1a32,
  keyPartition,
  openAttrmap,
  partitionName,
  placeCustomerProfile,
  validatePageToken,
} from "attrmap";
import { type IndexElement, type IndexValue, indexPartition } from "attrmap/dex";
import { importData } from "attrmap/export-import";
import { createHandler } from "attrmap/http";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";

type Input = Record<string, unknown>;
interface Segment {
  fromSequence: number;
  chunkSize: number;
}
interface State {
  nextSequence: number;
  latestArchivedChunkToken: string;
}

let stores = 0;
/** A store of its own for one request, in a fresh in-memory IndexedDB. */
const freshStore = () => openAttrmap({ name: `testee-${++stores}`, indexedDB: new IDBFactory(), IDBKeyRange });

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));

const nulls = (count: number) => Array.from({ length: count }, () => null);

/** A log with the case's segments, state and retention, built by the package's own writes. */
async function storedLog(x: Input) {
  const segments = x.segments as Segment[];
  const state = x.state as State;
  const log = await freshStore().chunkedLog<null>("log", { chunkSize: segments[0]!.chunkSize });
  for (const next of [...segments.slice(1), undefined]) {
    // Each segment's records, then the change of size that starts the next segment.
    const to = Math.min(next?.fromSequence ?? state.nextSequence, state.nextSequence);
    const have = (await log.stats()).nextSequence;
    if (to > have) await log.appendMany(nulls(to - have));
    if (next) await log.changeChunkSize(next.chunkSize);
  }
  const retainedFrom = x.retainedFrom as number;
  if (retainedFrom > 1) await log.dropArchivesBefore(await log.pageOf(retainedFrom));
  return log;
}

/** A log holding only its `current` chunk, imported as a server would export it. */
async function importedLog(x: Input) {
  const state = x.state as State;
  const lines: object[] = [
    { format: "attrmap-export", version: 1 },
    { map: "log", layout: { kind: "chunked", layoutVersion: (x.segments as Segment[]).length, segments: x.segments } },
    { map: "log", state },
  ];
  const currentLength = x.currentLength as number;
  const first = state.nextSequence - currentLength;
  const current = Array.from({ length: currentLength }, (_, i) => ({ sequence: first + i, value: null }));
  if (currentLength > 0) lines.push({ map: "log", instance: "current", value: current });
  const store = freshStore();
  await importData(store, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return store.chunkedLog<null>("log");
}

/** A vector's typed index value (`{kind: payload}`, docs/conformance.md) as the JavaScript value it stands for. */
function indexValue(typed: Record<string, unknown>): IndexValue {
  const [[kind, payload]] = Object.entries(typed) as [[string, unknown]];
  if (kind === "compound") return (payload as Record<string, unknown>[]).map((e) => indexValue(e) as IndexElement);
  // A Date holds whole milliseconds (new Date(0.5) is 0): no Date is 0.5 ms, so that case gets an invalid one.
  if (kind === "date") return new Date(Number.isInteger(payload) ? (payload as number) : NaN);
  if (kind === "stringUtf16") return String.fromCharCode(...(payload as number[]));
  return payload as IndexElement;
}

async function answer(op: string, x: Input): Promise<unknown> {
  switch (op) {
    case "fnv1a32":
      return fnv1a32(hexBytes(x.bytesHex as string));
    case "canonicalEmail":
      return canonicalEmailAddress(x as unknown as string);
    case "emailPartition": {
      const { hash, partitionIndex, partitionName } = emailPartition(x.email as string, x.partitionCount as number);
      return { hash, partitionIndex, partitionName };
    }
    case "keyPartition":
      return keyPartition(x.key as string, x.partitionCount as number);
    case "indexPartition":
      return indexPartition(indexValue(x.value as Record<string, unknown>), x.partitionCount as number);
    case "partitionName":
      return partitionName(x.index as number, x.partitionCount as number);
    case "profileBody":
      return placeCustomerProfile(x.body as never).profile;
    case "pageToken":
      return validatePageToken(x.token as string, x.chunkSize as number);
    case "segmentedPageToken":
      return validatePageToken(x.token as string, x.segments as Segment[]);
    case "archiveToken": {
      const first = x.firstSequence as string;
      return archiveChunkToken(/^-?\d+$/.test(first) ? BigInt(first) : Number(first));
    }
    case "pageNotFound":
      return (await freshStore().subscriberArchive()).getSubscriberPage(x.token as string);
    case "page": {
      const log = await storedLog(x);
      const page = await log.page(x.token as string);
      // An empty current page begins where the next record will.
      const firstSequence = page.records.at(-1)?.sequence ?? (await log.stats()).nextSequence;
      return { firstSequence, nextPageToken: page.nextPageToken };
    }
    case "appendPlan": {
      const log = await importedLog(x);
      const before = (x.state as State).nextSequence - (x.currentLength as number);
      const added = await log.appendMany(nulls(x.count as number));
      // The archives this append made: the pages older than current, back to where current began.
      const archivedTokens: string[] = [];
      let page = await log.page("current");
      const currentLength = page.records.length;
      while (page.nextPageToken !== "" && Number(page.nextPageToken) >= before) {
        archivedTokens.unshift(page.nextPageToken);
        page = await log.page(page.nextPageToken);
      }
      return { firstSequence: added[0]?.sequence, archivedTokens, state: await log.state(), currentLength };
    }
    case "verifyExport": {
      const { maps, instances, entries } = await importData(freshStore(), x.text as string);
      return { maps, instances, entries };
    }
    case "httpRequest": {
      // As the reference servers are asked: the pattern's flow started first (docs/http.md).
      const handler = createHandler(freshStore());
      const pattern = String(x.path).split("/").slice(0, 3).join("/");
      await handler(new Request(`http://localhost${pattern}/start`, { method: "POST" }));
      const response = await handler(new Request(`http://localhost${x.path}`, { method: x.method as string }));
      const contentType = response.headers.get("content-type") ?? "";
      const text = await response.text();
      return { status: response.status, contentType, body: contentType.startsWith("application/json") ? JSON.parse(text) : text };
    }
    default:
      return undefined;
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as { id: number; op: string; input: Input };
  let reply: object;
  try {
    const result = await answer(request.op, request.input);
    reply = result === undefined ? { unsupported: true } : { result };
  } catch (e) {
    if (!(e instanceof AttrmapError)) throw e;
    reply = { error: e.message };
  }
  process.stdout.write(`${JSON.stringify({ id: request.id, ...reply })}\n`);
}
