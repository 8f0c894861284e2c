// Generated from the Rust crate by tests/pkg_constants.rs (which fails when this file differs):
// the core's constants, usable while modules load, before the wasm module starts.

/** Longest string that crosses into the Rust core (UTF-16 code units): keys, emails, page tokens. */
export const MAX_TEXT_LENGTH = 4194304;

/** The name of a log's mutable chunk, and the page token that means it. */
export const CURRENT = "current";

/** Partitions of a new map when none is given (the reference server's 1000). */
export const DEFAULT_PARTITION_COUNT = 1000;

/** Records per chunk of a new log when none is given (the reference server's 100). */
export const DEFAULT_CHUNK_SIZE = 100;

/** The export format's name, as its header line states it. */
export const EXPORT_FORMAT = "attrmap-export";

/** The export format's version, as its header line states it. */
export const EXPORT_VERSION = 1;

/** The layout version of a new map; each layout change adds one. */
export const FIRST_LAYOUT_VERSION = 1;

/** The key rule that keeps keys as they are. */
export const EXACT_KEYS = "exact";

/** The key rule of the email canonicalization (docs/partitioned-map.md). */
export const EMAIL_KEYS = "email";

/** The key rule name stored for a canonicalizer given no name. */
export const CUSTOM_KEYS = "custom";

/** FNV-1a's offset basis: the hash of no bytes. */
export const FNV_OFFSET_BASIS = 0x811c9dc5;
