//! Placing a key in one of N partition instances: `hash mod N`, named `partition-NNN`.

use crate::email::canonical_email_address;
use crate::error::{out_of_range, Result};
use crate::fnv::fnv1a32;

pub const DEFAULT_PARTITION_COUNT: u32 = 1000;
pub const PARTITION_PREFIX: &str = "partition-";

/// A partition count of at least 1. It is part of the persisted layout: changing it moves
/// most keys, so callers must store it with the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionCount(u32);

impl PartitionCount {
    pub fn new(count: u32) -> Result<Self> {
        if count == 0 {
            return Err(out_of_range("partitionCount", u32::MAX, count));
        }
        Ok(PartitionCount(count))
    }

    pub fn get(self) -> u32 {
        self.0
    }

    pub fn index_of(self, hash: u32) -> u32 {
        hash % self.0
    }

    /// `partition-` + index zero-padded to the width of the largest index, so names sort
    /// in index order: `partition-000`..`partition-999` for 1000.
    pub fn name_of(self, index: u32) -> String {
        let width = decimal_width(self.0 - 1);
        format!("{PARTITION_PREFIX}{index:0width$}")
    }
}

impl Default for PartitionCount {
    fn default() -> Self {
        PartitionCount(DEFAULT_PARTITION_COUNT)
    }
}

fn decimal_width(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

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

pub fn email_partition(email: &str, count: PartitionCount) -> Result<EmailPartition> {
    let canonical_email = canonical_email_address(email)?;
    let KeyPartition { hash, index, partition_name } = key_partition(&canonical_email, count);
    Ok(EmailPartition { canonical_email, hash, index, partition_name })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn names_are_padded_to_the_width_of_the_largest_index() {
        let n = |count, index| PartitionCount::new(count).unwrap().name_of(index);
        assert_eq!(n(1000, 0), "partition-000");
        assert_eq!(n(1000, 999), "partition-999");
        assert_eq!(n(1, 0), "partition-0");
        assert_eq!(n(10, 9), "partition-9");
        assert_eq!(n(11, 3), "partition-03");
        assert_eq!(n(1001, 7), "partition-0007");
        assert_eq!(n(u32::MAX, 5), "partition-0000000005");
    }

    #[test]
    fn index_is_hash_mod_count() {
        let c = PartitionCount::new(7).unwrap();
        assert_eq!(c.index_of(u32::MAX), u32::MAX % 7);
        assert_eq!(PartitionCount::new(1).unwrap().index_of(12345), 0);
    }

    #[test]
    fn zero_partitions_is_refused() {
        use crate::error::ErrorCode;
        assert_eq!(PartitionCount::new(0).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn invalid_email_has_no_partition() {
        let e = email_partition("  ", PartitionCount::default()).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::InvalidEmail);
    }
}
