//! attrmap: hash-partitioned maps and sequentially chunked logs.
//!
//! The modules below are plain Rust with no JavaScript types; `bindings` is the one
//! module that speaks `JsValue`, so the rules can be read and tested without a browser.

pub mod chunk;
pub mod email;
pub mod error;
pub mod fnv;
pub mod partition;
pub mod profile;
pub mod subscriber;
pub mod token;

pub mod bindings;

pub use chunk::{append, page, Append, ArchivedChunk, ChunkSize, LogState, Page, DEFAULT_CHUNK_SIZE, MAX_SEQUENCE};
pub use email::canonical_email_address;
pub use error::{Error, ErrorCode, Result};
pub use fnv::fnv1a32;
pub use partition::{email_partition, key_partition, EmailPartition, KeyPartition, PartitionCount, DEFAULT_PARTITION_COUNT};
pub use profile::CustomerProfile;
pub use subscriber::{NewSubscriber, Subscriber};
pub use token::{archive_chunk_token, validate_page_token, PageToken, CURRENT, MAX_TOKEN_VALUE};
