//! 32-bit FNV-1a, the hash every SDK uses to place a key in a partition; and its 64-bit
//! sibling, which digests a synced entry's value (`sync.rs`), where 32 bits would collide.

/// FNV-1a's 32-bit parameters: the starting hash and the multiplier.
pub const OFFSET_BASIS: u32 = 0x811c_9dc5;
pub const PRIME: u32 = 0x0100_0193;

/// FNV-1a over `bytes`: xor each byte in, then multiply by the prime, wrapping at 2^32.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    fnv1a32_continue(OFFSET_BASIS, bytes)
}

/// FNV-1a of the bytes hashed so far (`hash`) followed by `bytes`: a long input can be
/// hashed in pieces, each piece continuing from the hash of the ones before.
pub fn fnv1a32_continue(hash: u32, bytes: &[u8]) -> u32 {
    fold(hash, bytes.iter().copied())
}

/// FNV-1a over bytes made on the way (a canonical form that is never written out).
pub fn fnv1a32_bytes(bytes: impl Iterator<Item = u8>) -> u32 {
    fold(OFFSET_BASIS, bytes)
}

/// FNV-1a's 64-bit parameters.
pub const OFFSET_BASIS_64: u64 = 0xcbf2_9ce4_8422_2325;
pub const PRIME_64: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a over `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET_BASIS_64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME_64))
}

fn fold(hash: u32, bytes: impl Iterator<Item = u8>) -> u32 {
    bytes.fold(hash, |hash, b| (hash ^ u32::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Published FNV-1a 32-bit test vectors (Fowler/Noll/Vo reference test suite).
    #[test]
    fn published_vectors() {
        assert_eq!(fnv1a32(b""), 0x811c9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9cf968);
        assert_eq!(fnv1a32(b"\0"), 0x050c5d1f);
        assert_eq!(fnv1a32(b"foobar\0"), 0x0c1c9eb8);
        assert_eq!(fnv1a32_bytes(b"foobar".iter().copied()), 0xbf9cf968);
    }

    // Published FNV-1a 64-bit test vectors (the same suite).
    #[test]
    fn published_vectors_64() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn hashing_in_pieces_gives_the_same_hash() {
        let whole = fnv1a32(b"foobar");
        assert_eq!(fnv1a32_continue(fnv1a32(b"foo"), b"bar"), whole);
        assert_eq!(fnv1a32_continue(fnv1a32(b""), b"foobar"), whole);
    }

    #[test]
    fn all_byte_values_change_the_hash() {
        let hashes: std::collections::HashSet<u32> = (0u8..=255).map(|b| fnv1a32(&[b])).collect();
        assert_eq!(hashes.len(), 256);
    }
}
