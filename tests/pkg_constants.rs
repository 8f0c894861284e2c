//! pkg/src/common/constants.ts holds the core's constants as TypeScript literals, so that the
//! package's modules can use them as they load, before (and whichever way) the wasm module
//! starts. Their one home is still the crate: this test renders the file from it and fails
//! when the file differs. `ATTRMAP_WRITE_CONSTANTS=1 cargo test --test pkg_constants` writes it.

use attrmap::bindings::{
    AppendPlanSlot, ChunkSizeChangeSlot, DropPlanSlot, IndexValueKind, LogBookSlot, LogCheckSlot, MergeFact, MergeOutcome,
    MAX_TEXT_LENGTH,
};
use attrmap::{
    ChunkSize, KeyRule, PartitionCount, CURRENT, EXPORT_FORMAT, EXPORT_VERSION, FIRST_LAYOUT_VERSION, FNV_OFFSET_BASIS,
    MAX_COMPOUND_LENGTH,
};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg/src/common/constants.ts");

fn render() -> String {
    let string = |s: &str| format!("{s:?}"); // the names are ASCII words: Rust's quoting is JSON's
    let constants: [(&str, &str, String); 12] = [
        (
            "Longest string that crosses into the Rust core (UTF-16 code units): keys, emails, page tokens.",
            "MAX_TEXT_LENGTH",
            MAX_TEXT_LENGTH.to_string(),
        ),
        ("The name of a log's mutable chunk, and the page token that means it.", "CURRENT", string(CURRENT)),
        (
            "Partitions of a new map when none is given (the reference server's 1000).",
            "DEFAULT_PARTITION_COUNT",
            PartitionCount::default().get().to_string(),
        ),
        (
            "Records per chunk of a new log when none is given (the reference server's 100).",
            "DEFAULT_CHUNK_SIZE",
            ChunkSize::default().get().to_string(),
        ),
        ("The export format's name, as its header line states it.", "EXPORT_FORMAT", string(EXPORT_FORMAT)),
        ("The export format's version, as its header line states it.", "EXPORT_VERSION", EXPORT_VERSION.to_string()),
        (
            "The layout version of a new map; each layout change adds one.",
            "FIRST_LAYOUT_VERSION",
            FIRST_LAYOUT_VERSION.to_string(),
        ),
        ("The key rule that keeps keys as they are.", "EXACT_KEYS", string(KeyRule::EXACT)),
        ("The key rule of the email canonicalization (docs/partitioned-map.md).", "EMAIL_KEYS", string(KeyRule::EMAIL)),
        ("The key rule name stored for a canonicalizer given no name.", "CUSTOM_KEYS", string(KeyRule::CUSTOM)),
        ("FNV-1a's offset basis: the hash of no bytes.", "FNV_OFFSET_BASIS", format!("{FNV_OFFSET_BASIS:#x}")),
        ("Most elements of a compound index value (docs/indexes.md).", "MAX_COMPOUND_LENGTH", MAX_COMPOUND_LENGTH.to_string()),
    ];
    let mut out = String::from(
        "// Generated from the Rust crate by tests/pkg_constants.rs (which fails when this file differs):\n\
         // the core's constants, usable while modules load, before the wasm module starts.\n",
    );
    for (doc, name, value) in constants {
        out += &format!("\n/** {doc} */\nexport const {name} = {value};\n");
    }
    // The arrays that cross the boundary, each number by name (src/bindings/mod.rs says what each holds),
    // and the codes of an index value's kinds.
    let slots: [(&str, &[&str]); 8] = [
        ("LogBookSlot", LogBookSlot::NAMES),
        ("LogCheckSlot", LogCheckSlot::NAMES),
        ("AppendPlanSlot", AppendPlanSlot::NAMES),
        ("ChunkSizeChangeSlot", ChunkSizeChangeSlot::NAMES),
        ("DropPlanSlot", DropPlanSlot::NAMES),
        ("IndexValueKind", IndexValueKind::NAMES),
        ("MergeFact", MergeFact::NAMES),
        ("MergeOutcome", MergeOutcome::NAMES),
    ];
    for (set, names) in slots {
        let prefix = screaming(set.trim_end_matches("Slot"));
        out += &format!("\n// {set} of src/bindings/mod.rs: each number's name, and how many there are.\n");
        for (i, name) in names.iter().enumerate() {
            out += &format!("/** {set}::{name} */\nexport const {prefix}_{} = {i};\n", screaming(name));
        }
        out += &format!("/** The numbers of {set}. */\nexport const {prefix}_LENGTH = {};\n", names.len());
    }
    out
}

/// `CamelCase` as `SCREAMING_SNAKE`.
fn screaming(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

#[test]
fn pkg_constants_are_the_crates() {
    let want = render();
    if std::env::var_os("ATTRMAP_WRITE_CONSTANTS").is_some() {
        std::fs::write(PATH, &want).unwrap();
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        have == want,
        "{PATH} differs from the crate's constants: run ATTRMAP_WRITE_CONSTANTS=1 cargo test --test pkg_constants"
    );
}
