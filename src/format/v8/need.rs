//! What indexing a dump of this format needs at most, before any of it is read beyond
//! its header (see [`crate::sys::memory`]).

use crate::sys::memory::Need;

/// V8: peak bytes per node and per edge of the index and the dominator tree, measured on
/// generated snapshots of minimal records (five one-digit fields a node: the most
/// nodes a byte of file can hold) in `tests/hostile_memory.rs`: 1 M unreachable nodes
/// 28.8 MB (2.9 bytes per byte of file, against 0.8 estimated before), 300,000 nodes
/// each reached by an edge 19.6 MB, 100,000 nodes and 1 M edges 29.7 MB; rounded up.
/// Real files need less (355 MB for a 507 MB Node snapshot): this is a bound.
const V8_PER_NODE: u64 = 64;
const V8_PER_EDGE: u64 = 32;
/// V8: peak bytes per string: its offset (8) and its slot in the tables that name the
/// classes of objects and native nodes, detached or not (4 each); rounded up.
const V8_PER_STRING: u64 = 32;

/// What a V8 snapshot whose header says `d` needs at most, in a file of `len`
/// bytes with `quotes` double quotes: a count is taken as no more than the file could
/// hold (each integer takes two bytes with its comma), and a count the header leaves out
/// as that much. The header does not count the strings: every string has two quotes, so
/// half the quotes bound them.
fn declared_need(d: &super::Declared, len: u64, quotes: u64) -> Need {
    let fits = |fields: usize| len / (2 * fields.max(1) as u64);
    let nodes = d.nodes.unwrap_or(u64::MAX).min(fits(d.node_fields));
    let edges = d.edges.unwrap_or(u64::MAX).min(fits(d.edge_fields));
    let strings = quotes / 2;
    let said = if d.nodes.is_some() && d.edges.is_some() {
        "as its header says"
    } else {
        "as many as its bytes could hold where its header does not say"
    };
    Need {
        bytes: nodes * V8_PER_NODE + edges * V8_PER_EDGE + strings * V8_PER_STRING,
        basis: format!(
            "{nodes} nodes at {V8_PER_NODE} bytes and {edges} edges at {V8_PER_EDGE}, {said}, and at most {strings} strings at {V8_PER_STRING}"
        ),
    }
}

/// A V8 snapshot's need from its header's counts ([`declared_need`]); without a header up
/// front (the first key), as many nodes as the bytes could hold: five fields (the fewest
/// the reader takes) of one digit each.
pub fn need(bytes: &[u8]) -> Option<Need> {
    let d = declared_or_most(bytes);
    let quotes = memchr::memchr_iter(b'"', bytes).count() as u64;
    Some(declared_need(&d, bytes.len() as u64, quotes))
}

/// A higher bound than [`need`]'s, found without reading past the header: the strings
/// are at most what the bytes left by the nodes and edges (two bytes an integer) could
/// hold at three bytes each (`"",`). Where even this fits the memory left, the pass over
/// the file that counts the quotes is not needed.
pub fn quick_need(bytes: &[u8]) -> Option<Need> {
    let d = declared_or_most(bytes);
    let len = bytes.len() as u64;
    let fits = |fields: usize| len / (2 * fields.max(1) as u64);
    let nodes = d.nodes.unwrap_or(u64::MAX).min(fits(d.node_fields));
    let edges = d.edges.unwrap_or(u64::MAX).min(fits(d.edge_fields));
    let taken = 2 * (nodes * d.node_fields as u64 + edges * d.edge_fields as u64);
    let strings = len.saturating_sub(taken) / 3;
    Some(declared_need(&d, len, 2 * strings))
}

fn declared_or_most(bytes: &[u8]) -> super::Declared {
    super::declared(bytes).unwrap_or(super::Declared {
        nodes: None,
        edges: None,
        node_fields: 5,
        edge_fields: 5,
    })
}
