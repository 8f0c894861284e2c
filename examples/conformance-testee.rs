//! The Rust crate as a testee of `attrmap-conformance` (docs/conformance.md): one JSON request
//! a line on standard input, one JSON answer a line on standard output.
//! `attrmap-conformance -- cargo run -q --example conformance-testee`.
//!
//! The crate holds the rules but no HTTP layer (that is the npm package's), so `httpRequest`
//! is answered `unsupported`.

use std::io::{BufRead, Write};

use attrmap::{
    archive_chunk_token, archive_chunk_token_of_decimal, canonical_email_address, email_partition, fnv1a32, index_partition,
    key_partition, page_not_found, parse_token_digits, validate_page_token, ChunkSize, CustomerProfile, Error, Log, LogState,
    PageToken, PartitionCount, Segment, Segments,
};
use serde_json::{json, Map, Value};

#[path = "shared/index_value.rs"]
mod index_value;
#[path = "verify-export.rs"]
#[allow(dead_code)]
mod verify_export;

/// An answer that is not a result: an error message, or an operation this testee does not do.
enum Refusal {
    Error(String),
    Unsupported,
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Self {
        Refusal::Error(e.message)
    }
}

type Answer = Result<Value, Refusal>;

fn bad(what: &str) -> Refusal {
    Refusal::Error(format!("the request's input has no valid {what}"))
}

fn text<'a>(input: &'a Value, key: &str) -> Result<&'a str, Refusal> {
    input[key].as_str().ok_or_else(|| bad(key))
}

fn whole(input: &Value, key: &str) -> Result<u64, Refusal> {
    input[key].as_u64().ok_or_else(|| bad(key))
}

fn count(input: &Value) -> Result<PartitionCount, Refusal> {
    Ok(PartitionCount::from_number(input["partitionCount"].as_f64().ok_or_else(|| bad("partitionCount"))?)?)
}

fn segments(input: &Value) -> Result<Segments, Refusal> {
    let list = input["segments"].as_array().ok_or_else(|| bad("segments"))?;
    let list = list.iter().map(|s| {
        let chunk_size = ChunkSize::new(u32::try_from(whole(s, "chunkSize")?).map_err(|_| bad("chunkSize"))?)?;
        Ok(Segment { from_sequence: whole(s, "fromSequence")?, chunk_size })
    });
    Ok(Segments::new(list.collect::<Result<_, Refusal>>()?)?)
}

fn log(input: &Value, retained_from: u64) -> Result<Log, Refusal> {
    let state = LogState {
        next_sequence: whole(&input["state"], "nextSequence")?,
        latest_archived_chunk_token: text(&input["state"], "latestArchivedChunkToken")?.to_string(),
    };
    Ok(Log::checked(segments(input)?, state, retained_from)?)
}

fn hex(text: &str) -> Result<Vec<u8>, Refusal> {
    let digits = |i: usize| text.get(i..i + 2).and_then(|d| u8::from_str_radix(d, 16).ok()).ok_or_else(|| bad("bytesHex"));
    (0..text.len()).step_by(2).map(digits).collect()
}

fn token(first: u64) -> Result<String, Refusal> {
    Ok(archive_chunk_token(u128::from(first))?)
}

fn answer(op: &str, input: &Value) -> Answer {
    Ok(match op {
        "fnv1a32" => json!(fnv1a32(&hex(text(input, "bytesHex")?)?)),
        "canonicalEmail" => json!(canonical_email_address(input.as_str().ok_or_else(|| bad("email"))?)?),
        "emailPartition" => {
            let p = email_partition(text(input, "email")?, count(input)?)?;
            json!({"hash": p.hash, "partitionIndex": p.index, "partitionName": p.partition_name})
        }
        "keyPartition" => {
            let p = key_partition(text(input, "key")?, count(input)?);
            json!({"hash": p.hash, "partitionIndex": p.index, "partitionName": p.partition_name})
        }
        "indexPartition" => {
            let placed = index_partition(&index_value::index_value(&input["value"])?, count(input)?);
            let p = placed.partition;
            json!({"canonicalValue": placed.canonical_value, "hash": p.hash, "partitionIndex": p.index,
                   "partitionName": p.partition_name})
        }
        "partitionName" => {
            let index = u32::try_from(whole(input, "index")?).map_err(|_| bad("index"))?;
            json!(count(input)?.name_of(index))
        }
        "profileBody" => {
            // A null field is a missing one: the typed profile then has no email to place.
            let body = input["body"].as_object().ok_or_else(|| bad("body"))?;
            let fields: Map<String, Value> =
                body.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
            let profile: CustomerProfile =
                serde_json::from_value(Value::Object(fields)).map_err(|e| Refusal::Error(e.to_string()))?;
            json!(profile.place(PartitionCount::default())?.0)
        }
        "pageToken" => {
            let size = ChunkSize::new(u32::try_from(whole(input, "chunkSize")?).map_err(|_| bad("chunkSize"))?)?;
            json!(validate_page_token(text(input, "token")?, &Segments::single(size))?.to_token_string())
        }
        "segmentedPageToken" => json!(validate_page_token(text(input, "token")?, &segments(input)?)?.to_token_string()),
        "archiveToken" => json!(archive_chunk_token_of_decimal(text(input, "firstSequence")?)?),
        "pageNotFound" => return Err(page_not_found("subscriber", text(input, "token")?).into()),
        "page" => {
            let log = log(input, whole(input, "retainedFrom")?)?;
            let t = text(input, "token")?;
            let first = match validate_page_token(t, &log.segments)? {
                PageToken::Current => log.current_first(),
                PageToken::Archived(_) => parse_token_digits(t)
                    .and_then(|v| log.archived_chunk(v))
                    .ok_or_else(|| Refusal::from(page_not_found("subscriber", t)))?,
            };
            json!({"firstSequence": first, "nextPageToken": log.older_token(first)})
        }
        "appendPlan" => {
            let before = log(input, 1)?;
            let plan = before.plan_append(whole(input, "currentLength")?, whole(input, "count")?)?;
            let archived = plan.archived().map(|c| token(c.first)).collect::<Result<Vec<_>, _>>()?;
            let after = Log::checked(before.segments.clone(), plan.state.clone(), 1)?;
            json!({"firstSequence": plan.first_sequence, "archivedTokens": archived, "state": plan.state,
                   "currentLength": after.current_len()})
        }
        "verifyExport" => {
            let s = verify_export::verify(text(input, "text")?.as_bytes())?;
            json!({"maps": s.maps, "instances": s.instances, "entries": s.entries})
        }
        _ => return Err(Refusal::Unsupported),
    })
}

/// A request line with each lone UTF-16 surrogate escape (`\ud800`) made U+FFFD, as a
/// JavaScript string becomes when it crosses into Rust: serde_json refuses them, and such an
/// email is not ASCII either way.
fn without_lone_surrogates(line: &str) -> String {
    let unit = |s: &str| s.strip_prefix("\\u").and_then(|h| h.get(..4)).and_then(|h| u16::from_str_radix(h, 16).ok());
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let step = match unit(rest) {
            Some(0xD800..=0xDBFF) if matches!(unit(&rest[6..]), Some(0xDC00..=0xDFFF)) => 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                rest = &rest[6..];
                continue;
            }
            Some(_) => 6,
            None => 2.min(rest.len()),
        };
        out.push_str(&rest[..step]);
        rest = &rest[step..];
    }
    out.push_str(rest);
    out
}

fn main() {
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("standard input is readable");
        let request: Value = serde_json::from_str(&line)
            .or_else(|_| serde_json::from_str(&without_lone_surrogates(&line)))
            .expect("the runner sends JSON");
        let reply = match answer(request["op"].as_str().unwrap_or(""), &request["input"]) {
            Ok(result) => json!({"id": request["id"], "result": result}),
            Err(Refusal::Error(message)) => json!({"id": request["id"], "error": message}),
            Err(Refusal::Unsupported) => json!({"id": request["id"], "unsupported": true}),
        };
        let mut out = stdout.lock();
        writeln!(out, "{reply}").and_then(|()| out.flush()).expect("standard output is writable");
    }
}
