//! Checks an attrmap export (newline-delimited JSON, docs/export-format.md) with the same rules
//! an import applies, natively: `cargo run --example verify-export -- FILE`. Prints what it
//! holds, or the first line that breaks a rule, and exits 1.

use std::io::BufRead;

use attrmap::{Error, ExportSummary, ExportVerifier};
use serde_json::Value;

/// Drives the verifier with each line of `reader`.
pub fn verify(reader: impl BufRead) -> Result<ExportSummary, Error> {
    let mut v = ExportVerifier::new();
    for line in reader.lines() {
        let line = line.map_err(|e| v.bad_line("invalid-json", &format!("cannot be read: {e}")))?;
        let value: Value = serde_json::from_str(&line).map_err(|e| v.bad_line("invalid-json", &format!("is not JSON: {e}")))?;
        check_line(&mut v, &value)?;
    }
    v.finish()
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

fn number(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// One line: the header, a layout, a state, or an instance.
fn check_line(v: &mut ExportVerifier, line: &Value) -> Result<(), Error> {
    let Some(object) = line.as_object() else {
        return Err(v.bad_line("bad-line", "is not a JSON object"));
    };
    if let Some(format) = text(line, "format") {
        return v.header(format, number(line, "version"));
    }
    let Some(map) = text(line, "map") else {
        return Err(v.bad_line("bad-line", "has no \"map\""));
    };
    match (object.get("layout"), object.get("state"), object.get("instance"), object.get("value")) {
        (Some(layout), None, None, None) => match text(layout, "kind") {
            Some("partitioned") => v.partitioned_layout(
                map,
                number(layout, "layoutVersion"),
                number(layout, "partitionCount"),
                text(layout, "keyRule").unwrap_or(""),
            ),
            Some("chunked") => {
                let segments = layout.get("segments").and_then(Value::as_array).map(|list| {
                    list.iter().flat_map(|s| [number(s, "fromSequence"), number(s, "chunkSize")]).collect::<Vec<_>>()
                });
                v.chunked_layout(map, number(layout, "layoutVersion"), &segments.unwrap_or_default())
            }
            _ => Err(v.bad_line("bad-layout", "has a layout of no known kind")),
        },
        (None, Some(state), None, None) => {
            v.state(map, number(state, "nextSequence"), text(state, "latestArchivedChunkToken").unwrap_or("\u{0}"))
        }
        (None, None, Some(Value::String(instance)), Some(Value::Object(entries))) => {
            let mut keys = Vec::new();
            let mut ends = Vec::new();
            for key in entries.keys() {
                keys.extend(key.as_bytes());
                ends.push(keys.len() as u32);
            }
            v.partition(map, instance, &keys, &ends)
        }
        (None, None, Some(Value::String(instance)), Some(Value::Array(records))) => {
            let sequences: Vec<f64> = records.iter().map(|r| number(r, "sequence")).collect();
            v.chunk(map, instance, &sequences)
        }
        _ => Err(v.bad_line("bad-line", "is not a layout, state or instance line")),
    }
}

#[allow(dead_code)] // the tests include this file for `verify`
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: cargo run --example verify-export -- FILE");
        std::process::exit(2);
    };
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    match verify(std::io::BufReader::new(file)) {
        Ok(s) => println!("{path}: valid: {} maps, {} instances, {} entries", s.maps, s.instances, s.entries),
        Err(e) => {
            eprintln!("{path}: {}", e.message);
            std::process::exit(1);
        }
    }
}
