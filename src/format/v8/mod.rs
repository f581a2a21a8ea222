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
//! computes the index's need from them ([`crate::sys::memory`]).
//!
//! A file cut short opens as far as it is whole: nodes up to the last whole record, edges
//! of the nodes whose edges are all there, strings up to the cut (later names show as
//! `<string N>`).

mod classes;
pub mod decode;
mod edges;
pub mod json;
mod meta;
pub mod need;
mod owned;
pub mod roles;

use crate::error::ParseError;
use crate::format::{Format, Snapshot};
use crate::heap::index::IdMap;
use crate::heap::{ClassInfo, EdgeBuilder, Graph, ObjId, Root, RootKind};
use crate::source::Source;
use crate::sys::progress::Progress;
pub use classes::dom_tag;
use classes::{class_key, class_name, propagate_dom_state, DomTags};
use decode::V8Decoder;
use edges::{read_edges_parallel, EdgeCols};
use json::{skip_string, skip_value, skip_ws, RecordsEnd};
pub use meta::Cols;
use meta::{parse_meta, scan};
use owned::page_owned;

/// Releases the pages of a byte range once it has been read (see [`Source::release`]).
type Release<'a> = dyn Fn(std::ops::Range<usize>) + Sync + 'a;

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

fn read_nodes(
    b: &[u8],
    start: usize,
    cols: &Cols,
    declared: Option<u64>,
    strings: &[u64],
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
    let mut dom_tags = DomTags::default();
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
            Some(_)
                if ty >= 0
                    && tabled[ty as usize]
                    && name >= 0
                    && (name as usize) < strings.len() =>
            {
                let table = by_name[ty as usize * 2 + detached as usize]
                    .get_or_insert_with(|| vec![u32::MAX; strings.len()]);
                let slot = &mut table[name as usize];
                if *slot == u32::MAX {
                    let name = dom_tags.canonical(b, strings, name);
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

// The file offset of edge `k`, from the offset of every 64th edge: the commas after
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
                Some(start) => read_nodes(b, start, cols, dn, &sec.strings, progress, release),
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
    // Damage in the edges (a record that is not integers where the file goes on) refuses
    // the file as damage in the nodes does: every format answers damage with exit 2 and
    // its offset, and a file that ends early opens as far as it is whole (issue 40).
    if let Some(e) = edges.error {
        return Err(e);
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
            crate::sys::alloc::prefault(refs.edges * 4, &walked);
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
    let name = |i: u32| -> Option<String> {
        let &off = strings.get(i as usize)?;
        Some(json::decode_string(b, off as usize, 1024).0)
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
        truncated,
        warnings,
        facts,
        ..Snapshot::of(source, Format::V8, version, g, Box::new(decoder))
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
