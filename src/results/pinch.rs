//! `pinch`: the pinch points of a snapshot, as memlab ranks them: small objects whose
//! retained size is at least 1,000 times their own and at least 1 % of the heap (the
//! reachable heap the suspects' shares are of), the largest ratio first, each with its
//! holder named as the suspects name it. A fix that cuts one of them frees what it
//! retains. What the suspects pass through (class loaders and class objects, V8's
//! synthetic roots and global object, ...) and objects of no size of their own are left
//! out, and the runtime's own objects below 10 % of the heap (as the suspects count
//! them): none is where a fix goes.

use schemars::JsonSchema;
use serde::Serialize;

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::ObjId;

/// Retained size over own size, at least.
pub const RATIO: f64 = 1000.0;
/// Share of the heap retained, at least.
pub const SHARE: f64 = 0.01;

/// The `pinch` document (plus `heap_bytes`, what the shares are of: an addition to the
/// contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pinch {
    pub schema_version: SchemaVersion,
    pub heap_bytes: u64,
    pub pinch_points: Vec<PinchPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinchPoint {
    pub class: String,
    pub holder: String,
    pub object: String,
    pub ratio: f64,
    pub retained_bytes: u64,
    pub shallow_bytes: u64,
}

impl Pinch {
    /// The first `top` pinch points of `snap` (its tree `d`).
    pub fn of(snap: &Snapshot, d: &Dominators, top: usize) -> Pinch {
        let g = &snap.graph;
        let heap_bytes = d.reach.reachable_bytes + d.reach.orphan_bytes;
        let floor = (heap_bytes as f64 * SHARE).ceil() as u64;
        let mut found: Vec<(f64, u64, ObjId)> = (0..g.len() as ObjId)
            .filter_map(|o| {
                let r = d.retained(o)?;
                let own = g.shallow_size(o);
                if r < floor || own == 0 || (r as f64) < own as f64 * RATIO {
                    return None;
                }
                let roles = snap.format.roles();
                // The runtime's own objects only from 10 % of the heap, as the suspects.
                let internal = roles.internal(snap.class_name(o)) && r < heap_bytes / 10;
                if crate::suspects::pass_through(snap, o) || internal {
                    return None;
                }
                Some((r as f64 / own as f64, r, o))
            })
            .collect();
        found.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        found.truncate(top);
        let pinch_points = found
            .into_iter()
            .map(|(ratio, r, o)| {
                let path = crate::heap::paths::to_roots(g, o, 1, false)
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                PinchPoint {
                    class: snap.class_name(o).to_string(),
                    holder: crate::format::holders::holder_words(snap, &path, o),
                    object: snap.object_name(o),
                    ratio: (ratio * 10.0).round() / 10.0,
                    retained_bytes: r,
                    shallow_bytes: g.shallow_size(o),
                }
            })
            .collect();
        Pinch {
            schema_version: SchemaVersion,
            heap_bytes,
            pinch_points,
        }
    }
}
