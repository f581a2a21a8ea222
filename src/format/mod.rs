//! The front door: detect a dump's format from its first bytes and open it.
//!
//! Owns format detection, the [`Snapshot`] that a reader returns and the [`Decoder`]
//! trait through which views ask a format for what the index does not keep. One module
//! per format; only HPROF is built so far, and the others answer that they were
//! recognised but are not supported yet (exit code 2), so that a user with a V8 or Go
//! file learns what they have rather than "unknown format".

pub mod hprof;
pub mod read;

use std::path::Path;

use crate::error::{Error, ParseError, Result};
use crate::heap::{Graph, ObjId};
use crate::progress::Progress;
use crate::source::Source;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Hprof,
    V8,
    Go,
    MoarVm,
    Dart,
}

impl Format {
    /// The `"format"` value of `summary --json`.
    pub fn id(self) -> &'static str {
        match self {
            Format::Hprof => "hprof",
            Format::V8 => "v8",
            Format::Go => "go",
            Format::MoarVm => "moarvm",
            Format::Dart => "dart",
        }
    }

    /// The name a person reads.
    pub fn title(self) -> &'static str {
        match self {
            Format::Hprof => "HPROF",
            Format::V8 => "V8 heap",
            Format::Go => "Go heap dump",
            Format::MoarVm => "MoarVM heap",
            Format::Dart => "Dart VM heap",
        }
    }
}

const EXPECTED_MAGIC: &str =
    "a heap snapshot: \"JAVA PROFILE 1.0.x\" (HPROF), '{' (V8 .heapsnapshot), \
\"goX.Y heap dump\" (Go), \"MoarHeapDumpv00N\" (MoarVM), \"dartheap\" (Dart) or gzip 1F 8B";

const V8_KEYS: &[&str] = &[
    "snapshot",
    "nodes",
    "edges",
    "strings",
    "locations",
    "trace_function_infos",
    "trace_tree",
    "samples",
];

fn printable_prefix(b: &[u8]) -> String {
    if b.is_empty() {
        return "end of file (an empty file)".to_string();
    }
    let shown: String = b
        .iter()
        .take(16)
        .map(|&c| {
            if (0x20..0x7f).contains(&c) {
                (c as char).to_string()
            } else {
                format!("\\x{c:02x}")
            }
        })
        .collect();
    format!("\"{shown}\"")
}

/// Detects the format from the first bytes.
pub fn detect(b: &[u8]) -> Result<Format, ParseError> {
    if b.starts_with(b"JAVA PROFILE 1.0.") {
        return Ok(Format::Hprof);
    }
    if b.starts_with(b"MoarHeapDumpv00") {
        return Ok(Format::MoarVm);
    }
    if b.starts_with(b"dartheap") {
        return Ok(Format::Dart);
    }
    if b.starts_with(b"go1.") {
        let head = &b[..b.len().min(32)];
        if head.windows(11).any(|w| w == b" heap dump\n") {
            return Ok(Format::Go);
        }
    }
    // V8: a JSON object whose first key is one of the snapshot's (keys may come in any
    // order), after optional whitespace and a UTF-8 byte-order mark.
    let mut i = if b.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() && i < 4096 {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    if b.get(i) == Some(&b'{') {
        let j = skip_ws(i + 1);
        if b.get(j) == Some(&b'"') {
            let rest = &b[j + 1..];
            if V8_KEYS
                .iter()
                .any(|k| rest.starts_with(k.as_bytes()) && rest.get(k.len()) == Some(&b'"'))
            {
                return Ok(Format::V8);
            }
        }
    }
    Err(ParseError::new(0, EXPECTED_MAGIC, printable_prefix(b)))
}

/// What a format answers on demand about objects, from the mapped bytes.
pub trait Decoder: Send + Sync {
    /// The object's name in the CLI's `OBJECT` syntax (`0x…` for HPROF and Go).
    fn object_name(&self, bytes: &[u8], g: &Graph, o: ObjId) -> String;
    /// Finds an object by its `OBJECT` name.
    fn find_object(&self, bytes: &[u8], g: &Graph, name: &str) -> Option<ObjId>;
}

/// One opened snapshot: its bytes, its index, and the format's decoder.
pub struct Snapshot {
    pub source: Source,
    pub format: Format,
    /// The version as the file states it, e.g. `JAVA PROFILE 1.0.2`.
    pub format_version: String,
    pub id_size: Option<u32>,
    pub graph: Graph,
    pub threads: usize,
    /// Offset where the file stops being whole, when it was cut short.
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
    /// Format-specific facts for `summary`: (label, value).
    pub facts: Vec<(String, String)>,
    pub decoder: Box<dyn Decoder>,
}

impl Snapshot {
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    pub fn object_name(&self, o: ObjId) -> String {
        self.decoder.object_name(self.bytes(), &self.graph, o)
    }

    pub fn class_name(&self, o: ObjId) -> &str {
        &self.graph.classes[self.graph.class_of[o as usize] as usize].name
    }
}

/// Opens a dump of any format: maps (or decompresses) it, detects the format and builds
/// the index.
pub fn open(path: &Path, progress: &Progress) -> Result<Snapshot> {
    let source = crate::source::open(path, progress)?;
    let format = detect(source.bytes()).map_err(|e| Error::parse(path, e))?;
    let mut snap = match format {
        Format::Hprof => hprof::open(source, progress).map_err(|e| Error::parse(path, e))?,
        other => {
            return Err(Error::Unsupported {
                file: path.display().to_string(),
                format: other.title(),
            })
        }
    };
    let mut w = std::mem::take(&mut snap.source.warnings);
    w.append(&mut snap.warnings);
    snap.warnings = w;
    Ok(snap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_every_magic() {
        assert_eq!(detect(b"JAVA PROFILE 1.0.2\0").unwrap(), Format::Hprof);
        assert_eq!(detect(b"JAVA PROFILE 1.0.3\0").unwrap(), Format::Hprof);
        assert_eq!(detect(b"{\"snapshot\":{}").unwrap(), Format::V8);
        assert_eq!(detect(b"\n  {\n \"nodes\":[]").unwrap(), Format::V8);
        assert_eq!(detect(b"go1.7 heap dump\n").unwrap(), Format::Go);
        assert_eq!(detect(b"MoarHeapDumpv002").unwrap(), Format::MoarVm);
        assert_eq!(detect(b"MoarHeapDumpv003").unwrap(), Format::MoarVm);
        assert_eq!(detect(b"dartheap\x01").unwrap(), Format::Dart);
    }

    #[test]
    fn rejects_others_saying_what_was_expected() {
        let e = detect(b"hello world").unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.expected.contains("JAVA PROFILE"));
        assert!(e.found.contains("hello world"));
        assert!(detect(b"").unwrap_err().found.contains("empty"));
        assert!(detect(b"{\"foo\": 1}").is_err());
        assert!(detect(b"go1.7 heap dum").is_err());
    }
}
