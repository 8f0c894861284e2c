//! Pulling the engine's copy back (`docs/sync.md`): what a pull does with each entry of a
//! partitioned map, and with each log, from three facts about it. The base is what the engine
//! held when the two last exchanged it (nothing, before their first exchange); the local copy
//! and the engine's are each either still the base or changed since. A base keeps a digest of
//! each value, not the value: 64-bit FNV-1a of its canonical JSON.

use crate::fnv::fnv1a64;
use crate::prelude::*;

/// The digest of a value from its canonical JSON's UTF-8 bytes, as 16 lowercase hex digits.
pub fn digest(canonical_json: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = fnv1a64(canonical_json);
    (0..16).rev().map(|i| char::from(HEX[((hash >> (i * 4)) & 0xf) as usize])).collect()
}

/// What a pull does with one entry of a partitioned map, or with one log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// The two copies are equal: nothing to write.
    Same,
    /// Only the engine's changed since the base: take it (an absent entry is deleted).
    TakeRemote,
    /// Only the local copy changed: keep it, for the next push to send.
    KeepLocal,
    /// Both changed, to different values: the application decides, and it is reported.
    Conflict,
}

/// The three-way rule: equal copies need nothing; a side that is still the base takes the
/// other's change; two changes that differ are a conflict, never settled silently.
pub fn merge(local_is_base: bool, remote_is_base: bool, equal: bool) -> Merge {
    if equal {
        Merge::Same
    } else if local_is_base {
        Merge::TakeRemote
    } else if remote_is_base {
        Merge::KeepLocal
    } else {
        Merge::Conflict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule read from its statement, one case at a time, with values standing for the copies.
    fn by_values(base: Option<&str>, local: Option<&str>, remote: Option<&str>) -> Merge {
        merge(local == base, remote == base, local == remote)
    }

    #[test]
    fn each_case_of_the_three_way_rule() {
        let (b, x, y) = (Some("b"), Some("x"), Some("y"));
        // Nobody changed it, or both made the same change.
        assert_eq!(by_values(b, b, b), Merge::Same);
        assert_eq!(by_values(b, x, x), Merge::Same);
        assert_eq!(by_values(b, None, None), Merge::Same);
        // Only the engine changed it (or deleted it): take the engine's.
        assert_eq!(by_values(b, b, x), Merge::TakeRemote);
        assert_eq!(by_values(b, b, None), Merge::TakeRemote);
        // Only this device changed it (or deleted it): keep it.
        assert_eq!(by_values(b, x, b), Merge::KeepLocal);
        assert_eq!(by_values(b, None, b), Merge::KeepLocal);
        // Both changed it differently, a delete against a change included.
        assert_eq!(by_values(b, x, y), Merge::Conflict);
        assert_eq!(by_values(b, None, x), Merge::Conflict);
        assert_eq!(by_values(b, x, None), Merge::Conflict);
    }

    #[test]
    fn a_digest_is_the_64_bit_fnv_1a_of_the_text_in_hex() {
        assert_eq!(digest(b""), "cbf29ce484222325");
        assert_eq!(digest(b"foobar"), "85944171f73967e8");
        assert_ne!(digest(b"{\"a\":1}"), digest(b"{\"a\":2}"));
    }

    #[test]
    fn before_the_first_exchange_the_base_is_nothing() {
        let (x, y) = (Some("x"), Some("y"));
        assert_eq!(by_values(None, None, x), Merge::TakeRemote);
        assert_eq!(by_values(None, x, None), Merge::KeepLocal);
        assert_eq!(by_values(None, x, x), Merge::Same);
        assert_eq!(by_values(None, x, y), Merge::Conflict);
    }
}
