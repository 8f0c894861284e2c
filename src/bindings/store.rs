//! The store module's bindings: keys and partitions, page tokens, the chunked log, records.

use crate::prelude::*;
use crate::text::text;

use wasm_bindgen::prelude::*;

use super::{log, AppendPlanSlot, LogBookSlot, LogCheckSlot};
use crate::chunk::Log;
use crate::error::{Error, Result};
use crate::layout::{whole_number, ChunkSize, KeyRule, PartitionCount, Segments, FIRST_LAYOUT_VERSION, MAX_SEQUENCE};
use crate::{chunk, fnv, layout, partition, subscriber, token};

// ---- keys and partitions ----------------------------------------------------------------

/// Continues a hash over one piece of a long input (the caller bounds each piece).
#[wasm_bindgen(js_name = fnv1a32Continue)]
pub fn fnv1a32_continue(hash: u32, bytes: &[u8]) -> u32 {
    fnv::fnv1a32_continue(hash, bytes)
}

#[wasm_bindgen(typescript_custom_section)]
const PLACED_SINK: &str = r#"
/** Where placeKey tells where a key lives (see placeKey). */
export interface PlacedSink {
  placed(hash: number, index: number, changed: boolean, start: number, end: number, lowercase: boolean): void;
}"#;

#[wasm_bindgen]
extern "C" {
    /// The caller's object that `placeKey` tells its answer to.
    #[wasm_bindgen(typescript_type = "PlacedSink")]
    pub type PlacedSink;
    /// The key's FNV-1a hash and partition index, then whether its canonical form differs from
    /// it: it is then `key[start..end]`, lowercased when `lowercase` (only an email changes, and
    /// an email is ASCII, so these UTF-8 offsets are its UTF-16 offsets too).
    #[wasm_bindgen(method)]
    fn placed(this: &PlacedSink, hash: u32, index: u32, changed: bool, start: u32, end: u32, lowercase: bool);
}

/// Places `key` under the email rule (`email`) or as it is, and tells `sink` where it lives:
/// numbers, never a string, since decoding a returned string (or a result object) costs more
/// than the placing, and the caller keeps the canonical form of a key that is canonical already.
#[wasm_bindgen(js_name = placeKey)]
pub fn place_key(key: &str, email: bool, #[wasm_bindgen(js_name = partitionCount)] count: f64, sink: &PlacedSink) -> Result<()> {
    let rule = if email { KeyRule::Email } else { KeyRule::Exact };
    let placed = partition::place_key(key, &rule, PartitionCount::from_number(count)?)?;
    let edit = placed.edit.filter(|edit| !edit.is_identity(key));
    let (start, end, lowercase) = edit.map_or((0, 0, false), |e| (e.start as u32, e.end as u32, e.lowercase));
    sink.placed(placed.hash, placed.index, edit.is_some(), start, end, lowercase);
    Ok(())
}

/// The partition count to use: the default for `undefined`, else the caller's, checked.
#[wasm_bindgen(js_name = resolvePartitionCount)]
pub fn resolve_partition_count(count: Option<f64>) -> Result<u32> {
    count.map_or(Ok(PartitionCount::default()), PartitionCount::from_number).map(PartitionCount::get)
}

/// The chunk size to use: the default for `undefined`, else the caller's, checked.
#[wasm_bindgen(js_name = resolveChunkSize)]
pub fn resolve_chunk_size(size: Option<f64>) -> Result<u32> {
    size.map_or(Ok(ChunkSize::default()), ChunkSize::from_number).map(ChunkSize::get)
}

#[wasm_bindgen(js_name = partitionName)]
pub fn partition_name(index: f64, #[wasm_bindgen(js_name = partitionCount)] count: f64) -> Result<String> {
    let count = PartitionCount::from_number(count)?;
    let index = whole_number("partition index", index, 0, u64::from(count.get() - 1))?;
    Ok(count.name_of(index as u32))
}

/// Checks a stored layout version: an integer from 1 (`FIRST_LAYOUT_VERSION`) up.
#[wasm_bindgen(js_name = checkLayoutVersion)]
pub fn check_layout_version(version: f64) -> Result<()> {
    whole_number("layoutVersion", version, FIRST_LAYOUT_VERSION, MAX_SEQUENCE).map(|_| ())
}

/// Checks a caller's map name (`arg` names the argument): names beginning with U+0000 are reserved.
#[wasm_bindgen(js_name = checkMapName)]
pub fn check_map_name(arg: &str, name: &str) -> Result<()> {
    crate::check_map_name(arg, name)
}

/// Checks a key rule's name: built in (`custom` false) or the caller's own.
#[wasm_bindgen(js_name = checkKeyRule)]
pub fn check_key_rule(name: &str, custom: bool) -> Result<()> {
    KeyRule::from_name(name, custom).map(|_| ())
}

// ---- page tokens ---------------------------------------------------------------------

fn segments(flat: &[f64]) -> Result<Segments> {
    Segments::from_numbers(flat)
}

/// Whether `token` means `current` (true) or an archived chunk (false) under `segments`
/// (`[from, size, ...]`); throws `invalid_page_token` otherwise.
#[wasm_bindgen(js_name = validatePageToken)]
pub fn validate_page_token(page_token: &str, segments_flat: &[f64]) -> Result<bool> {
    Ok(token::validate_page_token(page_token, &segments(segments_flat)?)? == token::PageToken::Current)
}

/// The 20-digit token of the chunk starting at a safe-integer sequence.
#[wasm_bindgen(js_name = archiveChunkToken)]
pub fn archive_chunk_token(first_sequence: f64) -> Result<String> {
    let first = whole_number("firstSequence", first_sequence, 1, MAX_SEQUENCE)?;
    token::archive_chunk_token(u128::from(first))
}

/// The 20-digit token of the chunk starting at a sequence written in decimal (a bigint).
#[wasm_bindgen(js_name = archiveChunkTokenOfDecimal)]
pub fn archive_chunk_token_of_decimal(digits: &str) -> Result<String> {
    token::archive_chunk_token_of_decimal(digits)
}

// ---- the chunked log -----------------------------------------------------------------
//
// A log's bookkeeping crosses as `book` and `latest` (see `log` in bindings/mod.rs).

/// The bookkeeping of a new, empty log with chunks of `size` (see `LogBookSlot`; no latest archive).
#[wasm_bindgen(js_name = newLog)]
pub fn new_log(size: f64) -> Result<Vec<f64>> {
    let log = Log::new(Segments::single(ChunkSize::from_number(size)?));
    let mut book = vec![0.0; LogBookSlot::LENGTH];
    book[LogBookSlot::NextSequence as usize] = log.state.next_sequence as f64;
    book[LogBookSlot::RetainedFrom as usize] = log.retained_from as f64;
    book.extend(log.segments.to_numbers());
    Ok(book)
}

/// Checks a log's bookkeeping; returns what `LogCheckSlot` names.
#[wasm_bindgen(js_name = checkLog)]
pub fn check_log(book: &[f64], latest: &str) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let mut out = [0.0; LogCheckSlot::LENGTH];
    out[LogCheckSlot::CurrentFirst as usize] = log.current_first() as f64;
    out[LogCheckSlot::CurrentLength as usize] = log.current_len() as f64;
    out[LogCheckSlot::Retained as usize] = log.count() as f64;
    out[LogCheckSlot::ArchivedChunks as usize] = log.archived_chunks() as f64;
    Ok(out.to_vec())
}

/// The writes of appending `count` records to a `current` of `current_len` (see `AppendPlanSlot`).
#[wasm_bindgen(js_name = appendPlan)]
pub fn append_plan(book: &[f64], latest: &str, current_len: f64, count: f64) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let current_len = whole_number("current length", current_len, 0, MAX_SEQUENCE)?;
    let count = whole_number("record count", count, 0, MAX_SEQUENCE)?;
    let plan = log.plan_append(current_len, count)?;
    let mut out = [0.0; AppendPlanSlot::LENGTH];
    out[AppendPlanSlot::FirstSequence as usize] = plan.first_sequence as f64;
    out[AppendPlanSlot::NextSequence as usize] = plan.state.next_sequence as f64;
    out[AppendPlanSlot::ArchiveFrom as usize] = plan.archive_from as f64;
    out[AppendPlanSlot::ChunkLength as usize] = plan.chunk_len as f64;
    out[AppendPlanSlot::ArchiveCount as usize] = plan.archive_count as f64;
    Ok(out.to_vec())
}

/// Checks the chunk read for `page_token` (`present`: it was stored; `sequences`: its
/// records' sequences, oldest first) and returns the token of the next older page.
/// A valid token whose chunk is not retained, or was not stored, is `not_found`.
#[wasm_bindgen(js_name = pageNext)]
pub fn page_next(
    book: &[f64],
    latest: &str,
    page_token: &str,
    present: bool,
    sequences: &[f64],
    record_name: &str,
) -> Result<String> {
    let log = log(book, latest)?;
    let (first, is_current) = match token::validate_page_token(page_token, &log.segments)? {
        token::PageToken::Current => (log.current_first(), true),
        token::PageToken::Archived(value) => match log.archived_chunk(value) {
            Some(first) if present => (first, false),
            _ => return Err(chunk::page_not_found(record_name, page_token)),
        },
    };
    let corrupt = |e: Error| e.as_corrupt(&text!(record_name, " page \"", layout::clip(page_token), "\""));
    if present {
        log.check_chunk(first, is_current, sequences).map_err(corrupt)?;
    } else if log.current_len() != 0 {
        return Err(corrupt(Error::corrupt("it is missing but the state says it holds records")));
    }
    Ok(log.older_token(first))
}

/// The token of the page holding `sequence` (the oldest retained one for a dropped sequence),
/// or `""` past the newest record.
#[wasm_bindgen(js_name = pageOfSequence)]
pub fn page_of_sequence(book: &[f64], latest: &str, sequence: f64) -> Result<String> {
    let log = log(book, latest)?;
    let sequence = whole_number("sequence", sequence, 1, MAX_SEQUENCE + 1)?;
    Ok(match log.page_of_sequence(sequence) {
        None => String::new(),
        Some(chunk::PageOf::Current) => token::CURRENT.to_string(),
        Some(chunk::PageOf::Archived(first)) => token::archive_chunk_token(u128::from(first))?,
    })
}

// ---- records ---------------------------------------------------------------------------

/// The required fields of a registration (docs/http.md), from the lengths of its two strings.
#[wasm_bindgen(js_name = checkSubscriberFields)]
pub fn check_subscriber_fields(subscriber_id_len: f64, delivery_address_len: f64) -> Result<()> {
    subscriber::check_required(subscriber_id_len as usize, delivery_address_len as usize)
}
