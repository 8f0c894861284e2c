//! Errors with stable codes. The code is the contract callers branch on; the message is
//! the exact text the contract (docs/) gives where it gives one, so every SDK reports the same words.

use crate::prelude::*;
use crate::text::text;
use core::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The email is not ASCII or is empty after trimming.
    InvalidEmail,
    /// A page token that is neither `current` nor a chunk boundary of 20 digits.
    InvalidPageToken,
    /// A required field is empty, or an argument has the wrong type or is out of range.
    InvalidArgument,
    /// A valid name whose instance was never written (or was dropped).
    NotFound,
    /// The next sequence would pass 2^53 - 1, the largest JavaScript-safe integer.
    SequenceExhausted,
    /// Stored data breaks an invariant this library keeps (written by something else).
    CorruptData,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidEmail,
        ErrorCode::InvalidPageToken,
        ErrorCode::InvalidArgument,
        ErrorCode::NotFound,
        ErrorCode::SequenceExhausted,
        ErrorCode::CorruptData,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidEmail => "invalid_email",
            ErrorCode::InvalidPageToken => "invalid_page_token",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::NotFound => "not_found",
            ErrorCode::SequenceExhausted => "sequence_exhausted",
            ErrorCode::CorruptData => "corrupt_data",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidArgument, message)
    }

    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::CorruptData, message)
    }

    /// The same failure reported as stored data that is wrong rather than a bad argument:
    /// a value read back from storage was checked with the rule a caller's value meets.
    pub fn as_corrupt(self, what: &str) -> Self {
        Error::corrupt(text!(what, ": ", self.message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl core::error::Error for Error {}

/// The result of every fallible rule of the core.
pub type Result<T> = core::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_snake_case() {
        let codes: std::collections::HashSet<_> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes.len(), ErrorCode::ALL.len());
        for code in codes {
            assert!(code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{code}");
        }
    }

    #[test]
    fn display_names_code_and_message() {
        let e = Error::new(ErrorCode::NotFound, "gone");
        assert_eq!(e.to_string(), "not_found: gone");
    }

    #[test]
    fn as_corrupt_keeps_the_reason() {
        let e = Error::invalid_argument("chunkSize must be an integer from 1 to 4294967295, got 0").as_corrupt("log \"a\"");
        assert_eq!(e.code, ErrorCode::CorruptData);
        assert_eq!(e.message, "log \"a\": chunkSize must be an integer from 1 to 4294967295, got 0");
    }
}
