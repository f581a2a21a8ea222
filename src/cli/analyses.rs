//! `dominators`, `path`, `inspect` and `threads`: the analyses of `heap/` over one snapshot, as the
//! plain 80-column text and the JSON documents of `../shared/CLI.md`.
//!
//! Additions to the contract's documents (the contract is only added to): every object
//! may carry `"label"` (the class a class object stands for, a string's text, a boxed
//! number); `dominators` entries carry `"dominated"` (how many children the object has
//! in the dominator tree, also where `--depth` stops the listing) and `"root"` (the kinds
//! of GC root the object is, `"weakly reachable"`, or `"held by several GC roots"`); path steps that are roots carry
//! `"root_detail"` (thread and frame); `inspect` adds `"dominator"`, `"roots"`,
//! `"problems"`, `"more_elements"` and `"referrers_total"`, and fields of a class object
//! carry `"static": true`.

use serde_json::{json, Value as Json};

use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::{Dominators, VIRTUAL_ROOT};
use crate::heap::ObjId;
use crate::present::{value_json, value_text};
use crate::text::{json_line, pad_to, sanitize};

/// Referrers listed by `inspect`; the rest are counted.
const MAX_REFERRERS: usize = 100;

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
                // The classes with instances, which `--class` picks from.
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
                    .filter(|(_, &h)| h)
                    .map(|(c, _)| c.name.as_str());
                return Err(Error::NotFound(format!(
                    "{}: no class named {}{}",
                    snap.source.path.display(),
                    sanitize(cname),
                    sanitize(&super::usage::class_suggestion(names, cname))
                )));
            };
            let d = dom();
            (0..g.len() as ObjId)
                .filter(|&o| g.class_of.get(o as usize) as usize == cid)
                .max_by_key(|&o| (d.retained(o).unwrap_or(0), std::cmp::Reverse(o)))
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "{}: class {} has no instances",
                        snap.source.path.display(),
                        sanitize(cname)
                    ))
                })
        }
        _ => Err(Error::Usage(
            "name exactly one object: OBJECT or --class NAME".into(),
        )),
    }
}

fn root_words(snap: &Snapshot, d: &Dominators, o: ObjId) -> Option<String> {
    let roots = snap.graph.roots_of(o);
    if !roots.is_empty() {
        let mut kinds: Vec<&str> = roots.iter().map(|r| r.kind.name()).collect();
        kinds.dedup();
        return Some(kinds.join(", "));
    }
    if d.is_weakly_reachable(o) {
        return Some("weakly reachable".to_string());
    }
    (d.idom(o) == Some(VIRTUAL_ROOT)).then(|| "held by several GC roots".to_string())
}

/// The part of the dominator tree that `dominators` prints: for the virtual root and every
/// object shown above the last level, its `top` largest children and how many it has
/// (and the count alone for the last level, which JSON gives as "dominated"). One scan of
/// the tree per level ([`Dominators::top_children`]), not the children lists.
type Shown = crate::heap::index::IdMap<(Vec<ObjId>, usize)>;

fn shown_tree(d: &Dominators, top: usize, depth: usize) -> Shown {
    let mut shown = Shown::default();
    let mut level = vec![VIRTUAL_ROOT];
    // A scan of every object per level is cheaper than the children lists for the few
    // levels people print; a deep tree (a long chain) takes the lists, built once, or
    // its levels' scans make it quadratic.
    let deep = depth > 4;
    for _ in 0..=depth {
        if level.is_empty() {
            break;
        }
        let kids: Vec<(Vec<ObjId>, usize)> = if deep {
            level
                .iter()
                .map(|&p| {
                    let c = d.children(p);
                    (c.iter().take(top).copied().collect(), c.len())
                })
                .collect()
        } else {
            d.top_children(&level, top)
        };
        let mut next = Vec::new();
        for (&p, (k, count)) in level.iter().zip(kids) {
            next.extend_from_slice(&k);
            shown.insert(p as u64, (k, count));
        }
        level = next;
    }
    shown
}

fn kids_of(shown: &Shown, o: ObjId) -> (&[ObjId], usize) {
    shown
        .get(&(o as u64))
        .map_or((&[], 0), |(k, c)| (&k[..], *c))
}

/// One node of `dominators --json` without its children: a flat object.
fn dominator_node_json(snap: &Snapshot, d: &Dominators, shown: &Shown, o: ObjId) -> Json {
    let (_, count) = kids_of(shown, o);
    let mut v = json!({
        "object": snap.object_name(o),
        "class": snap.class_name(o),
        "shallow_bytes": snap.graph.shallow_size(o),
        "retained_bytes": d.retained(o),
        "dominated": count,
    });
    if let Some(l) = snap.label(o) {
        v["label"] = json!(l);
    }
    if let Some(r) = root_words(snap, d, o) {
        v["root"] = json!(r);
    }
    v
}

/// The `objects` array of `dominators --json`, written as it is walked: each node's
/// flat object, its `children` array opened after its own fields and closed when its
/// subtree is done. No recursion and no nested value in memory, however deep the tree
/// asked for is (a recursive writer overflowed the stack on a chain 25,000 deep).
fn write_dominator_objects(
    out: &mut String,
    snap: &Snapshot,
    d: &Dominators,
    shown: &Shown,
    top: usize,
    depth: usize,
) {
    let first: Vec<ObjId> = kids_of(shown, VIRTUAL_ROOT)
        .0
        .iter()
        .take(top)
        .copied()
        .collect();
    out.push('[');
    // (the nodes of one level under one parent, the next to write, their level)
    let mut stack: Vec<(Vec<ObjId>, usize, usize)> = vec![(first, 0, 1)];
    while let Some((list, next, level)) = stack.last_mut() {
        let Some(&o) = list.get(*next) else {
            stack.pop();
            out.push(']');
            if !stack.is_empty() {
                out.push('}');
            }
            continue;
        };
        if *next > 0 {
            out.push(',');
        }
        *next += 1;
        let level = *level;
        let node = json_line(&dominator_node_json(snap, d, shown, o));
        if level < depth {
            out.push_str(node.strip_suffix('}').unwrap_or(&node));
            out.push_str(",\"children\":[");
            let kids = kids_of(shown, o).0.iter().take(top).copied().collect();
            stack.push((kids, 0, level + 1));
        } else {
            out.push_str(&node);
        }
    }
}

pub fn dominators(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize, depth: usize) {
    let total = d.total_bytes();
    let shown = shown_tree(d, top, depth);
    if as_json {
        let mut out = String::from("{\"objects\":");
        write_dominator_objects(&mut out, snap, d, &shown, top, depth);
        let rest = json_line(&json!({"total_retained_bytes": total,
               "reachable_objects": d.reach.reachable, "weakly_reachable_objects": d.reach.weakly_reachable}));
        out.push(',');
        out.push_str(rest.strip_prefix('{').unwrap_or(&rest));
        println!("{out}");
        return;
    }
    println!("     RETAINED      %      SHALLOW  OBJECT");
    let mut stack: Vec<(ObjId, usize)> = kids_of(&shown, VIRTUAL_ROOT)
        .0
        .iter()
        .take(top)
        .rev()
        .map(|&o| (o, 0))
        .collect();
    while let Some((o, level)) = stack.pop() {
        let r = d.retained(o).unwrap_or(0);
        let pct = if total == 0 {
            0.0
        } else {
            r as f64 * 100.0 / total as f64
        };
        let mut what = format!(
            "{}{} {}",
            "  ".repeat(level.min(10)),
            snap.class_name(o),
            snap.object_name(o)
        );
        if let Some(l) = snap.label(o) {
            what.push(' ');
            what.push_str(&l);
        }
        if level == 0 {
            if let Some(rw) = root_words(snap, d, o) {
                what.push_str(&format!(" [{rw}]"));
            }
        }
        println!(
            "{r:>13} {pct:>5.1}% {:>12}  {}",
            snap.graph.shallow_size(o),
            sanitize(&what)
        );
        if level + 1 < depth {
            for &c in kids_of(&shown, o).0.iter().take(top).rev() {
                stack.push((c, level + 1));
            }
        }
    }
    println!(
        "{total:>13} 100.0% {:>12}  total: {} objects reachable, {} only weakly",
        "", d.reach.reachable, d.reach.weakly_reachable
    );
}

/// `dominators --flat`: the `top` objects with the largest retained sizes anywhere in
/// the dominator tree, largest first (ties by id), each with its immediate dominator.
pub fn largest(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let g = &snap.graph;
    let mut heap: BinaryHeap<Reverse<(u64, Reverse<ObjId>)>> = BinaryHeap::new();
    for o in 0..g.len() as ObjId {
        if let Some(r) = d.retained(o) {
            heap.push(Reverse((r, Reverse(o))));
            if heap.len() > top {
                heap.pop();
            }
        }
    }
    let mut list: Vec<(u64, ObjId)> = heap
        .into_iter()
        .map(|Reverse((r, Reverse(o)))| (r, o))
        .collect();
    list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let total = d.total_bytes();
    if as_json {
        let objects: Vec<Json> = list
            .iter()
            .map(|&(r, o)| {
                let mut v = json!({
                    "object": snap.object_name(o),
                    "class": snap.class_name(o),
                    "shallow_bytes": g.shallow_size(o),
                    "retained_bytes": r,
                    "dominator": match d.idom(o) {
                        Some(VIRTUAL_ROOT) | None => None,
                        Some(x) => Some(snap.object_name(x)),
                    },
                });
                if let Some(l) = snap.label(o) {
                    v["label"] = json!(l);
                }
                v
            })
            .collect();
        println!(
            "{}",
            json_line(&json!({"objects": objects, "total_retained_bytes": total}))
        );
        return;
    }
    println!("     RETAINED      %      SHALLOW  OBJECT");
    for (r, o) in list {
        let pct = if total == 0 {
            0.0
        } else {
            r as f64 * 100.0 / total as f64
        };
        let mut what = format!("{} {}", snap.class_name(o), snap.object_name(o));
        if let Some(l) = snap.label(o) {
            what.push(' ');
            what.push_str(&l);
        }
        println!(
            "{r:>13} {pct:>5.1}% {:>12}  {}",
            g.shallow_size(o),
            sanitize(&what)
        );
    }
}

pub fn path(snap: &Snapshot, o: ObjId, as_json: bool, max: usize, include_weak: bool) {
    let g = &snap.graph;
    let paths = crate::heap::paths::to_roots(g, o, max, include_weak);
    let steps = |p: &[ObjId], i: usize| super::findings::step_json(snap, p, i, true);
    if as_json {
        // Written step by step: a path two million references long is two million
        // steps, and as one JSON value it took gigabytes.
        use std::io::Write;
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        let name = json_line(&json!(snap.object_name(o)));
        let _ = write!(w, "{{\"object\":{name},\"paths\":[");
        for (n, p) in paths.iter().enumerate() {
            let _ = w.write_all(if n == 0 { b"[" } else { b",[" });
            for i in 0..p.len() {
                if i > 0 {
                    let _ = w.write_all(b",");
                }
                let _ = w.write_all(json_line(&steps(p, i)).as_bytes());
            }
            let _ = w.write_all(b"]");
        }
        let _ = writeln!(w, "]}}");
        return;
    }
    if paths.is_empty() {
        let weak_only = !include_weak && !crate::heap::paths::to_roots(g, o, 1, true).is_empty();
        println!(
            "{} {}: {}",
            snap.object_name(o),
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
    for (n, p) in paths.iter().enumerate() {
        println!(
            "path {} of {} ({} step{}), from a GC root: {}",
            n + 1,
            paths.len(),
            p.len(),
            if p.len() == 1 { "" } else { "s" },
            sanitize(&snap.describe_roots(p[0]))
        );
        for (i, &x) in p.iter().enumerate() {
            let mut line = "  ".repeat(i.min(12) + 1);
            if i > 0 {
                let e = snap.edge_label(p[i - 1], x).unwrap_or_else(|| "?".into());
                line.push_str(&format!("{e} → "));
            }
            line.push_str(&format!("{} {}", snap.object_name(x), snap.class_name(x)));
            if let Some(l) = snap.label(x) {
                line.push(' ');
                line.push_str(&l);
            }
            println!("{}", sanitize(&line));
        }
    }
}

pub fn inspect(snap: &Snapshot, d: &Dominators, o: ObjId, as_json: bool) {
    let g = &snap.graph;
    let ins = snap.inspect(o);
    let refs = g.referrers(o);
    let mut referrers: Vec<ObjId> = refs.to_vec();
    referrers.dedup();
    let shown = &referrers[..referrers.len().min(MAX_REFERRERS)];
    let dominator = match d.idom(o) {
        Some(VIRTUAL_ROOT) => Some("(virtual root)".to_string()),
        Some(x) => Some(snap.object_name(x)),
        None => None,
    };
    let mut roots: Vec<String> = g
        .roots_of(o)
        .iter()
        .map(|r| snap.describe_root(r))
        .collect();
    roots.dedup();
    if as_json {
        let fields: Vec<Json> = ins
            .fields
            .iter()
            .map(|f| {
                let mut v =
                    json!({"name": f.name, "type": f.ty, "value": value_json(snap, &f.value)});
                if f.is_static {
                    v["static"] = json!(true);
                }
                v
            })
            .collect();
        let refs: Vec<Json> = shown
            .iter()
            .map(|&r| json!({"object": snap.object_name(r), "class": snap.class_name(r), "edge": snap.edge_label(r, o)}))
            .collect();
        let mut v = json!({
            "object": snap.object_name(o),
            "class": snap.class_name(o),
            "shallow_bytes": g.shallow_size(o),
            "retained_bytes": d.retained(o),
            "distance": snap.distance(o),
            "fields": fields,
            "preview": ins.preview,
            "length": ins.length,
            "referrers": refs,
            "referrers_total": referrers.len(),
            "dominator": dominator,
            "roots": roots,
            "problems": ins.problems,
            "more_elements": ins.more_elements,
            "facts": ins.facts.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<String, Json>>(),
        });
        if let Some(l) = snap.label(o) {
            v["label"] = json!(l);
        }
        println!("{}", json_line(&v));
        return;
    }
    let line = |k: &str, v: String| println!("{k:<14}{}", sanitize(&v));
    line("object", snap.object_name(o));
    line("class", snap.class_name(o).to_string());
    for (k, v) in &ins.facts {
        line(k, v.clone());
    }
    if let Some(l) = snap.label(o) {
        line("label", l);
    }
    line("shallow", format!("{} bytes", g.shallow_size(o)));
    line(
        "retained",
        d.retained(o)
            .map(|r| format!("{r} bytes"))
            .unwrap_or_else(|| "- (no GC root reaches this object)".into()),
    );
    if let Some(dm) = dominator {
        line("dominator", dm);
    }
    if let Some(dist) = snap.distance(o) {
        line("distance", format!("{dist} (references from the root)"));
    }
    for r in roots {
        line("GC root", r);
    }
    if let Some(n) = ins.length {
        line("length", n.to_string());
    }
    if let Some(p) = &ins.preview {
        let short: String = p.chars().take(200).collect();
        let more = if p.chars().count() > 200 { "…" } else { "" };
        line("preview", format!("{short}{more}"));
    }
    for p in &ins.problems {
        line("problem", p.clone());
    }
    if !ins.fields.is_empty() {
        println!("fields:");
        for f in &ins.fields {
            let st = if f.is_static { "static " } else { "" };
            println!(
                "  {st}{:<8} {} {}",
                f.ty,
                pad_to(&sanitize(&f.name), 20),
                sanitize(&value_text(snap, &f.value))
            );
        }
        if ins.more_elements > 0 {
            println!("  … {} more elements", ins.more_elements);
        }
    }
    println!("referrers ({}):", referrers.len());
    for &r in shown {
        let e = snap.edge_label(r, o).unwrap_or_else(|| "?".into());
        let mut s = format!("  {} {} via {e}", snap.object_name(r), snap.class_name(r));
        if let Some(l) = snap.label(r) {
            s.push_str(&format!(" ({l})"));
        }
        println!("{}", sanitize(&s));
    }
    if referrers.len() > shown.len() {
        println!("  … {} more", referrers.len() - shown.len());
    }
}

/// `threads`: every thread with its frames, innermost first, and the objects each frame
/// holds. Additions to the contract: `"system"`, `"object"` (the thread's own object) and
/// `"held"` (objects the thread holds outside any known frame).
pub fn threads(snap: &Snapshot, as_json: bool) {
    let obj = |o: ObjId| {
        let mut v = json!({"object": snap.object_name(o), "class": snap.class_name(o)});
        if let Some(l) = snap.label(o) {
            v["label"] = json!(l);
        }
        v
    };
    if as_json {
        let list: Vec<Json> = snap
            .thread_list
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "id": t.id,
                    "state": t.state,
                    "system": t.system,
                    "object": t.object.map(|o| snap.object_name(o)),
                    "frames": t.frames.iter().map(|f| json!({
                        "function": f.function,
                        "location": f.location,
                        "locals": f.locals.iter().map(|&o| obj(o)).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "held": t.held.iter().map(|&o| obj(o)).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", json_line(&json!({"threads": list})));
        return;
    }
    if snap.thread_list.is_empty() {
        println!("no threads in this snapshot");
        return;
    }
    for t in &snap.thread_list {
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
        if let Some(o) = t.object {
            head.push_str(&format!(" {}", snap.object_name(o)));
        }
        println!("{}", sanitize(&head));
        for f in &t.frames {
            println!(
                "{}",
                sanitize(&format!("    at {} ({})", f.function, f.location))
            );
            for &o in &f.locals {
                let mut l = format!(
                    "        local {} {}",
                    snap.object_name(o),
                    snap.class_name(o)
                );
                if let Some(x) = snap.label(o) {
                    l.push(' ');
                    l.push_str(&x);
                }
                println!("{}", sanitize(&l));
            }
        }
        for &o in &t.held {
            println!(
                "{}",
                sanitize(&format!(
                    "    held {} {}",
                    snap.object_name(o),
                    snap.class_name(o)
                ))
            );
        }
        println!();
    }
}
