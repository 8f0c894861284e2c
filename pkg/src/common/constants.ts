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

/** Most elements of a compound index value (docs/indexes.md). */
export const MAX_COMPOUND_LENGTH = 16;

// LogBookSlot of src/bindings/mod.rs: each number's name, and how many there are.
/** LogBookSlot::NextSequence */
export const LOG_BOOK_NEXT_SEQUENCE = 0;
/** LogBookSlot::RetainedFrom */
export const LOG_BOOK_RETAINED_FROM = 1;
/** The numbers of LogBookSlot. */
export const LOG_BOOK_LENGTH = 2;

// LogCheckSlot of src/bindings/mod.rs: each number's name, and how many there are.
/** LogCheckSlot::CurrentFirst */
export const LOG_CHECK_CURRENT_FIRST = 0;
/** LogCheckSlot::CurrentLength */
export const LOG_CHECK_CURRENT_LENGTH = 1;
/** LogCheckSlot::Retained */
export const LOG_CHECK_RETAINED = 2;
/** LogCheckSlot::ArchivedChunks */
export const LOG_CHECK_ARCHIVED_CHUNKS = 3;
/** The numbers of LogCheckSlot. */
export const LOG_CHECK_LENGTH = 4;

// AppendPlanSlot of src/bindings/mod.rs: each number's name, and how many there are.
/** AppendPlanSlot::FirstSequence */
export const APPEND_PLAN_FIRST_SEQUENCE = 0;
/** AppendPlanSlot::NextSequence */
export const APPEND_PLAN_NEXT_SEQUENCE = 1;
/** AppendPlanSlot::ArchiveFrom */
export const APPEND_PLAN_ARCHIVE_FROM = 2;
/** AppendPlanSlot::ChunkLength */
export const APPEND_PLAN_CHUNK_LENGTH = 3;
/** AppendPlanSlot::ArchiveCount */
export const APPEND_PLAN_ARCHIVE_COUNT = 4;
/** The numbers of AppendPlanSlot. */
export const APPEND_PLAN_LENGTH = 5;

// ChunkSizeChangeSlot of src/bindings/mod.rs: each number's name, and how many there are.
/** ChunkSizeChangeSlot::Changed */
export const CHUNK_SIZE_CHANGE_CHANGED = 0;
/** ChunkSizeChangeSlot::CutFirst */
export const CHUNK_SIZE_CHANGE_CUT_FIRST = 1;
/** ChunkSizeChangeSlot::CutLength */
export const CHUNK_SIZE_CHANGE_CUT_LENGTH = 2;
/** The numbers of ChunkSizeChangeSlot. */
export const CHUNK_SIZE_CHANGE_LENGTH = 3;

// DropPlanSlot of src/bindings/mod.rs: each number's name, and how many there are.
/** DropPlanSlot::RetainedFrom */
export const DROP_PLAN_RETAINED_FROM = 0;
/** DropPlanSlot::Dropped */
export const DROP_PLAN_DROPPED = 1;
/** DropPlanSlot::PreviousRetainedFrom */
export const DROP_PLAN_PREVIOUS_RETAINED_FROM = 2;
/** The numbers of DropPlanSlot. */
export const DROP_PLAN_LENGTH = 3;

// IndexValueKind of src/bindings/mod.rs: each number's name, and how many there are.
/** IndexValueKind::Null */
export const INDEX_VALUE_KIND_NULL = 0;
/** IndexValueKind::False */
export const INDEX_VALUE_KIND_FALSE = 1;
/** IndexValueKind::True */
export const INDEX_VALUE_KIND_TRUE = 2;
/** IndexValueKind::Number */
export const INDEX_VALUE_KIND_NUMBER = 3;
/** IndexValueKind::Date */
export const INDEX_VALUE_KIND_DATE = 4;
/** IndexValueKind::Text */
export const INDEX_VALUE_KIND_TEXT = 5;
/** The numbers of IndexValueKind. */
export const INDEX_VALUE_KIND_LENGTH = 6;

// MergeFact of src/bindings/mod.rs: each number's name, and how many there are.
/** MergeFact::LocalIsBase */
export const MERGE_FACT_LOCAL_IS_BASE = 0;
/** MergeFact::RemoteIsBase */
export const MERGE_FACT_REMOTE_IS_BASE = 1;
/** MergeFact::Equal */
export const MERGE_FACT_EQUAL = 2;
/** The numbers of MergeFact. */
export const MERGE_FACT_LENGTH = 3;

// MergeOutcome of src/bindings/mod.rs: each number's name, and how many there are.
/** MergeOutcome::Same */
export const MERGE_OUTCOME_SAME = 0;
/** MergeOutcome::TakeRemote */
export const MERGE_OUTCOME_TAKE_REMOTE = 1;
/** MergeOutcome::KeepLocal */
export const MERGE_OUTCOME_KEEP_LOCAL = 2;
/** MergeOutcome::Conflict */
export const MERGE_OUTCOME_CONFLICT = 3;
/** The numbers of MergeOutcome. */
export const MERGE_OUTCOME_LENGTH = 4;
