//! One opened snapshot: the dump's bytes ([`Source`]), its index ([`Graph`]) and the
//! format's [`Decoder`], with what a reader found beside them (threads, facts, warnings,
//! where the file was cut short, the other snapshots of the file). Readers make it; the
//! session ([`crate::session`]) ties it to its cache entry and its dominator tree; the
//! analyses and the front-ends ask it for names, labels, fields and roots, which it
//! answers through the decoder from the mapped bytes.

use super::{first_fields_of, string_word, Decoder, Format, Inspection};
use crate::heap::{Graph, ObjId};
use crate::source::Source;

/// One opened snapshot: its bytes, its index, and the format's decoder.
pub struct Snapshot {
    pub source: Source,
    pub format: Format,
    /// The version as the file states it, e.g. `JAVA PROFILE 1.0.2`.
    pub format_version: String,
    pub id_size: Option<u32>,
    pub graph: Graph,
    /// How many threads the snapshot lists: the length of `thread_list` where the format
    /// has threads (Java threads as `jstack` lists them, goroutines), else 0.
    pub threads: usize,
    /// The threads with their frames and locals, where the format has them.
    pub thread_list: Vec<crate::heap::Thread>,
    /// Offset where the file stops being whole, when it was cut short.
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
    /// Format-specific facts for `summary`: (label, value).
    pub facts: Vec<(String, String)>,
    pub decoder: Box<dyn Decoder>,
    /// Every snapshot the file holds (one for most formats; MoarVM files hold several),
    /// and which of them this one is.
    pub snapshots: Vec<SnapshotInfo>,
    pub snapshot_index: usize,
    /// The strings' text, once a query has asked for it ([`Snapshot::texts`]).
    pub(super) texts: std::sync::Mutex<Option<std::sync::Arc<crate::heap::texts::Texts>>>,
}

impl Snapshot {
    /// What a reader makes of one dump before its own parts: the source, the format and
    /// its version, the index and the decoder; not cut short, no warnings nor facts, no
    /// threads, no word size, the file's only snapshot. Readers set
    /// what differs with `Snapshot { .., ..Snapshot::of(..) }`.
    pub fn of(
        source: Source,
        format: Format,
        format_version: String,
        graph: Graph,
        decoder: Box<dyn Decoder>,
    ) -> Snapshot {
        Snapshot {
            source,
            format,
            format_version,
            id_size: None,
            graph,
            threads: 0,
            thread_list: Vec::new(),
            truncated: None,
            warnings: Vec::new(),
            facts: Vec::new(),
            decoder,
            snapshots: Vec::new(),
            snapshot_index: 0,
            texts: Default::default(),
        }
    }
}

/// One snapshot of a file that may hold several, as `summary` lists them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotInfo {
    pub index: usize,
    /// A few words that tell it from the others: time, GC sequence number, totals.
    pub label: String,
    pub objects: u64,
}

/// The number in an object's name (`0x…` read as hexadecimal, `@N`, `#N`).
pub fn id_number(name: &str) -> Option<u64> {
    if let Some(h) = name.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    name.trim_start_matches(['@', '#']).parse().ok()
}

impl Snapshot {
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    pub fn object_name(&self, o: ObjId) -> String {
        self.decoder.object_name(self.bytes(), &self.graph, o)
    }

    /// The number in the object's name ([`super::Decoder::object_number`]).
    pub fn object_number(&self, o: ObjId) -> Option<u64> {
        self.decoder.object_number(self.bytes(), &self.graph, o)
    }

    /// Appends the object's name to `w`: what [`Snapshot::object_name`] gives, made from
    /// its number without a string of its own where it has one.
    pub fn write_object_name(&self, o: ObjId, w: &mut impl std::fmt::Write) -> std::fmt::Result {
        match (self.object_number(o), self.object_prefix()) {
            (Some(n), Some(p)) => write!(w, "{p}{n}"),
            (Some(n), None) => write!(w, "0x{n:x}"),
            (None, _) => w.write_str(&self.object_name(o)),
        }
    }

    pub fn class_name(&self, o: ObjId) -> &str {
        &self.graph.classes[self.graph.class_of.get(o as usize) as usize].name
    }

    /// The object named `name` the way the tool prints it (`0x…`, `@N`, `#N`). A bare
    /// number means the same as the format's own prefix before it, where the format names
    /// objects by a prefix and a number: `68253` is `@68253` in V8, `#12` is `12` in
    /// MoarVM and Dart. HPROF and Go addresses keep their `0x` (see [`Self::object_prefix`]).
    pub fn find_object(&self, name: &str) -> Option<ObjId> {
        let name = name.trim();
        let bare = !name.is_empty() && name.bytes().all(|c| c.is_ascii_digit());
        match self.object_prefix() {
            Some(p) if bare => {
                self.decoder
                    .find_object(self.bytes(), &self.graph, &format!("{p}{name}"))
            }
            _ => self.decoder.find_object(self.bytes(), &self.graph, name),
        }
    }

    /// The sign before an object's number where the format names objects by one (`@` for a
    /// V8 node id, `#` for a MoarVM collectable or Dart object index); `None` for the
    /// formats that name objects by their address (HPROF, Go: `0x…`).
    pub fn object_prefix(&self) -> Option<char> {
        self.format.object_prefix()
    }

    pub fn inspect(&self, o: ObjId) -> Inspection {
        self.decoder.inspect(self.bytes(), &self.graph, o)
    }

    /// [`Snapshot::inspect`] listing its elements from the `from`th on (a page of them).
    pub fn inspect_from(&self, o: ObjId, from: u64) -> Inspection {
        self.decoder
            .inspect_from(self.bytes(), &self.graph, o, from)
    }

    pub fn edge_label(&self, from: ObjId, to: ObjId) -> Option<String> {
        self.decoder.edge_label(self.bytes(), &self.graph, from, to)
    }

    /// The names of the references from `from` to each of `to` ([`Decoder::edge_labels`]):
    /// where `to` names a target again, its next reference, in turn (past the last, its
    /// first again).
    /// The names of all of `from`'s references in the index's order, each given to
    /// `name` exactly once ([`super::Decoder::each_edge_label`]; a format that gives
    /// fewer is made up with `None`, more are dropped).
    pub fn each_edge_label(&self, from: ObjId, name: &mut dyn FnMut(Option<&str>)) {
        let n = self.graph.edges(from).len();
        let mut k = 0;
        self.decoder
            .each_edge_label(self.bytes(), &self.graph, from, &mut |l| {
                if k < n {
                    name(l);
                    k += 1;
                }
            });
        for _ in k..n {
            name(None);
        }
    }

    pub fn edge_labels(&self, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        self.decoder
            .edge_labels(self.bytes(), &self.graph, from, to)
    }

    /// For a view that lists each target of `from` once (the outgoing tree, the
    /// inspector's elements by class): the names of every reference from `from` to each
    /// of `to`, joined (`[0], [3]` for an array that holds it twice), in one pass over
    /// `from`'s references; `None` where it refers to it by none. Each of `to` once.
    pub fn edge_names(&self, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        let g = &self.graph;
        let want: Vec<u64> = to.iter().map(|&t| t as u64).collect();
        let ends = g.edges(from).map(|e| g.out_targets[e] as u64);
        // Each target as often as `from` refers to it (once where it does not: `None`).
        let each: Vec<usize> = crate::heap::positions::counts(&want, ends)
            .into_iter()
            .map(|n| n.max(1))
            .collect();
        let wanted: Vec<ObjId> = to
            .iter()
            .zip(&each)
            .flat_map(|(&t, &n)| std::iter::repeat_n(t, n))
            .collect();
        let mut names = self.edge_labels(from, &wanted).into_iter();
        each.iter()
            .map(|&n| {
                let all: Vec<String> = names.by_ref().take(n).flatten().collect();
                (!all.is_empty()).then(|| all.join(", "))
            })
            .collect()
    }

    /// [`Snapshot::edge_names`] of one target: every reference from `from` to `to` named
    /// (the referrer tree's and the inspector's rows, one per referrer).
    pub fn edge_name(&self, from: ObjId, to: ObjId) -> Option<String> {
        self.edge_names(from, &[to]).pop().flatten()
    }

    pub fn label(&self, o: ObjId) -> Option<String> {
        self.decoder.label(self.bytes(), &self.graph, o)
    }

    /// `"NAME LABEL"`: what the instance filter matches.
    pub fn name_and_label(&self, o: ObjId) -> String {
        self.decoder.name_and_label(self.bytes(), &self.graph, o)
    }

    /// The first two value fields of `o` as `name=value` (`id=4242 user="user-42"`):
    /// primitives and strings, what tells apart instances that have no label.
    pub fn first_fields(&self, o: ObjId) -> String {
        if let Some(f) = self.decoder.first_fields(self.bytes(), &self.graph, o) {
            return f;
        }
        first_fields_of(&self.inspect(o), |s| self.string_word(s))
    }

    /// The text of `s` as a value word (quoted, cut), if `s` is a string.
    pub fn string_word(&self, s: ObjId) -> Option<String> {
        string_word(self.decoder.content(self.bytes(), &self.graph, s))
    }

    /// What an instance list shows in its Value column and `/` matches there: the
    /// object's label, or else its first two primitive fields.
    pub fn value_words(&self, o: ObjId) -> String {
        self.label(o).unwrap_or_else(|| self.first_fields(o))
    }

    pub fn persistent_ids(&self) -> Option<(&'static str, Vec<u64>)> {
        self.decoder.persistent_ids(self.bytes(), &self.graph)
    }

    /// The name of the thread with this serial: the label of the object that its
    /// thread root (HPROF's ROOT THREAD OBJECT) names, or `None`.
    pub fn thread_name(&self, serial: u32) -> Option<String> {
        if serial == u32::MAX {
            return None;
        }
        if self.format.names_threads_itself() {
            return self
                .thread_list
                .iter()
                .find(|t| t.serial == serial)
                .map(|t| t.name.clone());
        }
        let r = self
            .graph
            .roots
            .iter()
            .find(|r| r.kind == crate::heap::RootKind::ThreadObject && r.thread == serial)?;
        self.label(r.obj)
    }

    /// DevTools' "distance": how many references lie between the snapshot's root and
    /// `o` along the shortest strong path (a GC root is at 1 below V8's synthetic root,
    /// itself at 0; for formats without such a root a GC root is at 0). `None` when no
    /// strong path reaches it.
    pub fn distance(&self, o: ObjId) -> Option<u64> {
        let p = crate::heap::paths::to_roots(&self.graph, o, 1, false);
        let p = p.first()?;
        let below_root = self.format.has_synthetic_root() && p[0] != 0;
        Some((p.len() - 1) as u64 + below_root as u64)
    }

    /// All the root records of `o` in words, repeats removed, joined by "; ".
    pub fn describe_roots(&self, o: ObjId) -> String {
        let mut out: Vec<String> = Vec::new();
        for r in self.graph.roots_of(o) {
            let d = self.describe_root(r);
            if !out.contains(&d) {
                out.push(d);
            }
        }
        out.join("; ")
    }

    /// A root in words: its kind, and for a thread-bound root the thread and frame
    /// ("Java frame, thread \"main\" (serial 1), frame 3").
    pub fn describe_root(&self, r: &crate::heap::Root) -> String {
        let mut s = r.kind.name().to_string();
        if matches!(
            r.kind,
            crate::heap::RootKind::DataSegment | crate::heap::RootKind::BssSegment
        ) && r.frame != u32::MAX
        {
            return format!("{s} +0x{:x}", r.frame);
        }
        if r.kind == crate::heap::RootKind::GoroutineFrame {
            let t = self.thread_list.iter().find(|t| t.serial == r.thread);
            if let Some(t) = t {
                s.push_str(&format!(", {}", t.name));
                if let Some(f) = t.frames.get(r.frame as usize) {
                    s.push_str(&format!(", frame {} {}", r.frame, f.function));
                }
            }
            return s;
        }
        if r.thread != u32::MAX && r.kind != crate::heap::RootKind::ThreadObject {
            match self.thread_name(r.thread) {
                Some(name) => s.push_str(&format!(", thread {name} (serial {})", r.thread)),
                None => s.push_str(&format!(", thread serial {}", r.thread)),
            }
            if r.frame != u32::MAX {
                s.push_str(&format!(", frame {}", r.frame));
            }
        }
        s
    }
}
