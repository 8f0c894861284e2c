//! Page tokens of a chunked log: `current`, or an archived chunk's first sequence as
//! 20 zero-padded digits.
//!
//! Token values go up to 99999999999999999999, past u64 (and far past i64 and f64's exact
//! integers), so they are held as u128: every 20-digit value is checked exactly.

use crate::chunk::ChunkSize;
use crate::error::{out_of_range, Error, ErrorCode, Result};

pub const CURRENT: &str = "current";
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

fn invalid(token: &str) -> Error {
    Error::new(ErrorCode::InvalidPageToken, format!("invalid page token \"{token}\""))
}

/// `""` and `current` mean the current chunk; anything else must be exactly 20 ASCII
/// digits naming a chunk boundary: value >= 1 and (value - 1) mod chunk size == 0.
pub fn validate_page_token(token: &str, chunk_size: ChunkSize) -> Result<PageToken> {
    if token.is_empty() || token == CURRENT {
        return Ok(PageToken::Current);
    }
    let bytes = token.as_bytes();
    if bytes.len() != TOKEN_DIGITS || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(invalid(token));
    }
    // 20 digits always fit in u128 (max about 1.0e20 < 3.4e38): no overflow is possible.
    let value = bytes.iter().fold(0u128, |v, &b| v * 10 + u128::from(b - b'0'));
    if chunk_size.is_boundary(value) {
        Ok(PageToken::Archived(value))
    } else {
        Err(invalid(token))
    }
}

fn format_token(first_sequence: u128) -> String {
    format!("{first_sequence:0width$}", width = TOKEN_DIGITS)
}

/// The token an archived chunk is stored under: its first sequence as 20 digits.
pub fn archive_chunk_token(first_sequence: u128) -> Result<String> {
    if first_sequence == 0 || first_sequence > MAX_TOKEN_VALUE {
        return Err(out_of_range("firstSequence", MAX_TOKEN_VALUE, first_sequence));
    }
    Ok(format_token(first_sequence))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(token: &str) -> Result<PageToken> {
        validate_page_token(token, ChunkSize::default())
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
    fn boundaries_follow_the_chunk_size() {
        let seven = ChunkSize::new(7).unwrap();
        assert_eq!(validate_page_token("00000000000000000008", seven), Ok(PageToken::Archived(8)));
        assert!(validate_page_token("00000000000000000101", seven).is_err());
        let one = ChunkSize::new(1).unwrap();
        assert_eq!(validate_page_token("99999999999999999999", one), Ok(PageToken::Archived(MAX_TOKEN_VALUE)));
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
    fn canonical_spelling_round_trips() {
        assert_eq!(check("").unwrap().to_token_string(), "current");
        assert_eq!(check("00000000000000000201").unwrap().to_token_string(), "00000000000000000201");
    }
}
