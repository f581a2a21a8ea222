//! `threads`: Java threads and goroutines, their frames, and the objects each holds.

use schemars::JsonSchema;
use serde::Serialize;

use super::{ObjectRef, SchemaVersion};
use crate::format::Snapshot;

/// The `threads` document (plus `system`, `object`, the thread's own object, and
/// `held`, the objects it holds outside any known frame: additions to the contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Threads {
    pub schema_version: SchemaVersion,
    pub threads: Vec<ThreadEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadEntry {
    /// Innermost first.
    pub frames: Vec<FrameEntry>,
    pub held: Vec<ObjectRef>,
    pub id: Option<u64>,
    pub name: String,
    pub object: Option<String>,
    pub state: Option<String>,
    pub system: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameEntry {
    pub function: String,
    pub locals: Vec<ObjectRef>,
    pub location: String,
}

impl Threads {
    pub fn of(snap: &Snapshot) -> Threads {
        let obj = |&o: &crate::heap::ObjId| ObjectRef::of(snap, o);
        Threads {
            schema_version: SchemaVersion,
            threads: snap
                .thread_list
                .iter()
                .map(|t| ThreadEntry {
                    frames: t
                        .frames
                        .iter()
                        .map(|f| FrameEntry {
                            function: f.function.clone(),
                            locals: f.locals.iter().map(obj).collect(),
                            location: f.location.clone(),
                        })
                        .collect(),
                    held: t.held.iter().map(obj).collect(),
                    id: t.id,
                    name: t.name.clone(),
                    object: t.object.map(|o| snap.object_name(o)),
                    state: t.state.clone(),
                    system: t.system,
                })
                .collect(),
        }
    }
}
