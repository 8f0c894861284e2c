# The customer directory's entry changes (docs/sync.md, "The backend"): the flow's RPC that
# applies one partition's changes under that partition's lock (the sample's upsert pattern: lock,
# load, change the named profiles, write back), and the controller that groups a device's
# changes by partition and calls it once per partition. Other devices' profiles in the partition
# are left as they are, so two devices never overwrite each other's entries.
#
# The flow's names are the Python sample's (examples/python/dex_examples/patterns/
# hash-partitioned-attribute-map/customer_directory_flow.py in superdurable/dex). An application
# adds the RPC to its CustomerDirectoryFlow beside UpsertCustomerProfile and
# GetCustomerProfileByEmail; they are left out here.

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypedDict

from dex import (
    AsyncClient,
    AttributeMap,
    Context,
    Flow,
    PersistenceSchema,
    RPCInvokeOptions,
    RPCResult,
    RpcLockConflictError,
    StepList,
    rpc,
)

FLOW_ID = "customer-directory"
PARTITION_COUNT = 1000
FNV_OFFSET_BASIS_32 = 2166136261
FNV_PRIME_32 = 16777619
# What the partition algorithm trims: space and 0x09..0x0D (vertical tab included).
ASCII_WHITESPACE = " \t\n\v\f\r"
PROFILE_FIELDS = ("email_address", "full_name", "company_name", "customer_tier")

JsonValue: TypeAlias = (
    "None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]"
)


class DexEntryChange(TypedDict):
    """One change from `exportDexEntryChanges` (JSON, as the page sends it): `value` None deletes."""

    attributeMap: str
    instance: str
    key: str
    value: JsonValue


@dataclass
class CustomerProfile:
    email_address: str
    full_name: str
    company_name: str
    customer_tier: str


@dataclass
class CustomerProfilePartition:
    profiles_by_canonical_email: dict[str, CustomerProfile]


@dataclass
class CustomerProfileEntryChanges:
    """The RPC's input: one partition's profiles to set and canonical emails to delete.

    Two collections, not one list of optional profiles: the SDK's codec decodes an optional
    dataclass field as a plain dict, not as the dataclass.
    """

    partition_name: str
    profiles_to_set: dict[str, CustomerProfile]
    canonical_emails_to_delete: list[str]


class CustomerDirectoryFlow(Flow[None]):
    customer_profiles_by_email_partition = AttributeMap(
        "customer_profiles_by_email_partition",
        CustomerProfilePartition,
    )

    def get_steps(self) -> StepList[None]:
        return StepList.empty()

    def get_persistence_schema(self) -> PersistenceSchema:
        return PersistenceSchema.of(self.customer_profiles_by_email_partition)

    @rpc(name="ApplyCustomerProfileEntryChanges")
    def apply_customer_profile_entry_changes(
        self,
        context: Context,
        input: CustomerProfileEntryChanges,
    ) -> RPCResult[int]:
        """Apply one partition's changes; the caller locks and loads that partition.

        Returns the number of profiles the partition holds afterwards (0: it is deleted, as the
        browser stores no empty partition). Setting and deleting are idempotent, so a retry
        after a lock conflict or a lost answer gives the same partition.
        """
        partition_name = input.partition_name
        for canonical_email, profile in input.profiles_to_set.items():
            require_entry_in_partition(canonical_email, partition_name)
            if profile.email_address != canonical_email:
                raise ValueError(f'profile of "{canonical_email}" has another email_address')
        for canonical_email in input.canonical_emails_to_delete:
            require_entry_in_partition(canonical_email, partition_name)

        partitions = self.customer_profiles_by_email_partition
        stored = self._stored_partition(context, partition_name)
        partition = stored if stored is not None else CustomerProfilePartition({})
        profiles = partition.profiles_by_canonical_email
        for canonical_email in input.canonical_emails_to_delete:
            profiles.pop(canonical_email, None)
        profiles.update(input.profiles_to_set)
        if profiles:
            partitions.set(context, partition_name, partition)
        elif stored is not None:
            partitions.delete(context, partition_name)
        return RPCResult(len(profiles))

    def _stored_partition(
        self, context: Context, partition_name: str
    ) -> CustomerProfilePartition | None:
        # AttributeMap.get documents KeyError for an absent instance, but SDK 1.23.0 returns its
        # default for an object type, None (typed as the value type): both mean absent here.
        try:
            stored: CustomerProfilePartition | None = (
                self.customer_profiles_by_email_partition.get(context, partition_name)
            )
        except KeyError:
            return None
        return stored


async def apply_entry_changes(
    client: AsyncClient,
    flow: CustomerDirectoryFlow,
    changes: Sequence[DexEntryChange],
    *,
    flow_id: str = FLOW_ID,
    max_attempts: int = 5,
    first_retry_delay_seconds: float = 0.05,
) -> dict[str, int]:
    """Apply a device's entry changes: one locking RPC per partition, one partition at a time.

    Every change is checked before the first call. Returns each partition's profile count
    afterwards. A failure leaves the partitions before it applied: the page acknowledges
    nothing then, and sends the same changes again later, which is safe (they are idempotent).
    """
    groups = group_entry_changes(flow, changes)
    profile_counts: dict[str, int] = {}
    for partition_name, group in sorted(groups.items()):
        profile_counts[partition_name] = await _apply_partition(
            client, flow, flow_id, group, max_attempts, first_retry_delay_seconds
        )
    return profile_counts


def group_entry_changes(
    flow: CustomerDirectoryFlow,
    changes: Sequence[DexEntryChange],
) -> dict[str, CustomerProfileEntryChanges]:
    """Group entry changes by partition, checking each as the RPC will (ValueError if not)."""
    map_name = flow.customer_profiles_by_email_partition.name
    groups: dict[str, CustomerProfileEntryChanges] = {}
    for change in changes:
        if change["attributeMap"] != map_name:
            raise ValueError(f'entry change of "{change["attributeMap"]}", not {map_name}')
        key, instance, value = change["key"], change["instance"], change["value"]
        require_entry_in_partition(key, instance)
        group = groups.setdefault(instance, CustomerProfileEntryChanges(instance, {}, []))
        if key in group.profiles_to_set or key in group.canonical_emails_to_delete:
            raise ValueError(f'"{key}" is changed twice')
        if value is None:
            group.canonical_emails_to_delete.append(key)
        else:
            group.profiles_to_set[key] = profile_from_json(key, value)
    return groups


async def _apply_partition(
    client: AsyncClient,
    flow: CustomerDirectoryFlow,
    flow_id: str,
    changes: CustomerProfileEntryChanges,
    max_attempts: int,
    first_retry_delay_seconds: float,
) -> int:
    # Every writer of a partition must take its lock: a lock holds back only those who take it.
    partitions = flow.customer_profiles_by_email_partition
    options = RPCInvokeOptions(
        lock_attribute_map_instances=(partitions.lock(changes.partition_name),),
        load_attribute_map_instances=(partitions.load(changes.partition_name),),
    )
    attempt = 1
    while True:
        try:
            return await client.invoke_rpc(
                flow.apply_customer_profile_entry_changes, flow_id, changes, options=options
            )
        except RpcLockConflictError:
            if attempt >= max_attempts:
                raise
        # Exponential backoff with jitter, so two devices that collided do not collide again.
        delay = first_retry_delay_seconds * 2 ** (attempt - 1)
        await asyncio.sleep(delay * random.uniform(0.5, 1.5))
        attempt += 1


def profile_from_json(canonical_email: str, value: JsonValue) -> CustomerProfile:
    """The profile of an entry change's value (the sample's four fields, all strings)."""
    if not isinstance(value, dict):
        raise ValueError(f'profile of "{canonical_email}" is not an object')
    unknown = sorted(set(value) - set(PROFILE_FIELDS))
    if unknown:
        raise ValueError(f'profile of "{canonical_email}" has unknown fields {unknown}')
    email_address = _text(value, "email_address", canonical_email)
    if canonical_email_address(email_address) != canonical_email:
        raise ValueError(f'profile of "{canonical_email}" has email_address "{email_address}"')
    return CustomerProfile(
        canonical_email,
        _text(value, "full_name", canonical_email),
        _text(value, "company_name", canonical_email),
        _text(value, "customer_tier", canonical_email),
    )


def _text(value: Mapping[str, JsonValue], field: str, canonical_email: str) -> str:
    text = value.get(field)
    if not isinstance(text, str):
        raise ValueError(f'profile of "{canonical_email}": {field} is not a string')
    return text


def require_entry_in_partition(canonical_email: str, partition_name: str) -> None:
    """Raise ValueError unless the key is a canonical email that hashes to that partition."""
    if canonical_email_address(canonical_email) != canonical_email:
        raise ValueError(f'key "{canonical_email}" is not a canonical email')
    if email_partition_name(canonical_email) != partition_name:
        raise ValueError(f'key "{canonical_email}" hashes to another partition than {partition_name}')


def canonical_email_address(email_address: str) -> str:
    """The partition algorithm's steps 1-3: ASCII, that whitespace trimmed, A-Z lowercased."""
    if not email_address.isascii():
        raise ValueError("emailAddress must contain only ASCII characters")
    canonical = email_address.strip(ASCII_WHITESPACE).lower()  # ASCII: lower() maps A-Z only
    if not canonical:
        raise ValueError("emailAddress is required")
    return canonical


def email_partition_name(canonical_email: str) -> str:
    """Steps 4-5: 32-bit FNV-1a of the canonical bytes, modulo 1000, as partition-NNN."""
    hash_value = FNV_OFFSET_BASIS_32
    for octet in canonical_email.encode("ascii"):
        hash_value = ((hash_value ^ octet) * FNV_PRIME_32) & 0xFFFFFFFF
    return f"partition-{hash_value % PARTITION_COUNT:03d}"
