//! Answering views about MoarVM collectables. A snapshot holds no object content (no
//! string values, no numbers, no attribute values), so an inspection lists what the file
//! does have: the collectable's kind, type (with its REPR) or static frame, its managed
//! and unmanaged sizes, and its references with their descriptions (an attribute, lexical
//! or edge name from the string table, an index such as an array slot or call-stack
//! depth, or "unknown" where MoarVM records none, as for most REPR internals).
//!
//! The descriptions are kept per edge of the graph, packed in 32 bits (kind in the top
//! two, index below); v3 compresses them, so rereading them from the file per question
//! would mean decompressing a whole column each time.

use super::{kind_name, Names, KIND_FRAME, KIND_OBJECT, KIND_STABLE, KIND_TYPE_OBJECT, LABEL_BIG};
use crate::format::{Decoder, Field, Inspection, Value};
use crate::heap::{Graph, ObjId};

/// References listed by an inspection; the rest are counted.
const MAX_REFS: usize = 256;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct MoarDecoder {
    pub(super) names: Names,
    pub(super) kind: Vec<u8>,
    pub(super) type_or_frame: Vec<u32>,
    pub(super) managed: Vec<u16>,
    /// One per edge of the graph, in edge order.
    pub(super) labels: Vec<u32>,
    /// (edge, raw description) for descriptions whose index needs more than 30 bits.
    pub(super) big_labels: Vec<(u32, u64)>,
    /// The label of the snapshot (time, GC sequence number, totals).
    pub(super) snapshot: String,
}

impl MoarDecoder {
    /// The description of edge `e` in words.
    fn label_of(&self, e: usize) -> String {
        let Some(&l) = self.labels.get(e) else {
            return "unknown".into();
        };
        let (kind, index) = if l == LABEL_BIG {
            match self.big_labels.iter().find(|b| b.0 as usize == e) {
                Some(&(_, d)) => (d & 3, d >> 2),
                None => (0, 0),
            }
        } else {
            ((l >> 30) as u64, (l & ((1 << 30) - 1)) as u64)
        };
        match kind {
            1 => format!("[{index}]"),
            2 => self.names.string(index).into_owned(),
            _ => "unknown".into(),
        }
    }

    fn parse_name(name: &str) -> Option<ObjId> {
        name.strip_prefix('#')?.parse().ok()
    }
}

impl Decoder for MoarDecoder {
    fn save_state(&self) -> Option<Vec<u8>> {
        crate::sys::codec::encode(self)
    }

    fn heap_bytes(&self) -> u64 {
        use crate::format::vec_bytes;
        let n = &self.names;
        vec_bytes(&n.strings)
            + n.strings.iter().map(|s| s.len() as u64).sum::<u64>()
            + vec_bytes(&n.types)
            + vec_bytes(&n.frames)
            + vec_bytes(&self.kind)
            + vec_bytes(&self.type_or_frame)
            + vec_bytes(&self.managed)
            + vec_bytes(&self.labels)
            + vec_bytes(&self.big_labels)
            + self.snapshot.capacity() as u64
    }

    fn object_number(&self, _b: &[u8], _g: &Graph, o: ObjId) -> Option<u64> {
        Some(o as u64)
    }

    fn object_name(&self, _b: &[u8], _g: &Graph, o: ObjId) -> String {
        format!("#{o}")
    }

    fn find_object(&self, _b: &[u8], g: &Graph, name: &str) -> Option<ObjId> {
        Self::parse_name(name.trim()).filter(|&o| (o as usize) < g.len())
    }

    fn inspect_from(&self, b: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection {
        let mut out = Inspection::default();
        let i = o as usize;
        let (Some(&kind), Some(&tofi), Some(&managed)) = (
            self.kind.get(i),
            self.type_or_frame.get(i),
            self.managed.get(i),
        ) else {
            out.problems
                .push(format!("#{o} is not a collectable of this snapshot"));
            return out;
        };
        out.facts.push(("collectable".into(), format!("#{o}")));
        out.facts.push(("kind".into(), kind_name(kind).into()));
        match kind {
            KIND_OBJECT | KIND_TYPE_OBJECT | KIND_STABLE => {
                let (repr, name) = self.names.type_names(tofi);
                out.facts.push(("type".into(), name));
                out.facts.push(("REPR".into(), repr));
            }
            KIND_FRAME => {
                out.facts
                    .push(("static frame".into(), self.names.frame_name(tofi)));
                if let Some(&[_, cuid, _, _]) = self.names.frames.get(tofi as usize) {
                    out.facts.push((
                        "compilation unit id".into(),
                        self.names.string(cuid as u64).into_owned(),
                    ));
                }
            }
            _ => {}
        }
        let total = g.shallow_size(o);
        out.facts
            .push(("managed size".into(), format!("{managed} bytes")));
        out.facts.push((
            "unmanaged size".into(),
            format!("{} bytes", total.saturating_sub(managed as u64)),
        ));
        out.facts.push(("snapshot".into(), self.snapshot.clone()));
        let edges = g.edges(o);
        out.facts
            .push(("references".into(), edges.len().to_string()));
        let start = usize::try_from(from).unwrap_or(usize::MAX).min(edges.len());
        for e in edges.clone().skip(start).take(MAX_REFS) {
            let t = g.out_targets[e];
            let ty = self
                .kind
                .get(t as usize)
                .map_or("?", |&k| kind_name(k))
                .to_string();
            out.fields.push(Field {
                name: self.label_of(e),
                ty,
                value: Value::Object(t),
                is_static: false,
            });
        }
        out.more_elements = edges.len().saturating_sub(start + MAX_REFS) as u64;
        out.next_from = edges.len().min(start + MAX_REFS) as u64;
        if g.edges(o).any(|e| g.is_weak(e)) {
            out.facts.push((
                "weak references".into(),
                "an inter-generational root set's references are weak (see summary)".into(),
            ));
        }
        let _ = b;
        out
    }

    fn edge_label(&self, _b: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String> {
        if from as usize >= g.len() {
            return None;
        }
        g.edges(from)
            .find(|&e| g.out_targets[e] == to)
            .map(|e| self.label_of(e))
    }

    /// Each of `to` named by its own reference, in turn: two references to one target
    /// are named apart, not both by the first.
    fn edge_labels(&self, _b: &[u8], g: &Graph, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        if from as usize >= g.len() {
            return vec![None; to.len()];
        }
        let edges = g.edges(from);
        let first = edges.start;
        let want: Vec<u64> = to.iter().map(|&t| t as u64).collect();
        let ends = edges.map(|e| g.out_targets[e] as u64);
        crate::heap::positions::in_turn(&want, ends)
            .into_iter()
            .map(|i| i.map(|i| self.label_of(first + i)))
            .collect()
    }

    fn label(&self, _b: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        let i = o as usize;
        let kind = *self.kind.get(i)?;
        match kind {
            // A frame: its compilation unit; a root set: which thread it belongs to.
            KIND_FRAME => {
                let &[_, cuid, _, _] = self
                    .names
                    .frames
                    .get(*self.type_or_frame.get(i)? as usize)?;
                Some(format!("cuid {}", self.names.string(cuid as u64)))
            }
            7 | 8 | 10 | 11 => g
                .roots_of(o)
                .iter()
                .find(|r| r.thread != u32::MAX)
                .map(|r| format!("thread {}", r.thread + 1)),
            _ => None,
        }
    }
}
