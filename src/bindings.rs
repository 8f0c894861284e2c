//! The only module that knows JavaScript. It converts arguments, calls the core, and turns
//! core errors into JS `Error`s carrying a stable `code` (the TypeScript layer rethrows
//! them as the package's `AttrmapError`).

use js_sys::{BigInt, Object, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::chunk::{self, ChunkSize, LogState};
use crate::error::{out_of_range, Error, ErrorCode};
use crate::partition::{self, EmailPartition, PartitionCount};
use crate::profile::CustomerProfile;
use crate::subscriber::NewSubscriber;
use crate::token::{self, PageToken, MAX_TOKEN_VALUE};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Where one email lives. */
export interface EmailPartition {
  canonicalEmail: string;
  /** 32-bit FNV-1a of the canonical email, unsigned. */
  hash: number;
  partitionIndex: number;
  partitionName: string;
}
/** Where one canonical key lives. */
export interface KeyPartition {
  hash: number;
  partitionIndex: number;
  partitionName: string;
}
/** A customer profile as stored: emailAddress is canonical. */
export interface CustomerProfile {
  emailAddress: string;
  fullName: string;
  companyName: string;
  customerTier: string;
}
/** A profile ready to store, and where. */
export interface PlacedCustomerProfile extends EmailPartition {
  profile: CustomerProfile;
}
/** The chunked log's state record. */
export interface LogState {
  nextSequence: number;
  latestArchivedChunkToken: string;
}
export interface NewSubscriber {
  subscriberId: string;
  deliveryAddress: string;
}
export interface Subscriber {
  sequence: number;
  subscriberId: string;
  deliveryAddress: string;
}
/** A record of a generic chunked log. */
export interface LogRecord<V = unknown> {
  sequence: number;
  value: V;
}
/** Every write of one append call; store them in one transaction. */
export interface LogAppend<R> {
  /** The new records, oldest first. */
  records: R[];
  current: R[];
  /** Chunks that filled up, oldest first, each to be stored under its token. */
  archived: { token: string; records: R[] }[];
  state: LogState;
}
export interface LogPage<R> {
  /** "current" or the 20-digit token of the page. */
  pageToken: string;
  /** Newest first. */
  records: R[];
  /** Token of the next older page, or "" when this is the oldest. */
  nextPageToken: string;
}
"#;

fn js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    // Setting a data property on a fresh Error cannot fail.
    let _ = Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code.as_str()));
    err.into()
}

type JsResult<T> = Result<T, JsValue>;

fn to_js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    // json_compatible: `None` becomes null and maps become plain objects.
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error(Error::new(ErrorCode::InvalidArgument, e.to_string())))
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue, code: ErrorCode, what: &str) -> JsResult<T> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        let detail: String = js_sys::Error::from(JsValue::from(e)).message().into();
        js_error(Error::new(code, format!("{what}: {detail}")))
    })
}

/// A whole number from 1 to u32::MAX, or the default when absent.
fn count_arg(name: &str, value: Option<f64>, default: u32) -> Result<u32, Error> {
    match value {
        None => Ok(default),
        Some(v) if v.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&v) => Ok(v as u32),
        Some(v) => Err(out_of_range(name, u32::MAX, v)),
    }
}

fn partition_count(value: Option<f64>) -> Result<PartitionCount, Error> {
    PartitionCount::new(count_arg("partitionCount", value, partition::DEFAULT_PARTITION_COUNT)?)
}

fn chunk_size(value: Option<f64>) -> Result<ChunkSize, Error> {
    ChunkSize::new(count_arg("chunkSize", value, chunk::DEFAULT_CHUNK_SIZE)?)
}

#[wasm_bindgen(js_name = canonicalEmailAddress)]
pub fn canonical_email_address(email: &str) -> JsResult<String> {
    crate::email::canonical_email_address(email).map_err(js_error)
}

#[wasm_bindgen(js_name = fnv1a32)]
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    crate::fnv::fnv1a32(bytes)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EmailPartitionOut {
    canonical_email: String,
    hash: u32,
    partition_index: u32,
    partition_name: String,
}

impl From<EmailPartition> for EmailPartitionOut {
    fn from(p: EmailPartition) -> Self {
        EmailPartitionOut {
            canonical_email: p.canonical_email,
            hash: p.hash,
            partition_index: p.index,
            partition_name: p.partition_name,
        }
    }
}

#[wasm_bindgen(js_name = emailPartition, unchecked_return_type = "EmailPartition")]
pub fn email_partition(
    email: &str,
    #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>,
) -> JsResult<JsValue> {
    let p = partition::email_partition(email, partition_count(partition_count_arg).map_err(js_error)?).map_err(js_error)?;
    to_js(&EmailPartitionOut::from(p))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyPartitionOut {
    hash: u32,
    partition_index: u32,
    partition_name: String,
}

/// The partition of a key that the caller has already canonicalized.
#[wasm_bindgen(js_name = keyPartition, unchecked_return_type = "KeyPartition")]
pub fn key_partition(
    #[wasm_bindgen(js_name = canonicalKey)] canonical_key: &str,
    #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>,
) -> JsResult<JsValue> {
    let p = partition::key_partition(canonical_key, partition_count(partition_count_arg).map_err(js_error)?);
    to_js(&KeyPartitionOut { hash: p.hash, partition_index: p.index, partition_name: p.partition_name })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlacedProfileOut {
    profile: CustomerProfile,
    #[serde(flatten)]
    place: EmailPartitionOut,
}

/// Checks a customer profile, canonicalizes its email and names its partition.
#[wasm_bindgen(js_name = placeCustomerProfile, unchecked_return_type = "PlacedCustomerProfile")]
pub fn place_customer_profile(
    #[wasm_bindgen(unchecked_param_type = "Partial<CustomerProfile>")] input: JsValue,
    #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>,
) -> JsResult<JsValue> {
    let count = partition_count(partition_count_arg).map_err(js_error)?;
    let input: CustomerProfile = from_js(input, ErrorCode::InvalidArgument, "customer profile")?;
    let (profile, p) = input.place(count).map_err(js_error)?;
    to_js(&PlacedProfileOut { profile, place: p.into() })
}

#[wasm_bindgen(js_name = partitionName)]
pub fn partition_name(
    index: f64,
    #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>,
) -> JsResult<String> {
    let count = partition_count(partition_count_arg).map_err(js_error)?;
    let max = count.get() - 1;
    if index.fract() != 0.0 || !(0.0..=f64::from(max)).contains(&index) {
        let msg = format!("partition index must be an integer from 0 to {max}, got {index}");
        return Err(js_error(Error::new(ErrorCode::InvalidArgument, msg)));
    }
    Ok(count.name_of(index as u32))
}

#[wasm_bindgen(js_name = validatePageToken)]
pub fn validate_page_token(token: &str, #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>) -> JsResult<String> {
    let size = chunk_size(chunk_size_arg).map_err(js_error)?;
    token::validate_page_token(token, size).map(PageToken::to_token_string).map_err(js_error)
}

/// Accepts a safe-integer number or a bigint, so every 20-digit value can be formatted.
#[wasm_bindgen(js_name = archiveChunkToken)]
pub fn archive_chunk_token(
    #[wasm_bindgen(js_name = firstSequence, unchecked_param_type = "number | bigint")] first_sequence: JsValue,
) -> JsResult<String> {
    let value: u128 = if let Some(n) = first_sequence.as_f64() {
        if n.fract() != 0.0 || n.abs() > chunk::MAX_SEQUENCE as f64 {
            let msg = format!("firstSequence must be a safe integer or a bigint, got {n}");
            return Err(js_error(Error::new(ErrorCode::InvalidArgument, msg)));
        }
        if n < 1.0 {
            return Err(js_error(out_of_range("firstSequence", MAX_TOKEN_VALUE, n)));
        }
        n as u128
    } else if first_sequence.is_bigint() {
        let text: String = BigInt::from(first_sequence).to_string(10).map(String::from).unwrap_or_default();
        text.parse().map_err(|_| js_error(out_of_range("firstSequence", MAX_TOKEN_VALUE, &text)))?
    } else {
        let msg = "firstSequence must be a number or a bigint";
        return Err(js_error(Error::new(ErrorCode::InvalidArgument, msg)));
    };
    token::archive_chunk_token(value).map_err(js_error)
}

/// A JS value carried through the core untouched (records of a generic log).
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
struct Js(#[serde(with = "serde_wasm_bindgen::preserve")] JsValue);

fn log_state(state: JsValue) -> JsResult<LogState> {
    Ok(from_js::<Option<LogState>>(state, ErrorCode::CorruptData, "stored log state")?.unwrap_or_default())
}

fn stored_chunk<R: for<'de> Deserialize<'de>>(chunk: JsValue) -> JsResult<Option<Vec<R>>> {
    from_js(chunk, ErrorCode::CorruptData, "stored chunk")
}

#[derive(Serialize)]
struct ArchivedOut<R> {
    token: String,
    records: Vec<R>,
}

#[derive(Serialize)]
struct AppendOut<R> {
    records: Vec<R>,
    current: Vec<R>,
    archived: Vec<ArchivedOut<R>>,
    state: LogState,
}

/// Runs the core's append over JS arguments; the same path serves every record type.
fn append_js<T, R: Serialize + Clone + for<'de> Deserialize<'de>>(
    state: JsValue,
    current: JsValue,
    items: Vec<T>,
    chunk_size_arg: Option<f64>,
    make: impl FnMut(u64, T) -> R,
) -> JsResult<JsValue> {
    let size = chunk_size(chunk_size_arg).map_err(js_error)?;
    let state = log_state(state)?;
    let current: Vec<R> = stored_chunk(current)?.unwrap_or_default();
    let a = chunk::append(size, &state, current, items, make).map_err(js_error)?;
    // The new records are the last `count` of the archived chunks and current, in order.
    let all = a.archived.iter().flat_map(|c| c.records.iter()).chain(a.current.iter());
    let total = a.archived.iter().map(|c| c.records.len()).sum::<usize>() + a.current.len();
    let records = all.skip(total - a.count as usize).cloned().collect();
    to_js(&AppendOut {
        records,
        current: a.current,
        archived: a.archived.into_iter().map(|c| ArchivedOut { token: c.token, records: c.records }).collect(),
        state: a.state,
    })
}

/// Register steps of the subscriber archive: validates every input, then returns every
/// write to make. Nothing is returned if any input is invalid.
#[wasm_bindgen(js_name = appendSubscribers, unchecked_return_type = "LogAppend<Subscriber>")]
pub fn append_subscribers(
    #[wasm_bindgen(unchecked_param_type = "LogState | undefined")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Subscriber[] | undefined")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "NewSubscriber[]")] inputs: JsValue,
    #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>,
) -> JsResult<JsValue> {
    let inputs: Vec<NewSubscriber> = from_js(inputs, ErrorCode::InvalidArgument, "subscriber")?;
    for input in &inputs {
        input.validate().map_err(js_error)?;
    }
    append_js(state, current, inputs, chunk_size_arg, |seq, input| input.with_sequence(seq))
}

/// Appends to a generic chunked log: each value is stored as `{sequence, value}`.
#[wasm_bindgen(js_name = appendLogRecords, unchecked_return_type = "LogAppend<LogRecord>")]
pub fn append_log_records(
    #[wasm_bindgen(unchecked_param_type = "LogState | undefined")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LogRecord[] | undefined")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] values: Vec<JsValue>,
    #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>,
) -> JsResult<JsValue> {
    append_js(state, current, values, chunk_size_arg, |seq, value| {
        let record = Object::new();
        // Setting data properties on a fresh plain object cannot fail.
        let _ = Reflect::set(&record, &JsValue::from_str("sequence"), &JsValue::from_f64(seq as f64));
        let _ = Reflect::set(&record, &JsValue::from_str("value"), &value);
        Js(record.into())
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageOut<R> {
    page_token: String,
    records: Vec<R>,
    next_page_token: String,
}

fn sequence_of(record: &Js) -> Option<u64> {
    let n = Reflect::get(&record.0, &JsValue::from_str("sequence")).ok()?.as_f64()?;
    (n.fract() == 0.0 && (1.0..=chunk::MAX_SEQUENCE as f64).contains(&n)).then_some(n as u64)
}

/// Assembles the page for `token` from the one chunk read for it (`undefined` when not
/// stored), records newest first. `noun` names the records in the not-found message.
#[wasm_bindgen(js_name = logPage, unchecked_return_type = "LogPage<unknown>")]
pub fn log_page(
    token: &str,
    #[wasm_bindgen(unchecked_param_type = "{ sequence: number }[] | undefined")] chunk: JsValue,
    #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>,
    noun: &str,
) -> JsResult<JsValue> {
    let size = chunk_size(chunk_size_arg).map_err(js_error)?;
    let token = token::validate_page_token(token, size).map_err(js_error)?;
    let p = chunk::page(size, token, stored_chunk::<Js>(chunk)?, sequence_of, noun).map_err(js_error)?;
    to_js(&PageOut { page_token: p.page_token, records: p.records, next_page_token: p.next_page_token })
}
