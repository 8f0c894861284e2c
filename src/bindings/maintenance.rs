//! The maintenance module's bindings: the rare whole-map operations, which pages run rarely if
//! ever: a map's resize (placing every key again), a log's chunk-size change and retention.

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use super::log;
use crate::error::Result;
use crate::layout::{whole_number, ChunkSize, PartitionCount, MAX_SEQUENCE};
use crate::partition;

/// `changeChunkSize`: `[changed, cutFirst, cutLength, from, size, ...]` where `changed` is 0
/// when `size` is already in force, a cut of length 0 means `current` was empty, and the
/// rest are the new segments.
#[wasm_bindgen(js_name = chunkSizeChange)]
pub fn chunk_size_change(book: &[f64], latest: &str, current_len: f64, size: f64) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let size = ChunkSize::from_number(size)?;
    let current_len = whole_number("current length", current_len, 0, MAX_SEQUENCE)?;
    let (changed, cut) = log.change_chunk_size(current_len, size)?;
    let mut out = vec![if changed == log { 0.0 } else { 1.0 }];
    out.extend(cut.map_or([0.0, 0.0], |c| [c.first as f64, c.len as f64]));
    out.extend(changed.segments.to_numbers());
    Ok(out)
}

/// Retention: `[retainedFrom, droppedChunks, previousRetainedFrom]` for dropping the archives
/// older than `page_token`.
#[wasm_bindgen(js_name = dropPlan)]
pub fn drop_plan(book: &[f64], latest: &str, page_token: &str, record_name: &str) -> Result<Vec<f64>> {
    let log = log(book, latest)?;
    let (after, dropped) = log.drop_archives_before(page_token, record_name)?;
    Ok(vec![after.retained_from as f64, dropped as f64, log.retained_from as f64])
}

/// The partition index of each key under `count`, for a resize: `bytes` are the keys' UTF-8
/// bytes one after another, `ends[i]` where key `i` ends. The caller bounds the bytes of one call.
#[wasm_bindgen(js_name = partitionIndexes)]
pub fn partition_indexes(bytes: &[u8], ends: &[u32], #[wasm_bindgen(js_name = partitionCount)] count: f64) -> Result<Vec<u32>> {
    partition::partition_indexes(bytes, ends, PartitionCount::from_number(count)?)
}
