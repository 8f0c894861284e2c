//! The verifier module's bindings: the export verifier, one line a call.

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use super::{MergeFact, MergeOutcome};
use crate::error::Result;
use crate::export;
use crate::sync::{digest, merge, Merge};

/// The digests of values whose canonical JSON texts are `bytes` one after another (UTF-8),
/// `ends[i]` where text `i` ends: 16 hex digits each, one after another.
#[wasm_bindgen]
pub fn digests(bytes: &[u8], ends: &[u32]) -> String {
    let mut out = String::with_capacity(ends.len() * 16);
    let mut start = 0;
    for &end in ends {
        out.push_str(&digest(bytes.get(start..end as usize).unwrap_or_default()));
        start = end as usize;
    }
    out
}

/// What a pull does with each entry (or log) whose facts are `facts` (MergeFact bits, one byte
/// each): a MergeOutcome each.
#[wasm_bindgen(js_name = mergeDecisions)]
pub fn merge_decisions(facts: &[u8]) -> Vec<u8> {
    let holds = |f: u8, fact: MergeFact| f & (1 << fact as u8) != 0;
    facts
        .iter()
        .map(|&f| {
            let outcome =
                match merge(holds(f, MergeFact::LocalIsBase), holds(f, MergeFact::RemoteIsBase), holds(f, MergeFact::Equal)) {
                    Merge::Same => MergeOutcome::Same,
                    Merge::TakeRemote => MergeOutcome::TakeRemote,
                    Merge::KeepLocal => MergeOutcome::KeepLocal,
                    Merge::Conflict => MergeOutcome::Conflict,
                };
            outcome as u8
        })
        .collect()
}

/// Checks an export line by line (see `export.rs`); each method is one line. The caller reads
/// each line's JSON and passes what it found; call `free()` when done.
#[wasm_bindgen(js_name = ExportVerifier)]
#[derive(Default)]
pub struct JsExportVerifier(export::Verifier);

#[wasm_bindgen(js_class = ExportVerifier)]
impl JsExportVerifier {
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsExportVerifier {
        JsExportVerifier::default()
    }

    /// A line that is not JSON, or not a line of the format: the error for it, to throw.
    #[wasm_bindgen(js_name = badLine)]
    pub fn bad_line(&mut self, reason: &str, what: &str) -> JsValue {
        self.0.bad_line(reason, what).into()
    }

    /// Names the lines from here on `label` in messages, instead of by number.
    pub fn label(&mut self, label: &str) {
        self.0.label(label)
    }

    pub fn header(&mut self, format: &str, version: f64) -> Result<()> {
        self.0.header(format, version)
    }

    #[wasm_bindgen(js_name = partitionedLayout)]
    pub fn partitioned_layout(&mut self, map: &str, layout_version: f64, partition_count: f64, key_rule: &str) -> Result<()> {
        self.0.partitioned_layout(map, layout_version, partition_count, key_rule)
    }

    #[wasm_bindgen(js_name = chunkedLayout)]
    pub fn chunked_layout(&mut self, map: &str, layout_version: f64, segments: &[f64]) -> Result<()> {
        self.0.chunked_layout(map, layout_version, segments)
    }

    pub fn state(&mut self, map: &str, next_sequence: f64, latest: &str) -> Result<()> {
        self.0.state(map, next_sequence, latest)
    }

    /// A partition line: its keys' UTF-8 bytes one after another, `ends[i]` where key `i` ends.
    pub fn partition(&mut self, map: &str, instance: &str, keys: &[u8], ends: &[u32]) -> Result<()> {
        self.0.partition(map, instance, keys, ends)
    }

    /// A chunk line: its records' sequences, oldest first.
    pub fn chunk(&mut self, map: &str, instance: &str, sequences: &[f64]) -> Result<()> {
        self.0.chunk(map, instance, sequences)
    }

    /// The first sequence the log being read keeps, once its state is known.
    #[wasm_bindgen(js_name = retainedFrom)]
    pub fn retained_from(&self) -> Option<f64> {
        self.0.retained_from().map(|s| s as f64)
    }

    /// After the last line: `[maps, instances, entries]`.
    pub fn finish(&mut self) -> Result<Vec<f64>> {
        let s = self.0.finish()?;
        Ok(vec![s.maps as f64, s.instances as f64, s.entries as f64])
    }
}
