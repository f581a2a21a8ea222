//! `path`: the shortest paths from GC roots to an object, and the path step that the
//! `suspects` and `leaks` documents share.
//!
//! No path is listed step by step beyond [`MAX_STEPS`]: a linked list two million nodes
//! long is a path of two million steps (790 KB of text at 10,000). [`fold`] keeps
//! [`RUN_SHOWN`] steps at each end of a run of one class held by one reference name
//! (`next → next → … 9,990 more ChainNode via next … → next`) and folds the middle of
//! what is still too long; a folded step says so in the JSON (`folded`), an addition to
//! the contract.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::ObjId;

use crate::heap::ClassId;

/// Paths of at most this many steps are listed whole.
pub const MAX_STEPS: usize = 40;
pub use crate::heap::paths::RUN_SHOWN;

/// What a path is listed as: its steps, one by one or folded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Step `i` of the path.
    Step(usize),
    Fold(Fold),
}

/// Steps `from..to` of a path, left out; the last of them is the one named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    pub from: usize,
    pub to: usize,
    /// The class of every step left out and the name of the reference that holds each,
    /// where they are one (a linked list's), else `None`.
    pub same: Option<(ClassId, String)>,
}

impl Fold {
    pub fn steps(&self) -> usize {
        self.to - self.from
    }

    /// `… 9,990 more ChainNode via next …`, `… 120 more steps …` (untrusted text:
    /// sanitise before a terminal); `class` shortens a class name.
    pub fn words(&self, snap: &Snapshot, class: impl Fn(&str) -> String) -> String {
        let n = crate::text::thousands(self.steps() as u64);
        match &self.same {
            Some((c, e)) => {
                let name = class(&snap.graph.classes[*c as usize].name);
                format!("… {n} more {name} via {e} …")
            }
            None => format!("… {n} more steps …"),
        }
    }
}

/// How path `p` (root first) is listed: whole when it has at most [`MAX_STEPS`] steps;
/// else each run of more than `2 × RUN_SHOWN + 1` steps of one class held by one
/// reference name (the holder of each of that class too) is folded but for its ends, and
/// if that is still too long, the middle of what is left is folded.
///
/// A run is told by the classes and the reference's place among the holder's references
/// (reading each name decodes the holder: two million of them took seconds); the names
/// at the run's two ends are read, and where they differ every name in it is.
pub fn fold(snap: &Snapshot, p: &[ObjId]) -> Vec<Piece> {
    let n = p.len();
    if n <= MAX_STEPS {
        return (0..n).map(Piece::Step).collect();
    }
    let g = &snap.graph;
    let class = |o: ObjId| g.class_of.get(o as usize);
    let place = |i: usize| {
        g.edges(p[i - 1])
            .position(|e| g.out_targets[e] == p[i])
            .unwrap_or(usize::MAX)
    };
    // Step i (from 1) continues the run of step i - 1 when both are of the class of
    // their holders and at the same place in them.
    let key = |i: usize| (class(p[i - 1]) == class(p[i])).then(|| (class(p[i]), place(i)));
    let mut pieces: Vec<Piece> = vec![Piece::Step(0)];
    let mut i = 1;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    while i < n {
        let k = key(i);
        let mut j = i + 1;
        if k.is_some() {
            while j < n && key(j) == k {
                j += 1;
            }
        }
        runs.push((i, j));
        i = j;
    }
    // Runs split where a name differs.
    let mut named: Vec<(usize, usize, Option<String>)> = Vec::new();
    for (a, b) in runs {
        let label = |i: usize| snap.edge_label(p[i - 1], p[i]);
        if b - a <= 2 * RUN_SHOWN + 1 {
            named.push((a, b, None));
            continue;
        }
        let (first, last) = (label(a), label(b - 1));
        if first == last {
            named.push((a, b, first));
            continue;
        }
        let mut at = a;
        let mut name = first;
        for i in a + 1..b {
            let l = label(i);
            if l != name {
                named.push((at, i, name));
                at = i;
                name = l;
            }
        }
        named.push((at, b, name));
    }
    for (a, b, name) in named {
        if b - a <= 2 * RUN_SHOWN + 1 {
            pieces.extend((a..b).map(Piece::Step));
            continue;
        }
        pieces.extend((a..a + RUN_SHOWN).map(Piece::Step));
        pieces.push(Piece::Fold(Fold {
            from: a + RUN_SHOWN,
            to: b - RUN_SHOWN,
            same: Some((class(p[a]), name.unwrap_or_else(|| "?".into()))),
        }));
        pieces.extend((b - RUN_SHOWN..b).map(Piece::Step));
    }
    // Still too long: the middle folded.
    if pieces.len() > MAX_STEPS {
        let keep = MAX_STEPS / 2;
        let tail = pieces.split_off(pieces.len() - keep);
        let middle = pieces.split_off(keep);
        let span = |x: &Piece| match x {
            Piece::Step(i) => (*i, *i + 1),
            Piece::Fold(f) => (f.from, f.to),
        };
        let from = middle.first().map(|x| span(x).0).unwrap_or(0);
        let to = middle.last().map(|x| span(x).1).unwrap_or(0);
        pieces.push(Piece::Fold(Fold {
            from,
            to,
            same: None,
        }));
        pieces.extend(tail);
    }
    pieces
}

/// One step of a path from a GC root: its object, class and the edge by which the step
/// before holds it (`null` on the first); the first step names its root kind. `path`
/// and `suspects` add the root's words (`root_detail`) and the object's label. A step
/// that stands for several left out (a long path's, see [`fold`]) says how many in
/// `folded` and names the last of them.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathStep {
    pub class: String,
    pub edge: Option<String>,
    /// Where this step stands for several: how many, and their one class and
    /// reference name where they have one (an addition to the contract).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Folded")]
    pub folded: Option<Folded>,
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

/// Steps left out of a path: how many, and the class and reference name they share
/// (`null` where they are of several).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Folded {
    pub steps: u64,
    pub class: Option<String>,
    pub edge: Option<String>,
}

impl PathStep {
    /// Step `i` of `p`; `full` adds the root's words and the label.
    pub fn of(snap: &Snapshot, p: &[ObjId], i: usize, full: bool) -> PathStep {
        let x = p[i];
        let first = i == 0;
        PathStep {
            folded: None,
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

    /// A piece of `p` as [`fold`] lists it: a step, or the last of the steps a fold
    /// leaves out, saying how many.
    pub fn piece(snap: &Snapshot, p: &[ObjId], piece: &Piece, full: bool) -> PathStep {
        match piece {
            Piece::Step(i) => PathStep::of(snap, p, *i, full),
            Piece::Fold(f) => {
                let mut s = PathStep::of(snap, p, f.to - 1, false);
                s.folded = Some(Folded {
                    steps: f.steps() as u64,
                    class: f
                        .same
                        .as_ref()
                        .map(|(c, _)| snap.graph.classes[*c as usize].name.clone()),
                    edge: f.same.as_ref().map(|(_, e)| e.clone()),
                });
                s
            }
        }
    }

    /// A whole path as [`fold`] lists it.
    pub fn all(snap: &Snapshot, p: &[ObjId], full: bool) -> Vec<PathStep> {
        fold(snap, p)
            .iter()
            .map(|x| PathStep::piece(snap, p, x, full))
            .collect()
    }

    /// The steps this one stands for: 1, or those it folds.
    pub fn steps(&self) -> u64 {
        self.folded.as_ref().map_or(1, |f| f.steps)
    }

    /// The line of a folded step: `… 9,990 more ChainNode via next …`.
    pub fn fold_words(&self) -> Option<String> {
        let f = self.folded.as_ref()?;
        let n = crate::text::thousands(f.steps);
        Some(match (&f.class, &f.edge) {
            (Some(c), Some(e)) => format!("… {n} more {c} via {e} …"),
            _ => format!("… {n} more steps …"),
        })
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

/// Paths as object ids, serialised as arrays of full [`PathStep`]s made one at a time,
/// folded ([`fold`]).
pub struct PathList<'a> {
    pub snap: &'a Snapshot,
    pub paths: Vec<Vec<ObjId>>,
}

impl PathList<'_> {
    /// Path `n` as the document lists it.
    pub fn steps(&self, n: usize) -> Vec<PathStep> {
        PathStep::all(self.snap, &self.paths[n], true)
    }
}

struct OnePath<'a>(&'a Snapshot, &'a [ObjId]);

impl Serialize for OnePath<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pieces = fold(self.0, self.1);
        let mut seq = s.serialize_seq(Some(pieces.len()))?;
        for x in &pieces {
            seq.serialize_element(&PathStep::piece(self.0, self.1, x, true))?;
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
