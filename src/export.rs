//! The export format (`docs/export-format.md`): newline-delimited JSON, a header line, then per
//! map in name order its layout line, a log's state line, and one line per instance in name
//! order. `Verifier` checks an export line by line, so nothing is written from one that breaks
//! a rule: a reader parses each line and reports what it found; the first rule broken is an
//! error naming the line, what is wrong, and a stable reason name in parentheses. A caller whose
//! lines are not a file's (a pull of the engine's attributes) names each line itself (`label`).

use crate::chunk::{Log, LogState};
use crate::email::canonical_email_address;
use crate::error::{Error, Result};
use crate::fnv::fnv1a32;
use crate::layout::{check_map_name, clip, whole_number, KeyRule, PartitionCount, Segments, FIRST_LAYOUT_VERSION, MAX_SEQUENCE};
use crate::prelude::*;
use crate::text::{text, Piece};
use crate::token::{parse_token_digits, CURRENT};

/// The export header's format name and version.
pub const FORMAT: &str = "attrmap-export";
pub const VERSION: u64 = 1;

/// What a verified export holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub maps: u64,
    pub instances: u64,
    /// Partition entries and log records.
    pub entries: u64,
}

#[derive(Debug)]
enum MapCheck {
    Partitioned {
        name: String,
        count: PartitionCount,
        rule: KeyRule,
        last: Option<String>,
    },
    Chunked {
        name: String,
        segments: Segments,
        /// Known from the state line on.
        log: Option<Log>,
        last: Option<String>,
        /// Where the next archive must start (after the first one), and whether `current` was seen.
        next_start: Option<u64>,
        retained_from: Option<u64>,
    },
}

impl MapCheck {
    fn name(&self) -> &str {
        match self {
            MapCheck::Partitioned { name, .. } | MapCheck::Chunked { name, .. } => name,
        }
    }
}

/// Checks an export line by line. Each method is one line, in the order of the file.
#[derive(Debug, Default)]
pub struct Verifier {
    line: u64,
    /// What messages call the lines from the last `label` on, instead of `line N`.
    label: Option<String>,
    header: bool,
    last_map: Option<String>,
    map: Option<MapCheck>,
    summary: Summary,
}

/// `<where>: <message> (<reason>)`, the form of every refusal; `where` is `line N` or a label.
fn at(place: &str, reason: &str, message: impl Piece) -> Error {
    Error::invalid_argument(text!(place, ": ", message, " (", reason, ")"))
}

/// The header line, as the messages about it spell it.
fn header_line() -> String {
    text!("{\"format\": \"", FORMAT, "\", \"version\": ", VERSION, "}")
}

impl Verifier {
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// The line the next call checks (1-based).
    pub fn line(&self) -> u64 {
        self.line + 1
    }

    /// Names the next lines `label` in messages (`attribute "k"`) instead of by number, until the next label.
    pub fn label(&mut self, label: &str) {
        self.label = Some(label.to_string());
    }

    /// What messages call the line being checked.
    fn place(&self) -> String {
        self.label.clone().unwrap_or_else(|| text!("line ", self.line))
    }

    fn fail(&self, reason: &str, message: impl Piece) -> Error {
        at(&self.place(), reason, message)
    }

    /// Counts a line and checks the header came first.
    fn next_line(&mut self) -> Result<()> {
        self.line += 1;
        if !self.header {
            return Err(self.fail("bad-header", text!("the first line must be ", header_line())));
        }
        Ok(())
    }

    /// A line the reader could not make sense of (not JSON, not one of the line kinds).
    pub fn bad_line(&mut self, reason: &str, what: &str) -> Error {
        self.line += 1;
        self.fail(reason, what)
    }

    /// Line 1: `{"format": "attrmap-export", "version": 1}`.
    pub fn header(&mut self, format: &str, version: f64) -> Result<()> {
        self.line += 1;
        if self.line != 1 || format != FORMAT || version != VERSION as f64 {
            return Err(self.fail("bad-header", text!("expected ", header_line(), " on the first line only")));
        }
        self.header = true;
        Ok(())
    }

    /// Starts a map: maps come in strictly increasing name order (so none twice).
    fn open_map(&mut self, map: &str) -> Result<()> {
        self.close_map()?;
        check_map_name("map", map).map_err(|e| self.fail("bad-layout", e.message))?;
        // Name order is UTF-16 code unit order: the order of IndexedDB keys and JavaScript's sort.
        if self.last_map.as_deref().is_some_and(|last| map.encode_utf16().cmp(last.encode_utf16()).is_le()) {
            return Err(self.fail(
                "map-order",
                text!(
                    "map \"",
                    clip(map),
                    "\" comes after \"",
                    clip(self.last_map.as_deref().unwrap_or_default()),
                    "\": maps are in name order, each once"
                ),
            ));
        }
        self.last_map = Some(map.to_string());
        self.summary.maps += 1;
        Ok(())
    }

    fn layout_version(&self, version: f64) -> Result<()> {
        whole_number("layoutVersion", version, FIRST_LAYOUT_VERSION, MAX_SEQUENCE)
            .map(|_| ())
            .map_err(|e| self.fail("bad-layout", e.message))
    }

    /// `{"map", "layout": {"kind": "partitioned", "partitionCount", "keyRule", "layoutVersion"}}`.
    pub fn partitioned_layout(&mut self, map: &str, layout_version: f64, partition_count: f64, key_rule: &str) -> Result<()> {
        self.next_line()?;
        self.open_map(map)?;
        self.layout_version(layout_version)?;
        let count = PartitionCount::from_number(partition_count).map_err(|e| self.fail("bad-layout", e.message))?;
        let custom = key_rule != KeyRule::EXACT && key_rule != KeyRule::EMAIL;
        let rule = KeyRule::from_name(key_rule, custom).map_err(|e| self.fail("bad-layout", e.message))?;
        self.map = Some(MapCheck::Partitioned { name: map.to_string(), count, rule, last: None });
        Ok(())
    }

    /// `{"map", "layout": {"kind": "chunked", "segments": [{"fromSequence", "chunkSize"}], "layoutVersion"}}`,
    /// segments as `[from, size, ...]`.
    pub fn chunked_layout(&mut self, map: &str, layout_version: f64, segments: &[f64]) -> Result<()> {
        self.next_line()?;
        self.open_map(map)?;
        self.layout_version(layout_version)?;
        let segments = Segments::from_numbers(segments).map_err(|e| self.fail("bad-layout", e.message))?;
        self.map = Some(MapCheck::Chunked {
            name: map.to_string(),
            segments,
            log: None,
            last: None,
            next_start: None,
            retained_from: None,
        });
        Ok(())
    }

    /// The map a line names must be the one being read.
    fn check_map(&self, map: &str) -> Result<()> {
        match &self.map {
            Some(open) if open.name() == map => Ok(()),
            _ => Err(self.fail("map-order", text!("map \"", clip(map), "\" has no layout line just before its other lines"))),
        }
    }

    /// `{"map", "state": {"nextSequence", "latestArchivedChunkToken"}}`, right after a log's layout.
    pub fn state(&mut self, map: &str, next_sequence: f64, latest: &str) -> Result<()> {
        self.next_line()?;
        self.check_map(map)?;
        let place = self.place();
        let Some(MapCheck::Chunked { segments, log, last: None, .. }) = &mut self.map else {
            return Err(self.fail("bad-line", "a state line belongs right after a chunked log's layout line, once"));
        };
        if log.is_some() {
            return Err(at(&place, "bad-line", "a log has one state line"));
        }
        let bad = |e: Error| at(&place, "bad-state", e.message);
        let next_sequence = whole_number("nextSequence", next_sequence, 1, MAX_SEQUENCE + 1).map_err(bad)?;
        let state = LogState { next_sequence, latest_archived_chunk_token: latest.to_string() };
        // Checked as if nothing older than `current` were retained; archives may follow.
        let first = Log { segments: segments.clone(), state: state.clone(), retained_from: 1 }.current_first();
        *log = Some(Log::checked(segments.clone(), state, first).map_err(bad)?);
        Ok(())
    }

    /// Instances of a map come in strictly increasing name order (so none twice).
    fn instance_order(&self, last: &Option<String>, instance: &str) -> Result<()> {
        if last.as_deref().is_some_and(|l| instance <= l) {
            return Err(self.fail("instance-order", text!("instance \"", clip(instance), "\" is out of name order or repeated")));
        }
        Ok(())
    }

    /// `{"map", "instance", "value": {key: value, ...}}` of a partitioned map: the keys' UTF-8
    /// bytes one after another, `ends[i]` where key `i` ends.
    pub fn partition(&mut self, map: &str, instance: &str, keys: &[u8], ends: &[u32]) -> Result<()> {
        self.next_line()?;
        self.check_map(map)?;
        let Some(MapCheck::Partitioned { count, rule, last, .. }) = &self.map else {
            return Err(self.fail("bad-line", text!("map \"", clip(map), "\" is a chunked log: its instances are chunks")));
        };
        self.instance_order(last, instance)?;
        let Some(index) = count.index_of_name(instance) else {
            return Err(self.fail(
                "bad-partition-name",
                text!("\"", clip(instance), "\" is not a partition name under ", count.get(), " partitions"),
            ));
        };
        let mut start = 0;
        for &end in ends {
            let key = core::str::from_utf8(keys.get(start..end as usize).unwrap_or_default())
                .map_err(|_| self.fail("bad-line", "a key is not UTF-8"))?;
            start = end as usize;
            if *rule == KeyRule::Email && canonical_email_address(key).ok().as_deref() != Some(key) {
                return Err(self.fail("key-not-canonical", text!("key \"", clip(key), "\" is not a canonical email")));
            }
            if count.index_of(fnv1a32(key.as_bytes())) != index {
                return Err(self.fail(
                    "key-in-wrong-partition",
                    text!("key \"", clip(key), "\" hashes to another partition than ", instance),
                ));
            }
        }
        if let Some(MapCheck::Partitioned { last, .. }) = &mut self.map {
            *last = Some(instance.to_string());
        }
        self.summary.instances += 1;
        self.summary.entries += ends.len() as u64;
        Ok(())
    }

    /// `{"map", "instance", "value": [record, ...]}` of a chunked log: its records' sequences,
    /// oldest first. Archives come oldest first and follow each other without a gap; `current`
    /// comes last and holds what the state says.
    pub fn chunk(&mut self, map: &str, instance: &str, sequences: &[f64]) -> Result<()> {
        self.next_line()?;
        self.check_map(map)?;
        let place = self.place();
        let fail = |reason: &str, message: String| at(&place, reason, message);
        let Some(MapCheck::Chunked { log, last, next_start, retained_from, .. }) = &mut self.map else {
            return Err(fail("bad-line", text!("map \"", clip(map), "\" is a partitioned map: its instances are partitions")));
        };
        let Some(log) = log.as_ref() else {
            return Err(fail("missing-state", "a log's state line comes before its chunks".into()));
        };
        if last.as_deref().is_some_and(|l| instance <= l) {
            return Err(fail("instance-order", text!("instance \"", clip(instance), "\" is out of name order or repeated")));
        }
        let current_first = log.current_first();
        let (first, is_current) = if instance == CURRENT {
            (current_first, true)
        } else {
            let value = parse_token_digits(instance).filter(|&v| log.segments.is_boundary(v)).ok_or_else(|| {
                fail("bad-token", text!("\"", clip(instance), "\" is not a chunk boundary of the log's segments"))
            })?;
            let first = u64::try_from(value).ok().filter(|&f| f < current_first).ok_or_else(|| {
                fail("bad-token", text!("archive ", instance, " is not older than current, which starts at ", current_first))
            })?;
            if next_start.is_some_and(|n| n != first) {
                return Err(fail(
                    "sequence-gap",
                    text!(
                        "archive ",
                        instance,
                        " does not follow the archive before it, which ends before ",
                        next_start.unwrap_or_default()
                    ),
                ));
            }
            (first, false)
        };
        if is_current {
            if let Some(n) = next_start.filter(|&n| n != current_first) {
                return Err(fail("sequence-gap", text!("current starts at ", current_first, " but the archives end before ", n)));
            }
        }
        log.check_chunk(first, is_current, sequences).map_err(|e| fail("bad-chunk", text!(instance, ": ", e.message)))?;
        retained_from.get_or_insert(first);
        *next_start = Some(log.newer_chunk(first));
        *last = Some(instance.to_string());
        self.summary.instances += 1;
        self.summary.entries += sequences.len() as u64;
        Ok(())
    }

    /// Ends the map being read: a log needs its state, and `current` when it holds records.
    fn close_map(&mut self) -> Result<()> {
        let Some(MapCheck::Chunked { name, log, last, next_start, .. }) = &self.map else {
            self.map = None;
            return Ok(());
        };
        let Some(log) = log else {
            return Err(self.fail("missing-state", text!("log \"", clip(name), "\" has no state line")));
        };
        let saw_current = last.as_deref() == Some(CURRENT);
        if !saw_current && (log.current_len() > 0 || next_start.is_some_and(|n| n != log.current_first())) {
            return Err(self.fail(
                "missing-current",
                text!("log \"", clip(name), "\" has no current chunk, though its state says it holds records"),
            ));
        }
        self.map = None;
        Ok(())
    }

    /// The first sequence the log being read keeps: its oldest chunk in the export (`current`'s
    /// start when it has no archives). None before its state line, or for a partitioned map.
    pub fn retained_from(&self) -> Option<u64> {
        match &self.map {
            Some(MapCheck::Chunked { log: Some(log), retained_from, .. }) => Some(retained_from.unwrap_or(log.current_first())),
            _ => None,
        }
    }

    /// After the last line: the export is complete.
    pub fn finish(&mut self) -> Result<Summary> {
        if !self.header {
            self.line += 1;
            return Err(self.fail("bad-header", "the export is empty"));
        }
        self.close_map()?;
        Ok(self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn keys(list: &[&str]) -> (Vec<u8>, Vec<u32>) {
        let mut ends = vec![];
        let mut bytes = vec![];
        for k in list {
            bytes.extend(k.as_bytes());
            ends.push(bytes.len() as u32);
        }
        (bytes, ends)
    }

    fn seqs(from: u64, to: u64) -> Vec<f64> {
        (from..=to).map(|s| s as f64).collect()
    }

    #[test]
    fn a_whole_valid_export_passes_and_is_counted() {
        let mut v = Verifier::new();
        v.header(FORMAT, 1.0).unwrap();
        v.partitioned_layout("A", 1.0, 1000.0, "email").unwrap();
        let (b, e) = keys(&["bob@example.com"]);
        v.partition("A", "partition-145", &b, &e).unwrap();
        let (b, e) = keys(&["alice@example.com"]);
        v.partition("A", "partition-278", &b, &e).unwrap();
        v.chunked_layout("B", 2.0, &[1.0, 10.0, 26.0, 3.0]).unwrap();
        v.state("B", 33.0, "00000000000000000029").unwrap();
        for (token, from, to) in [
            ("00000000000000000001", 1, 10),
            ("00000000000000000011", 11, 20),
            ("00000000000000000021", 21, 25),
            ("00000000000000000026", 26, 28),
            ("00000000000000000029", 29, 31),
        ] {
            v.chunk("B", token, &seqs(from, to)).unwrap();
        }
        v.chunk("B", "current", &seqs(32, 32)).unwrap();
        assert_eq!(v.finish().unwrap(), Summary { maps: 2, instances: 8, entries: 34 });
    }

    #[test]
    fn retained_logs_start_at_their_oldest_chunk() {
        let mut v = Verifier::new();
        v.header(FORMAT, 1.0).unwrap();
        v.chunked_layout("L", 1.0, &[1.0, 10.0]).unwrap();
        v.state("L", 46.0, "00000000000000000031").unwrap();
        v.chunk("L", "00000000000000000021", &seqs(21, 30)).unwrap();
        v.chunk("L", "00000000000000000031", &seqs(31, 40)).unwrap();
        v.chunk("L", "current", &seqs(41, 45)).unwrap();
        assert_eq!(v.finish().unwrap().entries, 25);
    }

    fn reason(r: Result<impl std::fmt::Debug>) -> String {
        let e = r.unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        e.message.rsplit('(').next().unwrap().trim_end_matches(')').to_string()
    }

    #[test]
    fn each_broken_rule_names_its_line_and_reason() {
        let start = || {
            let mut v = Verifier::new();
            v.header(FORMAT, 1.0).unwrap();
            v
        };
        assert_eq!(reason(Verifier::new().header("other", 1.0)), "bad-header");
        assert_eq!(reason(Verifier::new().partitioned_layout("A", 1.0, 10.0, "exact")), "bad-header");
        let mut v = start();
        v.partitioned_layout("B", 1.0, 10.0, "exact").unwrap();
        assert_eq!(reason(v.partitioned_layout("A", 1.0, 10.0, "exact")), "map-order");
        assert_eq!(reason(start().partitioned_layout("A", 0.0, 10.0, "exact")), "bad-layout");
        assert_eq!(reason(start().partitioned_layout("A", 1.0, 0.0, "exact")), "bad-layout");
        let mut v = start();
        v.partitioned_layout("A", 1.0, 1000.0, "email").unwrap();
        let (b, e) = keys(&["Alice@example.com"]);
        assert_eq!(reason(v.partition("A", "partition-278", &b, &e)), "key-not-canonical");
        let (b, e) = keys(&["alice@example.com"]);
        assert_eq!(reason(v.partition("A", "partition-277", &b, &e)), "key-in-wrong-partition");
        assert_eq!(reason(v.partition("A", "partition-0278", &b, &e)), "bad-partition-name");
        assert!(v.partition("A", "partition-278", &b, &e).is_ok());
        assert_eq!(reason(v.partition("A", "partition-278", &b, &e)), "instance-order");
        let log = || {
            let mut v = start();
            v.chunked_layout("L", 1.0, &[1.0, 10.0]).unwrap();
            v
        };
        assert_eq!(reason(log().chunk("L", "current", &[])), "missing-state");
        assert_eq!(reason(log().state("L", 25.0, "")), "bad-state");
        let mut v = log();
        v.state("L", 25.0, "00000000000000000011").unwrap();
        assert_eq!(reason(v.chunk("L", "00000000000000000002", &seqs(2, 11))), "bad-token");
        assert_eq!(reason(v.chunk("L", "00000000000000000021", &seqs(21, 30))), "bad-token");
        assert_eq!(reason(v.chunk("L", "00000000000000000001", &seqs(1, 9))), "bad-chunk");
        let mut v = log();
        v.state("L", 25.0, "00000000000000000011").unwrap();
        v.chunk("L", "00000000000000000001", &seqs(1, 10)).unwrap();
        assert_eq!(reason(v.chunk("L", "current", &seqs(21, 24))), "sequence-gap");
        let mut v = log();
        v.state("L", 25.0, "00000000000000000011").unwrap();
        assert_eq!(reason(v.finish()), "missing-current");
        let mut v = log();
        v.state("L", 25.0, "00000000000000000011").unwrap();
        assert_eq!(reason(v.chunk("L", "current", &seqs(21, 23))), "bad-chunk");
        let mut v = log();
        assert_eq!(reason(v.finish()), "missing-state");
        assert_eq!(reason(Verifier::new().finish()), "bad-header");
        let mut v = start();
        assert_eq!(v.bad_line("invalid-json", "not JSON").message, "line 2: not JSON (invalid-json)");
    }

    #[test]
    fn a_label_names_the_lines_after_it_in_messages() {
        let mut v = Verifier::new();
        v.header(FORMAT, 1.0).unwrap();
        v.label("the layout of map \"A\"");
        v.partitioned_layout("A", 1.0, 1000.0, "email").unwrap();
        v.label("attribute \"m/partition-001\"");
        let (b, e) = keys(&["bob@example.com"]);
        let message = v.partition("A", "partition-001", &b, &e).unwrap_err().message;
        assert_eq!(
            message,
            "attribute \"m/partition-001\": key \"bob@example.com\" hashes to another partition than partition-001 \
             (key-in-wrong-partition)"
        );
    }
}
