//! How far each object is from the GC roots, one byte per object: the shortest paths of
//! any set of objects without a search of the graph.
//!
//! One breadth-first search from all roots over strong references gives every object its
//! depth (the roots 0). The shortest path of an object at depth `d` is then read
//! backwards: among its referrers over strong references, one at depth `d - 1`, then one
//! of that one's at `d - 2`, down to a root; a few referrer lists per object, where the
//! search from the roots that [`super::paths::first_paths`] makes went through 14 M
//! objects of the 50 M-object bench dump before it met the first 10,000 sessions.
//!
//! Depths from [`FAR`] on are not told apart: an object that far is left to the search.

use rayon::prelude::*;

use super::{Graph, ObjId};

/// The depth of an object this far from the roots or further.
pub const FAR: u8 = 254;
/// The depth of an object no root reaches over strong references.
pub const UNREACHED: u8 = 255;

/// Every object's depth from the roots over strong references ([`FAR`], [`UNREACHED`]),
/// or `None` once `stop` says so (asked between levels and every 65,536 objects).
pub fn depths(g: &Graph, stop: impl Fn() -> bool) -> Option<Vec<u8>> {
    let n = g.len();
    let mut depth = crate::sys::huge::filled(n, UNREACHED);
    let mut level: Vec<ObjId> = Vec::new();
    for r in &g.roots {
        if let Some(d) = depth.get_mut(r.obj as usize) {
            if *d == UNREACHED {
                *d = 0;
                level.push(r.obj);
            }
        }
    }
    let mut next: Vec<ObjId> = Vec::new();
    let mut at: u8 = 0;
    while !level.is_empty() {
        if stop() {
            return None;
        }
        let mark = at.saturating_add(1).min(FAR);
        for (i, &x) in level.iter().enumerate() {
            if i % 65_536 == 65_535 && stop() {
                return None;
            }
            for e in g.edges(x) {
                if g.is_weak(e) {
                    continue;
                }
                let t = g.out_targets[e];
                if let Some(d) = depth.get_mut(t as usize) {
                    if *d == UNREACHED {
                        *d = mark;
                        next.push(t);
                    }
                }
            }
        }
        std::mem::swap(&mut level, &mut next);
        next.clear();
        at = mark;
    }
    Some(depth)
}

/// Builds `g`'s depths and keeps them in [`Graph::depths`], unless `stop` says so first;
/// whether they are there.
pub fn keep(g: &Graph, stop: impl Fn() -> bool) -> bool {
    if g.depths.get().is_none() {
        if let Some(d) = depths(g, stop) {
            let _ = g.depths.set(d);
        }
    }
    g.depths.get().is_some()
}

/// What building the depths takes at most: a byte per object, and the two levels the
/// search holds at once (4 bytes per object of each).
pub fn bytes_needed(g: &Graph) -> u64 {
    9 * g.len() as u64
}

/// The instances of `class` (those marked in `only`, when given): how many there are,
/// and the shortest paths (root first) of the `max` of them nearest the roots (by depth,
/// then by id), nearest first. `None` when one of those is [`FAR`] (the caller searches
/// instead). Reads the classes and depths in one pass on every core.
pub fn nearest_paths(
    g: &Graph,
    depth: &[u8],
    class: u32,
    only: Option<&[bool]>,
    max: usize,
) -> Option<(usize, Vec<Vec<ObjId>>)> {
    let chunks = match &g.class_of {
        super::column::CompactColumn::Narrow(c) => scan(c, depth, class, only, max),
        super::column::CompactColumn::Wide(c) => scan(c, depth, class, only, max),
    };
    let count = chunks.iter().map(|c| c.0).sum();
    let mut picked: Vec<ObjId> = Vec::new();
    'depths: for d in 0..=FAR as usize {
        for (_, by_depth) in &chunks {
            for &o in &by_depth[d] {
                if picked.len() >= max {
                    break 'depths;
                }
                if d == FAR as usize {
                    return None;
                }
                picked.push(o);
            }
        }
    }
    let refs = g.referrer_index();
    let paths = picked
        .par_iter()
        .map(|&o| {
            let mut path = vec![o];
            let mut x = o;
            let mut d = depth[o as usize];
            while d > 0 {
                let Some(p) = refs.range(x).find_map(|i| {
                    let s = refs.in_sources[i];
                    (!refs.is_weak(i) && depth.get(s as usize) == Some(&(d - 1))).then_some(s)
                }) else {
                    // Not the depths of this graph: no path rather than a wrong one.
                    return Vec::new();
                };
                path.push(p);
                x = p;
                d -= 1;
            }
            path.reverse();
            path
        })
        .collect();
    Some((count, paths))
}

/// Per chunk of ids: the instances counted, and the first `max` at each depth.
pub(crate) type Chunk = (usize, Vec<Vec<ObjId>>);

pub(crate) fn scan<T: Copy + Into<u32> + Sync>(
    classes: &[T],
    depth: &[u8],
    class: u32,
    only: Option<&[bool]>,
    max: usize,
) -> Vec<Chunk> {
    const CHUNK: usize = 1 << 20;
    let n = classes.len().min(depth.len());
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let from = c * CHUNK;
            let to = (from + CHUNK).min(n);
            let mut count = 0usize;
            let mut by_depth: Vec<Vec<ObjId>> = vec![Vec::new(); FAR as usize + 1];
            for (o, (&k, &d)) in (from..to).zip(classes[from..to].iter().zip(&depth[from..to])) {
                if k.into() != class || only.is_some_and(|m| m.get(o) != Some(&true)) {
                    continue;
                }
                count += 1;
                if let Some(list) = by_depth.get_mut(d as usize) {
                    if list.len() < max {
                        list.push(o as ObjId);
                    }
                }
            }
            (count, by_depth)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::paths::{first_paths, parents_from_roots, path_by_parents};

    #[test]
    fn depths_follow_strong_references_from_every_root() {
        // 0 (root) -> 1 -> 2 ; 0 -weak-> 3 ; 4 (root) -> 2 ; 5 alone ; 1 -> 0.
        let g = Graph::from_edge_list(
            &[8; 6],
            &[],
            &[
                (0, 1, false),
                (1, 2, false),
                (0, 3, true),
                (4, 2, false),
                (1, 0, false),
            ],
            &[0, 4],
        );
        assert_eq!(
            depths(&g, || false).unwrap(),
            vec![0, 1, 1, UNREACHED, 0, UNREACHED]
        );
        assert_eq!(depths(&g, || true), None);
    }

    /// On 300,000 objects with three pseudo-random references each, 50 roots and every
    /// 13th object wanted: the nearest 2,000 by depth, each with a shortest path over
    /// strong references, the same depths as the search from the roots picks, and the
    /// instances counted.
    #[test]
    fn the_nearest_paths_are_shortest_and_as_near_as_the_search_s() {
        let n = 300_000u32;
        let classes: Vec<u32> = (0..n).map(|o| (o % 13 == 0) as u32).collect();
        let g = Graph::random_for_tests(n, 0x2545_f491_4f6c_dd1d, &classes);
        let d = depths(&g, || false).unwrap();
        let parents = parents_from_roots(&g, false);
        for o in 0..n {
            let by_parents = path_by_parents(&parents, o);
            match d[o as usize] {
                UNREACHED => assert!(by_parents.is_empty()),
                k => assert_eq!(by_parents.len(), k as usize + 1, "object {o}"),
            }
        }
        let (count, paths) = nearest_paths(&g, &d, 1, None, 2_000).unwrap();
        assert_eq!(count, (0..n).filter(|o| o % 13 == 0).count());
        assert_eq!(paths.len(), 2_000);
        let strong = |a: u32, b: u32| g.edges(a).any(|e| g.out_targets[e] == b && !g.is_weak(e));
        for p in &paths {
            let o = *p.last().unwrap();
            assert_eq!(o % 13, 0);
            assert_eq!(p.len(), d[o as usize] as usize + 1);
            assert!(g.roots.iter().any(|r| r.obj == p[0]));
            assert!(p.windows(2).all(|w| strong(w[0], w[1])), "{p:?}");
        }
        // Nearest first, and as near as the search's first 2,000.
        let lens: Vec<usize> = paths.iter().map(Vec::len).collect();
        assert!(lens.windows(2).all(|w| w[0] <= w[1]));
        let mut searched: Vec<usize> = first_paths(&g, false, |o| o % 13 == 0, 2_000, || false)
            .iter()
            .map(Vec::len)
            .collect();
        searched.sort();
        assert_eq!(lens, searched);
        // Only the marked ones, when a list is given.
        let only: Vec<bool> = (0..n).map(|o| o % 2 == 0).collect();
        let (count, paths) = nearest_paths(&g, &d, 1, Some(&only), 2_000).unwrap();
        assert_eq!(count, (0..n).filter(|o| o % 26 == 0).count());
        assert!(paths.iter().all(|p| p.last().unwrap() % 26 == 0));
    }

    #[test]
    fn an_instance_too_far_from_the_roots_is_left_to_the_search() {
        // A chain of 300 objects from the root; wanted: its last.
        let edges: Vec<(u32, u32, bool)> = (0..299).map(|o| (o, o + 1, false)).collect();
        let mut classes = vec![0u32; 300];
        classes[299] = 1;
        let g = Graph::from_edge_list(&[8; 300], &classes, &edges, &[0]);
        let d = depths(&g, || false).unwrap();
        assert_eq!(d[253], 253);
        assert_eq!(d[299], FAR);
        assert_eq!(nearest_paths(&g, &d, 1, None, 10), None);
        // Nearer ones are read from the depths.
        classes[200] = 1;
        let g = Graph::from_edge_list(&[8; 300], &classes, &edges, &[0]);
        let (count, paths) = nearest_paths(&g, &d, 1, None, 1).unwrap();
        assert_eq!(count, 2);
        assert_eq!(paths, vec![(0..=200).collect::<Vec<u32>>()]);
    }
}
