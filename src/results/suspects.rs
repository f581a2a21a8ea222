//! `suspects`: the objects that hold a large share of the heap, named by the object a
//! fix would touch.

use schemars::JsonSchema;
use serde::Serialize;

use super::{PathStep, SchemaVersion};
use crate::format::Snapshot;
use crate::suspects::{Report, Suspect};

/// The `suspects` document: largest first; `heap_bytes` is the reachable heap the
/// shares are of.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suspects {
    pub schema_version: SchemaVersion,
    pub heap_bytes: u64,
    pub suspects: Vec<SuspectEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuspectEntry {
    /// Where the size lies below the object, or `null` where it is the object itself.
    pub accumulation: Option<Accumulation>,
    pub class: String,
    pub holder: String,
    pub kind: String,
    /// Where the object is a linked list's head (kind `linked list`): the nodes' class,
    /// the reference from one to the next, and how many nodes (an addition to the
    /// contract); `null` otherwise.
    pub linked_list: Option<LinkedList>,
    /// The classes it retains, largest first.
    pub members: Vec<Member>,
    pub object: String,
    /// Objects it retains (an addition to the contract).
    pub objects: u64,
    /// The path from a GC root, as `path` prints it.
    pub path: Vec<PathStep>,
    pub rank: usize,
    pub retained_bytes: u64,
    /// Of `heap_bytes`, to four decimals.
    pub share: f64,
    pub title: String,
    /// The share unrounded, which the text table gives to a tenth of a percent.
    #[serde(skip)]
    pub share_exact: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Accumulation {
    pub class: String,
    pub object: String,
    pub retained_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkedList {
    pub class: String,
    pub length: u64,
    pub via: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Member {
    pub class: String,
    pub count: u64,
    pub retained_bytes: u64,
}

impl SuspectEntry {
    pub fn of(snap: &Snapshot, s: &Suspect, rank: usize) -> SuspectEntry {
        let class = |c: u32| snap.graph.classes[c as usize].name.clone();
        SuspectEntry {
            accumulation: s.accumulation.map(|(a, r)| Accumulation {
                class: snap.class_name(a).to_string(),
                object: snap.object_name(a),
                retained_bytes: r,
            }),
            class: snap.class_name(s.object).to_string(),
            holder: s.holder.clone(),
            kind: s.kind.to_string(),
            linked_list: s.list.as_ref().map(|l| LinkedList {
                class: class(l.class),
                length: l.length,
                via: l.via.clone(),
            }),
            members: s
                .members
                .iter()
                .map(|m| Member {
                    class: class(m.class),
                    count: m.count,
                    retained_bytes: m.retained,
                })
                .collect(),
            object: snap.object_name(s.object),
            objects: s.objects,
            path: PathStep::all(snap, &s.path, true),
            rank,
            retained_bytes: s.retained,
            share: (s.share * 10_000.0).round() / 10_000.0,
            title: s.title.clone(),
            share_exact: s.share,
        }
    }
}

impl Suspects {
    pub fn of(snap: &Snapshot, r: &Report) -> Suspects {
        Suspects {
            schema_version: SchemaVersion,
            heap_bytes: r.heap_bytes,
            suspects: r
                .suspects
                .iter()
                .enumerate()
                .map(|(i, s)| SuspectEntry::of(snap, s, i + 1))
                .collect(),
        }
    }
}
