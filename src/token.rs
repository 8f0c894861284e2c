//! Page tokens of a chunked log: `current`, or an archived chunk's first sequence as
//! 20 zero-padded digits.
//!
//! Token values go up to 99999999999999999999, past u64 (and far past i64 and f64's exact
//! integers), so they are held as u128: every 20-digit value is checked exactly.

use crate::error::{Error, ErrorCode, Result};
use crate::layout::{clip, Segments};
use crate::prelude::*;
use crate::text::{text, zero_padded};

/// The name of a log's mutable chunk, and the page token that means it.
pub const CURRENT: &str = "current";
/// Archive tokens are the first sequence of their chunk in exactly this many decimal digits.
pub const TOKEN_DIGITS: usize = 20;
/// The largest value 20 digits can spell.
pub const MAX_TOKEN_VALUE: u128 = 99_999_999_999_999_999_999;

/// A validated page token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageToken {
    Current,
    /// An archived chunk, by its first sequence (a chunk boundary, 1..=MAX_TOKEN_VALUE).
    Archived(u128),
}

impl PageToken {
    /// The canonical spelling: `current` or the 20-digit archive token.
    pub fn to_token_string(self) -> String {
        match self {
            PageToken::Current => CURRENT.to_string(),
            PageToken::Archived(first) => format_token(first),
        }
    }
}

/// `invalid page token "<token>"`; a token past 64 characters is cut in the message.
pub(crate) fn invalid_page_token(token: &str) -> Error {
    Error::new(ErrorCode::InvalidPageToken, text!("invalid page token \"", clip(token), "\""))
}

/// The value of 20 ASCII digits, or None for anything else.
pub fn parse_token_digits(token: &str) -> Option<u128> {
    let bytes = token.as_bytes();
    if bytes.len() != TOKEN_DIGITS || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // 20 digits always fit in u128 (max about 1.0e20 < 3.4e38): no overflow is possible.
    Some(bytes.iter().fold(0u128, |v, &b| v * 10 + u128::from(b - b'0')))
}

/// `""` and `current` mean the current chunk; anything else must be exactly 20 ASCII
/// digits naming a chunk boundary of the segment the value falls in.
pub fn validate_page_token(token: &str, segments: &Segments) -> Result<PageToken> {
    if token.is_empty() || token == CURRENT {
        return Ok(PageToken::Current);
    }
    match parse_token_digits(token) {
        Some(value) if segments.is_boundary(value) => Ok(PageToken::Archived(value)),
        _ => Err(invalid_page_token(token)),
    }
}

fn format_token(first_sequence: u128) -> String {
    zero_padded(first_sequence, TOKEN_DIGITS)
}

/// The token an archived chunk is stored under: its first sequence as 20 digits.
pub fn archive_chunk_token(first_sequence: u128) -> Result<String> {
    if first_sequence == 0 || first_sequence > MAX_TOKEN_VALUE {
        return Err(Error::invalid_argument(text!(
            "firstSequence must be an integer from 1 to ",
            MAX_TOKEN_VALUE,
            ", got ",
            first_sequence
        )));
    }
    Ok(format_token(first_sequence))
}

/// `archive_chunk_token` for a decimal string of any length (a JavaScript bigint's digits).
pub fn archive_chunk_token_of_decimal(decimal: &str) -> Result<String> {
    let digits = decimal.strip_prefix('-').unwrap_or(decimal);
    let value = if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        None
    } else if digits.len() > TOKEN_DIGITS + 1 || decimal.starts_with('-') {
        Some(None) // out of range whatever its digits
    } else {
        Some(digits.parse::<u128>().ok())
    };
    match value {
        Some(Some(v)) => archive_chunk_token(v),
        Some(None) => Err(Error::invalid_argument(text!(
            "firstSequence must be an integer from 1 to ",
            MAX_TOKEN_VALUE,
            ", got ",
            clip(decimal)
        ))),
        None => Err(Error::invalid_argument(text!("firstSequence must be decimal digits, got \"", clip(decimal), "\""))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{ChunkSize, Segment};

    fn check(token: &str) -> Result<PageToken> {
        validate_page_token(token, &Segments::single(ChunkSize::default()))
    }

    #[test]
    fn empty_and_current_mean_current() {
        assert_eq!(check(""), Ok(PageToken::Current));
        assert_eq!(check("current"), Ok(PageToken::Current));
    }

    #[test]
    fn chunk_boundaries_are_valid() {
        assert_eq!(check("00000000000000000001"), Ok(PageToken::Archived(1)));
        assert_eq!(check("00000000000000000101"), Ok(PageToken::Archived(101)));
        assert_eq!(check("99999999999999999901"), Ok(PageToken::Archived(99_999_999_999_999_999_901)));
        // Just past u64::MAX (18446744073709551615): exact, not wrapped or rounded.
        assert_eq!(check("18446744073709551701"), Ok(PageToken::Archived(18_446_744_073_709_551_701)));
    }

    #[test]
    fn everything_else_is_invalid_with_the_spec_message() {
        for bad in [
            "Current",
            "CURRENT",
            " current",
            "current ",
            "00000000000000000000",
            "00000000000000000002",
            "00000000000000000100",
            "0000000000000000001",
            "000000000000000000001",
            "+0000000000000000001",
            "-0000000000000000001",
            " 0000000000000000001",
            "99999999999999999999",
            "18446744073709551601x",
            "１００００００００００００００００００１",
        ] {
            let e = check(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidPageToken, "{bad:?}");
            assert_eq!(e.message, format!("invalid page token \"{bad}\""));
        }
    }

    #[test]
    fn a_huge_token_is_not_echoed_whole() {
        let e = check(&"7".repeat(1 << 20)).unwrap_err();
        assert_eq!(e.message, format!("invalid page token \"{}... (1048576 characters)\"", "7".repeat(64)));
    }

    #[test]
    fn boundaries_follow_the_chunk_size() {
        let seven = Segments::single(ChunkSize::new(7).unwrap());
        assert_eq!(validate_page_token("00000000000000000008", &seven), Ok(PageToken::Archived(8)));
        assert!(validate_page_token("00000000000000000101", &seven).is_err());
        let one = Segments::single(ChunkSize::new(1).unwrap());
        assert_eq!(validate_page_token("99999999999999999999", &one), Ok(PageToken::Archived(MAX_TOKEN_VALUE)));
    }

    #[test]
    fn boundaries_follow_the_segment_a_token_falls_in() {
        let s = Segments::new(vec![
            Segment { from_sequence: 1, chunk_size: ChunkSize::new(10).unwrap() },
            Segment { from_sequence: 26, chunk_size: ChunkSize::new(3).unwrap() },
        ])
        .unwrap();
        for ok in ["00000000000000000021", "00000000000000000026", "00000000000000000029", "99999999999999999998"] {
            assert!(validate_page_token(ok, &s).is_ok(), "{ok}");
        }
        for bad in ["00000000000000000031", "00000000000000000027", "99999999999999999999"] {
            assert!(validate_page_token(bad, &s).is_err(), "{bad}");
        }
    }

    #[test]
    fn archive_tokens_are_twenty_digits() {
        assert_eq!(archive_chunk_token(1).unwrap(), "00000000000000000001");
        assert_eq!(archive_chunk_token(101).unwrap(), "00000000000000000101");
        assert_eq!(archive_chunk_token(MAX_TOKEN_VALUE).unwrap(), "99999999999999999999");
        assert_eq!(archive_chunk_token(0).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(archive_chunk_token(MAX_TOKEN_VALUE + 1).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn archive_tokens_of_decimal_strings() {
        assert_eq!(archive_chunk_token_of_decimal("99999999999999999901").unwrap(), "99999999999999999901");
        for bad in ["0", "-1", "100000000000000000000", &"9".repeat(400), "", "1.5", "1e3", "-"] {
            assert_eq!(archive_chunk_token_of_decimal(bad).unwrap_err().code, ErrorCode::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn canonical_spelling_round_trips() {
        assert_eq!(check("").unwrap().to_token_string(), "current");
        assert_eq!(check("00000000000000000201").unwrap().to_token_string(), "00000000000000000201");
    }
}
