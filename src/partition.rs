//! Placing a key in one of N partition instances: FNV-1a of its canonical bytes, mod N.

use crate::email::{canonical_edit, canonical_email_address, CanonicalEdit};
use crate::error::{Error, Result};
use crate::fnv::{fnv1a32, fnv1a32_bytes};
use crate::layout::{KeyRule, PartitionCount};
use crate::prelude::*;
use crate::text::text;

/// Where one canonical key lives: its hash, partition index and instance name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPartition {
    pub hash: u32,
    pub index: u32,
    pub partition_name: String,
}

/// The partition of a key that is already canonical: FNV-1a of its UTF-8 bytes, mod N.
pub fn key_partition(canonical_key: &str, count: PartitionCount) -> KeyPartition {
    let hash = fnv1a32(canonical_key.as_bytes());
    let index = count.index_of(hash);
    KeyPartition { hash, index, partition_name: count.name_of(index) }
}

/// Where one email lives: its canonical form and its partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailPartition {
    pub canonical_email: String,
    pub hash: u32,
    pub index: u32,
    pub partition_name: String,
}

/// Where an email's profile goes: its canonical form, hash, partition index and name.
pub fn email_partition(email: &str, count: PartitionCount) -> Result<EmailPartition> {
    let canonical_email = canonical_email_address(email)?;
    let KeyPartition { hash, index, partition_name } = key_partition(&canonical_email, count);
    Ok(EmailPartition { canonical_email, hash, index, partition_name })
}

/// Where a caller's key lives: how the rule makes it canonical (`None`: it is taken as it is),
/// the FNV-1a hash of its canonical form, and the partition index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub edit: Option<CanonicalEdit>,
    pub hash: u32,
    pub index: u32,
}

/// Places `key` under a built-in rule, without making its canonical form. A custom rule's
/// keys arrive canonical: they are taken as they are.
pub fn place_key(key: &str, rule: &KeyRule, count: PartitionCount) -> Result<Placement> {
    let (edit, hash) = match rule {
        KeyRule::Email => {
            let edit = canonical_edit(key)?;
            (Some(edit), fnv1a32_bytes(edit.bytes(key)))
        }
        KeyRule::Exact | KeyRule::Custom(_) => (None, fnv1a32(key.as_bytes())),
    };
    Ok(Placement { edit, hash, index: count.index_of(hash) })
}

/// The partition index of each of many canonical keys, in one call: `bytes` holds their UTF-8
/// bytes one after another and `ends[i]` is where key `i` ends. This is where a resize decides
/// which entry goes where: entry `i` moves to partition `indexes[i]` of the new count.
pub fn partition_indexes(bytes: &[u8], ends: &[u32], count: PartitionCount) -> Result<Vec<u32>> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let end = end as usize;
            let key = bytes
                .get(start..end)
                .ok_or_else(|| Error::invalid_argument(text!("key ends at ", end, ", before ", start, " or past the bytes")))?;
            start = end;
            Ok(count.index_of(fnv1a32(key)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn place(email: &str) -> (String, u32, String) {
        let p = email_partition(email, PartitionCount::default()).unwrap();
        (p.canonical_email, p.hash, p.partition_name)
    }

    #[test]
    fn golden_values_from_spec() {
        assert_eq!(place(" Alice@Example.COM "), ("alice@example.com".into(), 2493822278, "partition-278".into()));
        assert_eq!(place("bob@example.com"), ("bob@example.com".into(), 3055529145, "partition-145".into()));
        assert_eq!(place("support+west@example.org"), ("support+west@example.org".into(), 2156001632, "partition-632".into()));
    }

    #[test]
    fn index_is_hash_mod_count() {
        let c = PartitionCount::new(7).unwrap();
        assert_eq!(c.index_of(u32::MAX), u32::MAX % 7);
        assert_eq!(PartitionCount::new(1).unwrap().index_of(12345), 0);
    }

    #[test]
    fn invalid_email_has_no_partition() {
        let e = email_partition("  ", PartitionCount::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidEmail);
    }

    #[test]
    fn many_keys_at_once_land_where_each_alone_would() {
        let keys = ["alice@example.com", "bob@example.com", "", "support+west@example.org", "é"];
        let bytes: Vec<u8> = keys.concat().into_bytes();
        let mut ends = vec![];
        let mut at = 0;
        for k in keys {
            at += k.len() as u32;
            ends.push(at);
        }
        for count in [1, 7, 1000, 4000] {
            let count = PartitionCount::new(count).unwrap();
            let want: Vec<u32> = keys.iter().map(|k| key_partition(k, count).index).collect();
            assert_eq!(partition_indexes(&bytes, &ends, count).unwrap(), want);
        }
        // Under 1000 partitions the golden keys stay where the contract puts them (docs/partitioned-map.md).
        assert_eq!(partition_indexes(&bytes, &ends, PartitionCount::default()).unwrap()[..2], [278, 145]);
        let bad = partition_indexes(&bytes, &[3, 1], PartitionCount::default()).unwrap_err();
        assert_eq!(bad.code, ErrorCode::InvalidArgument);
        assert!(partition_indexes(&bytes, &[999], PartitionCount::default()).is_err());
    }

    #[test]
    fn place_key_applies_the_rule_without_making_the_canonical_form() {
        let count = PartitionCount::default();
        let p = place_key(" Alice@Example.COM ", &KeyRule::Email, count).unwrap();
        let edit = p.edit.unwrap();
        assert_eq!((edit.apply(" Alice@Example.COM ").as_ref(), p.hash, p.index), ("alice@example.com", 2493822278, 278));
        assert!(place_key("alice@example.com", &KeyRule::Email, count).unwrap().edit.unwrap().is_identity("alice@example.com"));
        assert_eq!(place_key(" Theme ", &KeyRule::Exact, count).unwrap().edit, None);
        assert_eq!(place_key(" ", &KeyRule::Email, count).unwrap_err().code, ErrorCode::InvalidEmail);
        let empty = place_key("", &KeyRule::Exact, count).unwrap();
        assert_eq!((empty.hash, empty.index), (0x811c9dc5, 0x811c9dc5 % 1000));
    }
}
