//! What a fuzz target does with a snapshot once a reader has opened it, and the checks
//! that make a reader's mistake a crash the fuzzer can see.
//!
//! Shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`, through this crate's library)
//! and by `tests/it/fuzz_regressions.rs` (through `#[path]`), so that a crashing input kept
//! as a regression test replays exactly what the fuzzer did. It depends on nothing but
//! `heaptui` and `std` for that reason.
//!
//! The walk is what a user's session would do to the snapshot: the index's invariants
//! (every analysis indexes its arrays with them unchecked), the dominator tree and
//! retained sizes, the histogram, paths to roots and lookups by name for a few objects, and for the first
//! [`MAX_OBJECTS`] objects every on-demand question a view asks the format's decoder:
//! name, fields, label, roots in words, and the labels of its first and last
//! outgoing edges. Its cost is bounded by the caps below, not by counts in the input, so a slow
//! input is the reader's slowness, which libFuzzer's `-timeout` then reports.

use heaptui::format::{Snapshot, Value};
use heaptui::heap::{dominators, histogram, paths};
use heaptui::sys::progress::Progress;

/// Objects whose decoder answers are asked for.
pub const MAX_OBJECTS: usize = 10_000;
/// Edges whose labels are asked for, over all objects walked, and per object.
pub const MAX_EDGES: usize = 100_000;
pub const MAX_EDGES_PER_OBJECT: usize = 4;
/// Objects whose paths to roots are searched and that are looked up by name (each may
/// visit the whole graph or file).
pub const MAX_PATHS: usize = 8;

/// Panics when the index is not well-formed: lengths of the per-object columns, CSR
/// bounds and order, targets, classes and roots in range, and a truncation point inside
/// the file. `len` is the length of the bytes the reader was given.
pub fn check_graph(s: &Snapshot, len: usize) {
    let g = &s.graph;
    let n = g.len();
    assert!(n < u32::MAX as usize - 1, "{n} objects");
    // MoarVM and V8 keep no record offset per object (their decoders hold what they
    // need); every other format keeps one per object.
    use heaptui::format::Format;
    if !(matches!(s.format, Format::MoarVm | Format::V8) && g.offset.is_empty()) {
        assert_eq!(g.offset.len(), n, "one record offset per object");
    }
    let escape = g.shallow.escape();
    let big = g.shallow.iter().filter(|&x| x == escape).count();
    assert_eq!(g.shallow.len(), n, "one shallow size per object");
    assert_eq!(big, g.big_sizes.len(), "every escaped size has a big size");
    assert!(
        g.big_sizes.windows(2).all(|w| w[0].0 < w[1].0),
        "big sizes sorted"
    );
    for &(o, _) in &g.big_sizes {
        assert!((o as usize) < n && g.shallow.get(o as usize) == escape);
    }
    for (o, off) in g.offset.iter().enumerate() {
        assert!(off <= len as u64, "object {o}: record offset {off} > {len}");
    }
    for (o, c) in g.class_of.iter().enumerate() {
        assert!(
            (c as usize) < g.classes.len(),
            "object {o}: class {c} of {}",
            g.classes.len()
        );
    }
    let out_start: Vec<u32> = g.out_start.iter().collect();
    check_csr("out", &out_start, &g.out_targets, n);
    let r = g.referrer_index();
    let in_start: Vec<u32> = r.in_start.iter().collect();
    check_csr("in", &in_start, &r.in_sources, n);
    assert_eq!(
        g.out_targets.len(),
        r.in_sources.len(),
        "every edge is seen from both ends"
    );
    assert!(
        g.weak.len() * 64 >= g.out_targets.len(),
        "one weak bit per edge"
    );
    assert!(
        r.in_weak.is_empty() || r.in_weak.len() * 64 >= r.in_sources.len(),
        "one weak bit per referrer, or none"
    );
    for r in &g.roots {
        assert!((r.obj as usize) < n, "root of object {} of {n}", r.obj);
    }
    assert!(
        g.roots.windows(2).all(|w| w[0].obj <= w[1].obj),
        "roots sorted by object"
    );
    if let Some(t) = s.truncated {
        assert!(t <= len as u64, "truncated at {t} in a file of {len} bytes");
    }
    for t in &s.thread_list {
        let objs = t.object.iter().chain(&t.held);
        let locals = t.frames.iter().flat_map(|f| &f.locals);
        for &o in objs.chain(locals) {
            assert!(
                (o as usize) < n,
                "thread {:?} holds object {o} of {n}",
                t.name
            );
        }
    }
    assert!(s.snapshot_index < s.snapshots.len().max(1));
}

fn check_csr(what: &str, start: &[u32], items: &[u32], n: usize) {
    if n == 0 && start.is_empty() {
        assert!(items.is_empty(), "{what}: items without objects");
        return;
    }
    assert_eq!(start.len(), n + 1, "{what}: CSR start has n + 1 entries");
    assert_eq!(start[0], 0, "{what}: CSR starts at 0");
    assert!(
        start.windows(2).all(|w| w[0] <= w[1]),
        "{what}: CSR starts never decrease"
    );
    assert_eq!(
        start[n] as usize,
        items.len(),
        "{what}: CSR ends at its items"
    );
    for (i, &t) in items.iter().enumerate() {
        assert!((t as usize) < n, "{what}: item {i} is object {t} of {n}");
    }
}

/// Everything a session would ask of the snapshot, capped (see the module comment).
/// Returns a count of the answers, so that nothing is optimised away.
pub fn walk(s: &Snapshot) -> u64 {
    let g = &s.graph;
    let n = g.len();
    let progress = Progress::new();
    let mut answers = 0u64;

    let d = dominators::compute(g, &progress);
    assert!(d.reach.reachable <= n as u64);
    let mut rows = histogram::by_class(g);
    histogram::add_retained(&mut rows, &d.class_retained(g));
    let (group_of, names) = histogram::package_groups(g);
    answers += d.group_retained(g, &group_of, names.len()).len() as u64;
    answers += d.children(dominators::VIRTUAL_ROOT).len() as u64;
    // The leak suspects and the waste report, as the TUI's first screen finds them.
    let report = heaptui::suspects::find(s, &d, 10);
    for x in &report.suspects {
        assert!(
            x.retained <= d.total_bytes(),
            "a suspect retains more than the heap"
        );
        assert!((x.object as usize) < n);
        answers += x.title.len() as u64 + x.members.len() as u64;
    }
    let waste = heaptui::waste::find(s, 10);
    for w in &waste.strings {
        assert!(w.count >= 2 && (w.example as usize) < n);
    }
    answers += waste.arrays.len() as u64 + waste.sparse.len() as u64;
    if let Some((_, ids)) = s.persistent_ids() {
        assert_eq!(ids.len(), n, "one persistent id per object");
    }
    for t in &s.thread_list {
        answers += s.thread_name(t.serial).map_or(0, |x| x.len()) as u64;
    }

    let mut edges = 0usize;
    let step = (n / MAX_PATHS).max(1);
    for o in 0..n.min(MAX_OBJECTS) as u32 {
        let name = s.object_name(o);
        answers += s.class_name(o).len() as u64;
        let ins = s.inspect(o);
        for f in &ins.fields {
            if let Value::Object(t) = f.value {
                assert!(
                    (t as usize) < n,
                    "object {o}: field {} -> {t} of {n}",
                    f.name
                );
            }
        }
        answers += ins.fields.len() as u64 + ins.problems.len() as u64;
        answers += s.label(o).map_or(0, |l| l.len()) as u64;
        answers += s.describe_roots(o).len() as u64;
        answers += d.retained(o).unwrap_or(0) + d.children(o).len() as u64;
        // A label is found by decoding the object's edges up to the one asked for (V8:
        // from a checkpoint every 64 edges), so labelling every edge of an object costs
        // its degree squared: the first and the last few only.
        let r = g.edges(o);
        let last = r.end.saturating_sub(MAX_EDGES_PER_OBJECT / 2).max(r.start);
        let first = r.start..(r.start + MAX_EDGES_PER_OBJECT / 2).min(last);
        for e in first.chain(last..r.end) {
            if edges >= MAX_EDGES {
                break;
            }
            edges += 1;
            let t = g.out_targets[e];
            answers += s.edge_label(o, t).map_or(0, |l| l.len()) as u64;
        }
        if o as usize % step == 0 {
            // A lookup by name may scan every record (V8 ids are in no order): only for
            // a few objects, or the walk is quadratic.
            let found = s.find_object(&name);
            let found = found.unwrap_or_else(|| panic!("object {o} named {name:?} is not found"));
            assert_eq!(s.object_name(found), name, "found by name, named otherwise");
            for p in paths::to_roots(g, o, 3, false) {
                assert_eq!(p.last(), Some(&o), "a path ends at its object");
                answers += p.len() as u64;
            }
            answers += d.dominator_chain(o).len() as u64;
        }
    }
    answers
}
