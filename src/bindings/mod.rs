//! The only modules that know JavaScript. Every argument is a primitive (a string, a number,
//! a boolean, bytes or numbers in a typed array) that the TypeScript layer has already checked
//! for type and size, so no caller object is read, and no caller code runs, while wasm frames
//! are on the stack. Results are primitives too. Core errors become JS `Error`s carrying a
//! stable `code`, which the TypeScript layer rethrows as `AttrmapError`.
//!
//! The package ships two wasm modules of this crate, each built with one feature: `store` (the
//! rules every store uses) and `verifier` (the export verifier, which only an import needs, in
//! a module of its own so that pages that never import do not load it). Tests build both.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::error::Error;

#[cfg(feature = "store")]
mod store;
#[cfg(feature = "verifier")]
mod verifier;

#[cfg(feature = "store")]
pub use store::*;
#[cfg(feature = "verifier")]
pub use verifier::*;

/// The longest string (in UTF-16 code units) the TypeScript layer lets cross into wasm. Its
/// UTF-8 copy needs up to three bytes a unit, so one crossing never asks for more than 12 MiB.
pub const MAX_TEXT_LENGTH: u32 = 1 << 22;

impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let err = js_sys::Error::new(&e.message);
        // Setting a data property on a fresh Error cannot fail.
        let _ = Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code.as_str()));
        err.into()
    }
}
