// The customer directory of the source documents: profiles by email in a hash-partitioned map.
import { placeCustomerProfile } from "./core.js";
import type { Context } from "./context.js";
import { PartitionedMap, type PartitionedMapOptions } from "./partitioned-map.js";
import type { WriteOptions } from "./locks.js";
import type { CustomerProfile } from "../wasm/attrmap.js";

/** The map name the reference server uses. */
export const CUSTOMER_PROFILES_MAP = "CustomerProfilesByEmailPartition";

export class CustomerDirectory {
  private constructor(readonly map: PartitionedMap<CustomerProfile>) {}

  static async open(ctx: Context, options: Pick<PartitionedMapOptions, "partitionCount"> & { mapName?: string } = {}): Promise<CustomerDirectory> {
    return new CustomerDirectory(await PartitionedMap.open<CustomerProfile>(ctx, options.mapName ?? CUSTOMER_PROFILES_MAP, options));
  }

  /** Saves a profile (its email canonicalized) in its partition and returns what was saved. Idempotent. */
  async upsertProfile(profile: Partial<CustomerProfile>, options: WriteOptions = {}): Promise<CustomerProfile> {
    const placed = placeCustomerProfile(profile, this.map.partitionCount);
    await this.map.upsertAt({ key: placed.canonicalEmail, partitionName: placed.partitionName }, placed.profile, options);
    return placed.profile;
  }

  /** Saves many profiles, writing each partition involved once, in one transaction. */
  async upsertProfiles(profiles: Iterable<Partial<CustomerProfile>>, options: WriteOptions = {}): Promise<CustomerProfile[]> {
    const placed = Array.from(profiles, (p) => placeCustomerProfile(p, this.map.partitionCount).profile);
    await this.map.upsertMany(placed.map((p) => [p.emailAddress, p] as const), options);
    return placed;
  }

  /** The profile of `emailAddress`, or `undefined`. Reads one partition; throws `invalid_email` for a bad email. */
  getProfile(emailAddress: string): Promise<CustomerProfile | undefined> {
    return this.map.get(emailAddress);
  }
}
