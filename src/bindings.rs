//! The only module that knows JavaScript. It converts arguments, calls the core, and turns
//! core errors into JS `Error`s carrying a stable `code` (the TypeScript layer rethrows
//! them as the package's `AttrmapError`).

use js_sys::{BigInt, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::chunk::{self, ChunkSize, LogState};
use crate::error::{out_of_range, Error, ErrorCode};
use crate::partition::{self, PartitionCount};
use crate::subscriber::{NewSubscriber, Subscriber};
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
/** Every write of one register step; store them in one transaction. */
export interface SubscriberAppend {
  subscriber: Subscriber;
  current: Subscriber[];
  archived: { token: string; subscribers: Subscriber[] } | null;
  state: LogState;
}
export interface SubscriberPage {
  pageToken: string;
  /** Newest first. */
  subscribers: Subscriber[];
  /** Token of the next older page, or "" when this is the oldest. */
  nextPageToken: string;
}
"#;

const SUBSCRIBER_NOUN: &str = "subscriber";

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

#[wasm_bindgen(js_name = emailPartition, unchecked_return_type = "EmailPartition")]
pub fn email_partition(email: &str, #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>) -> JsResult<JsValue> {
    let p = partition::email_partition(email, partition_count(partition_count_arg).map_err(js_error)?).map_err(js_error)?;
    to_js(&EmailPartitionOut {
        canonical_email: p.canonical_email,
        hash: p.hash,
        partition_index: p.index,
        partition_name: p.partition_name,
    })
}

#[wasm_bindgen(js_name = partitionName)]
pub fn partition_name(index: f64, #[wasm_bindgen(js_name = partitionCount)] partition_count_arg: Option<f64>) -> JsResult<String> {
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
pub fn archive_chunk_token(#[wasm_bindgen(js_name = firstSequence, unchecked_param_type = "number | bigint")] first_sequence: JsValue) -> JsResult<String> {
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

fn log_state(state: JsValue) -> JsResult<LogState> {
    Ok(from_js::<Option<LogState>>(state, ErrorCode::CorruptData, "stored log state")?.unwrap_or_default())
}

fn stored_chunk(chunk: JsValue) -> JsResult<Option<Vec<Subscriber>>> {
    from_js(chunk, ErrorCode::CorruptData, "stored subscriber chunk")
}

#[derive(Serialize)]
struct ArchivedOut {
    token: String,
    subscribers: Vec<Subscriber>,
}

#[derive(Serialize)]
struct AppendOut {
    subscriber: Subscriber,
    current: Vec<Subscriber>,
    archived: Option<ArchivedOut>,
    state: LogState,
}

/// One register step: validates the input and returns every write to make.
#[wasm_bindgen(js_name = appendSubscriber, unchecked_return_type = "SubscriberAppend")]
pub fn append_subscriber(
    #[wasm_bindgen(unchecked_param_type = "LogState | undefined")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Subscriber[] | undefined")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "NewSubscriber")] input: JsValue,
    #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>,
) -> JsResult<JsValue> {
    let input: NewSubscriber = from_js(input, ErrorCode::InvalidArgument, "subscriber")?;
    input.validate().map_err(js_error)?;
    let size = chunk_size(chunk_size_arg).map_err(js_error)?;
    let state = log_state(state)?;
    let current = stored_chunk(current)?.unwrap_or_default();
    let a = chunk::append(size, &state, current, |seq| input.with_sequence(seq)).map_err(js_error)?;
    let subscriber = a.current.last().cloned().expect("append always leaves the new record last");
    to_js(&AppendOut {
        subscriber,
        current: a.current,
        archived: a.archived.map(|c| ArchivedOut { token: c.token, subscribers: c.records }),
        state: a.state,
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageOut {
    page_token: String,
    subscribers: Vec<Subscriber>,
    next_page_token: String,
}

/// Assembles a page from the one chunk read for `token` (`undefined` when not stored).
#[wasm_bindgen(js_name = subscriberPage, unchecked_return_type = "SubscriberPage")]
pub fn subscriber_page(
    token: &str,
    #[wasm_bindgen(unchecked_param_type = "Subscriber[] | undefined")] chunk: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LogState | undefined")] state: JsValue,
    #[wasm_bindgen(js_name = chunkSize)] chunk_size_arg: Option<f64>,
) -> JsResult<JsValue> {
    let size = chunk_size(chunk_size_arg).map_err(js_error)?;
    let token = token::validate_page_token(token, size).map_err(js_error)?;
    let p = chunk::page(size, token, stored_chunk(chunk)?, &log_state(state)?, SUBSCRIBER_NOUN).map_err(js_error)?;
    to_js(&PageOut { page_token: p.page_token, subscribers: p.records, next_page_token: p.next_page_token })
}
