// The subscriber archive of the source documents: registrations in a chunked log.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import type { WriteOptions } from "../concurrency/locks.js";
import type { Query } from "../indexes/query.js";
import { ChunkedLog } from "../logs/chunked-log.js";
import type { ChunkedLogOptions, LogWindow, LogWindowOptions, RecordsOptions } from "../logs/log-types.js";
import { type LogRecord, valueRecords } from "../logs/records.js";
import * as wasm from "../wasm/core-module.js";
import { type NewSubscriber, type Subscriber, subscriberRecords } from "./records.js";

/** The map name the reference server uses. */
export const SUBSCRIBER_CHUNKS_MAP = "SubscriberChunks";

/**
 * What the index paths of log `map` read in its records, where only its name is known (an
 * import, a pull): the archive's records are subscribers, other logs' hold a value.
 */
export function recordIndexed(map: string): (record: { sequence: number }) => unknown {
  return map === SUBSCRIBER_CHUNKS_MAP
    ? (r) => subscriberRecords.indexed(r as Subscriber)
    : (r) => valueRecords("record").indexed(r as LogRecord);
}

/** How `store.subscriberArchive(options)` opens or creates the archive. */
export interface SubscriberArchiveOptions<N extends string = string> extends ChunkedLogOptions<NewSubscriber, N> {
  /** Another map name than the reference server's. */
  mapName?: string | undefined;
}

/** A page as the reference server returns it. */
export interface SubscriberPage {
  pageToken: string;
  /** Newest first. */
  subscribers: Subscriber[];
  /** Token of the next older page, or "" when this is the oldest. */
  nextPageToken: string;
}

/**
 * Newsletter subscribers in arrival order, as the reference server keeps them: a chunked log
 * of checked subscriber records. Get one with `store.subscriberArchive()`. `N`: the names `where`
 * takes, as in `ChunkedLog`.
 */
export class SubscriberArchive<N extends string = string> {
  private constructor(readonly log: ChunkedLog<NewSubscriber, Subscriber, N>) {}

  /** @internal */
  static async open<N extends string>(
    ctx: Context,
    options: SubscriberArchiveOptions<string> = {},
  ): Promise<SubscriberArchive<N>> {
    const o = args.options("options", options);
    const mapName = args.field("options", o, "mapName");
    const name = mapName === undefined ? SUBSCRIBER_CHUNKS_MAP : wasm.mapName("options.mapName", mapName);
    return new SubscriberArchive(
      await ChunkedLog.open<NewSubscriber, Subscriber, N>(
        ctx,
        name,
        { chunkSize: args.field("options", o, "chunkSize"), indexes: args.field("options", o, "indexes") },
        subscriberRecords,
      ),
    );
  }

  /** Registers a subscriber and returns it with its sequence. Not idempotent: each call appends. */
  async registerSubscriber(subscriber: NewSubscriber, options: WriteOptions = {}): Promise<Subscriber> {
    return this.log.append(subscriber, options);
  }

  /** Registers many subscribers in order, in one transaction. All or nothing; at most 1,000,000 a call. */
  async registerSubscribers(subscribers: Iterable<NewSubscriber>, options: WriteOptions = {}): Promise<Subscriber[]> {
    return this.log.appendMany(subscribers, options);
  }

  /** The page for `pageToken` (`""`/`"current"`: the newest), subscribers newest first. */
  async getSubscriberPage(pageToken = ""): Promise<SubscriberPage> {
    const page = await this.log.page(pageToken);
    return { pageToken: page.pageToken, subscribers: page.records, nextPageToken: page.nextPageToken };
  }

  /** A page of `limit` subscribers, newest first, for a list: the newest, or those next to a cursor (see `ChunkedLog.page`). */
  async page(options: LogWindowOptions): Promise<LogWindow<Subscriber>> {
    return this.log.page(options);
  }

  /** Every retained subscriber, newest first unless `{ order: "oldest" }`; one chunk read per step. */
  subscribers(options: RecordsOptions = {}): AsyncIterableIterator<Subscriber> {
    return this.log.records(options);
  }

  /**
   * A query of one of the archive's indexes (see `ChunkedLog.where`): "is this subscriber
   * registered?" is `where("bySubscriber").equals(id).first()`.
   */
  where(index: N): Query<Subscriber, number> {
    return this.log.where(index);
  }

  /** Subscribers retained. */
  async count(): Promise<number> {
    return this.log.count();
  }
}
