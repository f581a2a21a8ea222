//! Merged paths read from the depths ([`heaptui::heap::depth`]) on dumps written by real
//! runtimes: each instance's path is the first of its own shortest paths as the search
//! from the object towards the roots finds it (`path` in the CLI, `p` in the TUI), the
//! instances are as near the roots as the ones the search from the roots picks, and
//! every instance is counted.

use crate::common;

use heaptui::heap::depth::{depths, nearest_paths};
use heaptui::heap::paths::{first_paths, to_roots};

fn check(rel: &str, max: usize) {
    let (_, snap) = common::open_fixture(rel);
    let g = &snap.graph;
    let d = depths(g, || false).unwrap();
    let totals = heaptui::heap::histogram::totals(g);
    // Every class with at least 20 instances: those of HashMap$Node, String, byte[], the
    // program's own classes.
    let mut classes = 0;
    for c in 0..g.classes.len() as u32 {
        if totals.count[c as usize] < 20 {
            continue;
        }
        classes += 1;
        let Some((count, paths)) = nearest_paths(g, &d, c, None, max) else {
            continue;
        };
        assert_eq!(count as u64, totals.count[c as usize], "{rel} class {c}");
        for p in &paths {
            let o = *p.last().unwrap();
            assert_eq!(g.class_of.get(o as usize), c);
            let first = to_roots(g, o, 1, false).remove(0);
            assert_eq!(*p, first, "{rel}: {}", snap.object_name(o));
        }
        let mut lens: Vec<usize> = paths.iter().map(Vec::len).collect();
        let mut searched: Vec<usize> =
            first_paths(g, false, |o| g.class_of.get(o as usize) == c, max, || false)
                .iter()
                .map(Vec::len)
                .collect();
        lens.sort();
        searched.sort();
        assert_eq!(lens, searched, "{rel} class {c}");
    }
    assert!(classes > 10, "{rel}: {classes} classes");
}

#[test]
fn the_jdk_dump_s_merged_paths_are_each_instance_s_first_path() {
    check("java/coops/heap-live-jvmgz.hprof.gz", 500);
}

#[test]
fn the_node_snapshot_s_merged_paths_are_each_instance_s_first_path() {
    check("node/baseline.heapsnapshot.gz", 200);
}

/// The names of many references read together (a merged tree's children below a map's
/// table) are those read one at a time, for every object of 16 references or more (about
/// 64 of its references each); a target asked for again is named by its next reference
/// where the object holds it again (`[0]` then `[3]`), else by its first again.
fn labels_together(rel: &str) {
    let (_, snap) = common::open_fixture(rel);
    let g = &snap.graph;
    let mut checked = 0;
    for o in 0..g.len() as u32 {
        let e = g.edges(o);
        if e.len() < 16 {
            continue;
        }
        // About 64 of them, spread over all, the last ones first, some twice, and one
        // it does not refer to.
        let step = e.len() / 64 + 1;
        let mut to: Vec<u32> = e.step_by(step).map(|i| g.out_targets[i]).collect();
        to.reverse();
        to.extend_from_slice(&to.clone()[..3]);
        to.push(o);
        let together = snap.edge_labels(o, &to);
        for (j, &t) in to.iter().enumerate() {
            let before: Vec<&Option<String>> = (0..j)
                .filter(|&i| to[i] == t)
                .map(|i| &together[i])
                .collect();
            let held = g.edges(o).filter(|&e| g.out_targets[e] == t).count();
            let name = &together[j];
            if before.is_empty() || before.len() >= held {
                assert_eq!(
                    *name,
                    snap.edge_label(o, t),
                    "{rel}: {}",
                    snap.object_name(o)
                );
            } else {
                // (Two fields may share a name, a class's and its superclass's `parent`;
                // two indexes never do. `edge_names.rs` holds each name to its place.)
                let index = name.as_deref().is_some_and(|n| n.starts_with('['));
                assert!(
                    name.is_some() && !(index && before.contains(&name)),
                    "{rel}: {} names its references to {} {before:?} then {name:?}",
                    snap.object_name(o),
                    snap.object_name(t)
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 50, "{rel}: {checked}");
}

#[test]
fn names_read_together_are_the_names_read_alone() {
    labels_together("java/coops/heap-live-jvmgz.hprof.gz");
    labels_together("node/baseline.heapsnapshot.gz");
}

/// Issue 39, friction 1: the merged tree of every instance ([`heaptui::heap::merged`]) on
/// dumps of real runtimes counts every instance the histogram counts (none capped at
/// 10,000), puts each one reached once on the tree, and holds the objects the paths read
/// back one by one go through, each at its depth.
fn merged_all(rel: &str) {
    use heaptui::heap::merged::merge_all;
    let (_, snap) = common::open_fixture(rel);
    let g = &snap.graph;
    let d = depths(g, || false).unwrap();
    let totals = heaptui::heap::histogram::totals(g);
    let mut checked = 0;
    for c in 0..g.classes.len() as u32 {
        if totals.count[c as usize] < 20 {
            continue;
        }
        let Some(m) = merge_all(g, &d, c, None, || false) else {
            continue;
        };
        checked += 1;
        assert_eq!(
            m.instances as u64, totals.count[c as usize],
            "{rel} class {c}"
        );
        let on_tree: u64 = m
            .levels
            .first()
            .map_or(0, |l| (0..l.objs.len()).map(|i| l.count_of(i) as u64).sum());
        assert_eq!(on_tree as usize, m.merged, "{rel} class {c}");
        let (_, paths) = nearest_paths(g, &d, c, None, usize::MAX).unwrap();
        assert_eq!(paths.len(), m.merged, "{rel} class {c}");
        for (k, l) in m.levels.iter().enumerate() {
            let mut want: Vec<u32> = paths.iter().filter_map(|p| p.get(k).copied()).collect();
            want.sort();
            want.dedup();
            assert_eq!(l.objs, want, "{rel} class {c} level {k}");
        }
    }
    assert!(checked > 10, "{rel}: {checked}");
}

#[test]
fn the_merged_tree_of_every_instance_on_real_dumps() {
    merged_all("java/coops/heap-live-jvmgz.hprof.gz");
    merged_all("node/baseline.heapsnapshot.gz");
}
