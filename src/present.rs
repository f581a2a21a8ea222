//! What the CLI and the TUI both say about a snapshot: the summary's figures and lines,
//! a field's value in words and in JSON, the top suspect in a sentence. Neither the CLI
//! nor the TUI owns these; both import them from here.

use serde_json::{json, Value as Json};

use crate::format::{float_text, Snapshot, Value};
use crate::heap::histogram;
use crate::suspects::Report;
use crate::text::human;

/// Reads `RssAnon` and `RssFile` (bytes) from `/proc/self/status`: our own memory apart
/// from the mapped file's pages.
pub fn rss() -> (Option<u64>, Option<u64>) {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return (None, None);
    };
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    (field("RssAnon:"), field("RssFile:"))
}

/// The `summary` document of `../shared/CLI.md` (plus `details`, `rss_*`).
pub fn summary_value(snap: &Snapshot) -> Json {
    let g = &snap.graph;
    let (_, reach_count, reach_bytes) = crate::heap::reach::reachable(g);
    let shallow: u64 = (0..g.len() as u32).map(|o| g.shallow_size(o)).sum();
    let classes = histogram::by_class(g).len();
    let index_bytes = g.index_bytes() + snap.decoder.heap_bytes();
    let (anon, file) = rss();
    let details: serde_json::Map<String, Json> = snap
        .facts
        .iter()
        .map(|(k, v)| (k.clone(), Json::String(v.clone())))
        .collect();
    json!({
        "file": snap.source.path.display().to_string(),
        "format": snap.format.id(),
        "format_version": snap.format_version,
        "id_size": snap.id_size,
        "snapshot": snap.snapshot_index,
        "snapshots": snap.snapshots.iter().map(|s| json!({
            "index": s.index, "label": s.label, "objects": s.objects,
        })).collect::<Vec<_>>(),
        "objects": g.len(),
        "classes": classes,
        "edges": g.edge_count(),
        "roots": g.roots.len(),
        "threads": snap.threads,
        "shallow_bytes": shallow,
        "reachable_objects": reach_count,
        "reachable_bytes": reach_bytes,
        "index_bytes": index_bytes,
        "index_bytes_per_object": if g.is_empty() { 0.0 } else {
            (index_bytes as f64 / g.len() as f64 * 10.0).round() / 10.0
        },
        "truncated": snap.truncated,
        "warnings": snap.warnings,
        "details": details,
        "rss_anon_bytes": anon,
        "rss_file_bytes": file,
        // What this process may still use, and where that figure comes from (the
        // memory cgroup, the resource limits, MemAvailable): an addition to the contract.
        "memory_budget": match crate::sys::budget::budget() {
            Ok(Some(b)) => json!({"bytes": b.bytes, "from": b.from}),
            _ => Json::Null,
        },
        // Where the index's large arrays live: "memory", or "disk" when they would not
        // fit in the budget and went to spill files ([`crate::sys::spill`]), with the
        // bytes of files mapped and why: an addition to the contract.
        "memory_mode": match crate::sys::spill::why() {
            Some(why) => json!({"mode": "disk", "spilled_bytes": crate::sys::spill::mapped(), "why": why}),
            None => json!({"mode": "memory"}),
        },
    })
}

/// The summary as (label, value) lines, for the text output and the TUI's summary.
pub fn summary_lines(v: &Json) -> Vec<(String, String)> {
    let s = |k: &str| match &v[k] {
        Json::String(s) => s.clone(),
        Json::Null => "-".to_string(),
        other => other.to_string(),
    };
    let mut out = vec![
        ("file".to_string(), s("file")),
        (
            "format".to_string(),
            match &v["id_size"] {
                Json::Null => format!("{} ({})", s("format"), s("format_version")),
                _ => format!(
                    "{} ({}, {}-byte ids)",
                    s("format"),
                    s("format_version"),
                    s("id_size")
                ),
            },
        ),
        ("objects".to_string(), s("objects")),
        ("classes".to_string(), s("classes")),
        ("edges".to_string(), s("edges")),
        ("roots".to_string(), s("roots")),
        ("threads".to_string(), s("threads")),
        ("shallow bytes".to_string(), s("shallow_bytes")),
        (
            "reachable".to_string(),
            format!(
                "{} objects, {} bytes",
                s("reachable_objects"),
                s("reachable_bytes")
            ),
        ),
        (
            "index".to_string(),
            format!(
                "{} bytes, {} per object",
                s("index_bytes"),
                s("index_bytes_per_object")
            ),
        ),
        (
            "truncated".to_string(),
            match &v["truncated"] {
                Json::Null => "no".to_string(),
                t => format!("yes, at byte offset {t}"),
            },
        ),
    ];
    if let Some(b) = v["memory_budget"]["bytes"].as_u64() {
        out.push((
            "memory left".to_string(),
            format!(
                "{} MB, from {}",
                b >> 20,
                v["memory_budget"]["from"].as_str().unwrap_or("?")
            ),
        ));
    }
    if v["memory_mode"]["mode"] == "disk" {
        out.push((
            "memory mode".to_string(),
            format!(
                "on disk, {} MB of spill files: {}",
                v["memory_mode"]["spilled_bytes"].as_u64().unwrap_or(0) >> 20,
                v["memory_mode"]["why"].as_str().unwrap_or("?")
            ),
        ));
    }
    if let Json::Object(d) = &v["details"] {
        for (k, val) in d {
            out.push((k.clone(), val.as_str().unwrap_or_default().to_string()));
        }
    }
    if let Json::Array(ws) = &v["warnings"] {
        for w in ws {
            out.push((
                "warning".to_string(),
                w.as_str().unwrap_or_default().to_string(),
            ));
        }
    }
    out
}

/// The summary as (label, value) lines, for the TUI's summary overlay.
pub fn summary_lines_for(snap: &Snapshot) -> Vec<(String, String)> {
    summary_lines(&summary_value(snap))
}

/// A field value as JSON: numbers as numbers, references as `OBJECT` names.
pub fn value_json(snap: &Snapshot, v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) if f.is_finite() => json!(f),
        Value::Float(f) => json!(float_text(*f)),
        Value::Char(c) => json!(char_text(*c)),
        Value::Object(o) => json!(snap.object_name(*o)),
        Value::Missing(s) | Value::Text(s) => json!(s),
    }
}

fn char_text(c: u16) -> String {
    char::from_u32(c as u32)
        .map(|c| c.to_string())
        .unwrap_or_else(|| format!("\\u{c:04x}"))
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
