//! `retained`: what a set of objects retains together, deduplicated, by class, and with
//! `--dominators` who holds the set ([`crate::heap::sets`]).

use schemars::JsonSchema;
use serde::Serialize;

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::{sets, ObjId};

/// The `retained` document (plus `retained_objects`, how many objects the set frees,
/// and each row's `example`: additions to the contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Retained {
    pub schema_version: SchemaVersion,
    /// The freed objects by class (count, and their own bytes), largest first.
    pub by_class: Vec<ClassRow>,
    /// With `--dominators`: the set's immediate dominators outside it, by class (count
    /// of distinct holders, and the bytes they retain), largest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dominators: Option<Vec<ClassRow>>,
    /// The set's objects.
    pub objects: u64,
    /// The bytes freed if every object of the set were gone, each counted once.
    pub retained_bytes: u64,
    /// The objects freed, the set's own among them.
    pub retained_objects: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassRow {
    pub class: String,
    pub count: u64,
    /// One of them, as the tool names objects.
    pub example: String,
    pub retained_bytes: u64,
}

/// Rows by class of `objs`, each object counting `bytes(o)`, largest first (ties by
/// class name).
fn by_class(
    snap: &Snapshot,
    objs: impl Iterator<Item = ObjId>,
    bytes: impl Fn(ObjId) -> u64,
) -> Vec<ClassRow> {
    let g = &snap.graph;
    let mut rows: Vec<Option<(u64, u64, ObjId)>> = vec![None; g.classes.len()];
    for o in objs {
        let Some(r) = rows.get_mut(g.class_of.get(o as usize) as usize) else {
            continue;
        };
        let e = r.get_or_insert((0, 0, o));
        e.0 += 1;
        e.1 += bytes(o);
    }
    let mut out: Vec<ClassRow> = rows
        .into_iter()
        .enumerate()
        .filter_map(|(c, r)| {
            let (count, retained_bytes, o) = r?;
            Some(ClassRow {
                class: g.classes[c].name.clone(),
                count,
                example: snap.object_name(o),
                retained_bytes,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.retained_bytes
            .cmp(&a.retained_bytes)
            .then(a.class.cmp(&b.class))
    });
    out
}

impl Retained {
    /// What `members` retain together in `snap` (its tree `d`); with `dominators`, who
    /// holds them.
    pub fn of(snap: &Snapshot, d: &Dominators, members: &[ObjId], dominators: bool) -> Retained {
        let g = &snap.graph;
        let freed = sets::retained_set(g, d, members);
        let mut count = 0u64;
        let mut bytes = 0u64;
        for o in sets::members(&freed) {
            count += 1;
            bytes += g.shallow_size(o);
        }
        let holders = dominators.then(|| {
            let h = sets::immediate_dominators(g, d, members);
            by_class(snap, h.into_iter(), |o| d.retained(o).unwrap_or(0))
        });
        Retained {
            schema_version: SchemaVersion,
            by_class: by_class(snap, sets::members(&freed), |o| g.shallow_size(o)),
            dominators: holders,
            objects: sets::members(&sets::bits_of(g, members)).count() as u64,
            retained_bytes: bytes,
            retained_objects: count,
        }
    }
}
