// A log's rare changes (docs/chunked-log.md): a new chunk size (a layout change, archiving a
// non-empty `current` at once) and retention (dropping whole archived chunks, and their
// records' index entries). Their code, and the maintenance module they call, load at a page's
// first call of either.
import { CURRENT } from "../common/constants.js";
import type { WriteOptions } from "../concurrency/locks.js";
import * as wasm from "../wasm/core-module.js";
import * as maintenance from "../wasm/maintenance-module.js";
import type { LogContext } from "./log-context.js";
import { indexWrites, write } from "./log-writes.js";

/** `log.changeChunkSize(size)`, `size` checked: see ChunkedLog.changeChunkSize. */
export async function changeChunkSize<I, R extends { sequence: number }>(
  l: LogContext<I, R>,
  size: number,
  options: WriteOptions,
): Promise<void> {
  await maintenance.maintenanceReady(); // before the lock and the transaction, which must not wait on it
  await write(
    l,
    options,
    `changing the chunk size of log "${l.name}"`,
    (view, current) => {
      const plan = maintenance.chunkSizeChange(view.log, current.length, size);
      if (!plan.changed) return { result: undefined };
      const cut = plan.cut.length > 0 ? wasm.archiveToken(plan.cut.first) : undefined;
      const state = { ...view.meta.state, latestArchivedChunkToken: cut ?? view.meta.state.latestArchivedChunkToken };
      return {
        put: cut ? [[CURRENT, []]] : [],
        add: cut ? [[cut, current]] : [],
        meta: { ...view.meta, layoutVersion: view.meta.layoutVersion + 1, segments: plan.segments, state },
        result: undefined,
      };
    },
    { layout: true },
  );
}

/** `log.dropArchivesBefore(token)`, `token` checked: see ChunkedLog.dropArchivesBefore. */
export async function dropArchivesBefore<I, R extends { sequence: number }>(
  l: LogContext<I, R>,
  token: string,
  options: WriteOptions,
): Promise<number> {
  await maintenance.maintenanceReady();
  // With indexes, the chunks dropped are read in the same transaction: their records' entries
  // go with them. A log this object saw with none reads nothing, unless the transaction finds one.
  for (let read = l.view.meta.indexes !== undefined; ; read = true) {
    const dropped = await write(
      l,
      options,
      `dropping archives of log "${l.name}"`,
      (view, _, chunks) => {
        const { indexes } = view.meta;
        if (indexes && !chunks) return { result: undefined };
        const plan = maintenance.dropPlan(view.log, token, l.kind.recordName);
        if (plan.dropped === 0) return { result: 0 };
        const records = (chunks?.values ?? []).flatMap((chunk, i) => l.chunk(chunks!.names[i]!, chunk, view).records);
        return {
          deleteRange: [wasm.archiveToken(plan.previous), wasm.archiveToken(plan.retainedFrom)] as const,
          meta: { ...view.meta, retainedFrom: plan.retainedFrom },
          entries: indexes && indexWrites(l, indexes, [], records),
          result: plan.dropped,
        };
      },
      // Every archive named before `token`: those before the oldest retained are gone already.
      { deletesRange: true, all: read ? { between: ["", token] } : undefined },
    );
    if (dropped !== undefined) return dropped;
  }
}
