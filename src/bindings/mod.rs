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

/// Names the numbers of an array that crosses the boundary, in order: an enum whose variants
/// index the array, with their names, which tests/pkg_constants.rs writes into constants.ts
/// (`LogBookSlot::NextSequence` is `LOG_BOOK_NEXT_SEQUENCE`, the count `LOG_BOOK_LENGTH`), so
/// that the TypeScript layer reads and writes each number by the same name.
macro_rules! slots {
    ($(#[doc = $doc:literal])* $name:ident { $($(#[doc = $slot_doc:literal])* $slot:ident),+ $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[doc = $slot_doc])* $slot),+
        }
        impl $name {
            /// The slots, in order.
            pub const ALL: &'static [Self] = &[$(Self::$slot),+];
            /// The slots' names, in order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($slot)),+];
            /// How many numbers the slots take (more may follow, as the doc says).
            pub const LENGTH: usize = Self::NAMES.len();
        }
    };
}

slots! {
    /// A log's bookkeeping as it crosses (with its latest archived chunk token, a string):
    /// these two numbers, then its segments as `[fromSequence, chunkSize]` pairs, oldest first.
    LogBookSlot {
        NextSequence,
        RetainedFrom,
    }
}

slots! {
    /// What `checkLog` returns about a log whose bookkeeping it checked.
    LogCheckSlot {
        /// The sequence of the first record in `current`.
        CurrentFirst,
        /// The records in `current`.
        CurrentLength,
        /// The records retained, archived and current.
        Retained,
        /// The archived chunks retained.
        ArchivedChunks,
    }
}

slots! {
    /// What `appendPlan` returns: the new records get `FirstSequence..NextSequence`;
    /// `ArchiveCount` chunks of `ChunkLength` records from sequence `ArchiveFrom` on are cut from
    /// `current` followed by the new records, and archived.
    AppendPlanSlot {
        FirstSequence,
        NextSequence,
        ArchiveFrom,
        ChunkLength,
        ArchiveCount,
    }
}

slots! {
    /// What `chunkSizeChange` returns: these numbers, then the new segments as pairs.
    ChunkSizeChangeSlot {
        /// 0 when the size asked for is already in force (nothing to write).
        Changed,
        /// The chunk archived from `current` (`CutLength` 0: `current` was empty).
        CutFirst,
        CutLength,
    }
}

slots! {
    /// What `dropPlan` returns for retention.
    DropPlanSlot {
        /// The first sequence retained after the drop.
        RetainedFrom,
        /// The archived chunks dropped.
        Dropped,
        /// The first sequence retained before it.
        PreviousRetainedFrom,
    }
}

slots! {
    /// The kind of each element of an index value as it crosses (`canonicalIndexValue`): one
    /// byte each, beside one number each (a number's value, a date's time value, a string's
    /// length in UTF-16 code units, else 0) and the strings' code units one after another.
    IndexValueKind {
        Null,
        False,
        True,
        Number,
        Date,
        Text,
    }
}

slots! {
    /// What `mergeDecisions` is told of each entry (or log), one byte each: bit `1 << slot` is
    /// set when the fact holds (see `sync.rs`).
    MergeFact {
        LocalIsBase,
        RemoteIsBase,
        Equal,
    }
}

slots! {
    /// What `mergeDecisions` answers for each entry (or log), one byte each (see `sync::Merge`).
    MergeOutcome {
        Same,
        TakeRemote,
        KeepLocal,
        Conflict,
    }
}

/// A log's bookkeeping as it crosses: `book` (see `LogBookSlot`) plus its latest archived chunk
/// token. It is checked on every call, and any inconsistency is `corrupt_data` (the caller read
/// it from storage).
#[cfg(any(feature = "store", feature = "maintenance"))]
fn log(book: &[f64], latest: &str) -> crate::error::Result<crate::chunk::Log> {
    use crate::layout::{whole_number, Segments, MAX_SEQUENCE};
    use crate::prelude::*;

    // The pattern reads LogBookSlot's numbers in their order, then the segments.
    const _: () = assert!(LogBookSlot::NextSequence as usize == 0 && LogBookSlot::LENGTH == 2);
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
