//! Paths to GC roots: why is this object still alive?
//!
//! A breadth-first search over referrers, from the object towards the roots, finds the
//! shortest chains of references that keep it alive. Every root met ends one path (its
//! referrers are not followed further: a root is alive whoever else points at it; only
//! the object asked about is followed past, when it is a root itself), and the
//! search goes on until it has found the requested number of paths or run out of
//! referrers, so the paths come shortest first and each ends at a different root, as
//! Eclipse MAT's "shortest paths to GC roots". Weak edges are not followed unless asked
//! for: they do not keep anything alive.
//!
//! The search visits each object at most once and keeps its state in a hash map sized by
//! what it visits, not by the heap: asking for the path of a string held by one static
//! field costs microseconds even on a dump of fifty million objects. When the search
//! grows past [`DENSE_AFTER`] objects (on a V8 snapshot, whose handful of roots rarely
//! make ten paths, it goes through nearly the whole graph) the map becomes an array of 4
//! bytes per object, which costs no hashing: the 6 M-node V8 file's paths took 1.2 s
//! with the map alone.

use std::collections::{HashMap, VecDeque};

use super::{Graph, ObjId};

/// Steps shown at each end of a folded run of one class by one reference name, where a
/// long path is listed (`crate::results::path::fold`, the leaks' shapes, the merged
/// paths' rows).
pub const RUN_SHOWN: usize = 5;

/// Objects visited before the search's map becomes an array.
const DENSE_AFTER: usize = 1 << 16;

/// Where the search has been: `x` → the next object on the way from `x` to the target.
enum Toward {
    Sparse(HashMap<ObjId, ObjId>),
    Dense(Vec<ObjId>),
}

const UNSEEN: ObjId = ObjId::MAX;

impl Toward {
    fn get(&self, x: ObjId) -> ObjId {
        match self {
            Toward::Sparse(m) => m[&x],
            Toward::Dense(v) => v[x as usize],
        }
    }

    /// Records `x` → `next` unless `x` was seen; whether it was new.
    fn insert(&mut self, x: ObjId, next: ObjId, n: usize) -> bool {
        match self {
            Toward::Sparse(m) => {
                let std::collections::hash_map::Entry::Vacant(v) = m.entry(x) else {
                    return false;
                };
                v.insert(next);
                if m.len() > DENSE_AFTER {
                    let mut dense = vec![UNSEEN; n];
                    for (&k, &t) in m.iter() {
                        dense[k as usize] = t;
                    }
                    *self = Toward::Dense(dense);
                }
                true
            }
            Toward::Dense(v) => {
                let slot = &mut v[x as usize];
                if *slot != UNSEEN {
                    return false;
                }
                *slot = next;
                true
            }
        }
    }
}

/// Up to `max` shortest paths from GC roots to `target`, each root first and `target`
/// last. Empty when no root reaches the object.
pub fn to_roots(g: &Graph, target: ObjId, max: usize, include_weak: bool) -> Vec<Vec<ObjId>> {
    let mut paths = Vec::new();
    if max == 0 || target as usize >= g.len() {
        return paths;
    }
    let mut toward = Toward::Sparse(HashMap::new());
    toward.insert(target, target, g.len());
    let mut queue = VecDeque::from([target]);
    let refs = g.referrer_index();
    while let Some(x) = queue.pop_front() {
        if g.is_root(x) {
            let mut path = vec![x];
            let mut cur = x;
            while cur != target {
                cur = toward.get(cur);
                path.push(cur);
            }
            paths.push(path);
            if paths.len() >= max {
                break;
            }
            // A root is alive whoever else points at it: no path goes on through it. The
            // object asked about is the exception, so that a root (a thread's local, say)
            // still shows what else holds it.
            if x != target {
                continue;
            }
        }
        for i in refs.range(x) {
            if !include_weak && refs.is_weak(i) {
                continue;
            }
            let src = refs.in_sources[i];
            if toward.insert(src, x, g.len()) {
                queue.push_back(src);
            }
        }
    }
    paths
}

/// The shortest path from the GC roots to every object at once: one breadth-first
/// search forward from all roots (weak edges only when asked), giving each object the
/// object it was first reached from (a root: itself; [`UNREACHED`]: nothing reaches it).
/// For the paths of many objects in one pass over the graph, 4 bytes per object, rather
/// than a search each.
pub fn parents_from_roots(g: &Graph, include_weak: bool) -> Vec<ObjId> {
    let n = g.len();
    let mut parent = vec![UNREACHED; n];
    let mut queue: VecDeque<ObjId> = VecDeque::new();
    for r in &g.roots {
        if (r.obj as usize) < n && parent[r.obj as usize] == UNREACHED {
            parent[r.obj as usize] = r.obj;
            queue.push_back(r.obj);
        }
    }
    while let Some(x) = queue.pop_front() {
        for e in g.edges(x) {
            if !include_weak && g.is_weak(e) {
                continue;
            }
            let t = g.out_targets[e];
            if let Some(p) = parent.get_mut(t as usize) {
                if *p == UNREACHED {
                    *p = x;
                    queue.push_back(t);
                }
            }
        }
    }
    parent
}

/// The shortest paths from the GC roots (root first) of the first `max` objects that
/// `wanted` picks, in the order a breadth-first search from all roots reaches them (the
/// nearest to the roots first), stopped as soon as it has them. For MAT's "merge
/// shortest paths to GC roots" of a whole class. It also stops, with what it has, once
/// `stop` says so (asked every 65,536 objects: the TUI's `Esc`).
///
/// Unlike [`parents_from_roots`] it keeps no array of a parent per object: what it has
/// seen is one bit per object, the queue of objects met is kept whole, and so is where
/// each expanded object's children begin in it; an object's parent is the expanded one
/// whose children its slot falls among, found by bisection when the paths are read back.
/// Over the 50 M-object bench dump, where the first 10,000 sessions lie behind 14 M
/// objects, the parent array alone (200 MB, filled and faulted in) took 150 ms of the
/// search's 330; this keeps 62 MB (4 bytes per object met, 4 per object expanded).
pub fn first_paths(
    g: &Graph,
    include_weak: bool,
    wanted: impl Fn(ObjId) -> bool,
    max: usize,
    stop: impl Fn() -> bool,
) -> Vec<Vec<ObjId>> {
    let n = g.len();
    if max == 0 {
        return Vec::new();
    }
    let mut seen = vec![0u64; n.div_ceil(64)];
    let mut first_sight = |o: ObjId| {
        let (w, b) = (o as usize / 64, 1u64 << (o % 64));
        let new = seen[w] & b == 0;
        seen[w] |= b;
        new
    };
    // Every object met, in the order met; the roots first.
    let mut queue: Vec<ObjId> = Vec::new();
    // Slots in `queue` of the wanted objects met.
    let mut found: Vec<u32> = Vec::new();
    for r in &g.roots {
        if (r.obj as usize) < n && first_sight(r.obj) {
            if found.len() < max && wanted(r.obj) {
                found.push(queue.len() as u32);
            }
            queue.push(r.obj);
        }
    }
    let roots = queue.len();
    // `children_from[h]`: the slot of the first object met from `queue[h]`.
    let mut children_from: Vec<u32> = Vec::new();
    let mut head = 0usize;
    'search: while head < queue.len() && found.len() < max {
        if head % 65_536 == 65_535 && stop() {
            break;
        }
        let x = queue[head];
        children_from.push(queue.len() as u32);
        for e in g.edges(x) {
            if !include_weak && g.is_weak(e) {
                continue;
            }
            let t = g.out_targets[e];
            if (t as usize) < n && first_sight(t) {
                if wanted(t) {
                    found.push(queue.len() as u32);
                }
                queue.push(t);
                if found.len() >= max {
                    break 'search;
                }
            }
        }
        head += 1;
    }
    found
        .into_iter()
        .map(|slot| {
            let mut path = Vec::new();
            let mut at = slot as usize;
            loop {
                path.push(queue[at]);
                if at < roots {
                    break;
                }
                // The last object expanded whose children begin at or before `at`.
                at = children_from.partition_point(|&c| c as usize <= at) - 1;
            }
            path.reverse();
            path
        })
        .collect()
}

/// [`parents_from_roots`]' mark of an object nothing reaches.
pub const UNREACHED: ObjId = ObjId::MAX;

/// The path from a root to `o` by [`parents_from_roots`]' parents, root first; empty
/// when nothing reaches `o`.
pub fn path_by_parents(parent: &[ObjId], o: ObjId) -> Vec<ObjId> {
    let mut path = Vec::new();
    let mut cur = o;
    while let Some(&p) = parent.get(cur as usize) {
        if p == UNREACHED || path.len() > parent.len() {
            return Vec::new();
        }
        path.push(cur);
        if p == cur {
            break;
        }
        cur = p;
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32, bool)], roots: &[u32]) -> Graph {
        Graph::from_edge_list(&vec![8; n], &[], edges, roots)
    }

    #[test]
    fn the_search_for_the_first_wanted_stops_with_their_shortest_paths() {
        // 0 (root) -> 1 -> 2 -> 3 -> 4 ; 0 -> 5 -> 3 ; 2 -> 6. Wanted: 3, 4 and 6.
        let g = graph(
            7,
            &[
                (0, 1, false),
                (1, 2, false),
                (2, 3, false),
                (3, 4, false),
                (0, 5, false),
                (5, 3, false),
                (2, 6, false),
            ],
            &[0],
        );
        let all = parents_from_roots(&g, false);
        let wanted = |o| matches!(o, 3 | 4 | 6);
        let some = first_paths(&g, false, wanted, 2, || false);
        // The two nearest the root, in the order reached, with the full search's paths.
        assert_eq!(some, vec![vec![0, 5, 3], vec![0, 1, 2, 6]]);
        for p in &some {
            assert_eq!(*p, path_by_parents(&all, *p.last().unwrap()));
        }
        // All three when asked for more; none when asked for none; a wanted root alone.
        let three = first_paths(&g, false, wanted, 10, || false);
        assert_eq!(three.len(), 3);
        assert_eq!(three[2], vec![0, 5, 3, 4]);
        assert!(first_paths(&g, false, wanted, 0, || false).is_empty());
        assert_eq!(
            first_paths(&g, false, |o| o == 0, 5, || false),
            vec![vec![0]]
        );
        // Objects expanded without meeting anything new lie between a parent and its
        // child: 0 (root) -> 1, 2, 3 ; 2 -> 1 ; 3 -> 4.
        let g = graph(
            5,
            &[
                (0, 1, false),
                (0, 2, false),
                (0, 3, false),
                (2, 1, false),
                (3, 4, false),
            ],
            &[0],
        );
        let to_4 = first_paths(&g, false, |o| o == 4, 1, || false);
        assert_eq!(to_4, vec![vec![0, 3, 4]]);
    }

    /// The search chooses the objects, and gives the paths, of a plain search that keeps
    /// a parent per object, on a graph of 300,000 objects (the paths read back along the
    /// queue through its children's starts).
    #[test]
    fn the_batched_search_is_the_one_core_search() {
        // 300,000 objects, three references each to pseudo-random objects (every 7th
        // weak), 50 roots; wanted: every 13th object.
        let g = Graph::random_for_tests(300_000, 0x9e37_79b9_7f4a_7c15, &[]);
        let wanted = |o: ObjId| o % 13 == 0;
        for (max, weak) in [
            (1, false),
            (1_000, false),
            (20_000, true),
            (usize::MAX, false),
        ] {
            // The one-core search: pop in order, meet children in edge order.
            let mut parent: HashMap<ObjId, ObjId> = HashMap::new();
            let mut queue = VecDeque::new();
            let mut want = Vec::new();
            for r in &g.roots {
                if let std::collections::hash_map::Entry::Vacant(v) = parent.entry(r.obj) {
                    v.insert(r.obj);
                    queue.push_back(r.obj);
                    if wanted(r.obj) && want.len() < max {
                        want.push(r.obj);
                    }
                }
            }
            'one: while let Some(x) = queue.pop_front() {
                if want.len() >= max {
                    break;
                }
                for e in g.edges(x) {
                    if !weak && g.is_weak(e) {
                        continue;
                    }
                    let t = g.out_targets[e];
                    if let std::collections::hash_map::Entry::Vacant(v) = parent.entry(t) {
                        v.insert(x);
                        queue.push_back(t);
                        if wanted(t) {
                            want.push(t);
                            if want.len() >= max {
                                break 'one;
                            }
                        }
                    }
                }
            }
            let expect: Vec<Vec<ObjId>> = want
                .iter()
                .map(|&o| {
                    let mut p = vec![o];
                    while parent[p.last().unwrap()] != *p.last().unwrap() {
                        p.push(parent[p.last().unwrap()]);
                    }
                    p.reverse();
                    p
                })
                .collect();
            assert!(
                expect.len() > max.min(10_000) / 2,
                "{max}: {}",
                expect.len()
            );
            assert_eq!(
                first_paths(&g, weak, wanted, max, || false),
                expect,
                "{max}"
            );
        }
    }

    #[test]
    fn the_first_paths_follow_weak_edges_only_when_asked_and_stop_when_told() {
        // 0 (root) -> 1 -> 2 ; 0 =weak=> 2 ; 3 unreachable.
        let g = graph(4, &[(0, 1, false), (1, 2, false), (0, 2, true)], &[0]);
        let wanted = |o| o >= 2;
        assert_eq!(
            first_paths(&g, false, wanted, 5, || false),
            vec![vec![0, 1, 2]]
        );
        assert_eq!(first_paths(&g, true, wanted, 5, || false), vec![vec![0, 2]]);
        // A long chain: root 0 -> 1 -> ... -> 199,999, the last wanted; stopped, none.
        let edges: Vec<(u32, u32, bool)> = (0..199_999).map(|i| (i, i + 1, false)).collect();
        let g = graph(200_000, &edges, &[0]);
        let last = |o| o == 199_999;
        assert_eq!(first_paths(&g, false, last, 1, || false)[0].len(), 200_000);
        assert!(first_paths(&g, false, last, 1, || true).is_empty());
    }

    #[test]
    fn shortest_first_one_per_root_and_weak_only_when_asked() {
        // 0 (root) -> 1 -> 2 -> 5 ; 3 (root) -> 5 ; 4 (root) =weak=> 5 ; 5 -> 5
        let g = graph(
            6,
            &[
                (0, 1, false),
                (1, 2, false),
                (2, 5, false),
                (3, 5, false),
                (4, 5, true),
                (5, 5, false),
            ],
            &[0, 3, 4],
        );
        assert_eq!(
            to_roots(&g, 5, 10, false),
            vec![vec![3, 5], vec![0, 1, 2, 5]]
        );
        assert_eq!(to_roots(&g, 5, 1, false), vec![vec![3, 5]]);
        let with_weak = to_roots(&g, 5, 10, true);
        assert_eq!(with_weak.len(), 3);
        assert!(with_weak[..2].contains(&vec![4, 5]));
        // A root is its own first path, and what else holds it comes next.
        assert_eq!(to_roots(&g, 0, 10, false), vec![vec![0]]);
        let g2 = graph(3, &[(1, 2, false), (2, 2, false)], &[1, 2]);
        assert_eq!(to_roots(&g2, 2, 10, false), vec![vec![2], vec![1, 2]]);
    }

    #[test]
    fn long_searches_give_the_same_paths_past_the_switch_to_an_array() {
        // Root 0 -> 1 -> ... -> 199,999 (the target), and root 200,000 -> 200,001 -> ...
        // -> 250,000 -> the target: the search visits 250,001 objects, past DENSE_AFTER.
        let t = 199_999u32;
        let mut edges: Vec<(u32, u32, bool)> = (0..t).map(|i| (i, i + 1, false)).collect();
        edges.extend((200_000..250_000).map(|i| (i, i + 1, false)));
        edges.push((250_000, t, false));
        let g = graph(250_001, &edges, &[0, 200_000]);
        let short: Vec<u32> = (200_000..=250_000).chain([t]).collect();
        let long: Vec<u32> = (0..=t).collect();
        assert!(short.len() + long.len() > DENSE_AFTER);
        assert_eq!(to_roots(&g, t, 10, false), vec![short.clone(), long]);
        assert_eq!(to_roots(&g, t, 1, false), vec![short]);
    }

    #[test]
    fn parents_give_a_shortest_path_to_every_object() {
        // 0 (root) -> 1 -> 2 -> 3, and 0 -> 3 weakly; 4 unreachable.
        let g = graph(
            5,
            &[(0, 1, false), (1, 2, false), (2, 3, false), (0, 3, true)],
            &[0],
        );
        let p = parents_from_roots(&g, false);
        assert_eq!(path_by_parents(&p, 3), vec![0, 1, 2, 3]);
        assert_eq!(path_by_parents(&p, 0), vec![0]);
        assert!(path_by_parents(&p, 4).is_empty());
        let w = parents_from_roots(&g, true);
        assert_eq!(path_by_parents(&w, 3), vec![0, 3]);
        // The same as the search from each object.
        for o in 0..4 {
            assert_eq!(
                path_by_parents(&p, o).len(),
                to_roots(&g, o, 1, false)[0].len()
            );
        }
    }

    #[test]
    fn unreachable_objects_have_no_path() {
        let g = graph(3, &[(1, 2, false), (2, 1, false)], &[0]);
        assert!(to_roots(&g, 2, 5, false).is_empty());
    }
}
