//! Wasted memory (`heaptui waste`, the TUI's waste findings): equal strings and equal
//! primitive arrays held by distinct objects, and collections whose capacity is far above
//! their size.
//!
//! Duplicates are found from what the format's decoder gives as an object's contents
//! ([`crate::format::Decoder::content`]): one parallel pass over the objects of the
//! classes it names, hashing each object's contents (XXH3, 128 bits, with the length and
//! kind) and counting per hash; only the groups reported are decoded again for their
//! text. Formats whose snapshots keep no string text (MoarVM, Go) or no array elements
//! (Dart, V8) give empty lists.
//!
//! Sparse collections are read from the Java collections' own fields (`HashMap.table`
//! and `size`, `ArrayList.elementData` and `size`, …), grouped by the reference that
//! holds them (`field byName of com.example.Index`): a fix changes that one line. V8
//! snapshots give no capacity, so only HPROF has them.
//!
//! For an HPROF file with no index cache entry, `heaptui waste` gives the same report
//! without building the index (`format::hprof::quick_waste`), with the rules and
//! helpers here ([`content_key`], [`sparse_waste`], [`group_sparse`],
//! [`holder_words`]).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::format::{Snapshot, Value};
pub use crate::heap::waste::{
    content_key, group_sparse, holder_words, sparse_waste, DupArray, DupString, Sparse, Waste,
    SPARSE_CLASSES,
};
use crate::heap::ObjId;

/// The waste findings of a snapshot, at most `top` per list.
pub fn find(snap: &Snapshot, top: usize) -> Waste {
    let (strings, arrays) = duplicates(snap, top);
    let strings_note = snap.format.roles().strings_note().map(str::to_string);
    Waste {
        strings,
        arrays,
        sparse: sparse(snap, top),
        strings_note,
    }
}

/// One object's contents seen: a hash of its kind, class, length and bytes; what one
/// copy costs; the object.
type Seen = (u128, u64, ObjId);

fn duplicates(snap: &Snapshot, top: usize) -> (Vec<DupString>, Vec<DupArray>) {
    let g = &snap.graph;
    let b = snap.bytes();
    let classes = snap.decoder.content_classes(b, g);
    if classes.is_empty() || top == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut wanted = vec![false; g.classes.len()];
    for &c in &classes {
        if let Some(w) = wanted.get_mut(c as usize) {
            *w = true;
        }
    }
    // Two passes: the strings first, marking each and the value array it owns (a Java
    // `String`'s `byte[]`), so that the arrays' pass counts an array once, with its
    // string, not again as an array of its own. Each pass lists what it saw; one sort
    // by hash then brings equal contents together (less memory than a map per thread
    // holding millions of distinct strings, and no merging of maps).
    let n = g.len();
    let done: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let mark = |o: ObjId| {
        if let Some(w) = done.get(o as usize / 64) {
            w.fetch_or(1 << (o % 64), Ordering::Relaxed);
        }
    };
    let marked = |o: usize| done[o / 64].load(Ordering::Relaxed) >> (o % 64) & 1 == 1;
    let pass = |strings: bool| -> Vec<Seen> {
        let parts: Vec<Vec<Seen>> = (0..n.div_ceil(1 << 14))
            .into_par_iter()
            .map(|chunk| {
                let mut out = Vec::new();
                let lo = chunk << 14;
                let hi = (lo + (1 << 14)).min(n);
                for o in lo..hi {
                    let c = g.class_of.get(o);
                    if !wanted[c as usize] || marked(o) {
                        continue;
                    }
                    let Some(content) = snap.decoder.content(b, g, o as ObjId) else {
                        continue;
                    };
                    if content.string != strings {
                        continue;
                    }
                    if strings {
                        mark(o as ObjId);
                        if let Some(v) = content.owns {
                            mark(v);
                        }
                    }
                    // Arrays of one class only; strings of every string class alike.
                    let class = if strings { 0 } else { c as u64 + 1 };
                    let h = content_key(
                        xxhash_rust::xxh3::xxh3_128(&content.data),
                        content.length,
                        class,
                        content.encoding as u64,
                    );
                    out.push((h, content.bytes, o as ObjId));
                }
                out
            })
            .collect();
        parts.concat()
    };
    let timing = crate::sys::env::flag("HEAPTUI_TIMING");
    let t0 = std::time::Instant::now();
    let mut seen = pass(true);
    let strings_seen = seen.len();
    seen.extend(pass(false));
    seen.par_sort_unstable_by_key(|x| x.0);
    if timing {
        eprintln!(
            "timing: waste: {strings_seen} strings and {} arrays hashed and sorted in {:.3} s",
            seen.len() - strings_seen,
            t0.elapsed().as_secs_f64()
        );
    }
    // Runs of one hash: (count, bytes each, the first object).
    let mut groups: Vec<(u64, u64, ObjId)> = Vec::new();
    for run in seen.chunk_by(|a, b| a.0 == b.0) {
        // Copies that cost nothing (V8's strings of size 0 in read-only space) waste
        // nothing: no finding.
        if run.len() >= 2 && run[0].1 > 0 {
            let first = run.iter().map(|x| x.2).min().unwrap_or(run[0].2);
            groups.push((run.len() as u64, run[0].1, first));
        }
    }
    drop(seen);
    groups.sort_unstable_by(|a, b| {
        let w = |x: &(u64, u64, ObjId)| (x.0 - 1).saturating_mul(x.1);
        w(b).cmp(&w(a)).then(a.2.cmp(&b.2))
    });
    let mut strings = Vec::new();
    let mut arrays = Vec::new();
    for (count, bytes_each, example) in groups {
        if strings.len() >= top && arrays.len() >= top {
            break;
        }
        let Some(c) = snap.decoder.content(b, g, example) else {
            continue;
        };
        if c.string && strings.len() < top {
            strings.push(DupString {
                text: c.text(),
                count,
                bytes_each,
                example,
            });
        } else if !c.string && arrays.len() < top {
            arrays.push(DupArray {
                preview: snap.label(example),
                length: c.length,
                count,
                bytes_each,
                example,
            });
        }
    }
    (strings, arrays)
}

/// Capacity and size of a Java collection, from its fields; `None` for other objects
/// and for collections whose table is not allocated yet.
fn capacity_and_size(snap: &Snapshot, o: ObjId) -> Option<(u64, u64, ObjId)> {
    let ins = snap.inspect(o);
    let field = |n: &str| ins.fields.iter().find(|f| f.name == n && !f.is_static);
    let int = |n: &str| match field(n).map(|f| &f.value) {
        Some(Value::Int(i)) => Some(*i),
        _ => None,
    };
    let obj = |n: &str| match field(n).map(|f| &f.value) {
        Some(Value::Object(x)) => Some(*x),
        _ => None,
    };
    let (array, size) = if let Some(t) = obj("table") {
        let size = int("size")
            .or_else(|| int("count"))
            .or_else(|| int("baseCount"))?;
        (t, size)
    } else if let Some(e) = obj("elementData") {
        (e, int("size").or_else(|| int("elementCount"))?)
    } else if let Some(e) = obj("elements") {
        let cap = snap.inspect(e).length? as i64;
        let (h, t) = (int("head")?, int("tail")?);
        (e, if cap > 0 { (t - h).rem_euclid(cap) } else { 0 })
    } else {
        return None;
    };
    let capacity = snap.inspect(array).length?;
    Some((capacity, size.max(0) as u64, array))
}

fn sparse(snap: &Snapshot, top: usize) -> Vec<Sparse> {
    let t0 = std::time::Instant::now();
    let out = sparse_in(snap, top);
    if crate::sys::env::flag("HEAPTUI_TIMING") {
        eprintln!(
            "timing: waste: sparse collections {:.3} s",
            t0.elapsed().as_secs_f64()
        );
    }
    out
}

fn sparse_in(snap: &Snapshot, top: usize) -> Vec<Sparse> {
    let classes = snap.format.roles().sparse_classes();
    if classes.is_empty() || top == 0 {
        return Vec::new();
    }
    let g = &snap.graph;
    let wanted: Vec<bool> = g
        .classes
        .iter()
        .map(|c| classes.contains(&c.name.as_str()))
        .collect();
    if !wanted.iter().any(|&w| w) {
        return Vec::new();
    }
    let found: Vec<(ObjId, u64, u64, u64)> = (0..g.len() as ObjId)
        .into_par_iter()
        .filter(|&o| wanted[g.class_of.get(o as usize) as usize])
        .filter_map(|o| {
            let (capacity, size, array) = capacity_and_size(snap, o)?;
            let wasted = sparse_waste(capacity, size, g.shallow_size(array))?;
            Some((o, capacity, size, wasted))
        })
        .collect();
    let found = found.into_iter().map(|(o, capacity, size, wasted)| {
        let (class, holder) = class_and_holder(snap, o);
        (o, class, holder, capacity, size, wasted)
    });
    group_sparse(found, top)
}

/// The class a user wrote (a `HashSet` for the map inside it) and the reference that
/// holds the collection, in the leak suspects' words ([`crate::format::holders`]):
/// through the backing array or entries of another collection, that collection and what
/// holds it (`java.util.ArrayList in static MAPS of holdout.SparseIndex`). The chain
/// followed is each object's first strong referrer, up to a class's static, an object
/// nothing holds or [`CHAIN`] steps (the walk without the index takes the same).
fn class_and_holder(snap: &Snapshot, o: ObjId) -> (String, String) {
    let g = &snap.graph;
    let mut class = snap.class_name(o).to_string();
    let mut held = o;
    // The first strong referrer, past a view that only points back at its outer object
    // (`HashMap$Values.this$0`, made by a call of `values()`): the outer object is held
    // elsewhere.
    let strong = |x: ObjId| -> Option<ObjId> {
        let mut refs = g
            .referrer_range(x)
            .filter(|&i| !g.is_weak_referrer(i))
            .map(|i| g.referrer_index().in_sources[i]);
        let first = refs.next()?;
        if snap.edge_label(first, x).as_deref() != Some(OUTER) {
            return Some(first);
        }
        Some(
            refs.take(64)
                .find(|&r| snap.edge_label(r, x).as_deref() != Some(OUTER))
                .unwrap_or(first),
        )
    };
    let Some(from) = strong(o) else {
        return (class, "no referrer".to_string());
    };
    let outer = snap.class_name(from);
    if matches!(outer, "java.util.HashSet" | "java.util.LinkedHashSet")
        && snap.edge_label(from, o).as_deref() == Some("map")
    {
        class = outer.to_string();
        held = from;
        if strong(from).is_none() {
            return (class, "no referrer".to_string());
        }
    }
    // The chain from the top down to `held`.
    let mut chain = vec![held];
    let mut cur = held;
    while chain.len() < CHAIN {
        let Some(up) = strong(cur) else { break };
        if chain.contains(&up) {
            break;
        }
        chain.push(up);
        if snap.class_name(up) == "java.lang.Class" {
            break;
        }
        cur = up;
    }
    chain.reverse();
    (
        class,
        crate::format::holders::holder_words_in_chain(snap, &chain, held),
    )
}

/// The field by which a Java inner class's instance (a collection's view) refers to its
/// outer object.
pub const OUTER: &str = "this$0";

/// At most this many first strong referrers above a sparse collection are followed to
/// name its holder (a hash bucket's chain of entries lies on the way).
const CHAIN: usize = 64;
