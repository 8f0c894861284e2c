//! The sequentially chunked log as pure steps over its bookkeeping: where `current` starts,
//! which chunks an append archives, which chunk is older or newer than another, and whether
//! stored chunks and state keep the invariants. Records themselves never come here: their
//! count and sequences are all these rules need, so the same steps serve every record type.

use crate::prelude::*;
use crate::text::text;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::layout::{ChunkSize, Segments, MAX_SEQUENCE};
use crate::token::{archive_chunk_token, invalid_page_token, parse_token_digits};

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

/// A log's bookkeeping: its segments, its state, and the first sequence still retained
/// (1 until `dropArchivesBefore` removes older chunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    pub segments: Segments,
    pub state: LogState,
    pub retained_from: u64,
}

/// Which page a sequence is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOf {
    Current,
    /// The archive starting at this sequence.
    Archived(u64),
}

/// A chunk cut out of `current` plus the new records, by its first sequence and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub first: u64,
    pub len: u64,
}

/// Every write of one append: the new records get `first_sequence..state.next_sequence`;
/// `archive_count` full chunks of `chunk_len` records, the first starting at `archive_from`,
/// are cut from `current` followed by the new records and archived; the rest is `current`.
/// Cuts are described, not listed, so a plan stays small whatever the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendPlan {
    pub first_sequence: u64,
    pub archive_from: u64,
    pub chunk_len: u64,
    pub archive_count: u64,
    pub state: LogState,
}

impl AppendPlan {
    /// The chunks to archive, oldest first.
    pub fn archived(&self) -> impl Iterator<Item = Cut> + '_ {
        (0..self.archive_count).map(|k| Cut { first: self.archive_from + k * self.chunk_len, len: self.chunk_len })
    }
}

/// `<record_name> page "<token>" not found`, the contract's message for a valid token with no chunk (docs/chunked-log.md).
pub fn page_not_found(record_name: &str, token: &str) -> Error {
    Error::new(ErrorCode::NotFound, text!(record_name, " page \"", token, "\" not found"))
}

fn token_of(first: u64) -> String {
    // Sequences are at most 2^53, far inside the 20-digit range.
    archive_chunk_token(u128::from(first)).unwrap_or_default()
}

impl Log {
    /// A new, empty log.
    pub fn new(segments: Segments) -> Log {
        Log { segments, state: LogState::default(), retained_from: 1 }
    }

    /// Checks stored bookkeeping: the next sequence in range, the latest token naming the
    /// chunk just before `current`, and the retained start a chunk boundary not past it.
    pub fn checked(segments: Segments, state: LogState, retained_from: u64) -> Result<Log> {
        let next = state.next_sequence;
        if !(1..=MAX_SEQUENCE + 1).contains(&next) {
            return Err(Error::corrupt(text!("nextSequence ", next, " is out of range")));
        }
        let log = Log { segments, state, retained_from };
        let current = log.current_first();
        let expected = log.segments.previous_start(current).map(token_of).unwrap_or_default();
        if log.state.latest_archived_chunk_token != expected {
            return Err(Error::corrupt(text!(
                "latestArchivedChunkToken is \"",
                crate::layout::clip(&log.state.latest_archived_chunk_token),
                "\" but the chunk before current starts at \"",
                expected,
                "\""
            )));
        }
        if retained_from < 1 || retained_from > current || !log.segments.is_boundary(u128::from(retained_from)) {
            return Err(Error::corrupt(text!(
                "retained records start at ",
                retained_from,
                ", which is not a chunk boundary up to ",
                current
            )));
        }
        Ok(log)
    }

    /// First sequence of `current`: where its records start, or the next sequence when it is
    /// empty because the last segment has no records yet.
    pub fn current_first(&self) -> u64 {
        let next = self.state.next_sequence;
        if next <= self.segments.last().from_sequence {
            next
        } else {
            self.segments.chunk_start(u128::from(next - 1)) as u64
        }
    }

    /// Records `current` holds by the state.
    pub fn current_len(&self) -> u64 {
        self.state.next_sequence - self.current_first()
    }

    /// Archived chunks retained (older than `current`, not dropped).
    pub fn archived_chunks(&self) -> u64 {
        self.segments.chunks_between(self.retained_from, self.current_first())
    }

    /// Records retained: from the oldest retained chunk to the newest record.
    pub fn count(&self) -> u64 {
        self.state.next_sequence - self.retained_from
    }

    fn size_in_force(&self) -> ChunkSize {
        self.segments.last().chunk_size
    }

    /// The writes of appending `count` records after `current_len` records in `current`.
    /// Refused whole if a sequence would pass 2^53 - 1.
    pub fn plan_append(&self, current_len: u64, count: u64) -> Result<AppendPlan> {
        self.check_current_len(current_len)?;
        let first_sequence = self.state.next_sequence;
        let next = first_sequence.checked_add(count).filter(|&n| n <= MAX_SEQUENCE + 1).ok_or_else(|| {
            Error::new(
                ErrorCode::SequenceExhausted,
                text!(
                    "the log is full: sequences may not pass ",
                    MAX_SEQUENCE,
                    " (2^53 - 1), the largest JavaScript-safe integer"
                ),
            )
        })?;
        let size = u64::from(self.size_in_force().get());
        let first = self.current_first();
        // Every full chunk that a later record pushes out of `current` is archived: the
        // records from `first` to `next - 1` fill (next - first - 1) / size chunks before the last.
        let archive_count = (next - first).saturating_sub(1) / size;
        let latest = if archive_count == 0 {
            self.state.latest_archived_chunk_token.clone()
        } else {
            token_of(first + (archive_count - 1) * size)
        };
        Ok(AppendPlan {
            first_sequence,
            archive_from: first,
            chunk_len: size,
            archive_count,
            state: LogState { next_sequence: next, latest_archived_chunk_token: latest },
        })
    }

    fn check_current_len(&self, current_len: u64) -> Result<()> {
        if current_len != self.current_len() {
            return Err(Error::corrupt(text!(
                "current holds ",
                current_len,
                " records but the state says ",
                self.current_len(),
                " (next sequence ",
                self.state.next_sequence,
                ")"
            )));
        }
        Ok(())
    }

    /// The log after `changeChunkSize(size)`: a non-empty `current` (of `current_len`
    /// records) is archived at once as a shorter chunk, and `size` is in force from the next
    /// sequence. Returns the cut to archive, if any; the size in force changes nothing.
    pub fn change_chunk_size(&self, current_len: u64, size: ChunkSize) -> Result<(Log, Option<Cut>)> {
        self.check_current_len(current_len)?;
        if size == self.size_in_force() {
            return Ok((self.clone(), None));
        }
        let next = self.state.next_sequence;
        let cut = (current_len > 0).then(|| Cut { first: self.current_first(), len: current_len });
        let state = LogState {
            next_sequence: next,
            latest_archived_chunk_token: cut
                .map_or_else(|| self.state.latest_archived_chunk_token.clone(), |c| token_of(c.first)),
        };
        Ok((Log { segments: self.segments.changed(next, size), state, retained_from: self.retained_from }, cut))
    }

    /// Checks a stored chunk against the layout: `sequences` must be `first`, `first + 1`, ...
    /// and as many as the chunk holds (`current`: what the state says; an archive: its length).
    pub fn check_chunk(&self, first: u64, is_current: bool, sequences: &[f64]) -> Result<()> {
        let expected = if is_current { self.current_len() } else { self.segments.chunk_len(first) };
        if sequences.len() as u64 != expected {
            return Err(Error::corrupt(text!("it holds ", sequences.len(), " records where the layout says ", expected)));
        }
        for (i, &s) in sequences.iter().enumerate() {
            let want = first + i as u64;
            if s != want as f64 {
                return Err(Error::corrupt(text!(
                    "record ",
                    i,
                    " has sequence ",
                    crate::layout::describe_number(s),
                    " where ",
                    want,
                    " belongs"
                )));
            }
        }
        Ok(())
    }

    /// The chunk an archive token names, if it is one this log keeps: retained and older
    /// than `current`. Tokens past that range are valid spellings of chunks that do not exist.
    pub fn archived_chunk(&self, token_value: u128) -> Option<u64> {
        let first = u64::try_from(token_value).ok()?;
        (first >= self.retained_from && first < self.current_first()).then_some(first)
    }

    /// The page holding `sequence`: `current`, an archive (the oldest retained one for a
    /// sequence dropped by retention), or None past the newest record.
    pub fn page_of_sequence(&self, sequence: u64) -> Option<PageOf> {
        if sequence >= self.state.next_sequence {
            None
        } else if sequence >= self.current_first() {
            Some(PageOf::Current)
        } else {
            let sequence = sequence.max(self.retained_from);
            Some(PageOf::Archived(self.segments.chunk_start(u128::from(sequence)) as u64))
        }
    }

    /// First sequence of the chunk just older than the one starting at `first`, if retained.
    pub fn older_chunk(&self, first: u64) -> Option<u64> {
        self.segments.previous_start(first).filter(|&s| s >= self.retained_from)
    }

    /// Token of the page older than the one starting at `first` (`""` at the oldest).
    pub fn older_token(&self, first: u64) -> String {
        self.older_chunk(first).map(token_of).unwrap_or_default()
    }

    /// First sequence of the chunk just newer than the archived one starting at `first`
    /// (equal to `current_first()` when that is `current`).
    pub fn newer_chunk(&self, first: u64) -> u64 {
        first + self.segments.chunk_len(first)
    }

    /// Retention: the log without the archives older than the archive `token`, and how many
    /// chunks that removes (those from the old `retained_from` up to `token`'s chunk).
    /// `record_name` names the records in the not-found message, as for a page.
    pub fn drop_archives_before(&self, token: &str, record_name: &str) -> Result<(Log, u64)> {
        let value = parse_token_digits(token).filter(|&v| self.segments.is_boundary(v));
        let Some(value) = value else {
            return Err(invalid_page_token(token));
        };
        let first = self.archived_chunk(value).ok_or_else(|| page_not_found(record_name, token))?;
        let dropped = self.segments.chunks_between(self.retained_from, first);
        Ok((Log { retained_from: first, ..self.clone() }, dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{ChunkSize, Segment};
    use crate::token::{validate_page_token, PageToken};
    use std::collections::BTreeMap;

    /// A tiny in-memory store driving the pure steps, as the IndexedDB layer does.
    struct Store {
        log: Log,
        current: Vec<u64>,
        archive: BTreeMap<u64, Vec<u64>>,
    }

    impl Store {
        fn new(size: u32) -> Self {
            Store { log: Log::new(Segments::single(ChunkSize::new(size).unwrap())), current: vec![], archive: BTreeMap::new() }
        }
        fn push_many(&mut self, n: u64) -> u64 {
            let plan = self.log.plan_append(self.current.len() as u64, n).unwrap();
            let mut all: Vec<u64> = std::mem::take(&mut self.current);
            all.extend(plan.first_sequence..plan.state.next_sequence);
            let base = self.log.current_first();
            let mut rest = all.as_slice();
            for cut in plan.archived() {
                assert_eq!(cut.first, base + (all.len() - rest.len()) as u64);
                let (chunk, tail) = rest.split_at(cut.len as usize);
                assert!(self.archive.insert(cut.first, chunk.to_vec()).is_none(), "archives are written once");
                rest = tail;
            }
            self.current = rest.to_vec();
            self.log.state = plan.state;
            self.check();
            plan.first_sequence
        }
        fn push(&mut self) -> u64 {
            self.push_many(1)
        }
        fn change(&mut self, size: u32) {
            let (log, cut) = self.log.change_chunk_size(self.current.len() as u64, ChunkSize::new(size).unwrap()).unwrap();
            if let Some(cut) = cut {
                assert_eq!(cut.len as usize, self.current.len());
                self.archive.insert(cut.first, std::mem::take(&mut self.current));
            }
            self.log = log;
            self.check();
        }
        /// Every stored chunk and the state pass the checks a read makes.
        fn check(&self) {
            let log = Log::checked(self.log.segments.clone(), self.log.state.clone(), self.log.retained_from).unwrap();
            let f = |c: &[u64]| c.iter().map(|&s| s as f64).collect::<Vec<_>>();
            log.check_chunk(log.current_first(), true, &f(&self.current)).unwrap();
            for (first, chunk) in self.archive.range(log.retained_from..) {
                log.check_chunk(*first, false, &f(chunk)).unwrap();
            }
        }
        /// (records newest first, next token) as a page read assembles them.
        fn page(&self, token: &str) -> Result<(Vec<u64>, String)> {
            let (first, chunk) = match validate_page_token(token, &self.log.segments)? {
                PageToken::Current => (self.log.current_first(), self.current.clone()),
                PageToken::Archived(v) => {
                    let first = self.log.archived_chunk(v).ok_or_else(|| page_not_found("subscriber", token))?;
                    (first, self.archive.get(&first).cloned().ok_or_else(|| page_not_found("subscriber", token))?)
                }
            };
            Ok((chunk.into_iter().rev().collect(), self.log.older_token(first)))
        }
        fn walk(&self) -> Vec<u64> {
            let mut all = vec![];
            let mut token = String::new();
            loop {
                let (records, next) = self.page(&token).unwrap();
                all.extend(records);
                if next.is_empty() {
                    return all;
                }
                token = next;
            }
        }
    }

    #[test]
    fn worked_example_from_spec_250_appends() {
        let mut s = Store::new(100);
        for expected in 1..=250 {
            assert_eq!(s.push(), expected);
        }
        let (records, next) = s.page("").unwrap();
        assert_eq!(records, (201..=250).rev().collect::<Vec<_>>());
        assert_eq!(next, "00000000000000000101");
        let (records, next) = s.page(&next).unwrap();
        assert_eq!(records, (101..=200).rev().collect::<Vec<_>>());
        assert_eq!(next, "00000000000000000001");
        let (records, next) = s.page(&next).unwrap();
        assert_eq!(records, (1..=100).rev().collect::<Vec<_>>());
        assert_eq!(next, "");
        assert_eq!(s.log.state, LogState { next_sequence: 251, latest_archived_chunk_token: "00000000000000000101".into() });
    }

    #[test]
    fn exactly_one_full_chunk_is_not_archived_yet() {
        let mut s = Store::new(100);
        s.push_many(100);
        assert!(s.archive.is_empty());
        let (records, next) = s.page("current").unwrap();
        assert_eq!((records.len(), records[0], records[99], next.as_str()), (100, 100, 1, ""));
        // The 101st append archives 1..=100 in the same step.
        s.push();
        assert_eq!(s.archive.keys().collect::<Vec<_>>(), [&1]);
        assert_eq!(s.current, vec![101]);
    }

    #[test]
    fn empty_log_has_an_empty_current_page() {
        let s = Store::new(100);
        assert_eq!(s.page("").unwrap(), (vec![], String::new()));
    }

    #[test]
    fn missing_archive_is_not_found_with_the_spec_message() {
        let e = Store::new(100).page("00000000000000000101").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::NotFound, "subscriber page \"00000000000000000101\" not found"));
    }

    #[test]
    fn small_chunks_roll_over_every_time() {
        let mut s = Store::new(1);
        s.push_many(3);
        assert_eq!(s.archive.len(), 2);
        assert_eq!(s.page("").unwrap().1, "00000000000000000002");
        assert_eq!(s.page("00000000000000000002").unwrap().1, "00000000000000000001");
    }

    #[test]
    fn a_batch_archives_every_chunk_it_fills_as_single_appends_would() {
        let mut batch = Store::new(10);
        assert_eq!(batch.push_many(3), 1);
        assert_eq!(batch.push_many(35), 4);
        assert_eq!(batch.archive.keys().copied().collect::<Vec<_>>(), [1, 11, 21]);
        assert_eq!(batch.current, (31..=38).collect::<Vec<_>>());
        assert_eq!(batch.log.state.latest_archived_chunk_token, "00000000000000000021");
        let mut single = Store::new(10);
        (0..38).for_each(|_| {
            single.push();
        });
        assert_eq!((single.archive, single.current, single.log), (batch.archive, batch.current, batch.log));
    }

    #[test]
    fn an_empty_batch_changes_nothing() {
        let mut s = Store::new(10);
        s.push_many(0);
        assert_eq!(s.log.state, LogState::default());
    }

    #[test]
    fn the_last_safe_sequence_is_given_and_then_the_log_is_full() {
        let size = ChunkSize::new(100).unwrap();
        let segments = Segments::single(size);
        // A log whose current chunk ends just before the last safe sequence.
        let next = MAX_SEQUENCE;
        let first = segments.chunk_start(u128::from(next - 1)) as u64;
        let latest = segments.previous_start(first).map(token_of).unwrap();
        let log = Log::checked(segments, LogState { next_sequence: next, latest_archived_chunk_token: latest }, 1).unwrap();
        let plan = log.plan_append(next - first, 1).unwrap();
        assert_eq!((plan.first_sequence, plan.state.next_sequence), (MAX_SEQUENCE, MAX_SEQUENCE + 1));
        let full = Log { state: plan.state.clone(), ..log.clone() };
        let full = Log::checked(full.segments, full.state, 1).unwrap();
        let e = full.plan_append(full.current_len(), 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::SequenceExhausted);
        // A batch that would cross the limit is refused whole, and so is a count past any sequence.
        assert_eq!(log.plan_append(next - first, 2).unwrap_err().code, ErrorCode::SequenceExhausted);
        assert_eq!(log.plan_append(next - first, u64::MAX).unwrap_err().code, ErrorCode::SequenceExhausted);
    }

    #[test]
    fn inconsistent_bookkeeping_is_reported_not_written() {
        let segments = || Segments::single(ChunkSize::new(100).unwrap());
        let log = Log::new(segments());
        assert_eq!(log.plan_append(3, 1).unwrap_err().code, ErrorCode::CorruptData);
        let bad = |next, latest: &str| {
            Log::checked(segments(), LogState { next_sequence: next, latest_archived_chunk_token: latest.into() }, 1)
        };
        assert!(bad(0, "").is_err());
        assert!(bad(MAX_SEQUENCE + 2, "").is_err());
        assert!(bad(102, "").is_err(), "an archive exists, so the token may not be empty");
        assert!(bad(102, "00000000000000000001").is_ok());
        assert!(bad(50, "00000000000000000001").is_err());
        assert!(Log::checked(
            segments(),
            LogState { next_sequence: 250, latest_archived_chunk_token: "00000000000000000101".into() },
            50
        )
        .is_err());
        assert!(Log::checked(
            segments(),
            LogState { next_sequence: 250, latest_archived_chunk_token: "00000000000000000101".into() },
            201
        )
        .is_ok());
        assert!(Log::checked(
            segments(),
            LogState { next_sequence: 250, latest_archived_chunk_token: "00000000000000000101".into() },
            301
        )
        .is_err());
    }

    #[test]
    fn stored_chunks_must_hold_exactly_their_sequences() {
        let mut s = Store::new(10);
        s.push_many(25);
        let log = &s.log;
        assert!(log.check_chunk(1, false, &(1..=10).map(|x| x as f64).collect::<Vec<_>>()).is_ok());
        assert!(log.check_chunk(1, false, &[3.0, 2.0, 1.0]).is_err(), "too short");
        assert!(log.check_chunk(1, false, &(1..=15).map(|x| x as f64).collect::<Vec<_>>()).is_err(), "too long");
        assert!(log
            .check_chunk(1, false, &(0..10).map(|x| if x == 4 { f64::NAN } else { (x + 1) as f64 }).collect::<Vec<_>>())
            .is_err());
        assert!(log.check_chunk(21, true, &[21.0, 22.0, 23.0, 24.0, 25.0]).is_ok());
        assert!(log.check_chunk(21, true, &[21.0, 22.0]).is_err(), "current shorter than the state says");
    }

    #[test]
    fn a_chunk_size_change_archives_current_short_and_pages_walk_across_segments() {
        let mut s = Store::new(10);
        s.push_many(25); // archives 1, 11; current 21..=25
        s.change(3); // archives 21..=25 (5 records); chunks of 3 from 26
        assert_eq!(s.archive.get(&21).map(Vec::len), Some(5));
        assert!(s.current.is_empty());
        assert_eq!(s.log.state.latest_archived_chunk_token, "00000000000000000021");
        assert_eq!(s.page("").unwrap(), (vec![], "00000000000000000021".into()));
        s.push_many(7); // 26..=28, 29..=31 archived; current 32
        assert_eq!(s.archive.keys().copied().collect::<Vec<_>>(), [1, 11, 21, 26, 29]);
        assert_eq!(s.walk(), (1..=32).rev().collect::<Vec<_>>());
        // Tokens of both layouts are valid; off-boundary tokens of both are refused.
        for ok in ["00000000000000000011", "00000000000000000021", "00000000000000000026", "00000000000000000029"] {
            assert!(s.page(ok).is_ok(), "{ok}");
        }
        for bad in ["00000000000000000031", "00000000000000000027", "00000000000000000012"] {
            assert_eq!(s.page(bad).unwrap_err().code, ErrorCode::InvalidPageToken, "{bad}");
        }
        // The size in force changes nothing; an empty current is not archived again.
        let before = s.log.clone();
        s.change(3);
        assert_eq!(s.log, before);
        s.push_many(2); // current 32..=34: full
        s.change(5);
        s.change(7); // nothing since the last change: that segment takes the new size
        assert_eq!(s.log.segments.list().last(), Some(&Segment { from_sequence: 35, chunk_size: ChunkSize::new(7).unwrap() }));
        s.push_many(20);
        assert_eq!(s.walk(), (1..=54).rev().collect::<Vec<_>>());
    }

    #[test]
    fn retention_drops_whole_chunks_and_never_reuses_sequences() {
        let mut s = Store::new(10);
        s.push_many(45);
        let (log, dropped) = s.log.drop_archives_before("00000000000000000021", "log").unwrap();
        assert_eq!(dropped, 2);
        assert_eq!(log.retained_from, 21);
        s.log = log;
        s.archive.retain(|&first, _| first >= 21);
        s.check();
        assert_eq!(s.log.count(), 25);
        assert_eq!(s.page("00000000000000000021").unwrap().1, "", "the oldest retained page is the last");
        assert_eq!(s.page("00000000000000000011").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(s.walk(), (21..=45).rev().collect::<Vec<_>>());
        assert_eq!(s.push(), 46);
        // Tokens that are not retained archives: current's own chunk, dropped ones, off-boundary.
        assert_eq!(s.log.drop_archives_before("00000000000000000041", "log").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(s.log.drop_archives_before("00000000000000000011", "log").unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(s.log.drop_archives_before("00000000000000000012", "log").unwrap_err().code, ErrorCode::InvalidPageToken);
        assert_eq!(s.log.drop_archives_before("current", "log").unwrap_err().code, ErrorCode::InvalidPageToken);
        // Dropping before the oldest retained chunk drops nothing.
        assert_eq!(s.log.drop_archives_before("00000000000000000021", "log").unwrap().1, 0);
    }

    #[test]
    fn the_page_of_a_sequence() {
        let mut s = Store::new(10);
        s.push_many(25);
        s.change(3);
        s.push_many(4); // 26..=28 archived, current 29
        let log = &s.log;
        assert_eq!(log.page_of_sequence(1), Some(PageOf::Archived(1)));
        assert_eq!(log.page_of_sequence(24), Some(PageOf::Archived(21)));
        assert_eq!(log.page_of_sequence(27), Some(PageOf::Archived(26)));
        assert_eq!(log.page_of_sequence(29), Some(PageOf::Current));
        assert_eq!(log.page_of_sequence(30), None);
        let (dropped, _) = log.drop_archives_before("00000000000000000021", "log").unwrap();
        assert_eq!(dropped.page_of_sequence(3), Some(PageOf::Archived(21)));
    }

    #[test]
    fn retention_counts_chunks_across_segments() {
        let mut s = Store::new(10);
        s.push_many(25);
        s.change(3);
        s.push_many(10); // 26, 29, 32 archived; current 35
        let (_, dropped) = s.log.drop_archives_before("00000000000000000029", "log").unwrap();
        assert_eq!(dropped, 4);
    }
}
