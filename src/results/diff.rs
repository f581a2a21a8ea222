//! `diff` and `leaks`: two or three snapshots compared ([`crate::diff`], [`crate::leaks`]).

use schemars::JsonSchema;
use serde::Serialize;

use super::{PathStep, SchemaVersion};
use crate::diff::{ClassDelta, Identity, OwnerDelta};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;

/// The `diff` document (plus `warnings`, per class `*_retained_bytes` with the dominator
/// trees and `new_count`/`gone_count` where ids survive between snapshots, `kept`, and
/// `owners` with `--owners`: additions to the contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Diff {
    pub schema_version: SchemaVersion,
    pub base: String,
    pub classes: Vec<ClassDeltaEntry>,
    /// `null` where the format has no ids that survive between snapshots.
    pub objects: Option<ObjectMatch>,
    /// With `--owners N`: the owners whose retained size grew most.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<OwnerDeltaEntry>")]
    pub owners: Option<Vec<OwnerDeltaEntry>>,
    pub target: String,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassDeltaEntry {
    pub base_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub base_retained_bytes: Option<u64>,
    pub base_shallow_bytes: u64,
    pub class: String,
    pub delta_count: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub delta_retained_bytes: Option<i64>,
    pub delta_shallow_bytes: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub gone_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub new_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub new_retained_bytes: Option<u64>,
    pub target_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub target_retained_bytes: Option<u64>,
    pub target_shallow_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectMatch {
    pub gone: u64,
    pub kept: u64,
    pub matched_by: String,
    pub new: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnerDeltaEntry {
    pub base_entries: Option<u64>,
    pub base_objects: u64,
    pub base_retained_bytes: u64,
    pub delta_entries: Option<i64>,
    pub delta_objects: i64,
    pub delta_retained_bytes: i64,
    pub owner: String,
    pub target_entries: Option<u64>,
    pub target_objects: u64,
    pub target_retained_bytes: u64,
}

impl Diff {
    /// The document of `list` (sorted and cut), `ids` where they survive, `retained`
    /// where both dominator trees were computed, and `owners` when they were asked for.
    pub fn of(
        a: &Snapshot,
        b: &Snapshot,
        list: &[ClassDelta],
        ids: Option<&Identity>,
        retained: bool,
        owners: Option<&[OwnerDelta]>,
        warning: Option<&str>,
    ) -> Diff {
        let has_ids = ids.is_some();
        Diff {
            schema_version: SchemaVersion,
            base: a.source.path.display().to_string(),
            classes: list
                .iter()
                .map(|r| ClassDeltaEntry {
                    base_count: r.base_count,
                    base_retained_bytes: retained.then_some(r.base_retained),
                    base_shallow_bytes: r.base_shallow,
                    class: r.class.clone(),
                    delta_count: r.delta_count(),
                    delta_retained_bytes: retained.then(|| r.delta_retained()),
                    delta_shallow_bytes: r.delta_shallow(),
                    gone_count: has_ids.then_some(r.gone),
                    new_count: has_ids.then_some(r.new),
                    new_retained_bytes: (has_ids && retained).then_some(r.new_retained),
                    target_count: r.target_count,
                    target_retained_bytes: retained.then_some(r.target_retained),
                    target_shallow_bytes: r.target_shallow,
                })
                .collect(),
            objects: ids.map(|i| ObjectMatch {
                gone: i.gone,
                kept: i.kept,
                matched_by: i.kind.to_string(),
                new: i.new,
            }),
            owners: owners.map(|rows| {
                rows.iter()
                    .map(|r| OwnerDeltaEntry {
                        base_entries: r.base_entries,
                        base_objects: r.base.objects,
                        base_retained_bytes: r.base.retained,
                        delta_entries: r.delta_entries(),
                        delta_objects: r.delta_objects(),
                        delta_retained_bytes: r.delta_retained(),
                        owner: r.owner.clone(),
                        target_entries: r.target_entries,
                        target_objects: r.target.objects,
                        target_retained_bytes: r.target.retained,
                    })
                    .collect()
            }),
            target: b.source.path.display().to_string(),
            warnings: warning.iter().map(|w| w.to_string()).collect(),
        }
    }
}

/// The `leaks` document: by object where ids survive between snapshots (memlab's
/// method), else by owner.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Leaks {
    ByObject(LeaksByObject),
    ByOwner(LeaksByOwner),
}

/// Objects allocated between BASELINE and TARGET still alive in FINAL, grouped by class
/// and retainer path, largest retained first (plus `matched_by`, `objects` and
/// `folded_internal`, the engine's own objects counted in what holds them).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaksByObject {
    pub schema_version: SchemaVersion,
    pub folded_internal: usize,
    pub leaks: Vec<ObjectLeak>,
    pub matched_by: String,
    pub objects: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectLeak {
    pub class: String,
    pub count: usize,
    pub example: String,
    pub path: Vec<PathStep>,
    pub retained_bytes: u64,
    /// The retainer path's shape in words, for the text table.
    #[serde(skip)]
    pub shape: Vec<String>,
}

/// For formats whose ids do not survive between snapshots: the owners (dominator-tree
/// nodes matched by their path from the GC roots) whose retained size grew from
/// BASELINE to TARGET and did not shrink back in FINAL (FINAL keeps at least 90% of the
/// growth), each in the contract's shape: its class, the objects it gained (`count`),
/// the bytes it gained (`retained_bytes`), an example node in FINAL and its path there;
/// plus the owner's name and its three retained sizes.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaksByOwner {
    pub schema_version: SchemaVersion,
    pub leaks: Vec<OwnerLeak>,
    pub matched_by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnerLeak {
    pub baseline_retained_bytes: u64,
    pub class: String,
    pub count: i64,
    pub delta_entries: Option<i64>,
    pub example: Option<String>,
    pub final_retained_bytes: u64,
    pub owner: String,
    pub path: Vec<PathStep>,
    pub retained_bytes: i64,
    pub target_retained_bytes: u64,
}

impl LeaksByObject {
    /// The first `top` clusters of `r`, found in the FINAL snapshot `c`.
    pub fn of(c: &Snapshot, r: &crate::leaks::Report, top: usize) -> LeaksByObject {
        LeaksByObject {
            schema_version: SchemaVersion,
            folded_internal: r.folded,
            leaks: r
                .clusters
                .iter()
                .take(top)
                .map(|k| ObjectLeak {
                    class: k.class.clone(),
                    count: k.objects.len(),
                    example: c.object_name(k.objects[0]),
                    path: k
                        .path
                        .as_ref()
                        .map(|p| PathStep::all(c, p, false))
                        .unwrap_or_default(),
                    retained_bytes: k.retained,
                    shape: k.shape.clone(),
                })
                .collect(),
            matched_by: r.kind.clone(),
            objects: r.objects,
        }
    }
}

impl LeaksByOwner {
    pub fn of(s: [&Snapshot; 3], d: [&Dominators; 3], top: usize) -> LeaksByOwner {
        let [a, b, c] = s;
        let grown = crate::diff::owner_deltas(a, d[0], b, d[1], 200);
        let fin = crate::diff::owner_map(c, d[2]);
        let leaks = grown
            .iter()
            .filter_map(|r| {
                let f = fin.get(&r.owner)?;
                let growth = r.delta_retained() as u64;
                (f.retained + growth / 10 >= r.target.retained).then_some((r, f))
            })
            .take(top)
            .map(|(r, f)| {
                let example = f.nodes.first().copied();
                let path = example
                    .and_then(|o| {
                        crate::heap::paths::to_roots(&c.graph, o, 1, false)
                            .into_iter()
                            .next()
                    })
                    .map(|p| PathStep::all(c, &p, false))
                    .unwrap_or_default();
                OwnerLeak {
                    baseline_retained_bytes: r.base.retained,
                    class: f.class.clone(),
                    count: r.delta_objects(),
                    delta_entries: r.delta_entries(),
                    example: example.map(|o| c.object_name(o)),
                    final_retained_bytes: f.retained,
                    owner: r.owner.clone(),
                    path,
                    retained_bytes: r.delta_retained(),
                    target_retained_bytes: r.target.retained,
                }
            })
            .collect();
        LeaksByOwner {
            schema_version: SchemaVersion,
            leaks,
            matched_by: "owner path from the GC roots".to_string(),
        }
    }
}
