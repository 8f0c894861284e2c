//! The only modules that know JavaScript. Every argument is a primitive (a string, a number,
//! a boolean, bytes or numbers in a typed array) that the TypeScript layer has already checked
//! for type and size, so no caller object is read, and no caller code runs, while wasm frames
//! are on the stack. Results are primitives too. Core errors become JS `Error`s named by their
//! stable code, which the TypeScript layer rethrows as `AttrmapError`s with that `code`.
//!
//! The package ships three wasm modules of this crate, each built with one feature: `store`
//! (the rules every store uses), `verifier` (the export verifier, which only an import needs)
//! and `maintenance` (a map's resize, a log's chunk-size change and retention), the last two
//! loaded at their first call, so that pages that never make one do not load them. Tests
//! build all three.

use wasm_bindgen::prelude::*;

use crate::error::Error;

#[cfg(feature = "maintenance")]
mod maintenance;
#[cfg(feature = "store")]
mod store;
#[cfg(feature = "verifier")]
mod verifier;

#[cfg(feature = "maintenance")]
pub use maintenance::*;
#[cfg(feature = "store")]
pub use store::*;
#[cfg(feature = "verifier")]
pub use verifier::*;

/// The longest string (in UTF-16 code units) the TypeScript layer lets cross into wasm. Its
/// UTF-8 copy needs up to three bytes a unit, so one crossing never asks for more than 12 MiB.
pub const MAX_TEXT_LENGTH: u32 = 1 << 22;

// JavaScript's `Error`: the two members the bindings use (js-sys is not linked, see Cargo.toml).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = Error)]
    type CoreError;
    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> CoreError;
    #[wasm_bindgen(method, setter, js_class = "Error")]
    fn set_name(this: &CoreError, name: &str);
}

/// A core error crosses as a JS `Error` named by its code (as a `DOMException` is by its
/// kind): a setter, where a `code` property would need `Reflect.set` and its glue.
impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let err = CoreError::new(&e.message);
        err.set_name(e.code.as_str());
        err.into()
    }
}

/// A log's bookkeeping as it crosses: `book` = [nextSequence, retainedFrom, from, size, from,
/// size, ...] plus its latest archived chunk token. It is checked on every call, and any
/// inconsistency is `corrupt_data` (the caller read it from storage).
#[cfg(any(feature = "store", feature = "maintenance"))]
fn log(book: &[f64], latest: &str) -> crate::error::Result<crate::chunk::Log> {
    use crate::layout::{whole_number, Segments, MAX_SEQUENCE};
    use crate::prelude::*;

    let [next, retained, flat @ ..] = book else {
        return Err(Error::corrupt("the log's bookkeeping is incomplete"));
    };
    let stored = |e: Error| e.as_corrupt("the stored layout");
    let segments = Segments::from_numbers(flat).map_err(stored)?;
    let next_sequence = whole_number("nextSequence", *next, 1, MAX_SEQUENCE + 1).map_err(stored)?;
    let retained_from = whole_number("retainedFrom", *retained, 1, MAX_SEQUENCE + 1).map_err(stored)?;
    let state = crate::chunk::LogState { next_sequence, latest_archived_chunk_token: latest.to_string() };
    crate::chunk::Log::checked(segments, state, retained_from)
}
