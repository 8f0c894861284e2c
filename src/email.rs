//! Canonical form of an email address: the bytes every SDK hashes.

use crate::error::{Error, ErrorCode, Result};

pub const NOT_ASCII: &str = "emailAddress must contain only ASCII characters";
pub const REQUIRED: &str = "emailAddress is required";

/// ASCII whitespace as SPEC.md defines it: space and 0x09..=0x0D. This is not
/// `u8::is_ascii_whitespace`, which leaves out vertical tab (0x0B).
pub fn is_trimmed_whitespace(b: u8) -> bool {
    b == b' ' || (0x09..=0x0d).contains(&b)
}

/// ASCII check, trim of SPEC whitespace at both ends, empty check, A-Z lowercased.
/// Nothing else changes: inner spaces and control bytes stay, no syntax is checked.
pub fn canonical_email_address(email: &str) -> Result<String> {
    let bytes = email.as_bytes();
    if !bytes.is_ascii() {
        return Err(Error::new(ErrorCode::InvalidEmail, NOT_ASCII));
    }
    let start = bytes.iter().position(|&b| !is_trimmed_whitespace(b));
    let Some(start) = start else {
        return Err(Error::new(ErrorCode::InvalidEmail, REQUIRED));
    };
    // A non-whitespace byte exists, so rposition finds one at or after `start`.
    let end = bytes.iter().rposition(|&b| !is_trimmed_whitespace(b)).unwrap_or(start) + 1;
    // `get`, not indexing: the input is ASCII, so every index is a character boundary (and no
    // panic message that formats characters is linked into the module).
    Ok(email.get(start..end).unwrap_or_default().to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(email: &str) -> (ErrorCode, String) {
        let e = canonical_email_address(email).unwrap_err();
        (e.code, e.message)
    }

    #[test]
    fn golden_value_from_spec() {
        assert_eq!(canonical_email_address(" Alice@Example.COM ").unwrap(), "alice@example.com");
    }

    #[test]
    fn trims_every_spec_whitespace_byte_including_vertical_tab() {
        for ws in [" ", "\t", "\n", "\u{0b}", "\u{0c}", "\r"] {
            let input = format!("{ws}{ws}B@x{ws}");
            assert_eq!(canonical_email_address(&input).unwrap(), "b@x", "{:?}", ws);
        }
    }

    #[test]
    fn keeps_inner_whitespace_and_control_bytes() {
        assert_eq!(canonical_email_address("A B\u{0b}C\0@X").unwrap(), "a b\u{0b}c\0@x");
        assert_eq!(canonical_email_address("\u{1f}a\u{7f}").unwrap(), "\u{1f}a\u{7f}");
    }

    #[test]
    fn lowercases_only_a_to_z() {
        assert_eq!(canonical_email_address("AZ[\\]^_`az@@").unwrap(), "az[\\]^_`az@@");
    }

    #[test]
    fn rejects_non_ascii_before_trimming() {
        assert_eq!(code("\u{a0}a@b"), (ErrorCode::InvalidEmail, NOT_ASCII.to_string()));
        assert_eq!(code("é"), (ErrorCode::InvalidEmail, NOT_ASCII.to_string()));
        // Non-ASCII wins over empty: a lone non-breaking space is not "required".
        assert_eq!(code("\u{a0}"), (ErrorCode::InvalidEmail, NOT_ASCII.to_string()));
    }

    #[test]
    fn rejects_empty_and_whitespace_only() {
        assert_eq!(code(""), (ErrorCode::InvalidEmail, REQUIRED.to_string()));
        assert_eq!(code(" \t\n\u{0b}\u{0c}\r "), (ErrorCode::InvalidEmail, REQUIRED.to_string()));
    }

    #[test]
    fn other_low_bytes_are_not_trimmed() {
        assert_eq!(canonical_email_address("\0a\u{1c}").unwrap(), "\0a\u{1c}");
    }
}
