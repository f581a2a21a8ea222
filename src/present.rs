//! What the CLI and the TUI both say about a snapshot: the summary's lines, a field's
//! value in words, the top suspect in a sentence. Neither the CLI nor the TUI owns
//! these; both import them from here. The figures themselves are the result types of
//! [`crate::results`].

use crate::format::{float_text, Snapshot, Value};
use crate::results::inspect::char_text;
use crate::results::summary::{MemoryMode, Summary};
use crate::suspects::Report;
use crate::text::human;

pub use crate::results::summary::rss;

/// The summary as (label, value) lines, for the text output and the TUI's summary.
pub fn summary_lines(v: &Summary) -> Vec<(String, String)> {
    // The figure as the JSON document writes it (`0.0`, `33.3`).
    let per_object = serde_json::Number::from_f64(v.index_bytes_per_object)
        .map(|n| n.to_string())
        .unwrap_or_else(|| "-".to_string());
    let mut out = vec![
        ("file".to_string(), v.file.clone()),
        (
            "format".to_string(),
            match v.id_size {
                None => format!("{} ({})", v.format, v.format_version),
                Some(id) => format!("{} ({}, {id}-byte ids)", v.format, v.format_version),
            },
        ),
        ("objects".to_string(), v.objects.to_string()),
        ("classes".to_string(), v.classes.to_string()),
        ("edges".to_string(), v.edges.to_string()),
        ("roots".to_string(), v.roots.to_string()),
        ("threads".to_string(), v.threads.to_string()),
        ("shallow bytes".to_string(), v.shallow_bytes.to_string()),
        (
            "reachable".to_string(),
            format!(
                "{} objects, {} bytes",
                v.reachable_objects, v.reachable_bytes
            ),
        ),
        (
            "index".to_string(),
            format!("{} bytes, {per_object} per object", v.index_bytes),
        ),
        (
            "truncated".to_string(),
            match v.truncated {
                None => "no".to_string(),
                Some(t) => format!("yes, at byte offset {t}"),
            },
        ),
    ];
    if let Some(b) = &v.memory_budget {
        out.push((
            "memory left".to_string(),
            format!("{} MB, from {}", b.bytes >> 20, b.from),
        ));
    }
    if let MemoryMode::Disk { spilled_bytes, why } = &v.memory_mode {
        out.push((
            "memory mode".to_string(),
            format!("on disk, {} MB of spill files: {why}", spilled_bytes >> 20),
        ));
    }
    for (k, val) in &v.details {
        out.push((k.clone(), val.clone()));
    }
    for w in &v.warnings {
        out.push(("warning".to_string(), w.clone()));
    }
    out
}

/// The summary as (label, value) lines, for the TUI's summary overlay.
pub fn summary_lines_for(snap: &Snapshot) -> Vec<(String, String)> {
    summary_lines(&Summary::of(snap))
}

/// A field value as text for a terminal (sanitised by the caller).
pub fn value_text(snap: &Snapshot, v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_text(*f),
        Value::Char(c) => format!("{:?}", char_text(*c)),
        Value::Object(o) => {
            let mut s = format!("{} {}", snap.object_name(*o), snap.class_name(*o));
            if let Some(l) = snap.label(*o) {
                s.push(' ');
                s.push_str(&l);
            }
            s
        }
        Value::Missing(s) => format!("{s} (not in the dump)"),
        Value::Text(s) => s.clone(),
    }
}

/// The top suspect in one sentence (for `summary` and the TUI's summary).
pub fn top_suspect_sentence(r: &Report) -> Option<String> {
    let s = r.suspects.first()?;
    Some(format!(
        "{} ({}, {:.1} % of the heap)",
        s.title,
        human(s.retained),
        s.share * 100.0
    ))
}
