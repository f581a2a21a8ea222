//! `path`: the shortest paths from GC roots to an object, and the path step that the
//! `suspects` and `leaks` documents share.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::ObjId;

/// One step of a path from a GC root: its object, class and the edge by which the step
/// before holds it (`null` on the first); the first step names its root kind. `path`
/// and `suspects` add the root's words (`root_detail`) and the object's label.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathStep {
    pub class: String,
    pub edge: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub label: Option<String>,
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub root_detail: Option<String>,
}

impl PathStep {
    /// Step `i` of `p`; `full` adds the root's words and the label.
    pub fn of(snap: &Snapshot, p: &[ObjId], i: usize, full: bool) -> PathStep {
        let x = p[i];
        let first = i == 0;
        PathStep {
            class: snap.class_name(x).to_string(),
            edge: if first {
                None
            } else {
                snap.edge_label(p[i - 1], x)
            },
            label: if full { snap.label(x) } else { None },
            object: snap.object_name(x),
            root: first.then(|| {
                let roots = snap.graph.roots_of(x);
                roots
                    .first()
                    .map(|r| r.kind.name())
                    .unwrap_or("unknown")
                    .to_string()
            }),
            root_detail: (first && full).then(|| snap.describe_roots(x)),
        }
    }

    /// A whole path, every step [`PathStep::of`].
    pub fn all(snap: &Snapshot, p: &[ObjId], full: bool) -> Vec<PathStep> {
        (0..p.len())
            .map(|i| PathStep::of(snap, p, i, full))
            .collect()
    }
}

/// The `path` document.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paths<'a> {
    pub schema_version: SchemaVersion,
    pub object: String,
    pub paths: PathList<'a>,
}

/// Paths as object ids, serialised as arrays of full [`PathStep`]s made one at a time:
/// a path two million references long is two million steps, which as values took
/// gigabytes.
pub struct PathList<'a> {
    pub snap: &'a Snapshot,
    pub paths: Vec<Vec<ObjId>>,
}

impl PathList<'_> {
    /// Step `i` of path `n`, as the document has it.
    pub fn step(&self, n: usize, i: usize) -> PathStep {
        PathStep::of(self.snap, &self.paths[n], i, true)
    }
}

struct OnePath<'a>(&'a Snapshot, &'a [ObjId]);

impl Serialize for OnePath<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.1.len()))?;
        for i in 0..self.1.len() {
            seq.serialize_element(&PathStep::of(self.0, self.1, i, true))?;
        }
        seq.end()
    }
}

impl Serialize for PathList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.paths.iter().map(|p| OnePath(self.snap, p)))
    }
}

impl JsonSchema for PathList<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PathList".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        <Vec<Vec<PathStep>>>::json_schema(g)
    }
}
