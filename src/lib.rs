//! attrmap: hash-partitioned maps and sequentially chunked logs.
//!
//! The modules below are plain Rust with no JavaScript types; `bindings` is the one
//! module that speaks `JsValue`, so the rules can be read and tested without a browser.
//! Each item is re-exported once, here.
//!
//! Without the `std` feature (the package's wasm modules) the crate is `no_std`: std's panic
//! and formatting machinery would be most of what the module holds besides the rules.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

/// What the std prelude gives and `no_std` does not: each module uses this.
mod prelude {
    pub use alloc::borrow::Cow;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

// The wasm modules' allocator; native builds use the system's.
#[cfg(any(test, target_family = "wasm"))]
mod heap;
mod text;
mod wide;

mod chunk;
mod email;
mod error;
mod export;
mod fnv;
mod index;
mod layout;
mod partition;
mod profile;
mod subscriber;
mod sync;
mod token;

pub mod bindings;

pub use chunk::{page_not_found, AppendPlan, Cut, Log, LogState, PageOf};
pub use email::{canonical_edit, canonical_email, canonical_email_address, is_trimmed_whitespace, CanonicalEdit};
pub use error::{Error, ErrorCode, Result};
pub use export::{Summary as ExportSummary, Verifier as ExportVerifier, FORMAT as EXPORT_FORMAT, VERSION as EXPORT_VERSION};
pub use fnv::{fnv1a32, fnv1a32_bytes, fnv1a32_continue, OFFSET_BASIS as FNV_OFFSET_BASIS};
pub use index::{index_partition, IndexPlacement, IndexValue, MAX_COMPOUND_LENGTH};
pub use layout::{
    check_map_name, clip, describe_number, whole_number, ChunkSize, KeyRule, PartitionCount, Segment, Segments,
    DEFAULT_CHUNK_SIZE, DEFAULT_PARTITION_COUNT, FIRST_LAYOUT_VERSION, MAX_CHUNK_SIZE, MAX_SEQUENCE, PARTITION_PREFIX,
    RESERVED_MAP_PREFIX,
};
pub use partition::{email_partition, key_partition, partition_indexes, place_key, EmailPartition, KeyPartition, Placement};
pub use profile::CustomerProfile;
pub use subscriber::{check_required, NewSubscriber, Subscriber};
pub use sync::{digest, merge, Merge};
pub use token::{
    archive_chunk_token, archive_chunk_token_of_decimal, parse_token_digits, validate_page_token, PageToken, CURRENT,
    MAX_TOKEN_VALUE,
};

// A panic cannot happen in the rules (tests/no_panic.rs); if one did, the module traps.
#[cfg(all(not(feature = "std"), target_family = "wasm"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

// The module is single-threaded (no atomics), as `Heap` requires.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: heap::Heap = heap::Heap::new(heap::grow_memory);
