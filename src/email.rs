//! Canonical form of an email address: the bytes every SDK hashes.

use crate::prelude::*;

use crate::error::{Error, ErrorCode, Result};

/// The messages of the two ways an email can fail before its form is looked at.
pub const NOT_ASCII: &str = "emailAddress must contain only ASCII characters";
pub const REQUIRED: &str = "emailAddress is required";

/// ASCII whitespace as docs/partitioned-map.md defines it: space and 0x09..=0x0D. This is not
/// `u8::is_ascii_whitespace`, which leaves out vertical tab (0x0B).
pub fn is_trimmed_whitespace(b: u8) -> bool {
    b == b' ' || (0x09..=0x0d).contains(&b)
}

/// ASCII check, trim of that whitespace at both ends, empty check, A-Z lowercased.
/// Nothing else changes: inner spaces and control bytes stay, no syntax is checked.
pub fn canonical_email_address(email: &str) -> Result<String> {
    canonical_email(email).map(Cow::into_owned)
}

/// `canonical_email_address`, borrowing the input when it is canonical already (the common
/// case for keys read back from storage): no allocation then.
pub fn canonical_email(email: &str) -> Result<Cow<'_, str>> {
    canonical_edit(email).map(|edit| edit.apply(email))
}

/// How an email becomes canonical: the part that stays (`start..end`, that whitespace trimmed
/// from both ends) and whether its A-Z are lowercased. The email is ASCII, so its byte
/// offsets are its UTF-16 offsets too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalEdit {
    pub start: usize,
    pub end: usize,
    pub lowercase: bool,
}

impl CanonicalEdit {
    /// Whether the email was canonical already.
    pub fn is_identity(self, email: &str) -> bool {
        self.start == 0 && self.end == email.len() && !self.lowercase
    }

    /// The canonical form of the email this edit was made for.
    pub fn apply(self, email: &str) -> Cow<'_, str> {
        // `get`, not indexing: the email is ASCII, so every index is a character boundary
        // (and no panic message that formats characters is linked into the module).
        let kept = email.get(self.start..self.end).unwrap_or_default();
        if self.lowercase {
            Cow::Owned(kept.to_ascii_lowercase())
        } else {
            Cow::Borrowed(kept)
        }
    }

    /// The bytes of the canonical form, without making it.
    pub fn bytes(self, email: &str) -> impl Iterator<Item = u8> + '_ {
        email.as_bytes().get(self.start..self.end).unwrap_or_default().iter().map(u8::to_ascii_lowercase)
    }
}

/// The edit that makes `email` canonical; `invalid_email` for one that has none.
pub fn canonical_edit(email: &str) -> Result<CanonicalEdit> {
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
    let lowercase = bytes.get(start..end).unwrap_or_default().iter().any(u8::is_ascii_uppercase);
    Ok(CanonicalEdit { start, end, lowercase })
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
    fn a_canonical_email_is_borrowed_and_the_edit_says_what_changes() {
        assert!(matches!(canonical_email("alice@example.com"), Ok(Cow::Borrowed("alice@example.com"))));
        assert!(matches!(canonical_email(" alice@example.com\n"), Ok(Cow::Borrowed("alice@example.com"))));
        assert!(matches!(canonical_email("Alice@example.com"), Ok(Cow::Owned(_))));
        let edit = canonical_edit(" Alice@Example.COM ").unwrap();
        assert_eq!(edit, CanonicalEdit { start: 1, end: 18, lowercase: true });
        assert!(!edit.is_identity(" Alice@Example.COM "));
        assert_eq!(edit.bytes(" Alice@Example.COM ").collect::<Vec<_>>(), b"alice@example.com");
        assert!(canonical_edit("a@b").unwrap().is_identity("a@b"));
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
