//! The JavaScript face of the core, run in wasm (Node and headless Chromium): what the
//! bindings accept, what they return, and that every error is an `Error` named by its code.
#![cfg(target_arch = "wasm32")]

use attrmap::bindings::{self, PlacedSink};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// The code (the name) and message of a thrown value, after checking it is a real `Error`.
fn failure<T: std::fmt::Debug>(r: Result<T, attrmap::Error>) -> (String, String) {
    let e: JsValue = r.expect_err("expected an error").into();
    let err: &js_sys::Error = e.dyn_ref().expect("thrown value is an Error");
    (err.name().into(), err.message().into())
}

const HUNDRED: [f64; 2] = [1.0, 100.0];

/// A sink for `place_key` that keeps what it is told, and what it kept: `[hash, index, changed, start, end, lowercase]`.
fn sink() -> (PlacedSink, impl Fn(&PlacedSink) -> Vec<f64>) {
    let make = js_sys::Function::new_no_args("return { placed(...told) { this.told = told.map(Number); } }");
    let sink: PlacedSink = make.call0(&JsValue::NULL).unwrap().unchecked_into();
    let told = |sink: &PlacedSink| {
        let told = js_sys::Reflect::get(sink, &"told".into()).unwrap();
        js_sys::Array::from(&told).iter().map(|n| n.as_f64().unwrap()).collect()
    };
    (sink, told)
}

/// What `place_key` tells of `key` under 1000 partitions.
fn placed(key: &str, email: bool) -> Vec<f64> {
    let (sink, told) = sink();
    bindings::place_key(key, email, 1000.0, &sink).unwrap();
    told(&sink)
}

#[wasm_bindgen_test]
fn placing_a_key_tells_its_hash_and_index_then_how_it_becomes_canonical() {
    // " Alice@Example.COM ": keep 1..18, lowercased.
    assert_eq!(placed(" Alice@Example.COM ", true), [2493822278.0, 278.0, 1.0, 1.0, 18.0, 1.0]);
    assert_eq!(placed("alice@example.com", true), [2493822278.0, 278.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(placed("\talice@example.com", true), [2493822278.0, 278.0, 1.0, 1.0, 18.0, 0.0]);
    // FNV-1a of the bytes as they are, computed in Python.
    assert_eq!(placed(" Alice@Example.COM ", false), [3662800844.0, 844.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(bindings::partition_name(278.0, 1000.0).unwrap(), "partition-278");
    // A key that cannot be placed tells the sink nothing.
    let (untold, _) = sink();
    assert_eq!(failure(bindings::place_key("\u{a0}", true, 1000.0, &untold)).0, "invalid_email");
    assert!(js_sys::Reflect::get(&untold, &"told".into()).unwrap().is_undefined());
}

#[wasm_bindgen_test]
fn errors_are_errors_with_codes_and_spec_messages() {
    assert_eq!(
        failure(bindings::place_key("\u{a0}", true, 1000.0, &sink().0)),
        ("invalid_email".into(), "emailAddress must contain only ASCII characters".into())
    );
    assert_eq!(
        failure(bindings::place_key(" \u{0b} ", true, 1000.0, &sink().0)),
        ("invalid_email".into(), "emailAddress is required".into())
    );
    assert_eq!(
        failure(bindings::validate_page_token("00000000000000000100", &HUNDRED)),
        ("invalid_page_token".into(), "invalid page token \"00000000000000000100\"".into())
    );
}

#[wasm_bindgen_test]
fn numeric_arguments_are_checked_not_coerced() {
    for bad in [0.0, -1.0, 1000.5, f64::NAN, f64::INFINITY, 4294967296.0] {
        assert_eq!(failure(bindings::place_key("a@b", true, bad, &sink().0)).0, "invalid_argument", "{bad}");
        assert_eq!(failure(bindings::resolve_partition_count(Some(bad))).0, "invalid_argument", "{bad}");
        assert_eq!(failure(bindings::resolve_chunk_size(Some(bad))).0, "invalid_argument", "{bad}");
    }
    assert_eq!(bindings::resolve_partition_count(None).unwrap(), 1000);
    assert_eq!(bindings::resolve_chunk_size(None).unwrap(), 100);
    assert_eq!(failure(bindings::resolve_chunk_size(Some(1_000_001.0))).0, "invalid_argument");
    assert_eq!(failure(bindings::partition_name(1000.0, 1000.0)).0, "invalid_argument");
    assert_eq!(failure(bindings::partition_name(-0.5, 1000.0)).0, "invalid_argument");
}

#[wasm_bindgen_test]
fn archive_tokens_from_numbers_and_decimal_digits() {
    assert_eq!(bindings::archive_chunk_token(101.0).unwrap(), "00000000000000000101");
    assert_eq!(bindings::archive_chunk_token_of_decimal("99999999999999999901").unwrap(), "99999999999999999901");
    assert_eq!(failure(bindings::archive_chunk_token_of_decimal("100000000000000000000")).0, "invalid_argument");
    assert_eq!(failure(bindings::archive_chunk_token_of_decimal("-1")).0, "invalid_argument");
    // Numbers past 2^53 - 1 are not exact: the caller must say what they mean with a bigint.
    assert_eq!(failure(bindings::archive_chunk_token(9007199254740993.0)).0, "invalid_argument");
    assert_eq!(failure(bindings::archive_chunk_token(0.0)).0, "invalid_argument");
}

/// `[nextSequence, retainedFrom, 1, size]` for a log of one segment.
fn book(next: f64, size: f64) -> Vec<f64> {
    vec![next, 1.0, 1.0, size]
}

#[wasm_bindgen_test]
fn append_plans_cut_full_chunks_and_pages_name_the_older_one() {
    // Seven records into chunks of 3: 1..=3 and 4..=6 archived, 7 in current.
    assert_eq!(bindings::append_plan(&book(1.0, 3.0), "", 0.0, 7.0).unwrap(), vec![1.0, 8.0, 1.0, 3.0, 2.0]);
    assert_eq!(bindings::check_log(&book(8.0, 3.0), "00000000000000000004").unwrap(), vec![7.0, 1.0, 7.0, 2.0]);
    assert_eq!(
        bindings::page_next(&book(8.0, 3.0), "00000000000000000004", "", true, &[7.0], "subscriber").unwrap(),
        "00000000000000000004"
    );
    assert_eq!(
        bindings::page_next(&book(8.0, 3.0), "00000000000000000004", "00000000000000000004", true, &[4.0, 5.0, 6.0], "s")
            .unwrap(),
        "00000000000000000001"
    );
    let missing = bindings::page_next(&book(8.0, 3.0), "00000000000000000004", "00000000000000000004", false, &[], "subscriber");
    assert_eq!(failure(missing), ("not_found".into(), "subscriber page \"00000000000000000004\" not found".into()));
    assert_eq!(bindings::page_of_sequence(&book(8.0, 3.0), "00000000000000000004", 1.0).unwrap(), "00000000000000000001");
    assert_eq!(bindings::page_of_sequence(&book(8.0, 3.0), "00000000000000000004", 6.0).unwrap(), "00000000000000000004");
    assert_eq!(bindings::page_of_sequence(&book(8.0, 3.0), "00000000000000000004", 7.0).unwrap(), "current");
    assert_eq!(bindings::page_of_sequence(&book(8.0, 3.0), "00000000000000000004", 8.0).unwrap(), "");
}

#[wasm_bindgen_test]
fn stored_bookkeeping_and_chunks_that_break_the_rules_are_corrupt() {
    assert_eq!(failure(bindings::check_log(&book(8.0, 3.0), "")).0, "corrupt_data");
    assert_eq!(failure(bindings::check_log(&[f64::NAN, 1.0, 1.0, 3.0], "")).0, "corrupt_data");
    assert_eq!(failure(bindings::check_log(&[1.0, 1.0, 1.0, 0.0], "")).0, "corrupt_data");
    assert_eq!(failure(bindings::check_log(&[1.0], "")).0, "corrupt_data");
    assert_eq!(failure(bindings::append_plan(&book(8.0, 3.0), "00000000000000000004", 3.0, 1.0)).0, "corrupt_data");
    let (code, message) = failure(bindings::page_next(
        &book(8.0, 3.0),
        "00000000000000000004",
        "00000000000000000001",
        true,
        &[3.0, 2.0, 1.0],
        "s",
    ));
    assert_eq!(code, "corrupt_data");
    assert!(message.starts_with("s page \"00000000000000000001\": record 0 has sequence 3"), "{message}");
}

#[wasm_bindgen_test]
fn chunk_size_changes_and_retention() {
    // Five records in chunks of 3: current holds 4, 5; a change to 10 archives it short.
    let out = bindings::chunk_size_change(&book(6.0, 3.0), "00000000000000000001", 2.0, 10.0).unwrap();
    assert_eq!(out, vec![1.0, 4.0, 2.0, 1.0, 3.0, 6.0, 10.0]);
    assert_eq!(bindings::chunk_size_change(&book(6.0, 3.0), "00000000000000000001", 2.0, 3.0).unwrap()[0], 0.0);
    let after = [6.0, 1.0, 1.0, 3.0, 6.0, 10.0];
    assert_eq!(
        bindings::page_next(&after, "00000000000000000004", "00000000000000000004", true, &[4.0, 5.0], "s").unwrap(),
        "00000000000000000001"
    );
    assert_eq!(bindings::drop_plan(&after, "00000000000000000004", "00000000000000000004", "s").unwrap(), vec![4.0, 1.0, 1.0]);
    assert_eq!(failure(bindings::drop_plan(&after, "00000000000000000004", "00000000000000000006", "s")).0, "not_found");
}

#[wasm_bindgen_test]
fn required_subscriber_fields_in_order() {
    assert_eq!(
        failure(bindings::check_subscriber_fields(0.0, 0.0)),
        ("invalid_argument".into(), "subscriberId is required".into())
    );
    assert_eq!(failure(bindings::check_subscriber_fields(1.0, 0.0)).1, "deliveryAddress is required");
    assert!(bindings::check_subscriber_fields(1.0, 1.0).is_ok());
}

/// The module's allocator (src/heap.rs) reuses what a call frees: hundreds of batch calls
/// of mixed sizes leave the memory where the first calls of the largest size left it.
#[wasm_bindgen_test]
fn memory_freed_by_a_call_is_reused_by_the_next() {
    let mut bytes = Vec::new();
    let mut ends = Vec::new();
    for i in 0..50_000u32 {
        bytes.extend_from_slice(format!("user{i}@example.com").as_bytes());
        ends.push(bytes.len() as u32);
    }
    let call = |keys: usize| {
        let indexes = bindings::partition_indexes(&bytes[..ends[keys - 1] as usize], &ends[..keys], 1000.0).unwrap();
        assert_eq!(indexes.len(), keys);
    };
    for _ in 0..5 {
        call(ends.len());
    }
    let settled = core::arch::wasm32::memory_size::<0>();
    for round in 0..300 {
        call([ends.len(), 1, 7_919, 30_001, 123][round % 5]);
    }
    assert_eq!(core::arch::wasm32::memory_size::<0>(), settled, "pages of 64 KiB");
}
