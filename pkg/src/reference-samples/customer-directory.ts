// The customer directory of the source documents: profiles by email in a hash-partitioned map.

import * as args from "../common/args.js";
import type { Context } from "../common/context.js";
import { MAX_BATCH } from "../common/limits.js";
import { type WriteOptions, writeOptions } from "../concurrency/locks.js";
import type { Query } from "../indexes/query.js";
import type { MapPage, MapPageOptions, PartitionedMapOptions } from "../maps/map-types.js";
import { PartitionedMap } from "../maps/partitioned-map.js";
import type { KeyScope } from "../maps/scope.js";
import * as wasm from "../wasm/core-module.js";
import { type CustomerProfile, type CustomerProfileInput, profileEntries, profileInput } from "./records.js";

/** The map name the reference server uses. */
export const CUSTOMER_PROFILES_MAP = "CustomerProfilesByEmailPartition";

/** How `store.customerDirectory(options)` opens or creates the directory. */
export interface CustomerDirectoryOptions<N extends string = string> {
  /**
   * Partitions of the directory. Left out: 1000 for a new one, the stored count for an existing
   * one. Given for an existing directory, it must be the stored count: another is `layout_mismatch`.
   */
  partitionCount?: number | undefined;
  /** Another map name than the reference server's. */
  mapName?: string | undefined;
  /** Indexes the directory must have (docs/indexes.md), as `partitionedMap`'s option: `{ byCompany: "companyName" }`. */
  indexes?: PartitionedMapOptions<CustomerProfile, N>["indexes"];
}

/**
 * Customer profiles by email, as the reference server keeps them: a partitioned map with the
 * email key rule, whose entries are checked to be profiles. Get one with `store.customerDirectory()`.
 * `N`: the names `where` takes, as in `PartitionedMap`.
 */
export class CustomerDirectory<N extends string = string> {
  private constructor(readonly map: PartitionedMap<CustomerProfile, N>) {}

  /** @internal */
  static async open<N extends string>(
    ctx: Context,
    options: CustomerDirectoryOptions<string> = {},
  ): Promise<CustomerDirectory<N>> {
    const o = args.options("options", options);
    const mapName = args.field("options", o, "mapName");
    const name = mapName === undefined ? CUSTOMER_PROFILES_MAP : wasm.mapName("options.mapName", mapName);
    const partitionCount = args.field("options", o, "partitionCount");
    const indexes = args.field("options", o, "indexes");
    // Every stored entry a lookup returns is checked to be a profile filed under its own email.
    const map = await PartitionedMap.open<CustomerProfile, N>(
      ctx,
      name,
      { partitionCount, keyRule: "email", indexes },
      profileEntries,
    );
    return new CustomerDirectory(map);
  }

  /** Saves a profile (its email canonicalized) in its partition and returns what was saved. Idempotent. */
  async upsertProfile(profile: CustomerProfileInput, options: WriteOptions = {}): Promise<CustomerProfile> {
    const [saved] = await this.save([profileInput(profile)], ["emailAddress"], options);
    return saved!;
  }

  /** Saves many profiles, writing each partition involved once, in one transaction. All or nothing; at most 1,000,000 a call. */
  async upsertProfiles(profiles: Iterable<CustomerProfileInput>, options: WriteOptions = {}): Promise<CustomerProfile[]> {
    const inputs = args.list<unknown>("profiles", profiles, MAX_BATCH).map((p, i) => profileInput(p, `profiles[${i}]`));
    return this.save(
      inputs,
      inputs.map((_, i) => `profiles[${i}].emailAddress`),
      options,
    );
  }

  private save(inputs: CustomerProfile[], names: string[], options: WriteOptions): Promise<CustomerProfile[]> {
    const emails = inputs.map((p) => p.emailAddress);
    return this.map.upsertEach(emails, names, (email, i) => ({ ...inputs[i]!, emailAddress: email }), writeOptions(options));
  }

  /** The partition holding the profile of `emailAddress`, as the scope of a `store.transaction`. */
  at(emailAddress: string): KeyScope {
    return this.map.at(emailAddress);
  }

  /** The profile of `emailAddress`, or `undefined`. Reads one partition; throws `invalid_email` for a bad email. */
  async getProfile(emailAddress: string): Promise<CustomerProfile | undefined> {
    return this.map.get(emailAddress);
  }

  /** Removes the profile of `emailAddress`; true if there was one. */
  async deleteProfile(emailAddress: string, options: WriteOptions = {}): Promise<boolean> {
    return this.map.delete(emailAddress, options);
  }

  /** Every profile, in partition order, then email order; one partition read per step. */
  profiles(): AsyncIterableIterator<CustomerProfile> {
    return this.map.values();
  }

  /** A page of `limit` profiles for a list, in the order of `profiles()`, after `after` if given (see `PartitionedMap.page`). */
  async page(options: MapPageOptions): Promise<MapPage<CustomerProfile>> {
    return this.map.page(options);
  }

  /** A query of one of the directory's indexes (see `PartitionedMap.where`): `where("byCompany").equals("Acme")`. */
  where(index: N): Query<[string, CustomerProfile]> {
    return this.map.where(index);
  }

  /** Profiles in the directory (reads every partition). */
  async count(): Promise<number> {
    return this.map.count();
  }
}
