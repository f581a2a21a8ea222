//! The V8 heap snapshot reader: `.heapsnapshot` files from Node (`v8.writeHeapSnapshot`)
//! and Chrome (DevTools, `HeapProfiler.takeHeapSnapshot`).
//!
//! Owns turning the JSON in the memory map into the format-neutral [`Graph`]; the
//! [`decode::V8Decoder`] answers the rest (names, properties, strings) from the map later.
//!
//! The file is one JSON object whose arrays hold the graph: `nodes` (a flat list of
//! integers, `node_fields` per node), `edges` (`edge_fields` per edge, grouped by owner
//! in node order) and `strings` (names, referred to by index; it usually comes last). No
//! DOM of the file is built (`specs/NOTES.md` §3, pitfall 6). Instead:
//! 1. one scan finds where each top-level key's value starts, parses the small
//!    `snapshot.meta` with serde_json, and indexes the start of every string;
//! 2. two threads tokenize `nodes` and `edges` straight from the map into columns (the
//!    two arrays are independent until edges are handed to their owners), 64 bytes at a
//!    time while the bytes are laid out as V8 writes them ([`json::records`]);
//! 3. edges are handed to their owners by the running sum of `edge_count` on one core
//!    while the other finds what the page owns ([`page_owned`]), and the CSR is
//!    installed as for every format (its transpose is built when first needed:
//!    [`Graph::referrer_index`]).
//!
//! Field positions come from the meta by name: real files have 6 or 7 node fields and
//! 12 to 16 node types (NOTES §3a). Classes are grouped as DevTools' Summary groups them
//! (see [`class_name`]). The snapshot's synthetic root (node 0) and everything it refers to
//! are the GC roots; weak edges and shortcut edges other than the root's do not retain
//! (DevTools' "essential edges"), so they are marked weak.
//!
//! The header's `node_count` and `edge_count` bound the file: more nodes or edges than
//! they say is an error at the first one too many, since the memory check up front
//! computes the index's need from them ([`crate::format::memory`]).
//!
//! A file cut short opens as far as it is whole: nodes up to the last whole record, edges
//! of the nodes whose edges are all there, strings up to the cut (later names show as
//! `<string N>`).

pub mod decode;
pub mod json;

use std::collections::HashMap;

use crate::error::ParseError;
use crate::format::{Format, Snapshot};
use crate::heap::index::IdMap;
use crate::heap::{ClassInfo, EdgeBuilder, Graph, ObjId, Root, RootKind};
use crate::progress::Progress;
use crate::source::Source;
use decode::V8Decoder;
use json::{skip_string, skip_value, skip_ws, Cut, RecordsEnd};

/// Field positions and type codes, from `snapshot.meta`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Cols {
    pub nf: usize,
    pub n_type: usize,
    pub n_name: usize,
    pub n_id: usize,
    pub n_size: usize,
    pub n_edges: usize,
    pub n_detached: Option<usize>,
    pub ef: usize,
    pub e_type: usize,
    pub e_name: usize,
    pub e_to: usize,
    pub node_types: Vec<String>,
    pub edge_types: Vec<String>,
    pub lf: usize,
    pub l_obj: Option<usize>,
    pub l_script: Option<usize>,
    pub l_line: Option<usize>,
    pub l_col: Option<usize>,
}

impl Cols {
    pub fn edge_type(&self, name: &str) -> Option<i64> {
        self.edge_types
            .iter()
            .position(|t| t == name)
            .map(|p| p as i64)
    }
}

fn string_list(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

fn parse_meta(b: &[u8], start: usize, end: usize) -> Result<(Cols, serde_json::Value), ParseError> {
    let bad = |what: &str| {
        ParseError::new(
            start as u64,
            what.to_string(),
            "a snapshot header without it",
        )
    };
    let v: serde_json::Value = serde_json::from_slice(&b[start..end]).map_err(|e| {
        ParseError::new(
            start as u64,
            "the snapshot header (a JSON object)",
            e.to_string(),
        )
    })?;
    let meta = &v["meta"];
    let nodes = string_list(&meta["node_fields"]).ok_or_else(|| bad("meta.node_fields"))?;
    let edges = string_list(&meta["edge_fields"]).ok_or_else(|| bad("meta.edge_fields"))?;
    let node_types =
        string_list(&meta["node_types"][0]).ok_or_else(|| bad("meta.node_types[0]"))?;
    let edge_types =
        string_list(&meta["edge_types"][0]).ok_or_else(|| bad("meta.edge_types[0]"))?;
    let locs = string_list(&meta["location_fields"]).unwrap_or_default();
    let n = |f: &str| nodes.iter().position(|x| x == f);
    let e = |f: &str| edges.iter().position(|x| x == f);
    let l = |f: &str| locs.iter().position(|x| x == f);
    let need = |p: Option<usize>, what: &str| p.ok_or_else(|| bad(what));
    let cols = Cols {
        nf: nodes.len(),
        n_type: need(n("type"), "node field \"type\"")?,
        n_name: need(n("name"), "node field \"name\"")?,
        n_id: need(n("id"), "node field \"id\"")?,
        n_size: need(n("self_size"), "node field \"self_size\"")?,
        n_edges: need(n("edge_count"), "node field \"edge_count\"")?,
        n_detached: n("detachedness"),
        ef: edges.len(),
        e_type: need(e("type"), "edge field \"type\"")?,
        e_name: need(e("name_or_index"), "edge field \"name_or_index\"")?,
        e_to: need(e("to_node"), "edge field \"to_node\"")?,
        node_types,
        edge_types,
        lf: locs.len(),
        l_obj: l("object_index"),
        l_script: l("script_id"),
        l_line: l("line"),
        l_col: l("column"),
    };
    if cols.nf == 0 || cols.ef == 0 || cols.nf > 64 || cols.ef > 64 {
        return Err(ParseError::new(
            start as u64,
            "1 to 64 node fields and edge fields",
            format!("{} and {}", cols.nf, cols.ef),
        ));
    }
    Ok((cols, v))
}

/// Where the top-level values are.
#[derive(Default)]
struct Sections {
    meta: Option<(usize, usize)>,
    /// Position just after the `[` of each array.
    nodes: Option<usize>,
    edges: Option<usize>,
    /// Position of the `]` closing `edges`, when the file has it.
    edges_end: Option<usize>,
    locations: Option<usize>,
    /// Offset of every string's opening quote.
    strings: Vec<u64>,
    truncated: Option<u64>,
}

/// Walks the top-level object, noting where each value is and indexing `strings`.
fn scan(b: &[u8], progress: &Progress, release: &Release<'_>) -> Result<Sections, ParseError> {
    let mut s = Sections::default();
    let bom = if b.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let mut pos = skip_ws(b, bom);
    if b.get(pos) != Some(&b'{') {
        return Err(ParseError::new(
            pos as u64,
            "'{' opening the snapshot",
            "something else",
        ));
    }
    pos += 1;
    let cut = |s: &mut Sections, at: usize| {
        s.truncated.get_or_insert(at as u64);
    };
    loop {
        pos = skip_ws(b, pos);
        match b.get(pos) {
            None => {
                cut(&mut s, pos);
                break;
            }
            Some(b'}') => break,
            Some(b',') => {
                pos += 1;
                continue;
            }
            Some(b'"') => {}
            Some(&c) => {
                return Err(ParseError::new(
                    pos as u64,
                    "a key in quotes, ',' or '}'",
                    format!("byte 0x{c:02x}"),
                ))
            }
        }
        let key_end = match skip_string(b, pos) {
            Ok(e) => e,
            Err(Cut(_)) => {
                cut(&mut s, pos);
                break;
            }
        };
        let key = &b[pos + 1..key_end - 1];
        let key_at = pos;
        pos = skip_ws(b, key_end);
        if b.get(pos) != Some(&b':') {
            if pos >= b.len() {
                cut(&mut s, key_at);
                break;
            }
            return Err(ParseError::new(
                pos as u64,
                "':' after a key",
                "something else",
            ));
        }
        pos = skip_ws(b, pos + 1);
        progress.set(pos as u64);
        let is_array = b.get(pos) == Some(&b'[');
        match key {
            b"nodes" | b"edges" | b"locations" if is_array => {
                let start = pos + 1;
                match key {
                    b"nodes" => s.nodes = Some(start),
                    b"edges" => {
                        s.edges = Some(start);
                        // A repeated key's end is not the end of an earlier "edges": an
                        // end before the start made the edges reader index backwards
                        // (fuzz/README.md, v8 crash 2).
                        s.edges_end = None;
                    }
                    _ => s.locations = Some(start),
                }
                // Integers only: the first ']' closes the array. Without one the file
                // was cut inside it; the tokenizer finds how much of it is whole (for
                // `locations`, which is read only on demand, the key is the limit).
                // In 16 MiB windows, searched on every core, each released once searched
                // (the readers map the pages again when they come to them).
                let found = first_close(b, start, release).map(|at| at - start);
                match found {
                    Some(k) => {
                        if key == b"edges" {
                            s.edges_end = Some(start + k);
                        }
                        // Skipped for now; the tokenizers read it again.
                        release(start..start + k);
                        pos = start + k + 1
                    }
                    None => {
                        if key == b"locations" {
                            cut(&mut s, key_at);
                        }
                        break;
                    }
                }
            }
            b"strings" if is_array => {
                let mut i = pos + 1;
                let mut closed = false;
                s.strings.reserve((b.len() - i) / 16);
                loop {
                    i = skip_ws(b, i);
                    match b.get(i) {
                        Some(b'"') => match skip_string(b, i) {
                            Ok(e) => {
                                s.strings.push(i as u64);
                                i = e;
                                if s.strings.len() % 65536 == 0 {
                                    progress.set(i as u64);
                                }
                            }
                            Err(_) => break,
                        },
                        Some(b',') => i += 1,
                        Some(b']') => {
                            closed = true;
                            i += 1;
                            break;
                        }
                        Some(&c) => {
                            return Err(ParseError::new(
                                i as u64,
                                "a string, ',' or ']' in \"strings\"",
                                format!("byte 0x{c:02x}"),
                            ))
                        }
                        None => break,
                    }
                }
                if !closed {
                    cut(&mut s, i.min(b.len()));
                    break;
                }
                pos = i;
            }
            _ => match skip_value(b, pos) {
                Ok(e) => {
                    // The first: the one the memory check read ([`declared`]).
                    if key == b"snapshot" && s.meta.is_none() {
                        s.meta = Some((pos, e));
                    }
                    pos = e;
                }
                Err(Ok(Cut(_))) => {
                    cut(&mut s, key_at);
                    break;
                }
                Err(Err(e)) => return Err(e),
            },
        }
    }
    Ok(s)
}

/// The offset of the first `]` from `start`, searched in 16 MiB windows on the thread
/// pool, the windows before it released.
fn first_close(b: &[u8], start: usize, release: &Release<'_>) -> Option<usize> {
    use rayon::prelude::*;
    const WINDOW: usize = 16 << 20;
    let windows: Vec<usize> = (start..b.len()).step_by(WINDOW).collect();
    let window = |from: usize| &b[from..(from + WINDOW).min(b.len())];
    let first = windows
        .par_iter()
        .position_first(|&from| memchr::memchr(b']', window(from)).is_some());
    let before = first.unwrap_or(windows.len());
    for &from in &windows[..before] {
        release(from..(from + WINDOW).min(b.len()));
    }
    let from = windows[first?];
    memchr::memchr(b']', window(from)).map(|k| from + k)
}

/// What the nodes thread reads.
#[derive(Default)]
struct NodeCols {
    /// How many nodes were read.
    count: usize,
    /// Record offset and first edge of every [`decode::BLOCK`]th node.
    blocks: decode::NodeBlocks,
    class_key: Vec<u32>,
    /// Self sizes, `u32::MAX` meaning "in `big_sizes`" (as [`Graph::shallow`]).
    shallow: Vec<u32>,
    big_sizes: Vec<(ObjId, u64)>,
    /// `detachedness` of every node (empty when the file has no such field).
    detached: Vec<u8>,
    keys: Vec<(u32, u32, bool)>,
    edge_count: Vec<u32>,
    cut: Option<usize>,
    error: Option<ParseError>,
}

/// DevTools groups by type, and by name only for objects and native nodes.
fn class_key(cols: &Cols, ty: i64, name: i64, detached: bool) -> (u32, u32, bool) {
    let tname = cols
        .node_types
        .get(ty as usize)
        .map(String::as_str)
        .unwrap_or("");
    let named = matches!(tname, "object" | "native");
    let ty = match tname {
        // Every kind of string is one "(string)" group.
        "concatenated string" | "sliced string" => cols
            .node_types
            .iter()
            .position(|t| t == "string")
            .map_or(ty, |p| p as i64),
        _ => ty,
    };
    (
        ty.clamp(0, u32::MAX as i64) as u32,
        if named {
            name.clamp(0, u32::MAX as i64) as u32
        } else {
            u32::MAX
        },
        detached,
    )
}

/// The histogram name of a class key, as DevTools' Summary names it.
pub fn class_name(cols: &Cols, key: (u32, u32, bool), name: impl FnOnce(u32) -> String) -> String {
    let (ty, n, detached) = key;
    let tname = cols.node_types.get(ty as usize).map(String::as_str);
    let base = match tname {
        Some("hidden") => "(system)".to_string(),
        Some("object") | Some("native") => {
            let s = name(n);
            if s.is_empty() {
                format!("({})", tname.unwrap_or("object"))
            } else {
                s
            }
        }
        Some("code") => "(compiled code)".to_string(),
        Some(t) => format!("({t})"),
        None => format!("(node type {ty})"),
    };
    if detached {
        format!("Detached {base}")
    } else {
        base
    }
}

fn read_nodes(
    b: &[u8],
    start: usize,
    cols: &Cols,
    declared: Option<u64>,
    strings: usize,
    progress: &Progress,
    release: &Release<'_>,
) -> NodeCols {
    let mut out = NodeCols::default();
    let nf = cols.nf;
    // The declared count, if the bytes left could hold it (each integer takes at least
    // two bytes with its separator): never trust a count in the file beyond that.
    let fits = (b.len() - start) / (nf * 2);
    let hint = declared.map_or(fits / 4, |d| (d as usize).min(fits));
    out.class_key.reserve_exact(hint);
    out.shallow.reserve_exact(hint);
    out.edge_count.reserve_exact(hint);
    if cols.n_detached.is_some() {
        out.detached.reserve_exact(hint);
    }
    let mut interned: IdMap<u32> = IdMap::default();
    // The class of a node without a name in its key is found by its type alone, and of a
    // named one (objects, native nodes) by a table indexed by the name's string index:
    // no hashing and no comparison of type names per node. The tables are as long as
    // `strings` (checked against the file when it was indexed) and go after this pass.
    let types: Vec<(u32, bool)> = (0..cols.node_types.len())
        .map(|t| {
            let (ty, name, _) = class_key(cols, t as i64, 0, false);
            (ty, name != u32::MAX)
        })
        .collect();
    // A table per type name, not per type: a meta that lists "object" a thousand times
    // would otherwise make a table of every string for each (the later ones intern).
    let mut seen = std::collections::HashSet::new();
    let tabled: Vec<bool> = (0..types.len())
        .map(|t| types[t].1 && seen.insert(cols.node_types[t].as_str()))
        .collect();
    let mut by_type: Vec<[u32; 2]> = vec![[u32::MAX; 2]; types.len()];
    let mut by_name: Vec<Option<Vec<u32>>> = vec![None; types.len() * 2];
    let mut edges_so_far = 0u64;
    let mut released = start;
    // `id` and `trace_node_id` are read again when shown.
    let mut needed = 1u64 << cols.n_type | 1 << cols.n_name | 1 << cols.n_size | 1 << cols.n_edges;
    if let Some(d) = cols.n_detached {
        needed |= 1 << d;
    }
    let end = json::records_needing(b, start, nf, needed, |rec, at| {
        let i = out.count;
        if declared.is_some_and(|d| i as u64 >= d) {
            // More nodes than the header said: the memory check trusted the count.
            out.error = Some(ParseError::new(
                at as u64,
                format!("at most {} nodes, the header's node_count", i),
                "another node",
            ));
            return false;
        }
        if i % decode::BLOCK == 0 {
            out.blocks.offset.push(at as u64);
            out.blocks.first_edge.push(edges_so_far);
            if i % (1 << 16) == 0 {
                progress.set(at as u64);
                release(released..at);
                released = at;
            }
        }
        if let Some(d) = cols.n_detached {
            out.detached.push(rec[d].clamp(0, 3) as u8);
        }
        let detached = cols.n_detached.is_some_and(|d| rec[d] == 2);
        let (ty, name) = (rec[cols.n_type], rec[cols.n_name]);
        let mut intern = |key: (u32, u32, bool)| {
            let packed = (key.0 as u64) << 33 | (key.1 as u64) << 1 | key.2 as u64;
            let next = out.keys.len() as u32;
            *interned.entry(packed).or_insert_with(|| {
                out.keys.push(key);
                next
            })
        };
        let c = match types.get(ty as usize) {
            Some(&(_, false)) if ty >= 0 => {
                let slot = &mut by_type[ty as usize][detached as usize];
                if *slot == u32::MAX {
                    *slot = intern(class_key(cols, ty, name, detached));
                }
                *slot
            }
            Some(_) if ty >= 0 && tabled[ty as usize] && name >= 0 && (name as usize) < strings => {
                let table = by_name[ty as usize * 2 + detached as usize]
                    .get_or_insert_with(|| vec![u32::MAX; strings]);
                let slot = &mut table[name as usize];
                if *slot == u32::MAX {
                    *slot = intern(class_key(cols, ty, name, detached));
                }
                *slot
            }
            _ => intern(class_key(cols, ty, name, detached)),
        };
        out.count += 1;
        out.class_key.push(c);
        let size = rec[cols.n_size].max(0) as u64;
        if size >= u32::MAX as u64 {
            out.big_sizes.push((i as ObjId, size));
            out.shallow.push(u32::MAX);
        } else {
            out.shallow.push(size as u32);
        }
        let ec = rec[cols.n_edges].clamp(0, u32::MAX as i64) as u32;
        out.edge_count.push(ec);
        edges_so_far += ec as u64;
        true
    });
    match end {
        RecordsEnd::Cut(at) => out.cut = Some(at),
        RecordsEnd::Bad(e) => out.error = Some(e),
        RecordsEnd::Closed(_) | RecordsEnd::Stopped => {}
    }
    out
}

/// The file offset of edge `k`, from the offset of every 64th edge: the commas after
/// that one's are counted.
fn edge_offset(b: &[u8], checkpoint: &[u64], k: usize, ef: usize) -> u64 {
    let Some(&at) = checkpoint.get(k / 64) else {
        return 0;
    };
    let mut pos = at as usize;
    let mut commas = (k % 64) * ef;
    while commas > 0 && pos < b.len() {
        if b[pos] == b',' {
            commas -= 1;
        }
        pos += 1;
    }
    skip_ws(b, pos) as u64
}

/// What the edges thread reads.
#[derive(Default)]
struct EdgeCols {
    /// Target node ordinal, `u32::MAX` when `to_node` is not a node's offset.
    target: Vec<u32>,
    ty: Vec<u8>,
    /// File offset of every 64th edge.
    checkpoint: Vec<u64>,
    cut: Option<usize>,
    error: Option<ParseError>,
}

/// Releases the pages of a byte range once it has been read (see [`Source::release`]).
type Release<'a> = dyn Fn(std::ops::Range<usize>) + Sync + 'a;

/// The node ordinal of a `to_node` array offset, `u32::MAX` when it is not a node's
/// offset. The division is by the node field count, a run-time value; dividing by a
/// constant instead (6 and 7 are what real files have) turns a 40-cycle `idiv`, paid per
/// edge, into a multiply.
#[inline]
fn node_ordinal(to: i64, nf: i64) -> u32 {
    #[inline(always)]
    fn by<const N: u64>(to: u64) -> u32 {
        if to % N == 0 && to / N < u32::MAX as u64 {
            (to / N) as u32
        } else {
            u32::MAX
        }
    }
    if to < 0 {
        return u32::MAX;
    }
    match nf {
        7 => by::<7>(to as u64),
        6 => by::<6>(to as u64),
        5 => by::<5>(to as u64),
        _ => {
            let (to, nf) = (to as u64, nf as u64);
            if to % nf == 0 && to / nf < u32::MAX as u64 {
                (to / nf) as u32
            } else {
                u32::MAX
            }
        }
    }
}

/// Reads `edges` in parallel chunks: the array is cut at record boundaries found by
/// counting commas (every integer but the last is followed by one, so the commas before
/// a position say which integer comes next), each chunk is tokenized on the thread pool,
/// and the chunks are joined in order. Rayon balances them against the nodes, which are
/// read on one thread (their classes are interned as they come).
fn read_edges_parallel(
    b: &[u8],
    start: usize,
    end: Option<usize>,
    cols: &Cols,
    declared: Option<u64>,
    parts: usize,
    release: &Release<'_>,
) -> EdgeCols {
    let ef = cols.ef;
    let stop = end.unwrap_or(b.len());
    use rayon::prelude::*;
    let count_commas = |r: std::ops::Range<usize>| memchr::memchr_iter(b',', &b[r]).count() as u64;
    // Cut points just after a comma near each 1/parts of the array, then the commas of
    // every piece counted on the thread pool (the count says which integer comes next at
    // each cut, and in all how many edges there are).
    let mut cuts = vec![start];
    for j in 1..parts {
        let guess = start + (stop - start) * j / parts;
        if guess <= *cuts.last().unwrap_or(&start) {
            continue;
        }
        match memchr::memchr(b',', &b[guess..stop]) {
            Some(k) => cuts.push(guess + k + 1),
            None => break,
        }
    }
    cuts.push(stop);
    let counts: Vec<u64> = (0..cuts.len() - 1)
        .into_par_iter()
        .map(|j| count_commas(cuts[j]..cuts[j + 1]))
        .collect();
    let commas: u64 = counts.iter().sum();
    // Chunk starts: (byte position, file ordinal of the chunk's first edge), each cut
    // moved on to the next integer whose index is a multiple of the edge width.
    let mut starts = vec![(start, 0u64)];
    let mut before = 0u64;
    for j in 1..cuts.len() - 1 {
        before += counts[j - 1];
        let (mut p, mut c) = (cuts[j], before);
        if p <= starts.last().map_or(start, |s| s.0) {
            continue;
        }
        let mut need = (ef as u64 - c % ef as u64) % ef as u64;
        while need > 0 {
            match memchr::memchr(b',', &b[p..stop]) {
                Some(k) => {
                    p += k + 1;
                    c += 1;
                    need -= 1;
                }
                None => break,
            }
        }
        if need > 0 {
            break;
        }
        if p > starts.last().map_or(start, |s| s.0) {
            starts.push((p, c / ef as u64));
        }
    }
    let numbers =
        commas + (end.is_some() && b[start..stop].iter().any(|c| c.is_ascii_digit())) as u64;
    // A file cut inside the array may end with a whole number and no comma after it.
    let total = (numbers / ef as u64) as usize + end.is_none() as usize;
    let _ = declared;
    let mut target = vec![0u32; total];
    let mut ty = vec![0u8; total];
    let mut slices = Vec::with_capacity(starts.len());
    {
        let (mut t_rest, mut y_rest) = (&mut target[..], &mut ty[..]);
        for j in 0..starts.len() {
            let ord = starts[j].1 as usize;
            let next = starts
                .get(j + 1)
                .map_or(total, |s| s.1 as usize)
                .clamp(ord, total);
            let (t, tr) = std::mem::take(&mut t_rest).split_at_mut(next - ord);
            let (y, yr) = std::mem::take(&mut y_rest).split_at_mut(next - ord);
            t_rest = tr;
            y_rest = yr;
            slices.push((j, t, y));
        }
    }
    let chunks: Vec<Chunk> = slices
        .into_par_iter()
        .map(|(j, t, y)| {
            let (pos, ord) = starts[j];
            let limit = starts.get(j + 1).map(|s| s.0);
            read_edges_into(b, pos, limit, ord, cols, t, y, release)
        })
        .collect();
    let mut out = EdgeCols::default();
    let mut filled = 0usize;
    for (j, c) in chunks.into_iter().enumerate() {
        filled += c.count;
        out.checkpoint.extend_from_slice(&c.checkpoint);
        let whole = starts
            .get(j + 1)
            .is_none_or(|s| (s.1 - starts[j].1) as usize == c.count);
        if c.cut.is_some() || c.error.is_some() || !whole {
            out.cut = c.cut;
            out.error = c.error;
            if out.cut.is_none() && out.error.is_none() {
                out.error = Some(ParseError::new(
                    starts[j].0 as u64,
                    "edges up to the next chunk",
                    format!("{} of them", c.count),
                ));
            }
            break;
        }
    }
    target.truncate(filled);
    ty.truncate(filled);
    out.target = target;
    out.ty = ty;
    out
}

/// What one chunk of `edges` gave.
struct Chunk {
    count: usize,
    checkpoint: Vec<u64>,
    cut: Option<usize>,
    error: Option<ParseError>,
}

/// Reads the edges from `start` up to (not including) `limit`, or to the array's end,
/// into `target` and `ty`; `ord` is the file ordinal of the first one.
#[allow(clippy::too_many_arguments)]
fn read_edges_into(
    b: &[u8],
    start: usize,
    limit: Option<usize>,
    ord: u64,
    cols: &Cols,
    target: &mut [u32],
    ty: &mut [u8],
    release: &Release<'_>,
) -> Chunk {
    let mut out = Chunk {
        count: 0,
        checkpoint: Vec::new(),
        cut: None,
        error: None,
    };
    let nf = cols.nf as i64;
    let (e_to, e_type) = (cols.e_to, cols.e_type);
    let limit = limit.unwrap_or(usize::MAX);
    let mut released = start;
    let mut over = None;
    // Edge names are read again when shown.
    let needed = 1u64 << e_to | 1 << e_type;
    let end = json::records_needing(b, start, cols.ef, needed, |rec, at| {
        if at >= limit {
            return false;
        }
        let k = out.count;
        if k >= target.len() {
            over = Some(at);
            return false;
        }
        if (ord + k as u64) % 64 == 0 {
            out.checkpoint.push(at as u64);
            if out.checkpoint.len() % 4096 == 0 {
                release(released..at);
                released = at;
            }
        }
        target[k] = node_ordinal(rec[e_to], nf);
        ty[k] = rec[e_type].clamp(0, 255) as u8;
        out.count += 1;
        true
    });
    match end {
        RecordsEnd::Cut(at) => out.cut = Some(at),
        RecordsEnd::Bad(e) => out.error = Some(e),
        RecordsEnd::Closed(_) | RecordsEnd::Stopped => {}
    }
    if let Some(at) = over {
        out.error = Some(ParseError::new(
            at as u64,
            "no more edges than commas",
            "more",
        ));
    }
    out
}

/// The CSR of the references as [`open`] hands them over, before the page's rule (see
/// [`page_owned`]) is applied: where each node's references start once the dangling
/// ones are dropped, and which are weak.
struct References {
    start: Vec<u32>,
    weak_bits: Vec<u64>,
    /// References kept (not dangling).
    edges: usize,
    dangling: u64,
    /// References the nodes' edge counts announce beyond the edges the file has.
    edges_missing: u64,
    /// Edges of the file that belong to a node (the rest are beyond every edge count).
    owned_edges: usize,
    /// The synthetic root's shortcut targets: its global objects.
    root_shortcuts: Vec<ObjId>,
}

/// Hands each edge to its owner (by the running sum of `edge_count`), leaving out the
/// dangling ones: weak edges and shortcut edges other than the root's do not retain.
fn references(
    nodes: &NodeCols,
    edges: &EdgeCols,
    weak_t: Option<i64>,
    shortcut_t: Option<i64>,
) -> References {
    let n = nodes.count;
    let targets = &edges.target;
    let total = targets.len();
    let mut start: Vec<u32> = Vec::with_capacity(n + 1);
    start.push(0);
    let mut weak_bits = vec![0u64; total.div_ceil(64)];
    let mut w = 0usize;
    let mut k = 0usize;
    let mut dangling = 0u64;
    let mut edges_missing = 0u64;
    let mut root_shortcuts: Vec<ObjId> = Vec::new();
    for (i, &ec) in nodes.edge_count.iter().enumerate() {
        let end = k + ec as usize;
        if end > total {
            edges_missing += (end - total.max(k)) as u64;
        }
        let span = k..end.min(total);
        for (&t, &ty) in targets[span.clone()].iter().zip(&edges.ty[span]) {
            if t as usize >= n {
                dangling += 1;
                continue;
            }
            let ty = ty as i64;
            if i == 0 && Some(ty) == shortcut_t {
                root_shortcuts.push(t);
            }
            if Some(ty) == weak_t || (Some(ty) == shortcut_t && i != 0) {
                weak_bits[w / 64] |= 1 << (w % 64);
            }
            w += 1;
        }
        k = end.min(total);
        start.push(w as u32);
    }
    weak_bits.truncate(w.div_ceil(64));
    References {
        start,
        weak_bits,
        edges: w,
        dangling,
        edges_missing,
        owned_edges: k,
        root_shortcuts,
    }
}

/// The objects "the page owns", as DevTools and memlab flag them before building the
/// dominator tree: everything reachable over non-weak edges from the root's own edges,
/// except its shortcut edges (to the global objects) and its element edge to the
/// synthetic `(Document DOM trees)`. A reference from an object outside this set to one
/// inside it does not retain (it would let a detached DOM tree, say, appear to own part
/// of the live page). One bit per node; empty when there are no nodes.
fn page_owned(
    b: &[u8],
    cols: &Cols,
    nodes: &NodeCols,
    edges: &EdgeCols,
    strings: &[u64],
) -> Vec<u64> {
    let n = nodes.count;
    if n == 0 {
        return Vec::new();
    }
    let weak = cols.edge_type("weak");
    let shortcut = cols.edge_type("shortcut");
    let element = cols.edge_type("element");
    let synthetic = cols.node_types.iter().position(|t| t == "synthetic");
    let starts = EdgeStarts::new(nodes, edges);
    let dom_trees = |t: usize| -> bool {
        // Only the root's few edges ask: read the node's type and name from its record.
        let rec = nodes
            .blocks
            .fields(b, cols.nf, n, t as ObjId)
            .map(|r| (r[cols.n_type], r[cols.n_name]));
        match rec {
            Some((ty, name)) => {
                Some(ty as usize) == synthetic
                    && strings.get(name as usize).is_some_and(|&off| {
                        json::decode_string(b, off as usize, 64).0 == "(Document DOM trees)"
                    })
            }
            None => false,
        }
    };
    let mut owned = vec![0u64; n.div_ceil(64)];
    // Breadth first through a queue of at most `QUEUE` nodes (a stack takes the overflow,
    // and is drawn on when the queue is empty), so that the next nodes to visit are known
    // well ahead: each one's place in the edge columns and its edges are prefetched some
    // nodes before it is reached. On the 6 M-node Node snapshot this walk took 80 ms, 72
    // with an unbounded queue and 95 depth first; on the 65 M-node synthetic one 350 ms,
    // 490-1,030 with an unbounded queue (and its 260 MB) and 320 depth first.
    const QUEUE: usize = 1 << 16;
    let mut queue = std::collections::VecDeque::with_capacity(QUEUE);
    let mut overflow: Vec<u32> = Vec::new();
    let visit = |t: usize,
                 owned: &mut [u64],
                 queue: &mut std::collections::VecDeque<u32>,
                 overflow: &mut Vec<u32>| {
        if owned[t / 64] >> (t % 64) & 1 == 0 {
            owned[t / 64] |= 1 << (t % 64);
            if queue.len() < QUEUE {
                queue.push_back(t as u32);
            } else {
                overflow.push(t as u32);
            }
        }
    };
    for k in starts.range(0) {
        let (t, ty) = (edges.target[k] as usize, Some(edges.ty[k] as i64));
        if t >= n || ty == weak || ty == shortcut || (ty == element && dom_trees(t)) {
            continue;
        }
        visit(t, &mut owned, &mut queue, &mut overflow);
    }
    /// How far ahead in the queue a node's edge start, and then its edges, are fetched.
    const START_AHEAD: usize = 16;
    const EDGES_AHEAD: usize = 8;
    loop {
        if let Some(&y) = queue.get(START_AHEAD) {
            starts.prefetch(y as usize);
        }
        if let Some(&y) = queue.get(EDGES_AHEAD) {
            let r = starts.range(y as usize);
            prefetch(edges.target.get(r.start));
            prefetch(edges.ty.get(r.start));
        }
        let Some(x) = queue.pop_front().or_else(|| overflow.pop()) else {
            break;
        };
        for k in starts.range(x as usize) {
            let t = edges.target[k] as usize;
            if t < n && Some(edges.ty[k] as i64) != weak {
                visit(t, &mut owned, &mut queue, &mut overflow);
            }
        }
    }
    owned
}

/// A hint to load the cache line of `x` (when there is one) before it is read.
#[inline]
fn prefetch<T>(x: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(r) = x {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch hint of an address inside a live borrow; it reads and writes
        // nothing.
        unsafe { _mm_prefetch(r as *const T as *const i8, _MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Where each node's edges start in the edge columns: the running sum of the nodes'
/// `edge_count`, cut to the edges the file has, for the passes that walk edges before the
/// graph's CSR exists. Four bytes per node while the edges number below 2^32 (always, in
/// practice: that is a file of some 24 GB), eight beyond.
enum EdgeStarts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl EdgeStarts {
    fn new(nodes: &NodeCols, edges: &EdgeCols) -> Self {
        let m = edges.target.len() as u64;
        let sums = || {
            let mut sum = 0u64;
            std::iter::once(0)
                .chain(nodes.edge_count.iter().map(move |&ec| {
                    sum += ec as u64;
                    sum
                }))
                .map(move |s| s.min(m))
        };
        if m < u32::MAX as u64 {
            EdgeStarts::Narrow(sums().map(|s| s as u32).collect())
        } else {
            EdgeStarts::Wide(sums().collect())
        }
    }

    /// Asks the processor to load where node `x`'s edges start.
    #[inline]
    fn prefetch(&self, x: usize) {
        match self {
            EdgeStarts::Narrow(f) => prefetch(f.get(x)),
            EdgeStarts::Wide(f) => prefetch(f.get(x)),
        }
    }

    /// Node `x`'s edges.
    #[inline]
    fn range(&self, x: usize) -> std::ops::Range<usize> {
        match self {
            EdgeStarts::Narrow(f) => f[x] as usize..f[x + 1] as usize,
            EdgeStarts::Wide(f) => f[x] as usize..f[x + 1] as usize,
        }
    }
}

/// DevTools' `propagateDOMState`: Blink writes `detachedness` only for DOM nodes that
/// have a JavaScript wrapper, so a detached `<p>` made by the parser and never touched
/// from JavaScript says 0 (unknown). DevTools spreads the known states along the edges
/// between native nodes (not hidden or weak ones; any other node stops it): "attached"
/// first, then "detached". Nodes that become detached move to the `Detached <name>`
/// class. Returns how many native nodes are detached in the end.
fn propagate_dom_state(cols: &Cols, nodes: &mut NodeCols, edges: &EdgeCols) -> u64 {
    let n = nodes.count;
    if nodes.detached.len() != n || !nodes.detached.iter().any(|&d| d != 0) {
        return 0;
    }
    let Some(native) = cols.node_types.iter().position(|t| t == "native") else {
        return 0;
    };
    let hidden = cols.edge_type("hidden");
    let weak = cols.edge_type("weak");
    let is_native =
        |nodes: &NodeCols, i: usize| nodes.keys[nodes.class_key[i] as usize].0 as usize == native;
    let starts = EdgeStarts::new(nodes, edges);
    let mut queue: Vec<usize> = Vec::new();
    for state in [1u8, 2] {
        queue.extend((0..n).filter(|&i| nodes.detached[i] == state && is_native(nodes, i)));
        while let Some(x) = queue.pop() {
            for k in starts.range(x) {
                let ty = Some(edges.ty[k] as i64);
                if ty == hidden || ty == weak {
                    continue;
                }
                let t = edges.target[k] as usize;
                if t < n && nodes.detached[t] == 0 && is_native(nodes, t) {
                    nodes.detached[t] = state;
                    queue.push(t);
                }
            }
        }
    }
    // Re-class the nodes that became detached.
    let mut interned: HashMap<(u32, u32, bool), u32> = nodes
        .keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    let mut count = 0;
    for i in 0..n {
        if nodes.detached[i] == 2 && is_native(nodes, i) {
            count += 1;
            let (t, name, d) = nodes.keys[nodes.class_key[i] as usize];
            if !d {
                let key = (t, name, true);
                let next = nodes.keys.len() as u32;
                let c = *interned.entry(key).or_insert(next);
                if c == next {
                    nodes.keys.push(key);
                }
                nodes.class_key[i] = c;
            }
        }
    }
    count
}

/// What the header says up front: node and edge counts (`None` where it does not say),
/// and the fields per node and per edge.
pub struct Declared {
    pub nodes: Option<u64>,
    pub edges: Option<u64>,
    pub node_fields: usize,
    pub edge_fields: usize,
}

/// The header's counts, read from the `"snapshot"` value that opens the file (every
/// writer puts it first) without reading the rest; `None` when the file does not open
/// with a readable one. The reader holds the file to the counts ([`read_nodes`], and
/// after the edges in [`open`]), so that the memory check can trust them.
pub fn declared(b: &[u8]) -> Option<Declared> {
    let bom = if b.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let mut pos = skip_ws(b, bom);
    (b.get(pos) == Some(&b'{')).then_some(())?;
    pos = skip_ws(b, pos + 1);
    let key_end = skip_string(b, pos).ok()?;
    (&b[pos..key_end] == b"\"snapshot\"").then_some(())?;
    pos = skip_ws(b, key_end);
    (b.get(pos) == Some(&b':')).then_some(())?;
    let start = skip_ws(b, pos + 1);
    let end = skip_value(b, start).ok()?;
    let (cols, header) = parse_meta(b, start, end).ok()?;
    Some(Declared {
        nodes: header["node_count"].as_u64(),
        edges: header["edge_count"].as_u64(),
        node_fields: cols.nf,
        edge_fields: cols.ef,
    })
}

/// Opens a V8 heap snapshot whose bytes `source` holds.
pub fn open(source: Source, progress: &Progress) -> Result<Snapshot, ParseError> {
    let b = source.bytes();
    progress.phase("reading the snapshot's layout and strings", b.len() as u64);
    let release = &|r: std::ops::Range<usize>| source.release(r);
    let sec = scan(b, progress, release)?;
    let (ms, me) = sec.meta.ok_or_else(|| {
        ParseError::new(
            sec.truncated.unwrap_or(b.len() as u64),
            "the \"snapshot\" header with its \"meta\"",
            if sec.truncated.is_some() {
                "the end of the file before it was whole"
            } else {
                "a snapshot without it"
            },
        )
    })?;
    let (cols, header) = parse_meta(b, ms, me)?;
    let mut warnings = Vec::new();
    let mut truncated = sec.truncated;

    progress.phase("reading nodes and edges", 0);
    let (nodes, edges) = std::thread::scope(|s| {
        let cols = &cols;
        let (dn, de) = (header["node_count"].as_u64(), header["edge_count"].as_u64());
        let _ = s;
        rayon::join(
            || match sec.nodes {
                Some(start) => read_nodes(b, start, cols, dn, sec.strings.len(), progress, release),
                None => NodeCols::default(),
            },
            || match sec.edges {
                Some(start) => {
                    let size = sec.edges_end.unwrap_or(b.len()) - start;
                    let parts = if size < (16 << 20) {
                        1
                    } else {
                        rayon::current_num_threads() * 4
                    };
                    read_edges_parallel(b, start, sec.edges_end, cols, de, parts, release)
                }
                None => EdgeCols::default(),
            },
        )
    });
    if let Some(e) = nodes.error {
        return Err(e);
    }
    if sec.nodes.is_none() {
        return Err(ParseError::new(
            truncated.unwrap_or(b.len() as u64),
            "a \"nodes\" array",
            "none",
        ));
    }
    if let Some(c) = nodes.cut {
        truncated = Some(truncated.map_or(c as u64, |t| t.min(c as u64)));
    }
    if let Some(d) = header["edge_count"].as_u64() {
        if edges.target.len() as u64 > d {
            // More edges than the header said: the memory check trusted the count.
            return Err(ParseError::new(
                edge_offset(b, &edges.checkpoint, d as usize, cols.ef),
                format!("at most {d} edges, the header's edge_count"),
                "another edge",
            ));
        }
    }
    if let Some(e) = &edges.error {
        warnings.push(format!(
            "the edges are unreadable from byte offset {}: expected {}, found {}; later edges are left out",
            e.offset, e.expected, e.found
        ));
    }
    if let Some(c) = edges.cut {
        truncated = Some(truncated.map_or(c as u64, |t| t.min(c as u64)));
    }
    let n = nodes.count;
    if n >= u32::MAX as usize - 1 {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 - 1 nodes",
            n.to_string(),
        ));
    }

    let mut nodes = nodes;
    let dom_detached = propagate_dom_state(&cols, &mut nodes, &edges);

    // Hand the edges to their owners, while the other core finds what the page owns (both
    // only read the edges). The page's rule is applied to the references afterwards.
    progress.phase("building references", 0);
    let weak_t = cols.edge_type("weak");
    let shortcut_t = cols.edge_type("shortcut");
    let mut g = Graph::default();
    // The references take a third of the walk's time; the rest of it, their core faults
    // in the fresh memory that the referrers will take (4 bytes per reference) while the
    // dominator pass's search runs: on this project's VM, where first touch is slow and
    // varies, that build otherwise outlasted the search by up to 0.18 s in runs where the
    // search took 0.10 s.
    let walked = std::sync::atomic::AtomicBool::new(false);
    let (owned, refs) = rayon::join(
        || {
            let owned = page_owned(b, &cols, &nodes, &edges, &sec.strings);
            walked.store(true, std::sync::atomic::Ordering::Relaxed);
            owned
        },
        || {
            let refs = references(&nodes, &edges, weak_t, shortcut_t);
            crate::alloc::prefault(refs.edges * 4, &walked);
            refs
        },
    );
    let References {
        start,
        mut weak_bits,
        edges: w,
        dangling,
        edges_missing,
        owned_edges: k,
        root_shortcuts,
    } = refs;
    let mut edges = edges;
    let mut targets = std::mem::take(&mut edges.target);
    let total = targets.len();
    if dangling > 0 {
        // The CSR is made in place from the edges as read: owners are in node order, so
        // dropping the dangling targets never overtakes the reading, and no second copy
        // of the largest array is made.
        let mut w = 0usize;
        for j in 0..k {
            let t = targets[j];
            if (t as usize) < n {
                targets[w] = t;
                w += 1;
            }
        }
    }
    targets.truncate(w);
    // DevTools' and memlab's rule: an object the page owns is not kept by one that the
    // page does not own. Only the edges of objects outside the page are looked at.
    let mut owner_cuts = 0u64;
    if !owned.is_empty() {
        let is_owned = |i: usize| owned.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
        for (wi, &word) in owned.iter().enumerate() {
            let mut outside = !word;
            while outside != 0 {
                let i = wi * 64 + outside.trailing_zeros() as usize;
                outside &= outside - 1;
                if i == 0 || i >= n {
                    continue;
                }
                for e in start[i] as usize..start[i + 1] as usize {
                    let weak = weak_bits[e / 64] >> (e % 64) & 1 == 1;
                    if !weak && is_owned(targets[e] as usize) {
                        weak_bits[e / 64] |= 1 << (e % 64);
                        owner_cuts += 1;
                    }
                }
            }
        }
    }
    let eb = EdgeBuilder {
        start,
        targets,
        weak: weak_bits,
    };
    let edges_read = total;
    if k < total && edges.cut.is_none() && edges.error.is_none() {
        warnings.push(format!(
            "{} edges more than the nodes' edge counts add up to; left out",
            total - k
        ));
    }
    if edges_missing > 0 && truncated.is_none() && edges.error.is_none() {
        warnings.push(format!(
            "{edges_missing} edges that the nodes' edge counts announce are not in \"edges\""
        ));
    }
    drop(std::mem::take(&mut edges.ty));
    // No per-node record offset: the decoder finds records from `nodes.blocks`.
    g.class_of = nodes.class_key.into();
    g.shallow = crate::heap::CompactColumn::Wide(nodes.shallow.into());
    g.big_sizes = nodes.big_sizes;
    drop(nodes.edge_count);
    let edge_checkpoint = edges.checkpoint;
    let parsed_edges = edges_read as u64;
    eb.install(&mut g);

    g.orphans_are_roots = true;
    g.scattered = true;
    // Roots: the synthetic root and what it refers to.
    if n > 0 {
        g.roots.push(Root {
            obj: 0,
            kind: RootKind::Synthetic,
            thread: u32::MAX,
            frame: u32::MAX,
        });
        let shortcuts = root_shortcuts;
        for e in g.edges(0) {
            let t = g.out_targets[e];
            if t != 0 && !g.is_weak(e) {
                g.roots.push(Root {
                    obj: t,
                    kind: if shortcuts.contains(&t) {
                        RootKind::GlobalObject
                    } else {
                        RootKind::Synthetic
                    },
                    thread: u32::MAX,
                    frame: u32::MAX,
                });
            }
        }
        g.sort_roots();
    }

    let mut strings = sec.strings;
    strings.shrink_to_fit();
    let name = |i: u32| -> String {
        match strings.get(i as usize) {
            Some(&off) => json::decode_string(b, off as usize, 1024).0,
            None => format!("<string {i}>"),
        }
    };
    g.classes = nodes
        .keys
        .iter()
        .map(|&k| ClassInfo {
            name: class_name(&cols, k, name),
        })
        .collect();

    if dangling > 0 {
        warnings.push(format!(
            "{dangling} edges point at no node (to_node out of range or not a node's offset); ignored"
        ));
    }
    if let Some(t) = truncated {
        warnings.insert(
            0,
            format!("truncated at byte offset {t}: the file is read as far as it is whole"),
        );
    }
    let declared = |k: &str| {
        header[k]
            .as_u64()
            .map(|x| x.to_string())
            .unwrap_or("-".into())
    };
    let facts = vec![
        (
            "node fields".to_string(),
            header["meta"]["node_fields"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
        ),
        ("node types".to_string(), cols.node_types.len().to_string()),
        (
            "nodes / edges declared".to_string(),
            format!("{} / {}", declared("node_count"), declared("edge_count")),
        ),
        ("edges read".to_string(), parsed_edges.to_string()),
        ("strings".to_string(), strings.len().to_string()),
        ("dangling edges".to_string(), dangling.to_string()),
    ];
    let mut facts = facts;
    if owner_cuts > 0 {
        facts.push(("page-ownership cuts".to_string(), owner_cuts.to_string()));
    }
    if dom_detached > 0 {
        facts.push((
            "detached DOM nodes".to_string(),
            format!("{dom_detached} (after DevTools' propagation of the DOM state)"),
        ));
    }
    let version = match cols.n_detached {
        Some(_) => format!("V8 heap snapshot, {} node fields", cols.nf),
        None => format!("V8 heap snapshot, {} node fields, no detachedness", cols.nf),
    };
    let decoder = V8Decoder {
        cols,
        strings,
        nodes_start: sec.nodes.unwrap_or(0),
        blocks: nodes.blocks,
        edge_checkpoint,
        locations: sec.locations,
    };
    Ok(Snapshot {
        format: Format::V8,
        format_version: version,
        id_size: None,
        graph: g,
        threads: 0,
        thread_list: Vec::new(),
        truncated,
        warnings,
        facts,
        decoder: Box::new(decoder),
        snapshots: Vec::new(),
        snapshot_index: 0,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Cols {
        let meta = br#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],
            "node_types":[["hidden","object"]],"edge_fields":["type","name_or_index","to_node"],
            "edge_types":[["context","element","property","internal","hidden","shortcut","weak"]]}}"#;
        parse_meta(meta, 0, meta.len()).unwrap().0
    }

    #[test]
    fn edges_read_in_chunks_equal_edges_read_in_one() {
        let cols = cols();
        let mut text = String::from("[");
        let mut x: u64 = 7;
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sep = if i == 0 {
                ""
            } else if x % 3 == 0 {
                "\n,"
            } else {
                ","
            };
            text.push_str(&format!("{sep}{},{},{}", x % 7, x % 1000, (x % 5000) * 7));
        }
        text.push(']');
        let b = text.as_bytes();
        let end = Some(b.len() - 1);
        let one = read_edges_parallel(b, 1, end, &cols, None, 1, &|_| {});
        assert_eq!(one.target.len(), 20_000);
        for parts in [2, 3, 7, 16, 64] {
            let many = read_edges_parallel(b, 1, end, &cols, None, parts, &|_| {});
            assert_eq!(many.target, one.target, "{parts} parts");
            assert_eq!(many.ty, one.ty);
            assert_eq!(many.checkpoint, one.checkpoint);
            assert!(many.cut.is_none() && many.error.is_none());
        }
        // Cut short: the chunks stop where the file does.
        let cut = &b[..b.len() / 2];
        let a = read_edges_parallel(cut, 1, None, &cols, None, 1, &|_| {});
        let c = read_edges_parallel(cut, 1, None, &cols, None, 5, &|_| {});
        assert_eq!(a.target, c.target);
        assert_eq!(a.cut, c.cut);
        assert!(a.cut.is_some());
    }
}
