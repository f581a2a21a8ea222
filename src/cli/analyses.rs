//! `dominators`, `path`, `inspect` and `threads`: the analyses of `heap/` over one
//! snapshot, as the plain 80-column text and the JSON documents of `docs/cli.md`,
//! both rendered from the result types of [`crate::results`].
//!
//! Additions to the contract's documents (the contract is only added to): every object
//! may carry `"label"` (the class a class object stands for, a string's text, a boxed
//! number); `dominators` entries carry `"dominated"` (how many children the object has
//! in the dominator tree, also where `--depth` stops the listing) and `"root"` (the kinds
//! of GC root the object is, `"weakly reachable"`, or `"held by several GC roots"`); path steps that are roots carry
//! `"root_detail"` (thread and frame); `inspect` adds `"dominator"`, `"roots"`,
//! `"problems"`, `"more_elements"` and `"referrers_total"`, and fields of a class object
//! carry `"static": true`.

use super::commands::print_json;
use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::ObjId;
use crate::present::value_text;
use crate::results::dominators::{DominatorTree, LargestObjects};
use crate::results::{Inspect, Paths, Threads};
use crate::text::{pad_to, sanitize};

/// Resolves the `OBJECT` argument, or `--class NAME` (the largest instance of the class
/// by retained size, which needs the dominator tree: `dom` computes it on demand).
pub fn resolve(
    snap: &Snapshot,
    object: Option<&str>,
    class: Option<&str>,
    dom: &mut dyn FnMut() -> std::sync::Arc<Dominators>,
) -> Result<ObjId> {
    match (object, class) {
        (Some(name), None) => snap.find_object(name).ok_or_else(|| {
            // A bare number where objects are named by address: say how they are named.
            let bare = !name.is_empty() && name.bytes().all(|c| c.is_ascii_digit());
            let hint = if bare && snap.object_prefix().is_none() {
                " (objects are named by their address here: 0x followed by hex digits)"
            } else {
                ""
            };
            Error::NotFound(format!(
                "{}: no object {} in the snapshot{hint}",
                snap.source.path.display(),
                sanitize(name)
            ))
        }),
        (None, Some(cname)) => {
            let g = &snap.graph;
            let Some(cid) = g.classes.iter().position(|c| c.name == cname) else {
                // The classes with instances, which `--class` picks from; every class
                // where classes are objects (one without instances shows its object).
                let all = snap.format.roles().class_object_class().is_some();
                let mut has = vec![false; g.classes.len()];
                for o in 0..g.len() {
                    if let Some(h) = has.get_mut(g.class_of.get(o) as usize) {
                        *h = true;
                    }
                }
                let names = g
                    .classes
                    .iter()
                    .zip(&has)
                    .filter(|(_, &h)| h || all)
                    .map(|(c, _)| c.name.as_str());
                return Err(Error::NotFound(format!(
                    "{}: no class named {}{}",
                    snap.source.path.display(),
                    sanitize(cname),
                    sanitize(&super::usage::class_suggestion(names, cname))
                )));
            };
            let d = dom();
            let largest = (0..g.len() as ObjId)
                .filter(|&o| g.class_of.get(o as usize) as usize == cid)
                .max_by_key(|&o| (d.retained(o).unwrap_or(0), std::cmp::Reverse(o)));
            let no_instances = || {
                format!(
                    "{}: class {} has no instances",
                    snap.source.path.display(),
                    sanitize(cname)
                )
            };
            match largest {
                Some(o) => Ok(o),
                // No instance: the class object, whose fields are the statics (as MAT
                // shows a class), where the format has class objects.
                None => match class_object(snap, cname) {
                    Some(c) => {
                        eprintln!("heaptui: {}; showing its class object", no_instances());
                        Ok(c)
                    }
                    None => Err(Error::NotFound(no_instances())),
                },
            }
        }
        _ => Err(Error::Usage(
            "name exactly one object: OBJECT or --class NAME".into(),
        )),
    }
}

/// The object that stands for class `name` (Java's `java.lang.Class` labelled `class
/// NAME`), where the format's classes are objects.
pub fn class_object(snap: &Snapshot, name: &str) -> Option<ObjId> {
    let g = &snap.graph;
    let of = snap.format.roles().class_object_class()?;
    let cc = g.classes.iter().position(|c| c.name == of)?;
    let want = format!("class {name}");
    (0..g.len() as ObjId)
        .filter(|&o| g.class_of.get(o as usize) as usize == cc)
        .find(|&o| snap.label(o).as_deref() == Some(want.as_str()))
}

pub fn dominators(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize, depth: usize) {
    let doc = DominatorTree::of(snap, d, top, depth);
    if as_json {
        // serde nests by recursion: a tree printed thousands of levels deep is written
        // on a stack made for it (a chain 25,000 deep overflowed the main thread's).
        let deep = doc.objects.height() > 1000;
        let stack = doc.objects.stack_bytes();
        let doc = crate::results::Dominators::Tree(doc);
        let written = deep
            && std::thread::scope(|s| {
                std::thread::Builder::new()
                    .stack_size(stack)
                    .spawn_scoped(s, || print_json(&doc))
                    .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .is_ok()
            });
        if !written {
            // Shallow, or no such stack to be had (an address-space limit): this one.
            print_json(&doc);
        }
        return;
    }
    let total = doc.total_retained_bytes;
    println!("     RETAINED      %      SHALLOW  OBJECT");
    let forest = &doc.objects;
    for (n, &level) in forest.nodes.iter().zip(&forest.levels) {
        let r = n.retained_bytes.unwrap_or(0);
        let pct = if total == 0 {
            0.0
        } else {
            r as f64 * 100.0 / total as f64
        };
        let mut what = format!("{}{} {}", "  ".repeat(level.min(10)), n.class, n.object);
        if let Some(l) = &n.label {
            what.push(' ');
            what.push_str(l);
        }
        if level == 0 {
            if let Some(rw) = &n.root {
                what.push_str(&format!(" [{rw}]"));
            }
        }
        println!(
            "{r:>13} {pct:>5.1}% {:>12}  {}",
            n.shallow_bytes,
            sanitize(&what)
        );
    }
    println!(
        "{total:>13} 100.0% {:>12}  total: {} objects reachable, {} only weakly",
        "", doc.reachable_objects, doc.weakly_reachable_objects
    );
}

/// `dominators --flat`: the `top` objects with the largest retained sizes anywhere in
/// the dominator tree, largest first (ties by id), each with its immediate dominator.
pub fn largest(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize) {
    let doc = LargestObjects::of(snap, d, top);
    if as_json {
        print_json(&crate::results::Dominators::Flat(doc));
        return;
    }
    let total = doc.total_retained_bytes;
    println!("     RETAINED      %      SHALLOW  OBJECT");
    for o in &doc.objects {
        let r = o.retained_bytes;
        let pct = if total == 0 {
            0.0
        } else {
            r as f64 * 100.0 / total as f64
        };
        let mut what = format!("{} {}", o.class, o.object);
        if let Some(l) = &o.label {
            what.push(' ');
            what.push_str(l);
        }
        println!(
            "{r:>13} {pct:>5.1}% {:>12}  {}",
            o.shallow_bytes,
            sanitize(&what)
        );
    }
}

pub fn path(snap: &Snapshot, o: ObjId, as_json: bool, max: usize, include_weak: bool) {
    let g = &snap.graph;
    let doc = Paths {
        schema_version: crate::results::SchemaVersion,
        object: snap.object_name(o),
        paths: crate::results::path::PathList {
            snap,
            paths: crate::heap::paths::to_roots(g, o, max, include_weak),
        },
    };
    if as_json {
        // Written step by step as it is serialised: a path two million references long
        // is two million steps, and as one JSON value it took gigabytes.
        print_json(&doc);
        return;
    }
    let paths = &doc.paths;
    if paths.paths.is_empty() {
        let weak_only = !include_weak && !crate::heap::paths::to_roots(g, o, 1, true).is_empty();
        println!(
            "{} {}: {}",
            doc.object,
            sanitize(snap.class_name(o)),
            if weak_only {
                "no path from a GC root over strong references: only weak or soft \
                 references reach it (try --include-weak)"
            } else {
                "unreachable (garbage in this dump): no path from a GC root"
            }
        );
        return;
    }
    for (n, p) in paths.paths.iter().enumerate() {
        for (i, step) in paths.steps(n).iter().enumerate() {
            if i == 0 {
                println!(
                    "path {} of {} ({} step{}), from a GC root: {}",
                    n + 1,
                    paths.paths.len(),
                    crate::text::thousands(p.len() as u64),
                    if p.len() == 1 { "" } else { "s" },
                    sanitize(step.root_detail.as_deref().unwrap_or(""))
                );
            }
            println!("{}", sanitize(&step_line(step, i, 1)));
        }
    }
}

/// A path's step `i` as a line, indented by `indent` + its place (up to 12): `edge →
/// object class label`, or a folded step's words.
pub fn step_line(step: &crate::results::PathStep, i: usize, indent: usize) -> String {
    let mut line = "  ".repeat(i.min(12) + indent);
    if let Some(w) = step.fold_words() {
        line.push_str(&w);
        return line;
    }
    if i > 0 {
        let e = step.edge.as_deref().unwrap_or("?");
        line.push_str(&format!("{e} → "));
    }
    line.push_str(&format!("{} {}", step.object, step.class));
    if let Some(l) = &step.label {
        line.push(' ');
        line.push_str(l);
    }
    line
}

pub fn inspect(snap: &Snapshot, d: &Dominators, o: ObjId, as_json: bool) {
    let doc = Inspect::of(snap, d, o);
    if as_json {
        print_json(&doc);
        return;
    }
    let line = |k: &str, v: String| println!("{k:<14}{}", sanitize(&v));
    line("object", doc.object.clone());
    line("class", doc.class.clone());
    for (k, v) in &doc.facts.0 {
        line(k, v.clone());
    }
    if let Some(l) = &doc.label {
        line("label", l.clone());
    }
    line("shallow", format!("{} bytes", doc.shallow_bytes));
    line(
        "retained",
        doc.retained_bytes
            .map(|r| format!("{r} bytes"))
            .unwrap_or_else(|| "- (no GC root reaches this object)".into()),
    );
    if let Some(dm) = &doc.dominator {
        line("dominator", dm.clone());
    }
    if let Some(dist) = doc.distance {
        line("distance", format!("{dist} (references from the root)"));
    }
    for r in &doc.roots {
        line("GC root", r.clone());
    }
    if let Some(n) = doc.length {
        line("length", n.to_string());
    }
    if let Some(p) = &doc.preview {
        let short: String = p.chars().take(200).collect();
        let more = if p.chars().count() > 200 { "…" } else { "" };
        line("preview", format!("{short}{more}"));
    }
    for p in &doc.problems {
        line("problem", p.clone());
    }
    if !doc.fields.is_empty() {
        println!("fields:");
        for f in &doc.fields {
            let st = if f.is_static { "static " } else { "" };
            println!(
                "  {st}{:<8} {} {}",
                f.ty,
                pad_to(&sanitize(&f.name), 20),
                sanitize(&value_text(snap, &f.decoded))
            );
        }
        if doc.more_elements > 0 {
            println!("  … {} more elements", doc.more_elements);
        }
    }
    println!("referrers ({}):", doc.referrers_total);
    for r in &doc.referrers {
        let e = r.edge.as_deref().unwrap_or("?");
        let mut s = format!("  {} {} via {e}", r.object, r.class);
        if let Some(l) = &r.label {
            s.push_str(&format!(" ({l})"));
        }
        println!("{}", sanitize(&s));
    }
    if doc.referrers_total > doc.referrers.len() {
        println!("  … {} more", doc.referrers_total - doc.referrers.len());
    }
}

/// `threads`: every thread with its frames, innermost first, and the objects each frame
/// holds.
pub fn threads(snap: &Snapshot, as_json: bool) {
    let doc = Threads::of(snap);
    if as_json {
        print_json(&doc);
        return;
    }
    if doc.threads.is_empty() {
        println!("no threads in this snapshot");
        return;
    }
    for t in &doc.threads {
        let mut head = format!("\"{}\"", t.name);
        if let Some(id) = t.id {
            head.push_str(&format!(" #{id}"));
        }
        if let Some(s) = &t.state {
            head.push_str(&format!(" {s}"));
        }
        if t.system {
            head.push_str(" (system)");
        }
        if let Some(o) = &t.object {
            head.push_str(&format!(" {o}"));
        }
        println!("{}", sanitize(&head));
        for f in &t.frames {
            println!(
                "{}",
                sanitize(&format!("    at {} ({})", f.function, f.location))
            );
            for o in &f.locals {
                let mut l = format!("        local {} {}", o.object, o.class);
                if let Some(x) = &o.label {
                    l.push(' ');
                    l.push_str(x);
                }
                println!("{}", sanitize(&l));
            }
        }
        for o in &t.held {
            println!(
                "{}",
                sanitize(&format!("    held {} {}", o.object, o.class))
            );
        }
        println!();
    }
}
