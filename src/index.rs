//! Cross-field search: the values an index holds, and where each lives in the engine's layout.
//!
//! An index of a partitioned map, moved to the engine, is itself a hash-partitioned map: the
//! instance `partition-NNN` named by FNV-1a of an index value's canonical text (its UTF-8
//! bytes, modulo the partition count) holds a dictionary from that text to the keys that have
//! the value. The canonical text is JSON (docs/indexes.md): what JavaScript's `JSON.stringify`
//! writes for strings, `null`, booleans, safe integers and arrays, so that a server reads it with
//! any JSON parser; a date and a number that is not a safe integer are objects of one member,
//! written with integer arithmetic alone (no decimal formatting of fractions that two
//! languages could round apart).

use crate::error::{Error, Result};
use crate::layout::{describe_number, is_whole, PartitionCount};
use crate::partition::{key_partition, KeyPartition};
use crate::prelude::*;
use crate::text::{text, zero_padded};

/// Largest integer every SDK's number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// A date's time value is at most this many milliseconds either side of 1970 (ECMAScript's TimeClip).
const MAX_TIME_VALUE: f64 = 8.64e15;
/// Most elements of a compound value (and paths of a compound key path).
pub const MAX_COMPOUND_LENGTH: usize = 16;

/// One value an index holds: what a key path found, when it is indexable.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexValue {
    Null,
    Boolean(bool),
    /// Finite; -0 is 0.
    Number(f64),
    /// Milliseconds since 1970-01-01T00:00:00Z, a whole number within TimeClip's range.
    Date(f64),
    /// UTF-16 code units, as JavaScript holds a string (lone surrogates included).
    Text(Vec<u16>),
    /// The elements of a compound index's value, in the order of its key paths; none compound.
    Compound(Vec<IndexValue>),
}

impl IndexValue {
    /// A number, checked finite (`what` names it in the error); -0 becomes 0, as the index orders it.
    pub fn number(what: &str, value: f64) -> Result<Self> {
        if !value.is_finite() {
            return Err(Error::invalid_argument(text!(what, " must be a finite number (got ", describe_number(value), ")")));
        }
        Ok(Self::Number(if value == 0.0 { 0.0 } else { value }))
    }

    /// A date by its time value, checked (an invalid `Date` has none).
    pub fn date(what: &str, time: f64) -> Result<Self> {
        if !(time.abs() <= MAX_TIME_VALUE && is_whole(time)) {
            return Err(Error::invalid_argument(text!(
                what,
                " must be a valid date: a whole number of milliseconds within 8.64e15 of 1970 (got ",
                describe_number(time),
                ")"
            )));
        }
        Ok(Self::Date(if time == 0.0 { 0.0 } else { time }))
    }

    /// A compound value of 1 to MAX_COMPOUND_LENGTH elements, none of them compound.
    pub fn compound(what: &str, elements: Vec<IndexValue>) -> Result<Self> {
        if elements.is_empty() || elements.len() > MAX_COMPOUND_LENGTH {
            return Err(Error::invalid_argument(text!(what, " must have 1 to ", MAX_COMPOUND_LENGTH, " elements")));
        }
        if elements.iter().any(|e| matches!(e, Self::Compound(_))) {
            return Err(Error::invalid_argument(text!(what, " must not hold an array inside an array")));
        }
        Ok(Self::Compound(elements))
    }

    /// The canonical text (docs/indexes.md): JSON, one way of writing each value.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        match self {
            Self::Null => out.push_str("null"),
            Self::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Self::Number(n) if n.abs() <= MAX_SAFE_INTEGER && is_whole(*n) => push_integer(out, *n),
            Self::Number(n) => {
                out.push_str("{\"$f64\":\"");
                out.push_str(&hex16(n.to_bits()));
                out.push_str("\"}");
            }
            Self::Date(ms) => {
                out.push_str("{\"$date\":");
                push_integer(out, *ms);
                out.push('}');
            }
            Self::Text(units) => push_json_string(out, units),
            Self::Compound(elements) => {
                out.push('[');
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    element.write_canonical(out);
                }
                out.push(']');
            }
        }
    }
}

/// Where an index value lives in the engine's layout: its canonical text, hash, partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexPlacement {
    pub canonical_value: String,
    pub partition: KeyPartition,
}

/// The instance of an index with `count` partitions that holds `value`: FNV-1a of the UTF-8
/// bytes of its canonical text, modulo `count`, named as a map's partitions are.
pub fn index_partition(value: &IndexValue, count: PartitionCount) -> IndexPlacement {
    let canonical_value = value.canonical();
    let partition = key_partition(&canonical_value, count);
    IndexPlacement { canonical_value, partition }
}

/// A whole number of magnitude below 2^53, in decimal (`-` before a negative one).
fn push_integer(out: &mut String, n: f64) {
    if n < 0.0 {
        out.push('-');
    }
    out.push_str(&zero_padded(u128::from(n.abs() as u64), 0));
}

/// 64 bits as 16 lowercase hexadecimal digits.
fn hex16(bits: u64) -> String {
    (0..16).rev().map(|i| hex_digit((bits >> (i * 4)) as u8 & 0xF)).collect()
}

fn hex_digit(d: u8) -> char {
    char::from(if d < 10 { b'0' + d } else { b'a' + d - 10 })
}

/// A string as JSON.stringify quotes it: `"` and `\` escaped, the short escapes of JSON for
/// backspace, tab, line feed, form feed and carriage return, `\u` and four lowercase hex digits
/// for the other controls and for a lone surrogate, every other character as itself.
fn push_json_string(out: &mut String, units: &[u16]) {
    out.push('"');
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\t') => out.push_str("\\t"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\r') => out.push_str("\\r"),
            Ok(c) if c < ' ' => push_unit_escape(out, c as u16),
            Ok(c) => out.push(c),
            Err(lone) => push_unit_escape(out, lone.unpaired_surrogate()),
        }
    }
    out.push('"');
}

fn push_unit_escape(out: &mut String, unit: u16) {
    out.push_str("\\u");
    for i in (0..4).rev() {
        out.push(hex_digit((unit >> (i * 4)) as u8 & 0xF));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> IndexValue {
        IndexValue::Text(s.encode_utf16().collect())
    }

    fn number(n: f64) -> IndexValue {
        IndexValue::number("value", n).unwrap()
    }

    #[test]
    fn canonical_text_is_what_json_stringify_writes_for_json_values() {
        // Expected texts as JavaScript's JSON.stringify writes these values.
        let cases = [
            (IndexValue::Null, "null"),
            (IndexValue::Boolean(false), "false"),
            (IndexValue::Boolean(true), "true"),
            (number(0.0), "0"),
            (number(-0.0), "0"),
            (number(42.0), "42"),
            (number(-7.0), "-7"),
            (number(9_007_199_254_740_991.0), "9007199254740991"),
            (number(-9_007_199_254_740_991.0), "-9007199254740991"),
            (string("Acme"), "\"Acme\""),
            (string(""), "\"\""),
            (string("a\"b\\c/d"), "\"a\\\"b\\\\c/d\""),
            (string("\u{8}\t\n\u{b}\u{c}\r\u{0}\u{1f}\u{7f}"), "\"\\b\\t\\n\\u000b\\f\\r\\u0000\\u001f\u{7f}\""),
            (string("é\u{2028}😀"), "\"é\u{2028}😀\""),
            (IndexValue::compound("v", vec![string("Acme"), number(3.0), IndexValue::Null]).unwrap(), "[\"Acme\",3,null]"),
        ];
        for (value, expected) in cases {
            assert_eq!(value.canonical(), expected, "{value:?}");
        }
        // Lone surrogates are escaped (JSON.stringify("\ud800x\udfff") is "\"\\ud800x\\udfff\"");
        // a pair is one character.
        let units = vec![0xD800, u16::from(b'x'), 0xDFFF, 0xD83D, 0xDE00];
        assert_eq!(IndexValue::Text(units).canonical(), "\"\\ud800x\\udfff😀\"");
    }

    #[test]
    fn numbers_past_safe_integers_and_fractions_are_their_bits() {
        // The bit patterns from IEEE 754 binary64 (e.g. 0.1 is 0x3FB999999999999A).
        assert_eq!(number(0.1).canonical(), "{\"$f64\":\"3fb999999999999a\"}");
        assert_eq!(number(-1.5).canonical(), "{\"$f64\":\"bff8000000000000\"}");
        assert_eq!(number(9_007_199_254_740_992.0).canonical(), "{\"$f64\":\"4340000000000000\"}");
        assert_eq!(number(f64::MAX).canonical(), "{\"$f64\":\"7fefffffffffffff\"}");
        assert_eq!(number(5e-324).canonical(), "{\"$f64\":\"0000000000000001\"}");
    }

    #[test]
    fn dates_are_their_time_value() {
        let date = |ms| IndexValue::date("value", ms).unwrap().canonical();
        assert_eq!(date(1_704_067_200_000.0), "{\"$date\":1704067200000}");
        assert_eq!(date(-1.0), "{\"$date\":-1}");
        assert_eq!(date(-0.0), "{\"$date\":0}");
        assert_eq!(date(8.64e15), "{\"$date\":8640000000000000}");
    }

    #[test]
    fn values_no_index_holds_are_refused_naming_the_argument() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = IndexValue::number("value", bad).unwrap_err();
            assert!(e.message.starts_with("value must be a finite number"), "{}", e.message);
        }
        for bad in [f64::NAN, 0.5, 8.64e15 + 1.0, -8.64e15 - 1.0] {
            assert!(IndexValue::date("when", bad).unwrap_err().message.starts_with("when must be a valid date"));
        }
        assert!(IndexValue::compound("v", vec![]).is_err());
        assert!(IndexValue::compound("v", vec![IndexValue::Null; MAX_COMPOUND_LENGTH + 1]).is_err());
        assert!(IndexValue::compound("v", vec![IndexValue::Null; MAX_COMPOUND_LENGTH]).is_ok());
        let nested = IndexValue::compound("v", vec![IndexValue::Null]).unwrap();
        assert!(IndexValue::compound("v", vec![nested]).is_err());
    }

    #[test]
    fn an_index_value_lives_where_its_canonical_text_would_as_a_key() {
        // FNV-1a 32 by its definition, over the canonical text's six bytes.
        let bytes = b"\"Acme\"";
        let mut hash: u32 = 0x811C_9DC5;
        for b in bytes {
            hash = (hash ^ u32::from(*b)).wrapping_mul(0x0100_0193);
        }
        let placed = index_partition(&string("Acme"), PartitionCount::default());
        assert_eq!(placed.canonical_value, "\"Acme\"");
        assert_eq!(placed.partition.hash, hash);
        assert_eq!(placed.partition.index, hash % 1000);
        assert_eq!(placed.partition.partition_name, text!("partition-", zero_padded(u128::from(hash % 1000), 3)));
    }
}
