//! Issue 42, object sets: what a set retains together (`heaptui retained`), on the real
//! fixtures of the five formats. A set of one object retains exactly its dominator
//! subtree (the tree's retained size and count); a set of many retains what a
//! brute-force reachability count says it does: the objects strongly reachable before
//! and not once the set is gone, found here by relaxing every reference until nothing
//! changes (not the DFS of `src/heap/sets.rs`).

use std::sync::Arc;

use heaptui::heap::dominators::Dominators;
use heaptui::heap::{Graph, ObjId};
use heaptui::results::retained::Retained;

use crate::common::gunzipped;

const DUMPS: [&str; 5] = crate::common::ONE_PER_FORMAT;

fn open(rel: &str) -> (Arc<heaptui::format::Snapshot>, Dominators) {
    let s = heaptui::open(&gunzipped(rel), &heaptui::sys::progress::Progress::new()).unwrap();
    let d = heaptui::heap::dominators::compute(&s.graph, &heaptui::sys::progress::Progress::new());
    (s.snapshot().clone(), d)
}

/// The objects strongly reachable from the roots through no object of `gone`: every
/// reference relaxed, pass after pass, until a pass marks nothing new.
fn alive_without(g: &Graph, gone: &[bool]) -> Vec<bool> {
    let mut alive = vec![false; g.len()];
    for r in &g.roots {
        if !gone[r.obj as usize] {
            alive[r.obj as usize] = true;
        }
    }
    loop {
        let mut changed = false;
        for o in 0..g.len() {
            if !alive[o] {
                continue;
            }
            for e in g.edges(o as ObjId) {
                let t = g.out_targets[e] as usize;
                if !g.is_weak(e) && !gone[t] && !alive[t] {
                    alive[t] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return alive;
        }
    }
}

#[test]
fn one_object_retains_its_dominator_subtree_in_every_format() {
    for rel in DUMPS {
        let (snap, d) = open(rel);
        let g = &snap.graph;
        // The largest objects, and objects spread over the whole index.
        let mut objs: Vec<ObjId> = (0..g.len() as ObjId)
            .filter(|&o| d.idom(o).is_some())
            .collect();
        objs.sort_by_key(|&o| std::cmp::Reverse(d.retained(o)));
        let sample: Vec<ObjId> = objs
            .iter()
            .take(25)
            .chain(objs.iter().step_by(objs.len() / 40 + 1))
            .copied()
            .collect();
        for o in sample {
            let r = Retained::of(&snap, &d, &[o], false);
            assert_eq!(
                Some(r.retained_bytes),
                d.retained(o),
                "{rel}: {}",
                snap.object_name(o)
            );
            assert_eq!(
                Some(r.retained_objects as u32),
                d.retained_count(o),
                "{rel}: {}",
                snap.object_name(o)
            );
        }
    }
}

#[test]
fn a_set_retains_what_a_brute_force_count_frees_in_every_format() {
    for rel in DUMPS {
        let (snap, d) = open(rel);
        let g = &snap.graph;
        let none = vec![false; g.len()];
        let before = alive_without(g, &none);
        // Sets of strongly reachable objects: every instance of the class with the most
        // instances, and the children of the largest objects' holders (siblings that
        // share what they hold).
        let mut count = vec![0u32; g.classes.len()];
        for o in 0..g.len() {
            count[g.class_of.get(o) as usize] += 1;
        }
        let top = (0..g.classes.len()).max_by_key(|&c| count[c]).unwrap();
        let of_class: Vec<ObjId> = (0..g.len() as ObjId)
            .filter(|&o| g.class_of.get(o as usize) as usize == top && before[o as usize])
            .collect();
        let mut largest: Vec<ObjId> = (0..g.len() as ObjId)
            .filter(|&o| before[o as usize])
            .collect();
        largest.sort_by_key(|&o| std::cmp::Reverse(d.retained(o)));
        let siblings: Vec<ObjId> = largest
            .iter()
            .take(3)
            .flat_map(|&o| g.edges(o).map(|e| g.out_targets[e]).collect::<Vec<_>>())
            .filter(|&t| before[t as usize])
            .collect();
        for set in [of_class, siblings] {
            assert!(!set.is_empty(), "{rel}");
            let mut gone = vec![false; g.len()];
            for &o in &set {
                gone[o as usize] = true;
            }
            let after = alive_without(g, &gone);
            let (mut n, mut bytes) = (0u64, 0u64);
            for o in 0..g.len() {
                if before[o] && !after[o] {
                    n += 1;
                    bytes += g.shallow_size(o as ObjId);
                }
            }
            let r = Retained::of(&snap, &d, &set, true);
            assert_eq!((r.retained_objects, r.retained_bytes), (n, bytes), "{rel}");
            assert!(r.retained_bytes >= set.iter().map(|&o| g.shallow_size(o)).sum::<u64>());
            let per_class: u64 = r.by_class.iter().map(|c| c.retained_bytes).sum();
            assert_eq!(per_class, r.retained_bytes, "{rel}");
            // Every holder is outside the set and dominates a member.
            for h in r.dominators.unwrap() {
                let o = snap.find_object(&h.example).unwrap();
                assert!(!set.contains(&o), "{rel}: {}", h.example);
            }
        }
    }
}

fn run_json(args: &[&str]) -> serde_json::Value {
    crate::common::json_of(&crate::common::heaptui(args))
}

#[test]
fn the_cli_answers_the_leak_fixtures_holder_with_its_retained_size() {
    let f = gunzipped("java/leak/heap-live.hprof.gz");
    let f = f.to_str().unwrap();
    let sus = run_json(&["suspects", f, "--json"]);
    let top = &sus["suspects"][0];
    let holder = top["object"].as_str().unwrap();
    let doc = run_json(&["retained", f, holder, "--json"]);
    assert_eq!(doc["retained_bytes"], top["retained_bytes"]);
    assert_eq!(doc["objects"], 1);
    // The members of the planted cache together: held by the one array the suspect
    // names as where its size accumulates.
    let member = top["members"][0]["class"].as_str().unwrap();
    let doc = run_json(&[
        "retained",
        f,
        "--instances",
        member,
        "--dominators",
        "--json",
    ]);
    assert_eq!(doc["objects"], top["members"][0]["count"]);
    let holders = doc["dominators"].as_array().unwrap();
    assert_eq!(holders.len(), 1, "{doc}");
    assert_eq!(holders[0]["example"], top["accumulation"]["object"]);
    // The same set from a query, by its column n or by its first column's names.
    #[cfg(feature = "sql")]
    for sql in [
        format!("SELECT n FROM objects WHERE class = '{member}'"),
        format!("SELECT id, shallow FROM objects WHERE class = '{member}'"),
    ] {
        let q = run_json(&["retained", f, "--query", &sql, "--dominators", "--json"]);
        assert_eq!(q, doc, "{sql}");
    }
    // --class is the largest instance, as in every command.
    let one = run_json(&["retained", f, "--class", member, "--json"]);
    let largest = run_json(&["inspect", f, "--class", member, "--json"]);
    assert_eq!(one["objects"], 1);
    assert_eq!(one["retained_bytes"], largest["retained_bytes"]);
    // Unknown objects are not found (exit 3, as `inspect`).
    let out = crate::common::heaptui(&["retained", f, "0x1"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn pinch_points_are_small_objects_that_retain_much_and_the_suspects_objects_lead() {
    for rel in DUMPS {
        let f = gunzipped(rel);
        let f = f.to_str().unwrap();
        let doc = run_json(&["pinch", f, "--json", "--top", "50"]);
        let heap = doc["heap_bytes"].as_u64().unwrap();
        let points = doc["pinch_points"].as_array().unwrap();
        assert!(!points.is_empty(), "{rel}");
        let mut last = f64::INFINITY;
        for p in points {
            let o = p["object"].as_str().unwrap();
            // Each against `inspect` of the object: its own and retained sizes.
            let i = run_json(&["inspect", f, o, "--json"]);
            let (own, kept) = (
                i["shallow_bytes"].as_u64().unwrap(),
                i["retained_bytes"].as_u64().unwrap(),
            );
            assert_eq!(
                (p["shallow_bytes"].as_u64(), p["retained_bytes"].as_u64()),
                (Some(own), Some(kept)),
                "{rel}: {o}"
            );
            assert!(
                own > 0 && kept >= 1000 * own && kept * 100 >= heap,
                "{rel}: {p}"
            );
            let ratio = p["ratio"].as_f64().unwrap();
            assert!(
                (ratio - kept as f64 / own as f64).abs() <= 0.051,
                "{rel}: {p}"
            );
            assert!(ratio <= last, "{rel}: not by ratio");
            last = ratio;
            assert!(!p["holder"].as_str().unwrap().is_empty(), "{rel}: {p}");
        }
        // The suspects' objects that are small enough are pinch points, with the same
        // holder words.
        let sus = run_json(&["suspects", f, "--json"]);
        for s in sus["suspects"].as_array().unwrap() {
            let o = s["object"].as_str().unwrap();
            let i = run_json(&["inspect", f, o, "--json"]);
            let own = i["shallow_bytes"].as_u64().unwrap();
            if own == 0 || s["retained_bytes"].as_u64().unwrap() < 1000 * own {
                continue;
            }
            let p = points.iter().find(|p| p["object"] == s["object"]);
            let p = p.unwrap_or_else(|| panic!("{rel}: suspect {o} is no pinch point"));
            assert_eq!(p["holder"], s["holder"], "{rel}: {o}");
        }
    }
}
