// The records of the two samples (customer profiles, subscribers): their types, how a caller's
// value is read into one, and what a stored one must look like. Text fields are kept exactly
// as given (they never pass through wasm); the core decides only what needs its rules (the
// email, the required fields).

import * as args from "../common/args.js";
import type { RecordKind } from "../logs/records.js";
import type { EntryKind } from "../maps/map-types.js";
import { canonicalEmail, checkSubscriberFields } from "../wasm/core-module.js";

/** A customer profile as stored: `emailAddress` is canonical. */
export interface CustomerProfile {
  emailAddress: string;
  fullName: string;
  companyName: string;
  customerTier: string;
}

/** What `upsertProfile` takes: an email (canonicalized when saved) and optional text fields. */
export interface CustomerProfileInput {
  emailAddress: string;
  fullName?: string | null | undefined;
  companyName?: string | null | undefined;
  customerTier?: string | null | undefined;
}

/** What `registerSubscriber` takes. */
export interface NewSubscriber {
  subscriberId: string;
  deliveryAddress: string;
}

/** A registered subscriber: the registration and the sequence the log gave it. */
export interface Subscriber extends NewSubscriber {
  sequence: number;
}

const PROFILE_TEXT = ["fullName", "companyName", "customerTier"] as const;

/** A text field that may be absent (`undefined` or `null`: empty) but is a string when given. */
function optionalText(owner: string, value: object, key: string): string {
  const v = args.field(owner, value, key);
  return v === undefined || v === null ? "" : args.string(`${owner}.${key}`, v);
}

/**
 * A caller's profile read into plain strings; `emailAddress` is not canonical yet. A missing
 * email reads as `""`, so the core answers it with the contract's "emailAddress is required".
 */
export function profileInput(value: unknown, name = "profile"): CustomerProfile {
  const o = args.object(name, value);
  const email = args.field(name, o, "emailAddress");
  return {
    emailAddress: email === undefined || email === null ? "" : args.text(`${name}.emailAddress`, email),
    fullName: optionalText(name, o, "fullName"),
    companyName: optionalText(name, o, "companyName"),
    customerTier: optionalText(name, o, "customerTier"),
  };
}

/** Why a stored entry under `key` is not a profile, or undefined when it is one. */
export function profileProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return `the entry for "${key}" is ${args.describeType(value)}, not a profile`;
  const p = value as Record<string, unknown>;
  if (p.emailAddress !== key) return `the entry for "${key}" holds the email ${JSON.stringify(p.emailAddress)}`;
  const bad = PROFILE_TEXT.find((k) => typeof p[k] !== "string");
  return bad && `the entry for "${key}" has a ${bad} of type ${args.describeType(p[bad])}`;
}

/**
 * @internal The customer directory's entries: profiles filed under their own canonical email. A caller's
 * profile for email `key` may leave out `emailAddress`; one it gives must be that email.
 */
export const profileEntries: EntryKind<CustomerProfile> = {
  problem: profileProblem,
  input(key, value, argument) {
    const profile = profileInput(value, argument);
    if (profile.emailAddress !== "" && canonicalEmail(profile.emailAddress) !== key)
      throw args.invalid(
        `${argument}.emailAddress must be the email it is saved under (${JSON.stringify(key)}), ` +
          `got ${JSON.stringify(profile.emailAddress)}`,
      );
    return { ...profile, emailAddress: key };
  },
};

/** A caller's registration read into two strings and checked by the contract's rule (both required). */
export function subscriberInput(value: unknown, name = "subscriber"): NewSubscriber {
  const o = args.object(name, value);
  const subscriber = {
    subscriberId: optionalText(name, o, "subscriberId"),
    deliveryAddress: optionalText(name, o, "deliveryAddress"),
  };
  checkSubscriberFields(subscriber.subscriberId.length, subscriber.deliveryAddress.length);
  return subscriber;
}

/** The subscriber archive's records: `{ sequence, subscriberId, deliveryAddress }`. */
export const subscriberRecords: RecordKind<NewSubscriber, Subscriber> = {
  recordName: "subscriber",
  input: subscriberInput,
  make: (sequence, s) => ({ sequence, subscriberId: s.subscriberId, deliveryAddress: s.deliveryAddress }),
  problem(record) {
    const r = record as Record<string, unknown>;
    if (typeof r.subscriberId !== "string" || r.subscriberId === "")
      return `subscriberId is ${args.describeType(r.subscriberId)}, not a non-empty string`;
    if (typeof r.deliveryAddress !== "string" || r.deliveryAddress === "")
      return `deliveryAddress is ${args.describeType(r.deliveryAddress)}, not a non-empty string`;
    return undefined;
  },
  indexed: (record) => record,
};
