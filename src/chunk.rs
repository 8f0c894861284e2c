//! The sequentially chunked log as pure steps: what an append writes, and how a page is
//! assembled from the one chunk it reads. Records are opaque (`R`): only their count and
//! order matter here, so the same steps serve subscribers and any other record type.

use serde::{Deserialize, Serialize};

use crate::error::{out_of_range, Error, ErrorCode, Result};
use crate::token::{archive_chunk_token, PageToken};

pub const DEFAULT_CHUNK_SIZE: u32 = 100;
/// Sequences stay JavaScript-safe integers: 2^53 - 1.
pub const MAX_SEQUENCE: u64 = (1 << 53) - 1;

/// Records per chunk, at least 1. Part of the stored layout: tokens are chunk boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSize(u32);

impl ChunkSize {
    pub fn new(size: u32) -> Result<Self> {
        if size == 0 {
            return Err(out_of_range("chunkSize", u32::MAX, size));
        }
        Ok(ChunkSize(size))
    }

    pub fn get(self) -> u32 {
        self.0
    }

    fn len(self) -> usize {
        self.0 as usize
    }

    /// Whether `first_sequence` can start a chunk: 1, 1 + C, 1 + 2C, ...
    pub fn is_boundary(self, first_sequence: u128) -> bool {
        first_sequence >= 1 && (first_sequence - 1) % u128::from(self.0) == 0
    }
}

impl Default for ChunkSize {
    fn default() -> Self {
        ChunkSize(DEFAULT_CHUNK_SIZE)
    }
}

/// The log's one small mutable record besides `current`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogState {
    pub next_sequence: u64,
    pub latest_archived_chunk_token: String,
}

impl Default for LogState {
    fn default() -> Self {
        LogState { next_sequence: 1, latest_archived_chunk_token: String::new() }
    }
}

/// A full chunk moved out of `current`, to be stored under `token` and never changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedChunk<R> {
    pub token: String,
    pub records: Vec<R>,
}

/// Every write of one append call. They must be stored together (one transaction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append<R> {
    /// Sequences given to the new records, in order.
    pub first_sequence: u64,
    pub count: u64,
    pub current: Vec<R>,
    /// Chunks that filled up, oldest first: several when a batch crosses several boundaries.
    pub archived: Vec<ArchivedChunk<R>>,
    pub state: LogState,
}

fn corrupt(message: String) -> Error {
    Error::new(ErrorCode::CorruptData, message)
}

/// First sequence of `current`, after checking that state and chunk agree.
fn current_first_sequence(size: ChunkSize, state: &LogState, current_len: usize) -> Result<u64> {
    if current_len > size.len() {
        return Err(corrupt(format!("current chunk holds {current_len} records, more than the chunk size {}", size.get())));
    }
    let first = state.next_sequence.checked_sub(current_len as u64).filter(|&f| f >= 1);
    match first {
        Some(first) if current_len == 0 || size.is_boundary(u128::from(first)) => Ok(first),
        _ => Err(corrupt(format!(
            "current chunk of {current_len} records does not end at sequence {}",
            state.next_sequence.saturating_sub(1)
        ))),
    }
}

/// Appends records in order, each made by `make` from its sequence and its item. Whenever
/// `current` is full it is archived under its first sequence's token and a new `current`
/// starts with the next record. Nothing is returned unless every record fits.
pub fn append<T, R>(
    size: ChunkSize,
    state: &LogState,
    mut current: Vec<R>,
    items: impl IntoIterator<Item = T>,
    mut make: impl FnMut(u64, T) -> R,
) -> Result<Append<R>> {
    let mut first = current_first_sequence(size, state, current.len())?;
    let first_sequence = state.next_sequence;
    let mut next = first_sequence;
    let mut latest = state.latest_archived_chunk_token.clone();
    let mut archived = Vec::new();
    for item in items {
        if next > MAX_SEQUENCE {
            return Err(Error::new(
                ErrorCode::SequenceExhausted,
                format!("sequence would pass {MAX_SEQUENCE} (2^53 - 1), the largest JavaScript-safe integer"),
            ));
        }
        if current.len() == size.len() {
            let token = archive_chunk_token(u128::from(first))?;
            latest = token.clone();
            archived.push(ArchivedChunk { token, records: std::mem::take(&mut current) });
            first = next;
        }
        current.push(make(next, item));
        next += 1;
    }
    Ok(Append {
        first_sequence,
        count: next - first_sequence,
        current,
        archived,
        state: LogState { next_sequence: next, latest_archived_chunk_token: latest },
    })
}

/// One page: records newest first and the token of the next older page (`""` at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<R> {
    pub page_token: String,
    pub records: Vec<R>,
    pub next_page_token: String,
}

/// The token of the chunk before the one starting at `first`, or `""` for the oldest.
fn previous_token(size: ChunkSize, first: u128) -> Result<String> {
    let step = u128::from(size.get());
    if first > step {
        archive_chunk_token(first - step)
    } else {
        Ok(String::new())
    }
}

/// Assembles the page for `token` from the one chunk read for it (`None`: not stored).
/// The next token comes from the chunk's own first sequence (`sequence_of` reads it from a
/// record), so a page read touches that one chunk and nothing else: for `current` it equals
/// the state's `latestArchivedChunkToken`, because archived chunks are full and contiguous.
/// `noun` names the records in the not-found message (`subscriber page "..." not found`).
pub fn page<R>(
    size: ChunkSize,
    token: PageToken,
    chunk: Option<Vec<R>>,
    sequence_of: impl Fn(&R) -> Option<u64>,
    noun: &str,
) -> Result<Page<R>> {
    let page_token = token.to_token_string();
    let (mut records, first) = match (token, chunk) {
        (PageToken::Current, chunk) => {
            let records = chunk.unwrap_or_default();
            let first = match records.first() {
                None => None,
                Some(r) => match sequence_of(r) {
                    Some(f) if size.is_boundary(u128::from(f)) && records.len() <= size.len() => Some(u128::from(f)),
                    _ => return Err(corrupt(format!("{noun} page \"current\" does not start at a chunk boundary"))),
                },
            };
            (records, first)
        }
        (PageToken::Archived(first), Some(records)) => (records, Some(first)),
        (PageToken::Archived(_), None) => {
            return Err(Error::new(ErrorCode::NotFound, format!("{noun} page \"{page_token}\" not found")));
        }
    };
    let next_page_token = match first {
        Some(f) => previous_token(size, f)?,
        None => String::new(),
    };
    records.reverse();
    Ok(Page { page_token, records, next_page_token })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::validate_page_token;

    /// A tiny in-memory store driving the pure steps, as the IndexedDB layer does.
    struct Log {
        size: ChunkSize,
        state: LogState,
        current: Vec<u64>,
        archive: std::collections::BTreeMap<String, Vec<u64>>,
    }

    impl Log {
        fn new(size: u32) -> Self {
            Log { size: ChunkSize::new(size).unwrap(), state: LogState::default(), current: vec![], archive: Default::default() }
        }
        fn push_many(&mut self, n: usize) -> u64 {
            let a = append(self.size, &self.state, std::mem::take(&mut self.current), 0..n, |s, _| s).unwrap();
            for c in a.archived {
                assert_eq!(c.records.len(), self.size.len(), "archived chunks are full");
                assert!(self.archive.insert(c.token, c.records).is_none(), "archives are written once");
            }
            assert_eq!(a.state.next_sequence, a.first_sequence + n as u64);
            self.current = a.current;
            self.state = a.state;
            a.first_sequence
        }
        fn push(&mut self) -> u64 {
            self.push_many(1)
        }
        fn page(&self, token: &str) -> Result<Page<u64>> {
            let t = validate_page_token(token, self.size)?;
            let chunk = match t {
                PageToken::Current => Some(self.current.clone()),
                PageToken::Archived(_) => self.archive.get(&t.to_token_string()).cloned(),
            };
            page(self.size, t, chunk, |&s| Some(s), "subscriber")
        }
    }

    #[test]
    fn worked_example_from_spec_250_appends() {
        let mut log = Log::new(100);
        for expected in 1..=250 {
            assert_eq!(log.push(), expected);
        }
        let p = log.page("").unwrap();
        assert_eq!(p.page_token, "current");
        assert_eq!(p.records, (201..=250).rev().collect::<Vec<_>>());
        assert_eq!(p.next_page_token, "00000000000000000101");
        let p = log.page(&p.next_page_token).unwrap();
        assert_eq!(p.records, (101..=200).rev().collect::<Vec<_>>());
        assert_eq!(p.next_page_token, "00000000000000000001");
        let p = log.page(&p.next_page_token).unwrap();
        assert_eq!(p.records, (1..=100).rev().collect::<Vec<_>>());
        assert_eq!(p.next_page_token, "");
        assert_eq!(log.state, LogState { next_sequence: 251, latest_archived_chunk_token: "00000000000000000101".into() });
    }

    #[test]
    fn exactly_one_full_chunk_is_not_archived_yet() {
        let mut log = Log::new(100);
        (0..100).for_each(|_| {
            log.push();
        });
        assert!(log.archive.is_empty());
        let p = log.page("current").unwrap();
        assert_eq!(p.records.len(), 100);
        assert_eq!((p.records[0], p.records[99]), (100, 1));
        assert_eq!(p.next_page_token, "");
        // The 101st append archives 1..=100 in the same step.
        log.push();
        assert_eq!(log.archive.keys().collect::<Vec<_>>(), ["00000000000000000001"]);
        assert_eq!(log.current, vec![101]);
    }

    #[test]
    fn empty_log_has_an_empty_current_page() {
        let log = Log::new(100);
        let p = log.page("").unwrap();
        assert!(p.records.is_empty());
        assert_eq!(p.next_page_token, "");
    }

    #[test]
    fn missing_archive_is_not_found_with_the_spec_message() {
        let log = Log::new(100);
        let e = log.page("00000000000000000101").unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(e.message, "subscriber page \"00000000000000000101\" not found");
    }

    #[test]
    fn small_chunks_roll_over_every_time() {
        let mut log = Log::new(1);
        for _ in 0..3 {
            log.push();
        }
        assert_eq!(log.archive.len(), 2);
        assert_eq!(log.page("").unwrap().next_page_token, "00000000000000000002");
        assert_eq!(log.page("00000000000000000002").unwrap().next_page_token, "00000000000000000001");
    }

    fn one(size: ChunkSize, state: &LogState, current: Vec<u64>) -> Result<Append<u64>> {
        append(size, state, current, [()], |s, _| s)
    }

    #[test]
    fn sequence_past_2_pow_53_minus_1_is_refused() {
        let size = ChunkSize::new(100).unwrap();
        let last = LogState { next_sequence: MAX_SEQUENCE, latest_archived_chunk_token: String::new() };
        // A current chunk whose records end just before MAX_SEQUENCE.
        let len = ((MAX_SEQUENCE - 1) % 100) as usize;
        let a = one(size, &last, vec![0u64; len]).unwrap();
        assert_eq!(a.first_sequence, MAX_SEQUENCE);
        let e = one(size, &a.state, a.current).unwrap_err();
        assert_eq!(e.code, ErrorCode::SequenceExhausted);
        // A batch that would cross the limit is refused whole.
        let e = append(size, &last, vec![0u64; len], 0..2, |s, _| s).unwrap_err();
        assert_eq!(e.code, ErrorCode::SequenceExhausted);
    }

    #[test]
    fn inconsistent_state_is_reported_not_written() {
        let size = ChunkSize::new(100).unwrap();
        let too_long = one(size, &LogState { next_sequence: 102, ..Default::default() }, vec![0u64; 101]);
        assert_eq!(too_long.unwrap_err().code, ErrorCode::CorruptData);
        let more_records_than_sequences = one(size, &LogState::default(), vec![0u64; 3]);
        assert_eq!(more_records_than_sequences.unwrap_err().code, ErrorCode::CorruptData);
        let off_boundary = one(size, &LogState { next_sequence: 7, ..Default::default() }, vec![0u64; 3]);
        assert_eq!(off_boundary.unwrap_err().code, ErrorCode::CorruptData);
    }

    #[test]
    fn a_batch_archives_every_chunk_it_fills() {
        let mut log = Log::new(10);
        assert_eq!(log.push_many(3), 1);
        assert_eq!(log.push_many(35), 4);
        assert_eq!(
            log.archive.keys().collect::<Vec<_>>(),
            ["00000000000000000001", "00000000000000000011", "00000000000000000021"]
        );
        assert_eq!(log.current, (31..=38).collect::<Vec<_>>());
        assert_eq!(log.state.latest_archived_chunk_token, "00000000000000000021");
        // The same records appended one at a time give the same layout.
        let mut single = Log::new(10);
        (0..38).for_each(|_| {
            single.push();
        });
        assert_eq!((single.archive, single.current, single.state), (log.archive, log.current, log.state));
    }

    #[test]
    fn an_empty_batch_changes_nothing() {
        let mut log = Log::new(10);
        log.push_many(0);
        assert_eq!(log.state, LogState::default());
    }

    #[test]
    fn current_page_that_does_not_start_at_a_boundary_is_corrupt() {
        let size = ChunkSize::new(10).unwrap();
        let e = page(size, PageToken::Current, Some(vec![5u64, 6]), |&s| Some(s), "log").unwrap_err();
        assert_eq!(e.code, ErrorCode::CorruptData);
        let e = page(size, PageToken::Current, Some(vec![1u64]), |_| None, "log").unwrap_err();
        assert_eq!(e.code, ErrorCode::CorruptData);
    }
}
