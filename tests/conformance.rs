//! Runs the cross-SDK vectors in tests/conformance/ against the Rust core: natively with
//! `cargo test`, and compiled to wasm under wasm-bindgen-test in Node and Chromium.

use attrmap::{
    archive_chunk_token, archive_chunk_token_of_decimal, email_partition, fnv1a32, index_partition, page_not_found,
    parse_token_digits, place_key, validate_page_token, ChunkSize, KeyRule, Log, LogState, PageToken, PartitionCount, Segment,
    Segments,
};
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;

const FNV: &str = include_str!("conformance/fnv1a32.json");
const EMAIL: &str = include_str!("conformance/email.json");
const TOKENS: &str = include_str!("conformance/page-token.json");
const SEGMENTED: &str = include_str!("conformance/segmented-log.json");
const FORMATTING: &str = include_str!("conformance/formatting.json");
const PARTITION: &str = include_str!("conformance/partition.json");
const APPEND: &str = include_str!("conformance/append.json");
const INDEX: &str = include_str!("conformance/index.json");

#[path = "../examples/shared/index_value.rs"]
mod index_value;

fn cases(text: &str, key: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(text).expect("vector file is JSON");
    doc[key].as_array().expect("cases array").clone()
}

fn s(v: &Value) -> &str {
    v.as_str().expect("string")
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

fn repeat(r: &Value, field: &str, decode: fn(&str) -> Vec<u8>) -> Vec<u8> {
    let part = |name: &str| decode(s(&r[format!("{name}{field}")]));
    let mut out = part("prefix");
    out.extend(part("unit").repeat(r["count"].as_u64().unwrap() as usize));
    out.extend(part("suffix"));
    out
}

fn text_bytes(t: &str) -> Vec<u8> {
    t.as_bytes().to_vec()
}

/// The email input as a Rust string. Lone UTF-16 surrogates become U+FFFD, as they do when
/// a JavaScript string crosses into wasm; either way the input is not ASCII.
fn email_input(case: &Value) -> String {
    if let Some(t) = case.get("input") {
        return s(t).to_string();
    }
    if let Some(units) = case.get("inputUtf16") {
        let units: Vec<u16> = units.as_array().unwrap().iter().map(|u| u.as_u64().unwrap() as u16).collect();
        return String::from_utf16_lossy(&units);
    }
    String::from_utf8(repeat(&case["inputRepeat"], "", text_bytes)).unwrap()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn fnv_vectors() {
    let all = cases(FNV, "cases");
    assert!(all.len() >= 30);
    for case in all {
        let bytes = match case.get("inputHex") {
            Some(h) => hex(s(h)),
            None => repeat(&case["inputRepeat"], "Hex", hex),
        };
        assert_eq!(u64::from(fnv1a32(&bytes)), case["hash"].as_u64().unwrap(), "{}", case["id"]);
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn email_vectors() {
    let all = cases(EMAIL, "cases");
    assert!(all.len() >= 50);
    for case in all {
        let id = &case["id"];
        let expect = &case["expect"];
        match email_partition(&email_input(&case), PartitionCount::default()) {
            Ok(p) => {
                let canonical = match expect.get("canonicalEmailRepeat") {
                    Some(r) => String::from_utf8(repeat(r, "", text_bytes)).unwrap(),
                    None => s(&expect["canonicalEmail"]).to_string(),
                };
                assert!(p.canonical_email == canonical, "{id}: canonical email differs");
                assert_eq!(u64::from(p.hash), expect["hash"].as_u64().unwrap(), "{id}");
                assert_eq!(u64::from(p.index), expect["partitionIndex"].as_u64().unwrap(), "{id}");
                assert_eq!(p.partition_name, s(&expect["partitionName"]), "{id}");
            }
            Err(e) => assert_eq!(Some(e.message.as_str()), expect["error"].as_str(), "{id}"),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn page_token_vectors() {
    let all = cases(TOKENS, "cases");
    assert!(all.len() >= 40);
    for case in all {
        let got = validate_page_token(s(&case["token"]), &Segments::single(ChunkSize::default()));
        match got {
            Ok(t) => assert_eq!(Some(t.to_token_string().as_str()), case["expect"]["pageToken"].as_str(), "{}", case["id"]),
            Err(e) => assert_eq!(Some(e.message.as_str()), case["expect"]["error"].as_str(), "{}", case["id"]),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn archive_token_vectors() {
    let all = cases(TOKENS, "archiveTokenCases");
    assert!(all.len() >= 12);
    for case in all {
        // Written in decimal: some go past 64 bits, some are negative or fractions.
        let first = s(&case["firstSequence"]);
        match archive_chunk_token_of_decimal(first) {
            Ok(token) => assert_eq!(Some(token.as_str()), case["expect"]["token"].as_str(), "{first}"),
            Err(e) => assert_eq!(Some(e.code.as_str()), case["expect"]["error"].as_str(), "{first}"),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn not_found_vectors() {
    for case in cases(TOKENS, "notFoundCases") {
        let message = page_not_found("subscriber", s(&case["token"])).message;
        assert_eq!(Some(message.as_str()), case["expect"]["error"].as_str(), "{}", case["id"]);
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn formatting_vectors() {
    let names = cases(FORMATTING, "partitionNameCases");
    assert!(names.len() >= 7);
    for case in names {
        let count = PartitionCount::new(case["partitionCount"].as_u64().unwrap() as u32).unwrap();
        let index = case["index"].as_u64().unwrap() as u32;
        assert_eq!(count.name_of(index), s(&case["expect"]["partitionName"]));
    }
    for case in cases(FORMATTING, "tokenCases") {
        let first = case["firstSequence"].as_u64().unwrap();
        assert_eq!(archive_chunk_token(u128::from(first)).unwrap(), s(&case["expect"]["token"]));
    }
}

fn segments(case: &Value) -> Segments {
    let list = case["segments"].as_array().unwrap().iter().map(|s| Segment {
        from_sequence: s["fromSequence"].as_u64().unwrap(),
        chunk_size: ChunkSize::new(s["chunkSize"].as_u64().unwrap() as u32).unwrap(),
    });
    Segments::new(list.collect()).unwrap()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn segmented_token_vectors() {
    let all = cases(SEGMENTED, "cases");
    assert!(all.len() >= 60);
    for case in all {
        match validate_page_token(s(&case["token"]), &segments(&case)) {
            Ok(t) => assert_eq!(Some(t.to_token_string().as_str()), case["expect"]["pageToken"].as_str(), "{}", case["id"]),
            Err(e) => assert_eq!(Some(e.message.as_str()), case["expect"]["error"].as_str(), "{}", case["id"]),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn segmented_page_vectors() {
    let all = cases(SEGMENTED, "pageCases");
    assert!(all.len() >= 12);
    for case in all {
        let id = &case["id"];
        let log = Log::checked(segments(&case), log_state(&case), case["retainedFrom"].as_u64().unwrap()).unwrap();
        let first = match validate_page_token(s(&case["token"]), &log.segments).unwrap() {
            PageToken::Current => log.current_first(),
            PageToken::Archived(_) => {
                log.archived_chunk(parse_token_digits(s(&case["token"])).unwrap()).expect("a retained archive")
            }
        };
        assert_eq!(first, case["expect"]["firstSequence"].as_u64().unwrap(), "{id}");
        assert_eq!(log.older_token(first), s(&case["expect"]["nextPageToken"]), "{id}");
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn key_partition_vectors() {
    let all = cases(PARTITION, "cases");
    assert!(all.len() >= 100);
    for case in all {
        let id = &case["id"];
        let rule = KeyRule::from_name(s(&case["rule"]), false).unwrap();
        let count = PartitionCount::new(case["partitionCount"].as_u64().unwrap() as u32).unwrap();
        let expect = &case["expect"];
        match place_key(s(&case["key"]), &rule, count) {
            Ok(p) => {
                assert_eq!(u64::from(p.hash), expect["hash"].as_u64().unwrap(), "{id}");
                assert_eq!(u64::from(p.index), expect["partitionIndex"].as_u64().unwrap(), "{id}");
                assert_eq!(count.name_of(p.index), s(&expect["partitionName"]), "{id}");
            }
            Err(e) => assert_eq!(Some(e.message.as_str()), expect["error"].as_str(), "{id}"),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn index_partition_vectors() {
    let all = cases(INDEX, "cases");
    assert!(all.len() >= 40);
    for case in all {
        let id = &case["id"];
        let count = PartitionCount::new(case["partitionCount"].as_u64().unwrap() as u32).unwrap();
        let expect = &case["expect"];
        match index_value::index_value(&case["value"]) {
            Ok(value) => {
                let placed = index_partition(&value, count);
                assert_eq!(placed.canonical_value, s(&expect["canonicalValue"]), "{id}");
                assert_eq!(u64::from(placed.partition.hash), expect["hash"].as_u64().unwrap(), "{id}");
                assert_eq!(u64::from(placed.partition.index), expect["partitionIndex"].as_u64().unwrap(), "{id}");
                assert_eq!(placed.partition.partition_name, s(&expect["partitionName"]), "{id}");
            }
            Err(e) => assert!(expect.get("error").is_some(), "{id}: refused ({})", e.message),
        }
    }
}

fn log_state(case: &Value) -> LogState {
    LogState {
        next_sequence: case["state"]["nextSequence"].as_u64().unwrap(),
        latest_archived_chunk_token: s(&case["state"]["latestArchivedChunkToken"]).to_string(),
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn append_plan_vectors() {
    let all = cases(APPEND, "cases");
    assert!(all.len() >= 15);
    for case in all {
        let id = &case["id"];
        let expect = &case["expect"];
        let log = Log::checked(segments(&case), log_state(&case), 1).unwrap();
        match log.plan_append(case["currentLength"].as_u64().unwrap(), case["count"].as_u64().unwrap()) {
            Ok(plan) => {
                let tokens: Vec<String> = plan.archived().map(|c| archive_chunk_token(u128::from(c.first)).unwrap()).collect();
                let expected: Vec<&str> = expect["archivedTokens"].as_array().unwrap().iter().map(s).collect();
                assert_eq!(tokens, expected, "{id}");
                assert_eq!(plan.first_sequence, expect["firstSequence"].as_u64().unwrap(), "{id}");
                assert_eq!(plan.state, log_state(expect), "{id}");
                let after = Log::checked(log.segments.clone(), plan.state, 1).unwrap();
                assert_eq!(after.current_len(), expect["currentLength"].as_u64().unwrap(), "{id}");
            }
            Err(e) => assert_eq!(Some(e.code.as_str()), expect["error"].as_str(), "{id}"),
        }
    }
}

#[path = "../examples/verify-export.rs"]
#[allow(dead_code)]
mod verify_export;

/// Every export file the index names, compiled in (wasm tests cannot read files at run time).
macro_rules! export_files {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("conformance/export/", $name)))),*]
    };
}

const EXPORT_INDEX: &str = include_str!("conformance/export.json");

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn export_files_are_accepted_or_refused_at_their_line_for_their_reason() {
    let files = export_files![
        "invalid-archive-missing.ndjson",
        "invalid-current-disagrees-with-state.ndjson",
        "invalid-current-missing.ndjson",
        "invalid-header-version.ndjson",
        "invalid-instance-twice.ndjson",
        "invalid-key-in-wrong-partition.ndjson",
        "invalid-key-not-canonical.ndjson",
        "invalid-latest-token-wrong.ndjson",
        "invalid-map-order.ndjson",
        "invalid-no-header.ndjson",
        "invalid-not-json.ndjson",
        "invalid-partition-name-width.ndjson",
        "invalid-reserved-map-name.ndjson",
        "invalid-sequence-wrong.ndjson",
        "invalid-state-missing.ndjson",
        "invalid-token-off-boundary.ndjson",
        "invalid-unknown-line.ndjson",
        "valid.ndjson",
    ];
    let index = cases(EXPORT_INDEX, "cases");
    assert_eq!(index.len(), files.len(), "every file of the index is compiled in here");
    for case in index {
        let name = s(&case["file"]).trim_start_matches("export/");
        let (_, text) = files.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not compiled in"));
        let expect = &case["expect"];
        match verify_export::verify(text.as_bytes()) {
            Ok(summary) => {
                assert_eq!(summary.maps, expect["maps"].as_u64().unwrap(), "{name}");
                assert_eq!(summary.instances, expect["instances"].as_u64().unwrap(), "{name}");
                assert_eq!(summary.entries, expect["entries"].as_u64().unwrap(), "{name}");
            }
            Err(e) => {
                let error = &expect["error"];
                assert!(!error.is_null(), "{name} was refused: {}", e.message);
                let line = error["line"].as_u64().unwrap();
                assert!(e.message.starts_with(&format!("line {line}: ")), "{name}: {}", e.message);
                assert!(e.message.ends_with(&format!("({})", s(&error["reason"]))), "{name}: {}", e.message);
            }
        }
    }
}
