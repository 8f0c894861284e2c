// The activity log, newest first, a page of a chosen size at a time, by sequence cursors.
import type { LogWindowOptions } from "attrmap/browser";
import { useLiveQuery } from "attrmap/react";
import { useState } from "react";
import { store } from "./store.ts";

const PAGE_SIZE = 8;

export function ActivityList() {
  // No cursor: the newest page, which follows new records as they come.
  const [at, setAt] = useState<{ before: number } | { after: number } | undefined>();
  const page = useLiveQuery(
    store,
    async (s) =>
      (await s.chunkedLog<{ action: string; emailAddress: string; at: string }>("activity")).page({
        ...at,
        limit: PAGE_SIZE,
      } satisfies LogWindowOptions),
    [at === undefined ? "" : JSON.stringify(at)],
  );
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <ol className="activity">
        {page?.records.map((r) => (
          <li key={r.sequence}>
            <span>
              <span className="seq">#{r.sequence}</span> {r.value.action} {r.value.emailAddress}
            </span>
            <time dateTime={r.value.at}>{new Date(r.value.at).toLocaleTimeString()}</time>
          </li>
        ))}
      </ol>
      <nav className="pager" aria-label="Activity pages">
        <button type="button" disabled={page?.newer == null} onClick={() => page?.newer != null && setAt({ after: page.newer })}>
          Newer
        </button>
        <button type="button" disabled={at === undefined} onClick={() => setAt(undefined)}>
          Newest
        </button>
        <button type="button" disabled={page?.older == null} onClick={() => page?.older != null && setAt({ before: page.older })}>
          Older
        </button>
      </nav>
    </section>
  );
}
