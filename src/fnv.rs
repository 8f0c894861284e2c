//! 32-bit FNV-1a, the hash every SDK uses to place a key in a partition.

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
