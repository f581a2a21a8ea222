//! `summary` and `histogram`: the snapshot's figures, and objects per class.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::histogram::{self, Row};

/// The `summary` document (plus `details`, `rss_*`, `memory_budget`, `memory_mode` and
/// `top_suspect`: additions to the contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub schema_version: SchemaVersion,
    pub classes: usize,
    /// The format's own facts (label → value), and where the index and the dominator
    /// tree came from.
    pub details: BTreeMap<String, String>,
    pub edges: usize,
    pub file: String,
    pub format: String,
    pub format_version: String,
    pub id_size: Option<u32>,
    pub index_bytes: u64,
    pub index_bytes_per_object: f64,
    /// What this process may still use, and where that figure comes from (the memory
    /// cgroup, the resource limits, MemAvailable).
    pub memory_budget: Option<MemoryBudget>,
    /// Where the index's large arrays live: in memory, or on disk in spill files.
    pub memory_mode: MemoryMode,
    pub objects: usize,
    pub reachable_bytes: u64,
    pub reachable_objects: u64,
    pub roots: usize,
    pub rss_anon_bytes: Option<u64>,
    pub rss_file_bytes: Option<u64>,
    pub shallow_bytes: u64,
    pub snapshot: usize,
    pub snapshots: Vec<SnapshotEntry>,
    pub threads: usize,
    /// The top leak suspect in one sentence; `null` when nothing holds 1 % of the heap.
    /// Only `heaptui summary` prints it (it needs the dominator tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub top_suspect: Option<Option<String>>,
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryBudget {
    pub bytes: u64,
    pub from: String,
}

/// `{"mode": "memory"}`, or `{"mode": "disk", ...}` when the index went to spill files.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum MemoryMode {
    Disk { spilled_bytes: u64, why: String },
    Memory,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotEntry {
    pub index: usize,
    pub label: String,
    pub objects: u64,
}

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

impl Summary {
    /// The figures of `snap`, without `top_suspect` (which the caller adds when it has
    /// the dominator tree).
    pub fn of(snap: &Snapshot) -> Summary {
        let g = &snap.graph;
        let (_, reach_count, reach_bytes) = crate::heap::reach::reachable(g);
        let shallow: u64 = (0..g.len() as u32).map(|o| g.shallow_size(o)).sum();
        let classes = histogram::by_class(g).len();
        let index_bytes = g.index_bytes() + snap.decoder.heap_bytes();
        let (anon, file) = rss();
        Summary {
            schema_version: SchemaVersion,
            classes,
            // A label given twice keeps its last value, as a JSON object would.
            details: snap.facts.iter().cloned().collect(),
            edges: g.edge_count(),
            file: snap.source.path.display().to_string(),
            format: snap.format.id().to_string(),
            format_version: snap.format_version.clone(),
            id_size: snap.id_size,
            index_bytes,
            index_bytes_per_object: if g.is_empty() {
                0.0
            } else {
                (index_bytes as f64 / g.len() as f64 * 10.0).round() / 10.0
            },
            memory_budget: match crate::sys::budget::budget() {
                Ok(Some(b)) => Some(MemoryBudget {
                    bytes: b.bytes,
                    from: b.from,
                }),
                _ => None,
            },
            memory_mode: match crate::sys::spill::why() {
                Some(why) => MemoryMode::Disk {
                    spilled_bytes: crate::sys::spill::mapped(),
                    why,
                },
                None => MemoryMode::Memory,
            },
            objects: g.len(),
            reachable_bytes: reach_bytes,
            reachable_objects: reach_count,
            roots: g.roots.len(),
            rss_anon_bytes: anon,
            rss_file_bytes: file,
            shallow_bytes: shallow,
            snapshot: snap.snapshot_index,
            snapshots: snap
                .snapshots
                .iter()
                .map(|s| SnapshotEntry {
                    index: s.index,
                    label: s.label.clone(),
                    objects: s.objects,
                })
                .collect(),
            threads: snap.threads,
            top_suspect: None,
            truncated: snap.truncated,
            warnings: snap.warnings.clone(),
        }
    }
}

/// The `histogram` document: `classes` sorted as asked and cut to `--top`, `total` over
/// all of them.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Histogram {
    pub schema_version: SchemaVersion,
    pub classes: Vec<HistogramRow>,
    pub total: HistogramTotal,
}

/// One class, or one package: package rows keep the contract's `"class"` key (scripts
/// read it) and say that they are packages with an added `"package"` key.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistogramRow {
    pub class: String,
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub package: Option<String>,
    pub retained_bytes: Option<u64>,
    pub shallow_bytes: u64,
    /// Instances no GC root reaches (they have no retained size, so a class's retained
    /// figure can be below its shallow one); only where the dominator tree was computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub unreachable_count: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistogramTotal {
    pub count: u64,
    pub shallow_bytes: u64,
}

impl Histogram {
    /// `rows` (already sorted), the first `top` of them kept, totals over all. With
    /// `unreachable` (per class id, instances no GC root reaches), rows of classes carry
    /// `unreachable_count`.
    pub fn of(
        mut rows: Vec<Row>,
        top: Option<usize>,
        packages: bool,
        unreachable: Option<&[u64]>,
    ) -> Histogram {
        let total = HistogramTotal {
            count: rows.iter().map(|r| r.count).sum(),
            shallow_bytes: rows.iter().map(|r| r.shallow).sum(),
        };
        if let Some(n) = top {
            rows.truncate(n);
        }
        let classes = rows
            .into_iter()
            .map(|r| HistogramRow {
                unreachable_count: unreachable
                    .zip(r.class)
                    .map(|(u, c)| u.get(c as usize).copied().unwrap_or(0)),
                package: packages.then(|| r.name.clone()),
                class: r.name,
                count: r.count,
                retained_bytes: r.retained,
                shallow_bytes: r.shallow,
            })
            .collect();
        Histogram {
            schema_version: SchemaVersion,
            classes,
            total,
        }
    }
}
