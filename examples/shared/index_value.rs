//! A value of the conformance vectors' index cases (`{kind: payload}`, tests/conformance/index.json)
//! as the core's `IndexValue`: read by the crate's vector test and by its conformance testee.

use attrmap::{Error, IndexValue};
use serde_json::Value;

/// The vector value `v`; a value the core refuses is its error, a malformed one `invalid_argument`.
pub fn index_value(v: &Value) -> Result<IndexValue, Error> {
    let malformed = || Error::invalid_argument("the request's input has no valid value");
    let (kind, payload) = v.as_object().filter(|o| o.len() == 1).and_then(|o| o.iter().next()).ok_or_else(malformed)?;
    let number = || payload.as_f64().ok_or_else(malformed);
    Ok(match kind.as_str() {
        "null" => IndexValue::Null,
        "boolean" => IndexValue::Boolean(payload.as_bool().ok_or_else(malformed)?),
        "number" => IndexValue::number("value", number()?)?,
        "date" => IndexValue::date("value", number()?)?,
        "string" => IndexValue::Text(payload.as_str().ok_or_else(malformed)?.encode_utf16().collect()),
        "stringUtf16" => {
            let units = payload.as_array().ok_or_else(malformed)?.iter();
            IndexValue::Text(
                units.map(|u| u.as_u64().and_then(|u| u16::try_from(u).ok())).collect::<Option<_>>().ok_or_else(malformed)?,
            )
        }
        "compound" => {
            let elements = payload.as_array().ok_or_else(malformed)?.iter().map(index_value);
            IndexValue::compound("value", elements.collect::<Result<_, _>>()?)?
        }
        _ => return Err(malformed()),
    })
}
