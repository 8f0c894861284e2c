// The names the reference SDKs' two samples use in a flow (the customer directory and the
// subscriber archive): Python's dataclasses are snake_case, the other SDKs' camelCase.
import { CUSTOMER_PROFILES_MAP } from "../reference-samples/customer-directory.js";
import { SUBSCRIBER_CHUNKS_MAP } from "../reference-samples/subscriber-archive.js";

/** The reference SDKs whose samples have a preset. */
export type DexSdk = "python" | "typescript" | "go" | "java" | "rust";

/** Where one stored map goes in a flow. */
export interface DexMapNames {
  /** The flow's AttributeMap: an instance's key is `<attributeMap>/<escaped instance>`. */
  attributeMap: string;
  /** Wrap each instance's value in an object under this field (the samples' `profilesByCanonicalEmail`, `subscribers`). */
  valueField?: string | undefined;
  /** Renames the fields of each record (a profile, a subscriber); fields not listed keep their names. */
  recordFields?: Readonly<Record<string, string>> | undefined;
  /** For a log: the flow's Attribute that holds its state, and the state's field names. */
  stateAttribute?: string | undefined;
  stateFields?: { nextSequence: string; latestArchivedChunkToken: string } | undefined;
  /**
   * With `indexes`: the AttributeMap of each index (by index name) of a partitioned map;
   * default `<attributeMap>_index_<index name>`.
   */
  indexes?: Readonly<Record<string, string>> | undefined;
}

function sample(casing: "snake" | "camel"): Record<string, DexMapNames> {
  const snake = casing === "snake";
  return {
    [CUSTOMER_PROFILES_MAP]: {
      attributeMap: "customer_profiles_by_email_partition",
      valueField: snake ? "profiles_by_canonical_email" : "profilesByCanonicalEmail",
      recordFields: snake
        ? { emailAddress: "email_address", fullName: "full_name", companyName: "company_name", customerTier: "customer_tier" }
        : {},
    },
    [SUBSCRIBER_CHUNKS_MAP]: {
      attributeMap: "subscriber_chunks",
      valueField: "subscribers",
      recordFields: snake ? { subscriberId: "subscriber_id", deliveryAddress: "delivery_address" } : {},
      stateAttribute: "subscriber_archive_state",
      stateFields: snake
        ? { nextSequence: "next_sequence", latestArchivedChunkToken: "latest_archived_chunk_token" }
        : { nextSequence: "nextSequence", latestArchivedChunkToken: "latestArchivedChunkToken" },
    },
  };
}

/** The names each reference SDK's samples use: Python's dataclasses are snake_case, the others camelCase. */
export const DEX_SAMPLE_NAMES: Readonly<Record<DexSdk, Readonly<Record<string, DexMapNames>>>> = {
  python: sample("snake"),
  typescript: sample("camel"),
  go: sample("camel"),
  java: sample("camel"),
  rust: sample("camel"),
};
