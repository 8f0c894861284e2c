//! The maintenance module's bindings: the rare whole-map operations, which pages run rarely if
//! ever: a map's resize (placing every key again), a log's chunk-size change and retention; and
//! an index value's canonical text, which only a move to the engine's layout needs.

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use super::{log, ChunkSizeChangeSlot, DropPlanSlot, IndexValueKind};
use crate::error::{Error, Result};
use crate::index::IndexValue;
use crate::layout::{whole_number, ChunkSize, PartitionCount, MAX_SEQUENCE};
use crate::partition;

/// `changeChunkSize`: what `ChunkSizeChangeSlot` names, then the new segments as pairs.
#[wasm_bindgen(js_name = chunkSizeChange)]
pub fn chunk_size_change(book: &[f64], latest: &str, current_len: f64, size: f64) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let size = ChunkSize::from_number(size)?;
    let current_len = whole_number("current length", current_len, 0, MAX_SEQUENCE)?;
    let (changed, cut) = log.change_chunk_size(current_len, size)?;
    let mut out = vec![0.0; ChunkSizeChangeSlot::LENGTH];
    out[ChunkSizeChangeSlot::Changed as usize] = if changed == log { 0.0 } else { 1.0 };
    if let Some(cut) = cut {
        out[ChunkSizeChangeSlot::CutFirst as usize] = cut.first as f64;
        out[ChunkSizeChangeSlot::CutLength as usize] = cut.len as f64;
    }
    out.extend(changed.segments.to_numbers());
    Ok(out)
}

/// Retention: what `DropPlanSlot` names, for dropping the archives older than `page_token`.
#[wasm_bindgen(js_name = dropPlan)]
pub fn drop_plan(book: &[f64], latest: &str, page_token: &str, record_name: &str) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let (after, dropped) = log.drop_archives_before(page_token, record_name)?;
    let mut out = vec![0.0; DropPlanSlot::LENGTH];
    out[DropPlanSlot::RetainedFrom as usize] = after.retained_from as f64;
    out[DropPlanSlot::Dropped as usize] = dropped as f64;
    out[DropPlanSlot::PreviousRetainedFrom as usize] = log.retained_from as f64;
    Ok(out)
}

/// The partition index of each key under `count`, for a resize: `bytes` are the keys' UTF-8
/// bytes one after another, `ends[i]` where key `i` ends. The caller bounds the bytes of one call.
#[wasm_bindgen(js_name = partitionIndexes)]
pub fn partition_indexes(bytes: &[u8], ends: &[u32], #[wasm_bindgen(js_name = partitionCount)] count: f64) -> Result<Vec<u32>> {
    partition::partition_indexes(bytes, ends, PartitionCount::from_number(count)?)
}

/// The canonical text of an index value (docs/indexes.md), its elements as `IndexValueKind`
/// says; `compound`: they are a compound value's, else there is exactly one.
#[wasm_bindgen(js_name = canonicalIndexValue)]
pub fn canonical_index_value(kinds: &[u8], numbers: &[f64], units: &[u16], compound: bool) -> Result<String> {
    let malformed = || Error::invalid_argument("the index value's encoding is malformed");
    if kinds.len() != numbers.len() || (!compound && kinds.len() != 1) {
        return Err(malformed());
    }
    let mut rest = units;
    let mut elements = Vec::with_capacity(kinds.len());
    for (&kind, &number) in kinds.iter().zip(numbers) {
        elements.push(match IndexValueKind::ALL.get(usize::from(kind)).ok_or_else(malformed)? {
            IndexValueKind::Null => IndexValue::Null,
            IndexValueKind::False => IndexValue::Boolean(false),
            IndexValueKind::True => IndexValue::Boolean(true),
            IndexValueKind::Number => IndexValue::number("value", number)?,
            IndexValueKind::Date => IndexValue::date("value", number)?,
            IndexValueKind::Text => {
                let length = whole_number("string length", number, 0, rest.len() as u64).map_err(|_| malformed())? as usize;
                let string = rest.get(..length).ok_or_else(malformed)?.to_vec();
                rest = rest.get(length..).ok_or_else(malformed)?;
                IndexValue::Text(string)
            }
        });
    }
    if !rest.is_empty() {
        return Err(malformed());
    }
    // No indexing that could panic: the module has no formatting machinery for a panic's message.
    let value = if compound { IndexValue::compound("value", elements)? } else { elements.pop().ok_or_else(malformed)? };
    Ok(value.canonical())
}
