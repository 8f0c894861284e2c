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
    assert_eq!(failure(bindings::canonical_email_address("\u{a0}")), ("invalid_email".into(), "emailAddress must contain only ASCII characters".into()));
    assert_eq!(failure(bindings::canonical_email_address(" \u{0b} ")), ("invalid_email".into(), "emailAddress is required".into()));
    assert_eq!(failure(bindings::validate_page_token("00000000000000000100", None)), ("invalid_page_token".into(), "invalid page token \"00000000000000000100\"".into()));
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

#[wasm_bindgen_test]
fn append_and_page_through_js_values() {
    let (mut state, mut current) = (JsValue::UNDEFINED, JsValue::UNDEFINED);
    let mut archived = vec![];
    for i in 1..=5 {
        let input = obj(&[("subscriberId", format!("s{i}").into()), ("deliveryAddress", "a@b".into())]);
        let step = bindings::append_subscriber(state, current, input, Some(2.0)).unwrap();
        assert_eq!(get(&get(&step, "subscriber"), "sequence").as_f64().unwrap(), f64::from(i));
        let a = get(&step, "archived");
        if !a.is_null() {
            archived.push(get(&a, "token").as_string().unwrap());
        }
        state = get(&step, "state");
        current = get(&step, "current");
    }
    assert_eq!(archived, ["00000000000000000001", "00000000000000000003"]);
    let page = bindings::subscriber_page("", current, state.clone(), Some(2.0)).unwrap();
    assert_eq!(get(&page, "pageToken").as_string().unwrap(), "current");
    assert_eq!(get(&page, "nextPageToken").as_string().unwrap(), "00000000000000000003");
    let subs: Array = get(&page, "subscribers").dyn_into().unwrap();
    assert_eq!(subs.length(), 1);
    let missing = bindings::subscriber_page("00000000000000000003", JsValue::UNDEFINED, state, Some(2.0));
    assert_eq!(failure(missing), ("not_found".into(), "subscriber page \"00000000000000000003\" not found".into()));
}

#[wasm_bindgen_test]
fn bad_input_and_bad_stored_data_are_told_apart() {
    let missing_id = obj(&[("deliveryAddress", "x".into())]);
    assert_eq!(
        failure(bindings::append_subscriber(JsValue::UNDEFINED, JsValue::UNDEFINED, missing_id, None)),
        ("invalid_argument".into(), "subscriberId is required".into())
    );
    let wrong_type = obj(&[("subscriberId", 5.into()), ("deliveryAddress", "x".into())]);
    assert_eq!(failure(bindings::append_subscriber(JsValue::UNDEFINED, JsValue::UNDEFINED, wrong_type, None)).0, "invalid_argument");
    let good = obj(&[("subscriberId", "s".into()), ("deliveryAddress", "x".into())]);
    let corrupt_state = obj(&[("nextSequence", "one".into())]);
    assert_eq!(failure(bindings::append_subscriber(corrupt_state, JsValue::UNDEFINED, good, None)).0, "corrupt_data");
}
