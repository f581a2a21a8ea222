//! Decoding V8 nodes on demand: a node's fields, its edges with their names, strings,
//! closure context variables and allocation locations, read from the mapped JSON when a
//! view asks.
//!
//! The index keeps no per-node record offset (the graph's `offset` column is empty for
//! V8): the reader keeps the record offset and the file ordinal of the first edge of every
//! [`BLOCK`]th node, and the offset of every 64th edge. That is 0.5 bytes per node where
//! an offset per node took 4.125: 23 MB less on 6 M nodes, at the dominator pass's peak.
//! Finding a node skips at most 31 records from its block's start by counting commas (a
//! vectorised scan of about 600 bytes); finding its edges reads those records (for their
//! edge counts) and skips at most 63 edges the same way. Strings are kept as the offsets
//! of their opening quotes and decoded (JSON escapes, lenient `\uXXXX`) only when shown.

use super::json::{decode_string, records, Ints};
use super::Cols;
use crate::format::{Decoder, Field, Inspection, Value};
use crate::heap::{Graph, ObjId};

/// Fields (edges) listed by an inspection; the rest are counted.
const MAX_FIELDS: usize = 200;
/// Characters of a string kept in a preview.
const PREVIEW_CHARS: usize = 1024;

/// Nodes per block of [`NodeBlocks`].
pub const BLOCK: usize = 32;

/// Where every [`BLOCK`]th node's record starts, and the file ordinal of its first edge.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct NodeBlocks {
    pub offset: Vec<u64>,
    pub first_edge: Vec<u64>,
}

/// The position just after the `n`-th comma from `at` (`at` itself when `n` is 0): where
/// the `n`-th next integer of a well-formed array starts, since every integer but an
/// array's last is followed by exactly one comma (the reader refuses empty values). The
/// ranges skipped this way were read whole when the index was built. `None` when the
/// bytes hold fewer commas.
fn after_commas(b: &[u8], at: usize, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(at);
    }
    let s = b.get(at..)?;
    let mut left = n;
    let mut i = 0;
    // Eight bytes at a time while the comma sought is further on: the bytes equal to ','
    // are the zero bytes of `w ^ ",,,,,,,,"`, found exactly by the carry-free test below.
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    while let Some(chunk) = s.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ 0x2c2c_2c2c_2c2c_2c2c;
        let commas = (!(((x & LOW7) + LOW7) | x | LOW7)).count_ones() as usize;
        if commas >= left {
            break;
        }
        left -= commas;
        i += 8;
    }
    for (k, &c) in s[i..].iter().enumerate() {
        if c == b',' {
            left -= 1;
            if left == 0 {
                return Some(at + i + k + 1);
            }
        }
    }
    None
}

impl NodeBlocks {
    /// The fields of node `o` (of `n` nodes with `nf` fields each): the records before it
    /// in its block are skipped by counting commas (a vectorised scan of a few hundred
    /// bytes), not parsed.
    pub fn fields(&self, b: &[u8], nf: usize, n: usize, o: ObjId) -> Option<[i64; 64]> {
        let o = o as usize;
        if o >= n || nf == 0 || nf > 64 {
            return None;
        }
        let at = *self.offset.get(o / BLOCK)? as usize;
        one_record(b, after_commas(b, at, (o % BLOCK) * nf)?, nf)
    }

    /// The fields of node `o` (of `n` nodes with `nf` fields each, `edge_count` the
    /// index of the edge count) and the file ordinal of its first edge, read from its
    /// block's first record on; `None` when the record is not there or not whole.
    pub fn record(
        &self,
        b: &[u8],
        nf: usize,
        edge_count: usize,
        n: usize,
        o: ObjId,
    ) -> Option<([i64; 64], u64)> {
        let o = o as usize;
        if o >= n || nf == 0 || nf > 64 {
            return None;
        }
        let block = o / BLOCK;
        let mut i = *self.offset.get(block)? as usize;
        let mut ord = *self.first_edge.get(block)?;
        // The records before `o` in its block, byte by byte, keeping only their edge
        // counts: a comma ends a field (the ranges were read whole when indexing).
        let (mut field, mut value, mut neg, mut left) = (0, 0u64, false, o % BLOCK);
        while left > 0 {
            let c = *b.get(i)?;
            i += 1;
            if c == b',' {
                if field == edge_count && !neg {
                    ord += value;
                }
                (value, neg) = (0, false);
                field += 1;
                if field == nf {
                    field = 0;
                    left -= 1;
                }
            } else if field == edge_count {
                match c {
                    b'0'..=b'9' => value = value.wrapping_mul(10).wrapping_add((c - b'0') as u64),
                    b'-' => neg = true,
                    _ => {}
                }
            }
        }
        one_record(b, i, nf).map(|rec| (rec, ord))
    }
}

/// The record of `nf` (1 to 64) integers whose first starts at or after `at` (past
/// separators), `None` when it is not whole.
fn one_record(b: &[u8], at: usize, nf: usize) -> Option<[i64; 64]> {
    let mut out = None;
    records(b, at, nf, |r, _| {
        let mut rec = [0i64; 64];
        rec[..nf].copy_from_slice(r);
        out = Some(rec);
        false
    });
    out
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct V8Decoder {
    pub(super) cols: Cols,
    pub(super) strings: Vec<u64>,
    pub(super) nodes_start: usize,
    pub(super) blocks: NodeBlocks,
    pub(super) edge_checkpoint: Vec<u64>,
    pub(super) locations: Option<usize>,
}

/// One edge as the file has it.
#[derive(Clone, Copy, Debug)]
pub struct RawEdge {
    pub ty: i64,
    pub name_or_index: i64,
    /// Target node ordinal, `None` when `to_node` is not a node.
    pub to: Option<ObjId>,
}

impl V8Decoder {
    /// The node's fields as the file has them.
    fn node(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<[i64; 64]> {
        self.blocks.fields(b, self.cols.nf, g.len(), o)
    }

    /// The node's fields and the file ordinal of its first edge.
    fn node_and_first_edge(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<([i64; 64], u64)> {
        let c = &self.cols;
        self.blocks.record(b, c.nf, c.n_edges, g.len(), o)
    }

    fn type_name(&self, rec: &[i64; 64]) -> &str {
        self.cols
            .node_types
            .get(rec[self.cols.n_type] as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    pub fn string(&self, b: &[u8], i: i64, max: usize) -> String {
        match usize::try_from(i).ok().and_then(|i| self.strings.get(i)) {
            Some(&off) => decode_string(b, off as usize, max).0,
            None => format!("<string {i}>"),
        }
    }

    /// The edges of `o`, in file order (at most `limit`).
    pub fn edges(&self, b: &[u8], g: &Graph, o: ObjId, limit: usize) -> Vec<RawEdge> {
        let cols = &self.cols;
        let mut out = Vec::new();
        let Some((rec, ord)) = self.node_and_first_edge(b, g, o) else {
            return out;
        };
        let count = rec[cols.n_edges].max(0) as u64;
        let Some(&start) = self.edge_checkpoint.get((ord / 64) as usize) else {
            return out;
        };
        let Some(start) = after_commas(b, start as usize, (ord % 64) as usize * cols.ef) else {
            return out;
        };
        let mut ints = Ints::new(b, start);
        let nf = cols.nf as i64;
        let mut e = [0i64; 64];
        'edges: for _ in 0..count.min(limit as u64) {
            for slot in e.iter_mut().take(cols.ef) {
                match ints.int() {
                    Ok(Some(v)) => *slot = v,
                    _ => break 'edges,
                }
            }
            let to = e[cols.e_to];
            let to = (to >= 0 && to % nf == 0 && ((to / nf) as usize) < g.len())
                .then(|| (to / nf) as ObjId);
            out.push(RawEdge {
                ty: e[cols.e_type],
                name_or_index: e[cols.e_name],
                to,
            });
        }
        out
    }

    fn edge_type_name(&self, ty: i64) -> &str {
        self.cols
            .edge_types
            .get(ty as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// An edge's name as DevTools shows it: `[i]` for elements and hidden edges, the name
    /// for properties, context variables, internal, shortcut and weak edges.
    pub fn edge_name(&self, b: &[u8], e: &RawEdge) -> String {
        match self.edge_type_name(e.ty) {
            "element" | "hidden" => format!("[{}]", e.name_or_index),
            _ => self.string(b, e.name_or_index, 256),
        }
    }

    /// The text of a string node: its name; for a concatenated string whose name is only
    /// V8's placeholder (`(concatenated string)`, or empty), its parts (`first`,
    /// `second`) joined, walked iteratively; for a sliced string, its parent's text
    /// (V8 does not record where the slice starts: `sliced` says so).
    fn string_text(&self, b: &[u8], g: &Graph, o: ObjId, max: usize) -> Option<(String, bool)> {
        let rec = self.node(b, g, o)?;
        self.string_text_of(b, g, o, &rec, max)
    }

    /// [`Self::string_text`] of `o`, whose record `rec` has been read.
    fn string_text_of(
        &self,
        b: &[u8],
        g: &Graph,
        o: ObjId,
        rec: &[i64; 64],
        max: usize,
    ) -> Option<(String, bool)> {
        let t = self.type_name(rec);
        if !t.ends_with("string") {
            return None;
        }
        // V8's name for a string whose text it did not write: empty or `(<type>)`.
        let placeholder = |name: &str, t: &str| {
            name.is_empty() || name.strip_prefix('(').and_then(|n| n.strip_suffix(')')) == Some(t)
        };
        let own = self.string(b, rec[self.cols.n_name], max);
        if !placeholder(&own, t) || t == "string" {
            return Some((own, false));
        }
        if t == "sliced string" {
            let [parent] = self.parts(b, g, o, ["parent"]);
            let parent = parent?;
            return self.string_text(b, g, parent, max).map(|(s, _)| (s, true));
        }
        if t != "concatenated string" {
            return Some((own, false));
        }
        // Both halves from one read of the node's edges, then theirs, depth first.
        let mut out = String::new();
        let mut stack = Vec::new();
        let push_parts = |stack: &mut Vec<ObjId>, x: ObjId| {
            let [first, second] = self.parts(b, g, x, ["first", "second"]);
            stack.extend(second);
            stack.extend(first);
        };
        push_parts(&mut stack, o);
        let mut steps = 1;
        while let Some(x) = stack.pop() {
            steps += 1;
            if out.chars().count() >= max || steps > 10_000 {
                break;
            }
            let Some(r) = self.node(b, g, x) else {
                continue;
            };
            let xt = self.type_name(&r);
            let name = self.string(b, r[self.cols.n_name], max);
            if xt != "concatenated string" || !placeholder(&name, xt) {
                if xt == "sliced string" && placeholder(&name, xt) {
                    let [parent] = self.parts(b, g, x, ["parent"]);
                    if let Some((p, _)) = parent.and_then(|p| self.string_text(b, g, p, max)) {
                        out.push_str(&p);
                    }
                } else {
                    out.push_str(&name);
                }
                continue;
            }
            push_parts(&mut stack, x);
        }
        Some((out.chars().take(max).collect(), false))
    }

    /// The target of the first edge of `x` with each of the `names` (a string's `parent`,
    /// `first`, `second`), from one read of its edges; `None` where there is no such edge
    /// or it points at no node.
    fn parts<const N: usize>(
        &self,
        b: &[u8],
        g: &Graph,
        x: ObjId,
        names: [&str; N],
    ) -> [Option<ObjId>; N] {
        let mut found: [Option<Option<ObjId>>; N] = [None; N];
        for e in self.edges(b, g, x, 64) {
            if found.iter().all(Option::is_some) {
                break;
            }
            let name = self.edge_name(b, &e);
            if let Some(k) = names.iter().position(|&n| n == name) {
                found[k].get_or_insert(e.to);
            }
        }
        found.map(Option::flatten)
    }

    /// `(script, line, column)` of the node's allocation site, 0-based as V8 writes them.
    fn location(&self, b: &[u8], o: ObjId) -> Option<(i64, i64, i64)> {
        let c = &self.cols;
        let (start, lo, ls, ll, lc) = (self.locations?, c.l_obj?, c.l_script?, c.l_line?, c.l_col?);
        if c.lf == 0 || c.lf > 64 {
            return None;
        }
        let want = o as i64 * c.nf as i64;
        let mut ints = Ints::new(b, start);
        let mut rec = [0i64; 64];
        loop {
            for slot in rec.iter_mut().take(c.lf) {
                *slot = ints.int().ok()??;
            }
            if rec[lo] == want {
                return Some((rec[ls], rec[ll], rec[lc]));
            }
        }
    }
}

impl Decoder for V8Decoder {
    fn save_state(&self) -> Option<Vec<u8>> {
        crate::sys::codec::encode(self)
    }

    fn heap_bytes(&self) -> u64 {
        use crate::format::vec_bytes;
        vec_bytes(&self.strings)
            + vec_bytes(&self.blocks.offset)
            + vec_bytes(&self.blocks.first_edge)
            + vec_bytes(&self.edge_checkpoint)
    }

    fn object_number(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<u64> {
        self.node(b, g, o)
            .and_then(|r| u64::try_from(r[self.cols.n_id]).ok())
    }

    fn object_name(&self, b: &[u8], g: &Graph, o: ObjId) -> String {
        match self.node(b, g, o) {
            Some(r) => format!("@{}", r[self.cols.n_id]),
            None => format!("@?{o}"),
        }
    }

    fn find_object(&self, b: &[u8], g: &Graph, name: &str) -> Option<ObjId> {
        let want: i64 = name.strip_prefix('@')?.parse().ok()?;
        // Ids are not in node order: one pass over `nodes`.
        let mut ints = Ints::new(b, self.nodes_start);
        let nf = self.cols.nf;
        for o in 0..g.len() {
            let mut id = None;
            for f in 0..nf {
                let v = ints.int().ok()??;
                if f == self.cols.n_id {
                    id = Some(v);
                }
            }
            if id == Some(want) {
                return Some(o as ObjId);
            }
        }
        None
    }

    fn persistent_ids(&self, b: &[u8], g: &Graph) -> Option<(&'static str, Vec<u64>)> {
        let mut ids = Vec::with_capacity(g.len());
        let n_id = self.cols.n_id;
        super::json::records(b, self.nodes_start, self.cols.nf, |r, _| {
            ids.push(r[n_id].max(0) as u64);
            ids.len() < g.len()
        });
        (ids.len() == g.len()).then_some(("node id", ids))
    }

    fn inspect_from(&self, b: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection {
        let mut out = Inspection::default();
        let Some(rec) = self.node(b, g, o) else {
            out.problems
                .push("the node's record is not whole".to_string());
            return out;
        };
        let cols = &self.cols;
        let ty = self.type_name(&rec).to_string();
        out.facts
            .push(("id".into(), format!("@{}", rec[cols.n_id])));
        out.facts.push(("node type".into(), ty.clone()));
        let name = self.string(b, rec[cols.n_name], PREVIEW_CHARS);
        if !ty.ends_with("string") {
            out.facts.push(("name".into(), name.clone()));
        }
        if let Some(d) = cols.n_detached {
            out.facts.push((
                "detachedness".into(),
                match rec[d] {
                    1 => "attached".to_string(),
                    2 => "detached".to_string(),
                    0 => "unknown".to_string(),
                    x => x.to_string(),
                },
            ));
        }
        if let Some((s, l, c)) = self.location(b, o) {
            out.facts.push((
                "allocated at".into(),
                format!("script {s}, line {}, column {}", l + 1, c + 1),
            ));
        }
        let count = rec[cols.n_edges].max(0) as usize;
        let edges = self.edges(b, g, o, count);
        if edges.len() < count {
            out.problems.push(format!(
                "{} of the node's {count} edges could be read",
                edges.len()
            ));
        }
        let mut elements = 0u64;
        // The edges of the pages before this one.
        let mut skipped = 0u64;
        let mut preview_items = Vec::new();
        for e in &edges {
            let et = self.edge_type_name(e.ty).to_string();
            if et == "element" {
                elements += 1;
                if preview_items.len() < 32 {
                    preview_items.push(match e.to {
                        Some(t) => self
                            .label(b, g, t)
                            .unwrap_or_else(|| self.object_name(b, g, t)),
                        None => "?".into(),
                    });
                }
            }
            if skipped < from {
                skipped += 1;
                continue;
            }
            if out.fields.len() >= MAX_FIELDS {
                out.more_elements += 1;
                continue;
            }
            out.fields.push(Field {
                name: self.edge_name(b, e),
                ty: et,
                value: match e.to {
                    Some(t) => Value::Object(t),
                    None => Value::Missing(format!("to_node {}", e.name_or_index)),
                },
                is_static: false,
            });
        }
        out.next_from = from + out.fields.len() as u64;
        // A closure's context variables, one level down its `context` edge.
        if ty == "closure" && from == 0 {
            if let Some(ctx) = edges
                .iter()
                .find(|e| self.edge_name(b, e) == "context")
                .and_then(|e| e.to)
            {
                for e in self.edges(b, g, ctx, MAX_FIELDS) {
                    if self.edge_type_name(e.ty) == "context" {
                        out.fields.push(Field {
                            name: self.edge_name(b, &e),
                            ty: "context variable".into(),
                            value: e.to.map_or(Value::Null, Value::Object),
                            is_static: true,
                        });
                    }
                }
            }
        }
        if ty.ends_with("string") {
            if let Some((t, sliced)) = self.string_text(b, g, o, PREVIEW_CHARS) {
                if sliced {
                    out.facts.push((
                        "slice".into(),
                        "a slice of the text shown; V8 does not record where it starts".into(),
                    ));
                } else {
                    out.length = Some(t.chars().count() as u64);
                }
                out.preview = Some(t);
            }
        } else if ty == "array" || elements > 0 {
            out.length = Some(elements);
            let more = if elements > preview_items.len() as u64 {
                ", …"
            } else {
                ""
            };
            out.preview = Some(format!("[{}{more}]", preview_items.join(", ")));
        } else if ty == "number" || ty == "regexp" || ty == "bigint" || ty == "symbol" {
            out.preview = Some(name);
        }
        out
    }

    fn edge_label(&self, b: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String> {
        let count = self.node(b, g, from)?[self.cols.n_edges].max(0) as usize;
        self.edges(b, g, from, count)
            .iter()
            .find(|e| e.to == Some(to))
            .map(|e| self.edge_name(b, e))
    }

    fn edge_labels(&self, b: &[u8], g: &Graph, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        let count = self
            .node(b, g, from)
            .map_or(0, |r| r[self.cols.n_edges].max(0) as usize);
        let edges = self.edges(b, g, from, count);
        let want: Vec<u64> = to.iter().map(|&t| t as u64).collect();
        let ends = edges.iter().map(|e| e.to.map_or(u64::MAX, |t| t as u64));
        // Two edges to one target (two properties holding one object) each get their own.
        let at = crate::heap::positions::in_turn(&want, ends);
        at.into_iter()
            .map(|i| Some(self.edge_name(b, &edges[i?])))
            .collect()
    }

    fn label(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        let rec = self.node(b, g, o)?;
        self.label_of(b, g, o, &rec)
    }

    fn content_classes(&self, _b: &[u8], g: &Graph) -> Vec<crate::heap::ClassId> {
        (0..g.classes.len() as u32)
            .filter(|&c| g.classes[c as usize].name == "(string)")
            .collect()
    }

    /// A string's text, concatenated strings flattened; not a sliced string, whose
    /// start in its parent the snapshot does not give.
    fn content<'a>(&self, b: &'a [u8], g: &Graph, o: ObjId) -> Option<crate::format::Content<'a>> {
        let rec = self.node(b, g, o)?;
        let t = self.type_name(&rec);
        if !t.ends_with("string") || t == "sliced string" {
            return None;
        }
        let (text, sliced) = self.string_text_of(b, g, o, &rec, 1 << 20)?;
        if sliced {
            return None;
        }
        Some(crate::format::Content {
            string: true,
            length: text.chars().count() as u64,
            data: std::borrow::Cow::Owned(text.into_bytes()),
            bytes: g.shallow_size(o),
            owns: None,
            encoding: crate::format::Encoding::Utf8,
        })
    }

    fn name_and_label(&self, b: &[u8], g: &Graph, o: ObjId) -> String {
        let Some(rec) = self.node(b, g, o) else {
            return format!("@?{o} ");
        };
        let mut s = format!("@{} ", rec[self.cols.n_id]);
        if let Some(l) = self.label_of(b, g, o, &rec) {
            s.push_str(&l);
        }
        s
    }
}

impl V8Decoder {
    /// [`Decoder::label`] of `o`, whose record `rec` has been read.
    fn label_of(&self, b: &[u8], g: &Graph, o: ObjId, rec: &[i64; 64]) -> Option<String> {
        match self.type_name(rec) {
            // The name is the class, except for a DOM element, whose class is its tag:
            // its whole name (`<div class="card" data-index="3">`) tells it apart.
            "object" | "native" => {
                let i = usize::try_from(rec[self.cols.n_name]).ok()?;
                self.strings.get(i)?;
                let n = self.string(b, rec[self.cols.n_name], 1024);
                let tag = super::dom_tag(&n)?;
                (tag != n.as_str()).then_some(n)
            }
            t if t.ends_with("string") => {
                let (s, sliced) = self.string_text_of(b, g, o, rec, 65)?;
                let cut = sliced || s.chars().count() > 64;
                let s: String = s.chars().take(64).collect();
                Some(format!("{s:?}{}", if cut { "…" } else { "" }))
            }
            "closure" => Some(format!("{}()", self.string(b, rec[self.cols.n_name], 128))),
            _ => {
                let n = self.string(b, rec[self.cols.n_name], 128);
                (!n.is_empty()).then_some(n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::after_commas;

    #[test]
    fn commas_are_counted_exactly_across_chunks() {
        let text = b"12,3,\n,456789012,,7,-8, 9,10,11,12,13,14,15,16]";
        for at in 0..text.len() {
            let want: Vec<usize> = (at..text.len())
                .filter(|&i| text[i] == b',')
                .map(|i| i + 1)
                .collect();
            assert_eq!(after_commas(text, at, 0), Some(at));
            for n in 1..=want.len() + 2 {
                assert_eq!(
                    after_commas(text, at, n),
                    want.get(n - 1).copied(),
                    "at {at}, n {n}"
                );
            }
        }
        assert_eq!(after_commas(text, text.len() + 1, 1), None);
    }
}
