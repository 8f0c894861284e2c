//! Message text written without `core::fmt`, whose machinery (`fmt::write`, padding, `Display`
//! for each integer type) would be a tenth of the store's wasm module, for messages alone.
//! `text!(a, b, ...)` joins pieces; a piece is text or an unsigned integer, in decimal.

use crate::prelude::*;
use crate::wide::div_rem;

/// One piece of a message.
pub trait Piece {
    fn push_to(&self, out: &mut String);
}

impl Piece for str {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for String {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn push_to(&self, out: &mut String) {
        (**self).push_to(out);
    }
}

macro_rules! integer_pieces {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            fn push_to(&self, out: &mut String) {
                out.push_str(&zero_padded(*self as u128, 0));
            }
        }
    )*};
}
integer_pieces!(u32, u64, u128, usize);

/// The pieces joined: `text!("line ", 7, ": ", what)`.
macro_rules! text {
    ($($piece:expr),+ $(,)?) => {{
        let mut out = $crate::prelude::String::new();
        $($crate::text::Piece::push_to(&$piece, &mut out);)+
        out
    }};
}
pub(crate) use text;

/// `value` in decimal, zero-padded to `width` digits: what `{:0width$}` spells.
pub fn zero_padded(value: u128, width: usize) -> String {
    let mut digits = Vec::new();
    let mut rest = value;
    while rest > 0 || digits.len() < width.max(1) {
        let (quotient, digit) = div_rem(rest, 10);
        digits.push(b'0' + digit as u8);
        rest = quotient;
    }
    digits.iter().rev().map(|&d| char::from(d)).collect()
}

/// How many characters `text` holds: `chars().count()` without core's vectorized counter.
pub fn char_count(text: &str) -> usize {
    // Every character has exactly one byte that is not a continuation byte (10xxxxxx).
    text.bytes().filter(|b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_as_format_would_write_them() {
        let name = String::from("log");
        assert_eq!(text!("line ", 7u64, ": ", name, " (", "x", ")"), format!("line {}: {name} ({})", 7, "x"));
        assert_eq!(text!(u128::MAX, " ", 0u32, " ", usize::MAX), format!("{} 0 {}", u128::MAX, usize::MAX));
    }

    #[test]
    fn zero_padding_is_what_format_pads() {
        let values = [0, 1, 9, 10, 100, u128::from(u64::MAX), u128::from(u64::MAX) + 1, 99_999_999_999_999_999_999, u128::MAX];
        for value in values {
            for width in [0, 1, 3, 20, 45] {
                assert_eq!(zero_padded(value, width), format!("{value:0width$}"));
            }
        }
    }

    #[test]
    fn characters_are_counted_as_chars_counts_them() {
        for text in ["", "a", "é", "\u{1F600}x", "a\u{0}b\u{FFFD}", &"ü".repeat(100)] {
            assert_eq!(char_count(text), text.chars().count(), "{text:?}");
        }
    }
}
