//! What a map's stored data means: the partition count and key rule of a partitioned map,
//! the chunk-size segments of a chunked log. Layouts are stored with the data; keys and page
//! tokens mean something only under the layout they were written with.

use crate::error::{Error, Result};
use crate::prelude::*;
use crate::text::{char_count, text, zero_padded};
use crate::wide::div_rem;

/// The reference server's layout: 1000 partitions a map, 100 records a chunk.
pub const DEFAULT_PARTITION_COUNT: u32 = 1000;
pub const DEFAULT_CHUNK_SIZE: u32 = 100;
/// Sequences stay JavaScript-safe integers: 2^53 - 1.
pub const MAX_SEQUENCE: u64 = (1 << 53) - 1;
/// The layout version of a map when it is created; every resize or chunk-size change adds one.
pub const FIRST_LAYOUT_VERSION: u64 = 1;
/// Largest chunk: every append rewrites `current`, and a page is one chunk in memory.
pub const MAX_CHUNK_SIZE: u32 = 1_000_000;
/// Longest name a caller may give its own key rule.
pub const MAX_KEY_RULE_NAME: usize = 100;

/// A number as a person would write it in a message: integers exactly, others with the
/// fewest decimals (up to 17) that give the value back. Written with integer arithmetic:
/// the float formatter would be a fifth of the wasm module, for error messages alone.
pub fn describe_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let magnitude = value.abs();
    if magnitude.is_infinite() {
        return text!(sign, "Infinity");
    }
    if is_whole(magnitude) {
        // Past 2^64 an integer is written from its bits: mantissa times a power of two.
        return if magnitude < 18_446_744_073_709_551_616.0 {
            text!(sign, magnitude as u64)
        } else {
            let bits = magnitude.to_bits();
            // At least 2^64: the exponent is positive.
            text!(sign, (bits & ((1 << 52) - 1)) | (1 << 52), " * 2^", (bits >> 52) - 1075)
        };
    }
    // A number with a fraction is below 2^53: its whole part is exact as a u64.
    let whole = (magnitude as u64) as f64;
    let fraction = magnitude - whole;
    let mut scale = 1u64;
    for decimals in 1..=17 {
        scale *= 10;
        let digits = round_half_up(fraction * scale as f64);
        if decimals == 17 || whole + digits as f64 / scale as f64 == magnitude {
            let (whole, digits) = if digits == scale { (whole as u64 + 1, 0) } else { (whole as u64, digits) };
            let padded = zero_padded(u128::from(digits), decimals);
            let decimals = padded.trim_end_matches('0');
            return if decimals.is_empty() { text!(sign, whole) } else { text!(sign, whole, ".", decimals) };
        }
    }
    unreachable!("the loop returns at 17 decimals")
}

/// Whether a number is an integer (`f64::fract` is std's, not core's). From 2^52 on every
/// float is one; below, the cast to an integer and back is exact only for an integer.
pub(crate) fn is_whole(value: f64) -> bool {
    value.abs() >= 4_503_599_627_370_496.0 && value.is_finite() || (value as i64) as f64 == value
}

/// A non-negative number rounded to the nearest integer, halves up (`f64::round` is std's).
fn round_half_up(value: f64) -> u64 {
    let whole = value as u64;
    // Exact: below 2^53 the difference of a float and its whole part is a float.
    if value - whole as f64 >= 0.5 {
        whole + 1
    } else {
        whole
    }
}

/// The one check of a whole-number argument: an integer from `min` to `max`, never coerced.
pub fn whole_number(name: &str, value: f64, min: u64, max: u64) -> Result<u64> {
    // `max` is at most 2^53 here, so every value in range is exact as a float.
    if is_whole(value) && value >= min as f64 && value <= max as f64 {
        Ok(value as u64)
    } else {
        Err(Error::invalid_argument(text!(name, " must be an integer from ", min, " to ", max, ", got ", describe_number(value))))
    }
}

/// Map names that begin with this (U+0000) are attrmap's own, such as an import's staging
/// area: no caller's map may take one, so nothing of attrmap's can collide with a caller's.
pub const RESERVED_MAP_PREFIX: &str = "\u{0}";

/// Checks a caller's map name (`arg` names the argument): any string but a reserved one.
pub fn check_map_name(arg: &str, name: &str) -> Result<()> {
    match name.strip_prefix(RESERVED_MAP_PREFIX) {
        Some(rest) => Err(Error::invalid_argument(text!(
            arg,
            " \"\\u0000",
            clip(rest),
            "\" begins with U+0000, which attrmap reserves for its own maps"
        ))),
        None => Ok(()),
    }
}

/// A partition count of at least 1. Changing it moves most keys, so it is stored with the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionCount(u32);

/// What every partition name starts with (`PartitionCount::name_of` adds the index).
pub const PARTITION_PREFIX: &str = "partition-";

impl PartitionCount {
    pub fn new(count: u32) -> Result<Self> {
        Self::from_number(f64::from(count))
    }

    /// From a caller's number: an integer from 1 to 4294967295.
    pub fn from_number(count: f64) -> Result<Self> {
        whole_number("partitionCount", count, 1, u64::from(u32::MAX)).map(|n| PartitionCount(n as u32))
    }

    pub fn get(self) -> u32 {
        self.0
    }

    pub fn index_of(self, hash: u32) -> u32 {
        hash % self.0
    }

    fn width(self) -> usize {
        (self.0 - 1).checked_ilog10().map_or(1, |d| d as usize + 1)
    }

    /// `partition-` + index zero-padded to the width of the largest index, so names sort
    /// in index order: `partition-000`..`partition-999` for 1000.
    pub fn name_of(self, index: u32) -> String {
        text!(PARTITION_PREFIX, zero_padded(u128::from(index), self.width()))
    }

    /// The index a partition name stands for under this count, if it is one of its names.
    pub fn index_of_name(self, name: &str) -> Option<u32> {
        let digits = name.strip_prefix(PARTITION_PREFIX)?;
        if digits.len() != self.width() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().filter(|&i| i < self.0)
    }
}

impl Default for PartitionCount {
    fn default() -> Self {
        PartitionCount(DEFAULT_PARTITION_COUNT)
    }
}

/// How a partitioned map turns a key into the canonical key it hashes and stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRule {
    /// Any string, exactly as given.
    Exact,
    /// The email rule of docs/partitioned-map.md.
    Email,
    /// A canonicalizer of the caller's, known here only by its name.
    Custom(String),
}

impl KeyRule {
    pub const EXACT: &'static str = "exact";
    pub const EMAIL: &'static str = "email";
    /// The name stored for a caller's canonicalizer that was given no name.
    pub const CUSTOM: &'static str = "custom";

    /// The rule a stored or given name stands for. A name of the caller's own may not be
    /// empty, longer than 100 characters, or one of the built-in names.
    pub fn from_name(name: &str, custom: bool) -> Result<KeyRule> {
        match (name, custom) {
            (KeyRule::EXACT, false) => Ok(KeyRule::Exact),
            (KeyRule::EMAIL, false) => Ok(KeyRule::Email),
            (KeyRule::EXACT | KeyRule::EMAIL, true) => Err(Error::invalid_argument(text!(
                "keyRule \"",
                name,
                "\" is built in and takes no canonicalizeKey; name your own rule otherwise"
            ))),
            (_, false) => Err(Error::invalid_argument(text!(
                "keyRule \"",
                clip(name),
                "\" is not built in (\"exact\", \"email\"): pass its canonicalizeKey"
            ))),
            (_, true) if name.is_empty() || char_count(name) > MAX_KEY_RULE_NAME => {
                Err(Error::invalid_argument(text!("keyRule must be a name of 1 to ", MAX_KEY_RULE_NAME, " characters")))
            }
            (_, true) => Ok(KeyRule::Custom(name.to_string())),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            KeyRule::Exact => KeyRule::EXACT,
            KeyRule::Email => KeyRule::EMAIL,
            KeyRule::Custom(name) => name,
        }
    }
}

/// Records per chunk, at least 1. Page tokens are chunk boundaries, so it is stored too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSize(u32);

impl ChunkSize {
    pub fn new(size: u32) -> Result<Self> {
        Self::from_number(f64::from(size))
    }

    /// From a caller's number: an integer from 1 to 1000000.
    pub fn from_number(size: f64) -> Result<Self> {
        whole_number("chunkSize", size, 1, u64::from(MAX_CHUNK_SIZE)).map(|n| ChunkSize(n as u32))
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

impl Default for ChunkSize {
    fn default() -> Self {
        ChunkSize(DEFAULT_CHUNK_SIZE)
    }
}

/// From `from_sequence` on, chunks hold `chunk_size` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub from_sequence: u64,
    pub chunk_size: ChunkSize,
}

/// A log's chunk sizes over its life, oldest first. The first segment starts at sequence 1;
/// each later one starts where `changeChunkSize` found the next sequence. Chunks start at
/// `from + k * size` inside their segment; the last chunk of a segment may be shorter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segments(Vec<Segment>);

impl Segments {
    pub fn single(size: ChunkSize) -> Segments {
        Segments(vec![Segment { from_sequence: 1, chunk_size: size }])
    }

    /// Checks a list of segments: the first from sequence 1, the others strictly after it,
    /// none past the sequence after the last safe one.
    pub fn new(list: Vec<Segment>) -> Result<Segments> {
        match list.first() {
            None => return Err(Error::invalid_argument("a log's layout needs at least one segment")),
            Some(s) if s.from_sequence != 1 => {
                return Err(Error::invalid_argument(text!("the first segment starts at sequence ", s.from_sequence, ", not 1")));
            }
            Some(_) => {}
        }
        for pair in list.windows(2) {
            let (a, b) = (pair[0].from_sequence, pair[1].from_sequence);
            if b <= a || b > MAX_SEQUENCE + 1 {
                return Err(Error::invalid_argument(text!("a segment from sequence ", b, " follows one from sequence ", a)));
            }
        }
        Ok(Segments(list))
    }

    /// From `[from, size, from, size, ...]` as numbers, checking every value.
    pub fn from_numbers(flat: &[f64]) -> Result<Segments> {
        if flat.len() % 2 != 0 {
            return Err(Error::invalid_argument("segments come in pairs of fromSequence and chunkSize"));
        }
        let list = flat
            .chunks_exact(2)
            .map(|pair| {
                let from_sequence = whole_number("fromSequence", pair[0], 1, MAX_SEQUENCE + 1)?;
                Ok(Segment { from_sequence, chunk_size: ChunkSize::from_number(pair[1])? })
            })
            .collect::<Result<Vec<_>>>()?;
        Segments::new(list)
    }

    pub fn to_numbers(&self) -> Vec<f64> {
        self.0.iter().flat_map(|s| [s.from_sequence as f64, f64::from(s.chunk_size.get())]).collect()
    }

    pub fn list(&self) -> &[Segment] {
        &self.0
    }

    /// The segment new records go to.
    pub fn last(&self) -> Segment {
        // `new` guarantees at least one segment.
        self.0[self.0.len() - 1]
    }

    /// The segment `sequence` falls in, and where the next one starts (if any).
    fn around(&self, sequence: u128) -> (Segment, Option<u64>) {
        let i = self.0.partition_point(|s| u128::from(s.from_sequence) <= sequence).saturating_sub(1);
        (self.0[i], self.0.get(i + 1).map(|s| s.from_sequence))
    }

    /// First sequence of the chunk holding `sequence` (sequence >= 1).
    pub fn chunk_start(&self, sequence: u128) -> u128 {
        let (s, _) = self.around(sequence);
        let from = u128::from(s.from_sequence);
        let size = s.chunk_size.get();
        from + div_rem(sequence - from, size).0 * u128::from(size)
    }

    /// Whether `first_sequence` starts a chunk under these segments.
    pub fn is_boundary(&self, first_sequence: u128) -> bool {
        first_sequence >= 1 && self.chunk_start(first_sequence) == first_sequence
    }

    /// How many records the archived chunk starting at `start` holds: the chunk size, or
    /// fewer for the last chunk of a segment that a chunk-size change ended early.
    pub fn chunk_len(&self, start: u64) -> u64 {
        let (s, next) = self.around(u128::from(start));
        let full = u64::from(s.chunk_size.get());
        next.map_or(full, |n| full.min(n - start))
    }

    /// How many chunks start in `from..to` (both chunk starts, or `to` the start of `current`).
    pub fn chunks_between(&self, from: u64, to: u64) -> u64 {
        let mut count = 0;
        for (i, s) in self.0.iter().enumerate() {
            let end = self.0.get(i + 1).map_or(u64::MAX, |next| next.from_sequence);
            let (lo, hi) = (from.max(s.from_sequence), to.min(end));
            if lo < hi {
                let size = u64::from(s.chunk_size.get());
                count += (hi - s.from_sequence).div_ceil(size) - (lo - s.from_sequence).div_ceil(size);
            }
        }
        count
    }

    /// First sequence of the chunk before the one starting at `start`, if any.
    pub fn previous_start(&self, start: u64) -> Option<u64> {
        (start > 1).then(|| self.chunk_start(u128::from(start - 1)) as u64)
    }

    /// These segments with `size` in force from `next_sequence` on (the caller has archived
    /// `current` first). A last segment that holds no records yet takes the new size instead.
    pub fn changed(&self, next_sequence: u64, size: ChunkSize) -> Segments {
        let mut list = self.0.clone();
        let last = list.last_mut().expect("segments are never empty");
        if last.chunk_size == size {
            // Nothing changes.
        } else if last.from_sequence >= next_sequence {
            last.chunk_size = size;
        } else {
            list.push(Segment { from_sequence: next_sequence, chunk_size: size });
        }
        Segments(list)
    }
}

/// Clips a caller's text for a message, so a huge argument is not echoed whole.
pub fn clip(text: &str) -> String {
    const KEEP: usize = 64;
    match text.char_indices().nth(KEEP) {
        None => text.to_string(),
        // `get`, not indexing: `cut` is a character boundary, and no panic path is linked in.
        Some((cut, _)) => text!(text.get(..cut).unwrap_or_default(), "... (", char_count(text), " characters)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn seg(pairs: &[(u64, u32)]) -> Segments {
        Segments::new(pairs.iter().map(|&(f, c)| Segment { from_sequence: f, chunk_size: ChunkSize::new(c).unwrap() }).collect())
            .unwrap()
    }

    #[test]
    fn whole_numbers_are_checked_not_coerced() {
        assert_eq!(whole_number("n", 5.0, 1, 10), Ok(5));
        for bad in [0.0, 11.0, 1.5, f64::NAN, f64::INFINITY, -1.0] {
            let e = whole_number("n", bad, 1, 10).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert!(e.message.starts_with("n must be an integer from 1 to 10, got "), "{}", e.message);
        }
        assert_eq!(whole_number("n", 1000.5, 1, 10).unwrap_err().message, "n must be an integer from 1 to 10, got 1000.5");
        assert_eq!(whole_number("n", f64::NAN, 1, 10).unwrap_err().message, "n must be an integer from 1 to 10, got NaN");
        assert_eq!(describe_number(4294967296.0), "4294967296");
        assert_eq!(describe_number(-0.0), "0");
        // What JavaScript's String(n) gives for these.
        for (n, text) in [(0.1, "0.1"), (-2.5, "-2.5"), (1.0 / 3.0, "0.3333333333333333"), (123456.789, "123456.789")] {
            assert_eq!(describe_number(n), text);
        }
        assert_eq!(describe_number(1e-9), "0.000000001");
        assert_eq!(describe_number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(describe_number(1e300), "6724873095247260 * 2^944"); // Python: math.frexp(1e300)
    }

    #[test]
    fn map_names_that_begin_with_nul_are_reserved() {
        assert_eq!(check_map_name("name", ""), Ok(()));
        assert_eq!(check_map_name("name", "a\u{0}b"), Ok(()));
        let e = check_map_name("name", "\u{0}attrmap-import/x").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert_eq!(e.message, "name \"\\u0000attrmap-import/x\" begins with U+0000, which attrmap reserves for its own maps");
    }

    #[test]
    fn partition_names_are_padded_to_the_width_of_the_largest_index() {
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
    fn partition_names_parse_back_only_under_their_count() {
        let c = PartitionCount::new(1000).unwrap();
        assert_eq!(c.index_of_name("partition-278"), Some(278));
        for bad in
            ["partition-1000", "partition-27", "partition-0278", "partition--27", "partition-+27", "x-278", "partition-2 8"]
        {
            assert_eq!(c.index_of_name(bad), None, "{bad}");
        }
        assert_eq!(PartitionCount::new(7).unwrap().index_of_name("partition-7"), None);
    }

    #[test]
    fn counts_and_sizes_are_whole_numbers_from_1() {
        assert_eq!(PartitionCount::new(0).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(PartitionCount::from_number(4294967296.0).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(ChunkSize::from_number(2.5).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(PartitionCount::from_number(4294967295.0).unwrap().get(), u32::MAX);
    }

    #[test]
    fn key_rules_by_name() {
        assert_eq!(KeyRule::from_name("exact", false), Ok(KeyRule::Exact));
        assert_eq!(KeyRule::from_name("email", false), Ok(KeyRule::Email));
        assert_eq!(KeyRule::from_name("lower", true), Ok(KeyRule::Custom("lower".into())));
        assert_eq!(KeyRule::from_name("lower", false).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(KeyRule::from_name("email", true).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(KeyRule::from_name("", true).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(KeyRule::from_name(&"x".repeat(101), true).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn one_segment_is_the_plain_chunk_rule() {
        let s = Segments::single(ChunkSize::default());
        assert!(s.is_boundary(1) && s.is_boundary(101) && s.is_boundary(99_999_999_999_999_999_901));
        assert!(!s.is_boundary(0) && !s.is_boundary(100) && !s.is_boundary(2));
        assert_eq!(s.chunk_len(101), 100);
        assert_eq!(s.previous_start(201), Some(101));
        assert_eq!(s.previous_start(1), None);
    }

    #[test]
    fn segments_change_the_boundaries_from_their_start() {
        // 1..=100 in chunks of 10 until sequence 26: chunks 1, 11, 21 (5 records), then 26, 29, ... of 3.
        let s = seg(&[(1, 10), (26, 3)]);
        for b in [1, 11, 21, 26, 29, 32] {
            assert!(s.is_boundary(b), "{b}");
        }
        for b in [31, 25, 27, 30, 2] {
            assert!(!s.is_boundary(b), "{b}");
        }
        assert_eq!(s.chunk_len(21), 5);
        assert_eq!(s.chunk_len(11), 10);
        assert_eq!(s.chunk_len(26), 3);
        assert_eq!(s.previous_start(26), Some(21));
        assert_eq!(s.previous_start(29), Some(26));
        assert_eq!(s.previous_start(21), Some(11));
    }

    #[test]
    fn chunks_are_counted_across_segments() {
        let s = seg(&[(1, 10), (26, 3)]);
        // 1, 11, 21 (short), then 26, 29, 32.
        assert_eq!(s.chunks_between(1, 35), 6);
        assert_eq!(s.chunks_between(11, 29), 3);
        assert_eq!(s.chunks_between(26, 26), 0);
        assert_eq!(Segments::single(ChunkSize::default()).chunks_between(1, 9_007_199_254_740_901), 90_071_992_547_409);
    }

    #[test]
    fn segments_are_checked() {
        let c = ChunkSize::default();
        assert!(Segments::new(vec![]).is_err());
        assert!(Segments::new(vec![Segment { from_sequence: 2, chunk_size: c }]).is_err());
        let two = |b| vec![Segment { from_sequence: 1, chunk_size: c }, Segment { from_sequence: b, chunk_size: c }];
        assert!(Segments::new(two(1)).is_err());
        assert!(Segments::new(two(MAX_SEQUENCE + 2)).is_err());
        assert!(Segments::new(two(MAX_SEQUENCE + 1)).is_ok());
        assert!(Segments::from_numbers(&[1.0, 10.0, 5.0]).is_err());
        assert!(Segments::from_numbers(&[1.0, 0.0]).is_err());
        assert_eq!(Segments::from_numbers(&[1.0, 10.0, 26.0, 3.0]).unwrap(), seg(&[(1, 10), (26, 3)]));
        assert_eq!(seg(&[(1, 10), (26, 3)]).to_numbers(), vec![1.0, 10.0, 26.0, 3.0]);
    }

    #[test]
    fn changing_the_size_adds_or_replaces_the_last_segment() {
        let ten = ChunkSize::new(10).unwrap();
        let three = ChunkSize::new(3).unwrap();
        let s = Segments::single(ten);
        assert_eq!(s.changed(26, three), seg(&[(1, 10), (26, 3)]));
        // Nothing appended since the last change: that segment takes the new size. Back to
        // 10 still needs its own segment, since the chunk before it was cut short at 25.
        assert_eq!(seg(&[(1, 10), (26, 3)]).changed(26, ChunkSize::new(5).unwrap()), seg(&[(1, 10), (26, 5)]));
        assert_eq!(seg(&[(1, 10), (26, 3)]).changed(26, ten), seg(&[(1, 10), (26, 10)]));
        // An empty log changes its only segment.
        assert_eq!(s.changed(1, three), seg(&[(1, 3)]));
        // The size in force changes nothing.
        assert_eq!(s.changed(26, ten), s);
    }

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text() {
        assert_eq!(clip("abc"), "abc");
        let long = "é".repeat(100);
        assert_eq!(clip(&long), format!("{}... (100 characters)", "é".repeat(64)));
    }
}
