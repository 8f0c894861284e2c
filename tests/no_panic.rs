//! Every rule the bindings reach, fed arbitrary primitives: each must answer Ok or Err and
//! never panic (in wasm a panic is a trap that leaves the module unusable). Run natively in
//! debug, so an arithmetic overflow is caught as a panic too.

use attrmap::{
    archive_chunk_token_of_decimal, canonical_email_address, place_key, validate_page_token, whole_number, ChunkSize, KeyRule,
    Log, LogState, PartitionCount, Segments, MAX_SEQUENCE,
};

/// xorshift64*: a small seeded generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Numbers a caller or a corrupt record could hold: edges, small, huge, fractions, NaN.
    fn number(&mut self) -> f64 {
        const EDGES: [f64; 16] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4294967295.0,
            4294967296.0,
            9007199254740991.0,
            9007199254740992.0,
            9007199254740993.0,
            1e21,
            1e300,
            f64::MIN_POSITIVE,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => self.below(20) as f64,
            2 => self.below(MAX_SEQUENCE + 2) as f64,
            _ => f64::from_bits(self.next()),
        }
    }
    fn text(&mut self) -> String {
        const PIECES: [&str; 12] = ["", " ", "\u{b}", "A", "z", "@", "current", "0", "9", "é", "\u{0}", "00000000000000000101"];
        (0..self.below(6)).map(|_| PIECES[self.below(PIECES.len() as u64) as usize]).collect()
    }
    fn numbers(&mut self) -> Vec<f64> {
        (0..self.below(7)).map(|_| self.number()).collect()
    }
}

/// A valid log, made by driving random appends and chunk-size changes from an empty one.
fn random_log(r: &mut Rng) -> Log {
    let size = |r: &mut Rng| ChunkSize::new(1 + r.below(5) as u32).unwrap();
    let mut log = Log::new(Segments::single(size(r)));
    for _ in 0..r.below(8) {
        if r.below(3) == 0 {
            log = log.change_chunk_size(log.current_len(), size(r)).unwrap().0;
        } else {
            log.state = log.plan_append(log.current_len(), r.below(15)).unwrap().state;
        }
    }
    log
}

#[test]
fn numbers_counts_and_segments_never_panic() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    for _ in 0..200_000 {
        let (a, b) = (r.number(), r.number());
        let _ = whole_number("n", a, 0, MAX_SEQUENCE + 1);
        let _ = PartitionCount::from_number(a).map(|c| (c.name_of(c.get() - 1), c.index_of_name(&r.text())));
        let _ = ChunkSize::from_number(b);
        let flat = r.numbers();
        if let Ok(s) = Segments::from_numbers(&flat) {
            let v = u128::from(r.next()) * u128::from(r.next());
            let _ = (s.is_boundary(v), s.chunk_start(v.max(1)));
        }
    }
}

#[test]
fn text_rules_never_panic() {
    let mut r = Rng(42);
    let count = PartitionCount::default();
    for _ in 0..200_000 {
        let t = r.text();
        let _ = canonical_email_address(&t);
        let _ = place_key(&t, &KeyRule::Email, count);
        let _ = validate_page_token(&t, &Segments::single(ChunkSize::default()));
        let _ = archive_chunk_token_of_decimal(&t);
        let _ = KeyRule::from_name(&t, r.below(2) == 0);
    }
}

#[test]
fn log_steps_never_panic_on_any_bookkeeping_or_argument() {
    let mut r = Rng(7);
    let mut valid = 0;
    for _ in 0..100_000 {
        // Arbitrary bookkeeping, mostly refused by `checked`.
        let flat = r.numbers();
        let state = LogState { next_sequence: r.below(MAX_SEQUENCE + 3), latest_archived_chunk_token: r.text() };
        if let Ok(s) = Segments::from_numbers(&flat) {
            let _ = Log::checked(s, state, r.below(40));
        }
        // Valid logs, driven with arbitrary arguments.
        let log = random_log(&mut r);
        valid += 1;
        let _ = log.plan_append(r.below(8), r.next() >> r.below(64));
        let _ = log.plan_append(log.current_len(), r.below(30));
        let _ = log.change_chunk_size(log.current_len(), ChunkSize::new(1 + r.below(9) as u32).unwrap());
        let _ = log.check_chunk(r.next() >> r.below(64), r.below(2) == 0, &r.numbers());
        let _ = log.page_of_sequence(r.next() >> r.below(64));
        let _ = log.drop_archives_before(&r.text(), "log");
        let _ = log.drop_archives_before(&format!("{:020}", r.below(60)), "log");
        let first = 1 + r.below(60);
        let _ = (log.archived_chunk(u128::from(first)), log.older_token(first), log.count());
    }
    assert!(valid > 10_000, "only {valid} valid logs were driven");
}

#[test]
fn batch_partition_indexes_never_panic() {
    let mut r = Rng(99);
    for _ in 0..50_000 {
        let bytes: Vec<u8> = (0..r.below(40)).map(|_| r.next() as u8).collect();
        let ends: Vec<u32> = (0..r.below(8)).map(|_| r.below(50) as u32).collect();
        let _ = attrmap::partition_indexes(&bytes, &ends, PartitionCount::new(1 + r.below(5000) as u32).unwrap());
    }
}
