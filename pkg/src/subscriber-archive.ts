// The subscriber archive of the source documents: registrations in a chunked log.
import type { Context } from "./context.js";
import { ChunkedLog, type ChunkedLogOptions } from "./chunked-log.js";
import type { WriteOptions } from "./locks.js";
import type { NewSubscriber, Subscriber } from "../wasm/attrmap.js";

/** The map name the reference server uses. */
export const SUBSCRIBER_CHUNKS_MAP = "SubscriberChunks";

/** A page as the reference server returns it. */
export interface SubscriberPage {
  pageToken: string;
  /** Newest first. */
  subscribers: Subscriber[];
  /** Token of the next older page, or "" when this is the oldest. */
  nextPageToken: string;
}

export class SubscriberArchive {
  private constructor(readonly log: ChunkedLog<NewSubscriber, Subscriber>) {}

  static async open(ctx: Context, options: ChunkedLogOptions & { mapName?: string } = {}): Promise<SubscriberArchive> {
    return new SubscriberArchive(await ChunkedLog.openSubscribers(ctx, options.mapName ?? SUBSCRIBER_CHUNKS_MAP, options));
  }

  /** Registers a subscriber and returns it with its sequence. Not idempotent: each call appends. */
  registerSubscriber(input: NewSubscriber, options: WriteOptions = {}): Promise<Subscriber> {
    return this.log.append(input, options);
  }

  /** Registers many subscribers in order, in one transaction. All or nothing. */
  registerSubscribers(inputs: readonly NewSubscriber[], options: WriteOptions = {}): Promise<Subscriber[]> {
    return this.log.appendMany(inputs, options);
  }

  /** The page for `pageToken` (`""`/`"current"`: the newest), subscribers newest first. */
  async getSubscriberPage(pageToken = ""): Promise<SubscriberPage> {
    const page = await this.log.page(pageToken);
    return { pageToken: page.pageToken, subscribers: page.records, nextPageToken: page.nextPageToken };
  }
}
