//! `suspects` and `waste`: the leak suspects and the wasted memory of one snapshot, as
//! the plain 80-column text and the JSON documents of `../shared/CLI.md`.

use serde_json::{json, Value as Json};

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::suspects::{Report, Suspect};
use crate::text::human;
use crate::text::{json_line, pad_to, sanitize};
use crate::waste::Waste;

/// Step `i` of the path `p` from a GC root in the contract's shape: its object, class
/// and the edge that holds it; the first step names the root kind. `full` adds the
/// root's words and the object's label (`path` prints them).
pub fn step_json(snap: &Snapshot, p: &[crate::heap::ObjId], i: usize, full: bool) -> Json {
    let x = p[i];
    let mut v = json!({
        "object": snap.object_name(x),
        "class": snap.class_name(x),
        "edge": if i == 0 { None } else { snap.edge_label(p[i - 1], x) },
    });
    if i == 0 {
        let roots = snap.graph.roots_of(x);
        v["root"] = json!(roots.first().map(|r| r.kind.name()).unwrap_or("unknown"));
        if full {
            v["root_detail"] = json!(snap.describe_roots(x));
        }
    }
    if full {
        if let Some(l) = snap.label(x) {
            v["label"] = json!(l);
        }
    }
    v
}

/// A whole path in the contract's shape ([`step_json`] of each step).
pub fn path_json(snap: &Snapshot, p: &[crate::heap::ObjId]) -> Vec<Json> {
    (0..p.len()).map(|i| step_json(snap, p, i, false)).collect()
}

pub fn suspect_json(snap: &Snapshot, s: &Suspect, rank: usize) -> Json {
    let class = |c: u32| snap.graph.classes[c as usize].name.clone();
    json!({
        "rank": rank,
        "kind": s.kind,
        "title": s.title,
        "object": snap.object_name(s.object),
        "class": snap.class_name(s.object),
        "retained_bytes": s.retained,
        "share": (s.share * 10_000.0).round() / 10_000.0,
        "holder": s.holder,
        "objects": s.objects,
        // The path as `path` prints it (root words and labels included).
        "path": (0..s.path.len())
            .map(|i| step_json(snap, &s.path, i, true))
            .collect::<Vec<_>>(),
        "accumulation": s.accumulation.map(|(a, r)| json!({
            "object": snap.object_name(a),
            "class": snap.class_name(a),
            "retained_bytes": r,
        })),
        "members": s.members.iter().map(|m| json!({
            "class": class(m.class),
            "count": m.count,
            "retained_bytes": m.retained,
        })).collect::<Vec<_>>(),
    })
}

pub fn suspects_json(snap: &Snapshot, r: &Report) -> Json {
    json!({
        "heap_bytes": r.heap_bytes,
        "suspects": r.suspects.iter().enumerate()
            .map(|(i, s)| suspect_json(snap, s, i + 1)).collect::<Vec<_>>(),
    })
}

pub fn suspects(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize) {
    let r = crate::suspects::find(snap, d, top);
    if as_json {
        println!("{}", json_line(&suspects_json(snap, &r)));
        return;
    }
    println!(
        "Leak suspects: {} found; shares are of {} reachable",
        r.suspects.len(),
        human(r.heap_bytes)
    );
    if r.suspects.is_empty() {
        println!("(nothing holds 1 % of the heap or more below the GC roots' own objects)");
    }
    for (i, s) in r.suspects.iter().enumerate() {
        println!();
        println!(
            "{}. {} ({:.1} % of the heap), {}",
            i + 1,
            human(s.retained),
            s.share * 100.0,
            s.kind,
        );
        println!("   {}", sanitize(&s.title));
        println!(
            "   object  {} {}",
            snap.object_name(s.object),
            sanitize(snap.class_name(s.object))
        );
        println!("   holder  {}", sanitize(&s.holder));
        if let Some((a, ar)) = s.accumulation {
            println!(
                "   accumulates in {} {} ({})",
                snap.object_name(a),
                sanitize(snap.class_name(a)),
                human(ar)
            );
        }
        for m in s.members.iter().take(5) {
            println!(
                "   {:>10} × {} {:>11}",
                m.count,
                pad_to(&sanitize(&snap.graph.classes[m.class as usize].name), 40),
                human(m.retained)
            );
        }
        if !s.path.is_empty() {
            println!(
                "   path from a GC root ({}):",
                sanitize(&snap.describe_roots(s.path[0]))
            );
            for (k, &x) in s.path.iter().enumerate() {
                let mut line = "  ".repeat(k.min(12) + 2);
                if k > 0 {
                    let e = snap
                        .edge_label(s.path[k - 1], x)
                        .unwrap_or_else(|| "?".into());
                    line.push_str(&format!("{e} → "));
                }
                line.push_str(&format!("{} {}", snap.object_name(x), snap.class_name(x)));
                println!("{}", sanitize(&line));
            }
        }
    }
}

/// How the waste report names its example objects: by name (`0x…`, `@123`) and class.
pub trait ExampleNames {
    fn name(&self, o: crate::heap::ObjId) -> String;
    fn class(&self, o: crate::heap::ObjId) -> String;
}

impl ExampleNames for Snapshot {
    fn name(&self, o: crate::heap::ObjId) -> String {
        self.object_name(o)
    }
    fn class(&self, o: crate::heap::ObjId) -> String {
        self.class_name(o).to_string()
    }
}

/// The examples of a report made without the index: its ids index this list of
/// (name, class).
impl ExampleNames for [(String, String)] {
    fn name(&self, o: crate::heap::ObjId) -> String {
        self.get(o as usize)
            .map(|x| x.0.clone())
            .unwrap_or_default()
    }
    fn class(&self, o: crate::heap::ObjId) -> String {
        self.get(o as usize)
            .map(|x| x.1.clone())
            .unwrap_or_default()
    }
}

pub fn waste_json(snap: &(impl ExampleNames + ?Sized), w: &Waste) -> Json {
    json!({
        "duplicate_strings": w.strings.iter().map(|s| json!({
            "text": s.text,
            "count": s.count,
            "bytes_each": s.bytes_each,
            "wasted_bytes": s.wasted_bytes(),
            "example": snap.name(s.example),
        })).collect::<Vec<_>>(),
        "duplicate_arrays": w.arrays.iter().map(|a| json!({
            "class": snap.class(a.example),
            "length": a.length,
            "preview": a.preview,
            "count": a.count,
            "bytes_each": a.bytes_each,
            "wasted_bytes": a.wasted_bytes(),
            "example": snap.name(a.example),
        })).collect::<Vec<_>>(),
        "sparse_collections": w.sparse.iter().map(|c| json!({
            "class": c.class,
            "holder": c.holder,
            "count": c.count,
            "size": c.size,
            "capacity": c.capacity,
            "wasted_bytes": c.wasted_bytes,
            "example": snap.name(c.example),
        })).collect::<Vec<_>>(),
    })
}

pub fn waste(snap: &(impl ExampleNames + ?Sized), w: &Waste, as_json: bool) {
    if as_json {
        println!("{}", json_line(&waste_json(snap, w)));
        return;
    }
    println!("Duplicate strings (equal text in distinct objects):");
    if w.strings.is_empty() {
        println!("  none{}", w.strings_note.as_deref().unwrap_or(""));
    }
    for s in &w.strings {
        let mut text: String = s.text.chars().take(40).collect();
        if s.text.chars().count() > 40 {
            text.push('…');
        }
        println!(
            "  {:>11} wasted  {:>8} × {:>7}  {:?} e.g. {}",
            human(s.wasted_bytes()),
            s.count,
            human(s.bytes_each),
            sanitize(&text),
            snap.name(s.example)
        );
    }
    println!();
    println!("Duplicate primitive arrays (equal contents):");
    if w.arrays.is_empty() {
        println!("  none");
    }
    for a in &w.arrays {
        println!(
            "  {:>11} wasted  {:>8} × {:>7}  {} length {} e.g. {}{}",
            human(a.wasted_bytes()),
            a.count,
            human(a.bytes_each),
            sanitize(&snap.class(a.example)),
            a.length,
            snap.name(a.example),
            a.preview
                .as_ref()
                .map(|p| format!(" {}", sanitize(p)))
                .unwrap_or_default()
        );
    }
    println!();
    println!("Sparse collections (capacity far above size), by the reference holding them:");
    if w.sparse.is_empty() {
        println!("  none");
    }
    for c in &w.sparse {
        println!(
            "  {:>11} wasted  {:>8} × {} in {}: {} entries in {} slots, e.g. {}",
            human(c.wasted_bytes),
            c.count,
            sanitize(&c.class),
            sanitize(&c.holder),
            c.size,
            c.capacity,
            snap.name(c.example)
        );
    }
}
