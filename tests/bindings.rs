//! The JavaScript face of the core, run in wasm (Node and headless Chromium): what the
//! bindings accept, what they return, and that every error is an `Error` with a `code`.
#![cfg(target_arch = "wasm32")]

use attrmap::bindings;
use js_sys::{Array, BigInt, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

/// The code and message of a thrown value, after checking it is a real `Error`.
fn failure<T: std::fmt::Debug>(r: Result<T, JsValue>) -> (String, String) {
    let e = r.expect_err("expected an error");
    let err: &js_sys::Error = e.dyn_ref().expect("thrown value is an Error");
    (get(&e, "code").as_string().expect("code is a string"), err.message().into())
}

fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    o.into()
}

#[wasm_bindgen_test]
fn email_partition_returns_a_plain_object() {
    let p = bindings::email_partition(" Alice@Example.COM ", None).unwrap();
    assert_eq!(get(&p, "canonicalEmail").as_string().unwrap(), "alice@example.com");
    assert_eq!(get(&p, "hash").as_f64().unwrap(), 2493822278.0);
    assert_eq!(get(&p, "partitionIndex").as_f64().unwrap(), 278.0);
    assert_eq!(get(&p, "partitionName").as_string().unwrap(), "partition-278");
    let q = bindings::email_partition("bob@example.com", Some(16.0)).unwrap();
    assert_eq!(get(&q, "partitionName").as_string().unwrap(), format!("partition-{:02}", 3055529145u32 % 16));
}

#[wasm_bindgen_test]
fn errors_are_errors_with_codes_and_spec_messages() {
    assert_eq!(
        failure(bindings::canonical_email_address("\u{a0}")),
        ("invalid_email".into(), "emailAddress must contain only ASCII characters".into())
    );
    assert_eq!(
        failure(bindings::canonical_email_address(" \u{0b} ")),
        ("invalid_email".into(), "emailAddress is required".into())
    );
    assert_eq!(
        failure(bindings::validate_page_token("00000000000000000100", None)),
        ("invalid_page_token".into(), "invalid page token \"00000000000000000100\"".into())
    );
}

#[wasm_bindgen_test]
fn numeric_arguments_are_checked_not_coerced() {
    for bad in [0.0, -1.0, 1000.5, f64::NAN, f64::INFINITY, 4294967296.0] {
        assert_eq!(failure(bindings::email_partition("a@b", Some(bad))).0, "invalid_argument", "{bad}");
        assert_eq!(failure(bindings::validate_page_token("", Some(bad))).0, "invalid_argument", "{bad}");
    }
    assert_eq!(bindings::partition_name(999.0, None).unwrap(), "partition-999");
    assert_eq!(failure(bindings::partition_name(1000.0, None)).0, "invalid_argument");
    assert_eq!(failure(bindings::partition_name(-0.5, None)).0, "invalid_argument");
}

#[wasm_bindgen_test]
fn archive_tokens_from_numbers_and_bigints() {
    assert_eq!(bindings::archive_chunk_token(JsValue::from_f64(101.0)).unwrap(), "00000000000000000101");
    let big = BigInt::new(&JsValue::from_str("99999999999999999901")).unwrap();
    assert_eq!(bindings::archive_chunk_token(big.into()).unwrap(), "99999999999999999901");
    let too_big = BigInt::new(&JsValue::from_str("100000000000000000000")).unwrap();
    assert_eq!(failure(bindings::archive_chunk_token(too_big.into())).0, "invalid_argument");
    let negative = BigInt::new(&JsValue::from_str("-1")).unwrap();
    assert_eq!(failure(bindings::archive_chunk_token(negative.into())).0, "invalid_argument");
    // Numbers past 2^53 - 1 are not exact: the caller must say what they mean with a bigint.
    assert_eq!(failure(bindings::archive_chunk_token(JsValue::from_f64(9007199254740993.0))).0, "invalid_argument");
    assert_eq!(failure(bindings::archive_chunk_token(JsValue::from_str("101"))).0, "invalid_argument");
}

fn array(items: Vec<JsValue>) -> JsValue {
    items.into_iter().collect::<Array>().into()
}

fn sub(i: u32) -> JsValue {
    obj(&[("subscriberId", format!("s{i}").into()), ("deliveryAddress", "a@b".into())])
}

#[wasm_bindgen_test]
fn append_and_page_through_js_values() {
    let (mut state, mut current) = (JsValue::UNDEFINED, JsValue::UNDEFINED);
    let mut archived = vec![];
    for i in 1..=5 {
        let step = bindings::append_subscribers(state, current, array(vec![sub(i)]), Some(2.0)).unwrap();
        let records: Array = get(&step, "records").dyn_into().unwrap();
        assert_eq!(get(&records.get(0), "sequence").as_f64().unwrap(), f64::from(i));
        let a: Array = get(&step, "archived").dyn_into().unwrap();
        archived.extend(a.iter().map(|c| get(&c, "token").as_string().unwrap()));
        state = get(&step, "state");
        current = get(&step, "current");
    }
    assert_eq!(archived, ["00000000000000000001", "00000000000000000003"]);
    assert_eq!(get(&state, "latestArchivedChunkToken").as_string().unwrap(), "00000000000000000003");
    let page = bindings::log_page("", current, Some(2.0), "subscriber").unwrap();
    assert_eq!(get(&page, "pageToken").as_string().unwrap(), "current");
    assert_eq!(get(&page, "nextPageToken").as_string().unwrap(), "00000000000000000003");
    let subs: Array = get(&page, "records").dyn_into().unwrap();
    assert_eq!(subs.length(), 1);
    let missing = bindings::log_page("00000000000000000003", JsValue::UNDEFINED, Some(2.0), "subscriber");
    assert_eq!(failure(missing), ("not_found".into(), "subscriber page \"00000000000000000003\" not found".into()));
}

#[wasm_bindgen_test]
fn a_batch_returns_its_records_in_order_across_rollovers() {
    let step = bindings::append_subscribers(JsValue::UNDEFINED, JsValue::UNDEFINED, array((1..=7).map(sub).collect()), Some(3.0))
        .unwrap();
    let records: Array = get(&step, "records").dyn_into().unwrap();
    let seqs: Vec<f64> = records.iter().map(|r| get(&r, "sequence").as_f64().unwrap()).collect();
    assert_eq!(seqs, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let archived: Array = get(&step, "archived").dyn_into().unwrap();
    assert_eq!(archived.length(), 2);
    // One bad input refuses the whole batch.
    let bad = array(vec![sub(1), obj(&[("subscriberId", "x".into())])]);
    assert_eq!(
        failure(bindings::append_subscribers(JsValue::UNDEFINED, JsValue::UNDEFINED, bad, None)).1,
        "deliveryAddress is required"
    );
}

#[wasm_bindgen_test]
fn generic_log_records_carry_any_value_untouched() {
    let value = obj(&[("kept", true.into())]);
    let values = vec![JsValue::from_str("text"), value.clone(), JsValue::NULL];
    let step = bindings::append_log_records(JsValue::UNDEFINED, JsValue::UNDEFINED, values, Some(2.0)).unwrap();
    let archived: Array = get(&step, "archived").dyn_into().unwrap();
    let first_chunk: Array = get(&archived.get(0), "records").dyn_into().unwrap();
    assert_eq!(get(&first_chunk.get(0), "value").as_string().unwrap(), "text");
    // The very same object, not a copy.
    assert!(Object::is(&get(&first_chunk.get(1), "value"), &value));
    let current = get(&step, "current");
    let page = bindings::log_page("current", current, Some(2.0), "events").unwrap();
    assert_eq!(get(&page, "nextPageToken").as_string().unwrap(), "00000000000000000001");
    let records: Array = get(&page, "records").dyn_into().unwrap();
    assert!(get(&records.get(0), "value").is_null());
}

#[wasm_bindgen_test]
fn profiles_are_placed_with_a_canonical_email() {
    let input = obj(&[("emailAddress", " Alice@Example.COM ".into()), ("fullName", "<b>Alice</b>".into()), ("extra", 1.into())]);
    let placed = bindings::place_customer_profile(input, None).unwrap();
    let profile = get(&placed, "profile");
    assert_eq!(get(&profile, "emailAddress").as_string().unwrap(), "alice@example.com");
    assert_eq!(get(&profile, "fullName").as_string().unwrap(), "<b>Alice</b>");
    assert_eq!(get(&profile, "companyName").as_string().unwrap(), "");
    assert!(get(&profile, "extra").is_undefined());
    assert_eq!(get(&placed, "partitionName").as_string().unwrap(), "partition-278");
    let no_email = obj(&[("fullName", "x".into())]);
    assert_eq!(
        failure(bindings::place_customer_profile(no_email, None)),
        ("invalid_email".into(), "emailAddress is required".into())
    );
    let wrong_type = obj(&[("emailAddress", "a@b".into()), ("fullName", 5.into())]);
    assert_eq!(failure(bindings::place_customer_profile(wrong_type, None)).0, "invalid_argument");
    let key = bindings::key_partition("alice@example.com", None).unwrap();
    assert_eq!(get(&key, "partitionName").as_string().unwrap(), "partition-278");
}

#[wasm_bindgen_test]
fn bad_input_and_bad_stored_data_are_told_apart() {
    let missing_id = array(vec![obj(&[("deliveryAddress", "x".into())])]);
    assert_eq!(
        failure(bindings::append_subscribers(JsValue::UNDEFINED, JsValue::UNDEFINED, missing_id, None)),
        ("invalid_argument".into(), "subscriberId is required".into())
    );
    let wrong_type = array(vec![obj(&[("subscriberId", 5.into()), ("deliveryAddress", "x".into())])]);
    assert_eq!(
        failure(bindings::append_subscribers(JsValue::UNDEFINED, JsValue::UNDEFINED, wrong_type, None)).0,
        "invalid_argument"
    );
    let corrupt_state = obj(&[("nextSequence", "one".into())]);
    assert_eq!(
        failure(bindings::append_subscribers(corrupt_state, JsValue::UNDEFINED, array(vec![sub(1)]), None)).0,
        "corrupt_data"
    );
    let corrupt_chunk = JsValue::from_str("not an array");
    assert_eq!(failure(bindings::log_page("current", corrupt_chunk, None, "log")).0, "corrupt_data");
}
