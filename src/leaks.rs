//! memlab's three-snapshot method: objects whose ids are in TARGET but not in BASELINE
//! (allocated by the action under test) and still in FINAL (not freed by the clean-up),
//! grouped by class and by the shape of their shortest retainer path in FINAL (the
//! classes and reference names from the GC root down), largest retained size first. A
//! group's retained size counts only members that no other member dominates. Needs ids
//! that survive between snapshots (V8 node ids, Dart identity hashes).
//!
//! The engine's own objects (compiled code, object shapes, system and synthetic nodes)
//! held by a leaked object of the program's are folded into it unless asked for.
//!
//! `heaptui leaks` prints the clusters (`cli::compare`); `heaptui BASELINE TARGET
//! FINAL` shows them in the TUI (`ui::panes::leaks`).

use std::collections::{HashMap, HashSet};

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::ObjId;

/// What BASELINE and TARGET say: the ids new in TARGET.
#[derive(Debug, Clone)]
pub struct LeakIds {
    /// Ids in TARGET and not in BASELINE (id 0, "no id", never).
    pub new: HashSet<u64>,
}

impl LeakIds {
    /// The ids new in `target`, or `None` when a snapshot keeps no ids that survive.
    pub fn of(baseline: &Snapshot, target: &Snapshot) -> Option<LeakIds> {
        let (_, ia) = baseline.persistent_ids()?;
        let (_, ib) = target.persistent_ids()?;
        let base: HashSet<u64> = ia.into_iter().collect();
        let new = ib
            .into_iter()
            .filter(|id| *id != 0 && !base.contains(id))
            .collect();
        Some(LeakIds { new })
    }
}

/// Leaked objects of one class held along one path shape.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub class: String,
    /// The retainer path's shape from the root: `Class .reference` steps.
    pub shape: Vec<String>,
    /// The objects in FINAL, the first one the example.
    pub objects: Vec<ObjId>,
    pub retained: u64,
    /// The example's shortest path from a GC root, when it was looked for.
    pub path: Option<Vec<ObjId>>,
}

/// The leaks of FINAL.
#[derive(Debug, Clone)]
pub struct Report {
    /// What the ids are (`node id`, ...).
    pub kind: String,
    pub clusters: Vec<Cluster>,
    /// Leaked objects in all, the folded ones included.
    pub objects: usize,
    /// The engine's own objects folded into what holds them.
    pub folded: usize,
}

/// Paths are looked for, for the first this many leaked objects.
const PATHS_FOR: usize = 20_000;

/// The leaks of `final_` (whose dominator tree is `d`) by the ids `ids`; `None` when
/// FINAL keeps no ids.
pub fn find(ids: &LeakIds, final_: &Snapshot, d: &Dominators, internal: bool) -> Option<Report> {
    let c = final_;
    let (kind, ic) = c.persistent_ids()?;
    let g = &c.graph;
    let mut leaked: Vec<ObjId> = (0..g.len() as ObjId)
        .filter(|&o| ids.new.contains(&ic[o as usize]))
        .collect();
    let members: HashSet<ObjId> = leaked.iter().copied().collect();
    let mut folded = 0usize;
    if !internal {
        let is_internal = |o: ObjId| {
            let n = c.class_name(o);
            matches!(
                n,
                "(compiled code)" | "(object shape)" | "(system)" | "(synthetic)" | "(code)"
            ) || n.starts_with("system / ")
        };
        leaked.retain(|&o| {
            let fold = is_internal(o)
                && d.dominator_chain(o)
                    .iter()
                    .any(|x| members.contains(x) && !is_internal(*x));
            folded += fold as usize;
            !fold
        });
    }
    type GroupKey = (String, Vec<String>);
    let mut groups: HashMap<GroupKey, Vec<ObjId>> = HashMap::new();
    let mut paths: HashMap<GroupKey, Vec<ObjId>> = HashMap::new();
    for (k, &o) in leaked.iter().enumerate() {
        let path = if k < PATHS_FOR {
            crate::heap::paths::to_roots(g, o, 1, false)
                .into_iter()
                .next()
        } else {
            None
        };
        let shape: Vec<String> = path
            .as_ref()
            .map(|p| {
                p.iter()
                    .enumerate()
                    .take(p.len().saturating_sub(1))
                    .map(|(i, &x)| {
                        let edge = p
                            .get(i + 1)
                            .and_then(|&n| c.edge_label(x, n))
                            .unwrap_or_default();
                        // Element indexes (and numbered slots) do not tell paths apart.
                        let bare = edge.trim_start_matches('[').trim_end_matches(']');
                        let edge = if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
                            "[*]".to_string()
                        } else {
                            edge
                        };
                        format!("{} .{edge}", c.class_name(x))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let key = (c.class_name(o).to_string(), fold_shape(shape));
        if let Some(p) = path {
            paths.entry(key.clone()).or_insert(p);
        }
        groups.entry(key).or_default().push(o);
    }
    let mut clusters: Vec<Cluster> = groups
        .into_iter()
        .map(|(key, objs)| {
            let set: HashSet<ObjId> = objs.iter().copied().collect();
            let retained = objs
                .iter()
                .filter(|&&o| {
                    !d.dominator_chain(o)
                        .iter()
                        .any(|x| set.contains(x) && members.contains(x))
                })
                .map(|&o| d.retained(o).unwrap_or(0))
                .sum();
            let path = paths.remove(&key);
            Cluster {
                class: key.0,
                shape: key.1,
                objects: objs,
                retained,
                path,
            }
        })
        .collect();
    clusters.sort_by(|x, y| {
        y.retained
            .cmp(&x.retained)
            .then(y.objects.len().cmp(&x.objects.len()))
            .then((&x.class, &x.shape).cmp(&(&y.class, &y.shape)))
    });
    Some(Report {
        kind: kind.to_string(),
        clusters,
        objects: leaked.len() + folded,
        folded,
    })
}

/// A path's shape with each run of more than `2 × RUN_SHOWN + 1` equal steps (a linked
/// list's `ChainNode .next`) folded but for its ends: `… 9,990 more ChainNode .next …`.
fn fold_shape(shape: Vec<String>) -> Vec<String> {
    use crate::heap::paths::RUN_SHOWN;
    let mut out: Vec<String> = Vec::with_capacity(shape.len().min(64));
    let mut i = 0;
    while i < shape.len() {
        let mut j = i + 1;
        while j < shape.len() && shape[j] == shape[i] {
            j += 1;
        }
        if j - i > 2 * RUN_SHOWN + 1 {
            out.extend(shape[i..i + RUN_SHOWN].iter().cloned());
            out.push(format!(
                "… {} more {} …",
                crate::text::thousands((j - i - 2 * RUN_SHOWN) as u64),
                shape[i]
            ));
            out.extend(shape[j - RUN_SHOWN..j].iter().cloned());
        } else {
            out.extend(shape[i..j].iter().cloned());
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod fold_tests {
    #[test]
    fn a_shape_s_long_runs_are_folded_but_for_their_ends() {
        let mut shape = vec!["Main .CHAIN_ROOT".to_string()];
        shape.extend(std::iter::repeat_n("ChainNode .next".to_string(), 500));
        let f = super::fold_shape(shape);
        assert_eq!(f.len(), 12);
        assert_eq!(f[6], "… 490 more ChainNode .next …");
        let short: Vec<String> = vec!["A .x".into(); 11];
        assert_eq!(super::fold_shape(short.clone()), short);
    }
}
