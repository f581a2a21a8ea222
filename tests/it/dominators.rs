//! The dominator tree and retained sizes against deliberately simple reference
//! algorithms, on random graphs with cycles, self-loops, unreachable parts, weak edges
//! and repeated edges.
//!
//! The reference: `d` dominates `o` exactly when removing `d` makes `o` unreachable from
//! the virtual root ("remove the node, see what becomes unreachable"); the immediate
//! dominator is the strict dominator that all others dominate; the retained size of `o`
//! is the sum of shallow sizes of everything it dominates, by brute force.
//!
//! The graph the reference walks is the one `heap::dominators` documents: strong edges
//! from the virtual root to every GC root; objects reachable only through weak edges hang
//! from the virtual root at each weak edge's target, and their references back into the
//! strongly reachable part are ignored.

use heaptui::heap::dominators::{compute, compute_by_buckets, Dominators, VIRTUAL_ROOT};
use heaptui::heap::Graph;
use heaptui::sys::progress::Progress;
use proptest::prelude::*;

struct Reference {
    /// idom per object: Some(VIRTUAL_ROOT), Some(object) or None.
    idom: Vec<Option<u32>>,
    retained: Vec<Option<u64>>,
    retained_count: Vec<Option<u32>>,
    class_retained: Vec<u64>,
    reachable: u64,
    weakly_reachable: u64,
    weak_only: Vec<bool>,
}

fn reach(n: usize, succ: &[Vec<usize>], start: &[usize], removed: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    for &s in start {
        if Some(s) != removed && !seen[s] {
            seen[s] = true;
            stack.push(s);
        }
    }
    while let Some(x) = stack.pop() {
        for &t in &succ[x] {
            if Some(t) != removed && !seen[t] {
                seen[t] = true;
                stack.push(t);
            }
        }
    }
    seen
}

fn reference(
    sizes: &[u64],
    classes: &[u32],
    edges: &[(u32, u32, bool)],
    roots: &[u32],
) -> Reference {
    let n = sizes.len();
    let roots: Vec<usize> = roots.iter().map(|&r| r as usize).collect();
    let mut strong = vec![Vec::new(); n];
    let mut all = vec![Vec::new(); n];
    for &(s, t, w) in edges {
        all[s as usize].push(t as usize);
        if !w {
            strong[s as usize].push(t as usize);
        }
    }
    let s_reach = reach(n, &strong, &roots, None);
    let any_reach = reach(n, &all, &roots, None);
    // Entry points: targets of weak edges from reachable objects, not strongly reachable.
    let mut start = roots.clone();
    for &(s, t, w) in edges {
        if w && any_reach[s as usize] && !s_reach[t as usize] {
            start.push(t as usize);
        }
    }
    // G': strong edges, minus those from the weak-only part into the strong part.
    let mut succ = vec![Vec::new(); n];
    for &(s, t, w) in edges {
        let (s, t) = (s as usize, t as usize);
        let weak_part_into_strong = s_reach[t] && !s_reach[s];
        if !w && !weak_part_into_strong {
            succ[s].push(t);
        }
    }
    let base = reach(n, &succ, &start, None);
    // dominated[d][o]: o reachable before, unreachable once d is removed (d != o).
    let mut dominated = vec![vec![false; n]; n];
    for d in 0..n {
        if !base[d] {
            continue;
        }
        let without = reach(n, &succ, &start, Some(d));
        for o in 0..n {
            dominated[d][o] = o != d && base[o] && !without[o];
        }
    }
    let mut idom = vec![None; n];
    let mut retained = vec![None; n];
    let mut retained_count = vec![None; n];
    for o in 0..n {
        if !base[o] {
            continue;
        }
        let doms: Vec<usize> = (0..n).filter(|&d| dominated[d][o]).collect();
        // The immediate one is dominated by every other strict dominator.
        let im = doms
            .iter()
            .copied()
            .find(|&d| doms.iter().all(|&e| e == d || dominated[e][d]));
        idom[o] = Some(im.map(|d| d as u32).unwrap_or(VIRTUAL_ROOT));
        let mut r = sizes[o];
        let mut count = 1u32;
        for x in 0..n {
            if dominated[o][x] {
                r += sizes[x];
                count += 1;
            }
        }
        retained[o] = Some(r);
        retained_count[o] = Some(count);
    }
    let nclasses = classes.iter().copied().max().unwrap_or(0) as usize + 1;
    let mut class_retained = vec![0u64; nclasses];
    for o in 0..n {
        if let Some(r) = retained[o] {
            let c = classes[o];
            let shadowed = (0..n).any(|d| dominated[d][o] && classes[d] == c);
            if !shadowed {
                class_retained[c as usize] += r;
            }
        }
    }
    Reference {
        idom,
        retained,
        retained_count,
        class_retained,
        reachable: s_reach.iter().filter(|&&b| b).count() as u64,
        weakly_reachable: (0..n).filter(|&o| base[o] && !s_reach[o]).count() as u64,
        weak_only: (0..n).map(|o| base[o] && !s_reach[o]).collect(),
    }
}

/// Both ways of finding the immediate dominators (Semi-NCA, which the pass tries first,
/// and Lengauer–Tarjan's buckets, its fallback) against the reference.
fn check(sizes: Vec<u64>, classes: Vec<u32>, edges: Vec<(u32, u32, bool)>, roots: Vec<u32>) {
    let want = reference(&sizes, &classes, &edges, &roots);
    let g = Graph::from_edge_list(&sizes, &classes, &edges, &roots);
    let d = compute(&g, &Progress::new());
    assert!(!d.by_buckets, "Semi-NCA gave up on a small graph");
    check_against(&g, d, &want, &sizes);
    let g = Graph::from_edge_list(&sizes, &classes, &edges, &roots);
    let d = compute_by_buckets(&g, &Progress::new());
    assert!(d.by_buckets);
    check_against(&g, d, &want, &sizes);
}

fn check_against(g: &Graph, d: Dominators, want: &Reference, sizes: &[u64]) {
    for o in 0..sizes.len() as u32 {
        assert_eq!(d.idom(o), want.idom[o as usize], "idom of {o}");
        assert_eq!(d.retained(o), want.retained[o as usize], "retained of {o}");
        assert_eq!(
            d.retained_count(o),
            want.retained_count[o as usize],
            "retained count of {o}"
        );
        assert_eq!(
            d.is_weakly_reachable(o),
            want.weak_only[o as usize],
            "weak only: {o}"
        );
    }
    assert_eq!(d.reach.reachable, want.reachable);
    assert_eq!(d.reach.weakly_reachable, want.weakly_reachable);
    // (Before `class_retained`, which builds the children lists.) The largest children of any set of parents, by a scan before the children lists
    // exist and from the lists once they do: the inverse of idom, largest retained first,
    // ties by id, cut to `top`, with the full count.
    let mut parents: Vec<u32> = (0..sizes.len() as u32).collect();
    parents.push(VIRTUAL_ROOT);
    let expected = |top: usize| -> Vec<(Vec<u32>, usize)> {
        parents
            .iter()
            .map(|&p| {
                let mut kids: Vec<u32> = (0..sizes.len() as u32)
                    .filter(|&o| want.idom[o as usize] == Some(p))
                    .collect();
                kids.sort_by(|&a, &b| {
                    want.retained[b as usize]
                        .cmp(&want.retained[a as usize])
                        .then(a.cmp(&b))
                });
                let count = kids.len();
                kids.truncate(top);
                (kids, count)
            })
            .collect()
    };
    for top in [1, 2, usize::MAX] {
        assert_eq!(
            d.top_children(&parents, top),
            expected(top),
            "top {top}, scanned"
        );
    }
    let mut got_classes = d.class_retained(g);
    got_classes.resize(want.class_retained.len(), 0);
    assert_eq!(got_classes, want.class_retained, "retained per class");
    // The children lists are the inverse of idom, largest retained first.
    let mut seen = 0;
    let mut stack = vec![VIRTUAL_ROOT];
    while let Some(p) = stack.pop() {
        let kids = d.children(p);
        for w in kids.windows(2) {
            assert!(d.retained(w[0]) >= d.retained(w[1]));
        }
        for &c in kids {
            assert_eq!(d.idom(c), Some(p));
            seen += 1;
            stack.push(c);
        }
    }
    assert_eq!(seen, want.idom.iter().filter(|i| i.is_some()).count());
    assert_eq!(d.top_children(&parents, 2), expected(2), "from the lists");
}

/// (shallow sizes, classes, edges (source, target, weak), roots)
type Case = (Vec<u64>, Vec<u32>, Vec<(u32, u32, bool)>, Vec<u32>);

fn graphs() -> impl Strategy<Value = Case> {
    (1usize..28).prop_flat_map(|n| {
        let n32 = n as u32;
        (
            proptest::collection::vec(1u64..1000, n),
            proptest::collection::vec(0u32..3, n),
            proptest::collection::vec((0..n32, 0..n32, proptest::bool::weighted(0.15)), 0..n * 3),
            proptest::collection::vec(0..n32, 0..4),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    #[test]
    fn matches_the_removal_reference((sizes, classes, edges, roots) in graphs()) {
        check(sizes, classes, edges, roots);
    }
}

#[test]
fn hand_picked_shapes() {
    // A diamond: 0 -> {1, 2} -> 3; 3 is dominated by 0, not by 1 or 2.
    check(
        vec![1, 2, 4, 8],
        vec![0, 0, 0, 0],
        vec![(0, 1, false), (0, 2, false), (1, 3, false), (2, 3, false)],
        vec![0],
    );
    // A cycle with a self-loop, entered from two roots.
    check(
        vec![1, 2, 4],
        vec![0, 1, 1],
        vec![(0, 1, false), (1, 2, false), (2, 1, false), (2, 2, false)],
        vec![0, 2],
    );
    // Weak-only chain, and a weak-only object pointing back into the strong heap.
    check(
        vec![1, 2, 4, 8, 16],
        vec![0, 0, 0, 0, 0],
        vec![
            (0, 1, true),
            (1, 2, false),
            (2, 3, false),
            (0, 3, false),
            (3, 4, true),
            (4, 1, false),
        ],
        vec![0],
    );
}

#[test]
fn retained_sizes_of_4_gib_and_more_are_exact() {
    // The pass keeps retained sizes in 4 bytes and those of u32::MAX or more aside: a
    // chain of 1.5 GiB objects retains 1.5, 3, 4.5 and 6 GiB from the bottom up; object 4
    // retains exactly u32::MAX, object 7 one byte less, and 8 (a root of 5 GiB) is a
    // single object above the limit. Sorting, the top children and the class sums all go
    // through the side list (`check` compares them with the reference).
    let gib = 1u64 << 30;
    let max = u32::MAX as u64;
    let sizes = vec![
        gib * 3 / 2,
        gib * 3 / 2,
        gib * 3 / 2,
        gib * 3 / 2,
        max - 1,
        1,
        7,
        max - 1,
        5 * gib,
        3,
    ];
    let classes = vec![0, 0, 1, 1, 2, 2, 0, 1, 2, 0];
    let edges = vec![
        (0, 1, false),
        (1, 2, false),
        (2, 3, false),
        (9, 4, false),
        (4, 5, false),
        (9, 6, false),
        (9, 7, false),
        (3, 6, true),
    ];
    check(sizes, classes, edges, vec![0, 9, 8]);
}

#[test]
fn a_chain_of_a_million_objects_needs_no_deep_stack() {
    // Run on a small stack: recursion anywhere would overflow it.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let n = 1_000_000u32;
            let edges: Vec<(u32, u32, bool)> = (0..n - 1).map(|i| (i, i + 1, false)).collect();
            let g = Graph::from_edge_list(&vec![8; n as usize], &[], &edges, &[0]);
            let d = compute(&g, &Progress::new());
            assert_eq!(d.retained(0), Some(8 * n as u64));
            assert_eq!(d.retained(n - 1), Some(8));
            assert_eq!(d.idom(n / 2), Some(n / 2 - 1));
            assert_eq!(d.class_retained(&g), vec![8 * n as u64]);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_long_dominator_chain_with_a_wide_fan_is_not_quadratic() {
    // Root → c0 → c1 → … → c(m-1) (each dominated by the one before), then c(m-1) → x_i
    // for m nodes x_i, each also referenced from c0: every x_i is dominated by c0. A
    // nearest-common-ancestor walk up the chain from c(m-1) per x_i (Semi-NCA's second
    // phase) costs m² steps here; Lengauer–Tarjan's buckets do not. The pass tries
    // Semi-NCA first: it must give up early and start again with the buckets.
    let m = 100_000u32;
    let mut edges: Vec<(u32, u32, bool)> = (0..m - 1).map(|i| (i, i + 1, false)).collect();
    for i in 0..m {
        edges.push((m - 1, m + i, false));
        edges.push((0, m + i, false));
    }
    let g = Graph::from_edge_list(&vec![8; 2 * m as usize], &[], &edges, &[0]);
    let d = compute(&g, &Progress::new());
    assert!(d.by_buckets, "Semi-NCA kept walking");
    for i in (0..m).step_by(997) {
        assert_eq!(d.idom(m + i), Some(0));
    }
    assert_eq!(d.idom(m - 1), Some(m - 2));
    assert_eq!(d.retained(0), Some(16 * m as u64));
    assert_eq!(d.retained(m - 1), Some(8));
    // c0's children span several of the scan's chunks: c1 (the rest of the chain) first,
    // then the x_i, all of one size, by id.
    assert_eq!(
        d.top_children(&[0, VIRTUAL_ROOT, m - 1], 3),
        vec![
            (vec![1, m, m + 1], m as usize + 1),
            (vec![0], 1),
            (vec![], 0)
        ]
    );
}

#[test]
fn the_referrers_built_beside_the_search_change_nothing() {
    // A large graph (more than 2^20 objects): random references, some weak, several roots.
    let n = 1_200_000u32;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut edges = Vec::new();
    for i in 0..n {
        for _ in 0..next() % 5 {
            let t = (next() % n as u64) as u32;
            edges.push((i, t, next() % 11 == 0));
        }
        // A tree below the roots, so that most objects are reachable.
        if i > 0 {
            edges.push(((next() % i as u64) as u32, i, false));
        }
    }
    let sizes: Vec<u64> = (0..n).map(|_| 8 + next() % 200).collect();
    let g = Graph::from_edge_list(&sizes, &[], &edges, &[0, 17, n - 1]);
    // The referrers are built when first asked for: here by the pass itself, on its second
    // core while its depth-first search runs. A graph whose referrers were built before
    // must get the same tree.
    assert!(!g.has_referrers());
    let plain = compute(&g, &Progress::new());
    assert!(g.has_referrers());
    let before = Graph::from_edge_list(&sizes, &[], &edges, &[0, 17, n - 1]);
    before.referrer_index();
    let prebuilt = compute(&before, &Progress::new());
    for o in 0..n {
        assert_eq!(prebuilt.idom(o), plain.idom(o), "idom of {o}");
        assert_eq!(prebuilt.retained(o), plain.retained(o), "retained of {o}");
    }
    // Semi-NCA (which the pass used here) and Lengauer–Tarjan's buckets agree.
    assert!(!plain.by_buckets);
    let buckets = compute_by_buckets(&before, &Progress::new());
    for o in 0..n {
        assert_eq!(buckets.idom(o), plain.idom(o), "idom of {o}");
        assert_eq!(
            buckets.retained_count(o),
            plain.retained_count(o),
            "count of {o}"
        );
    }
    // Built in one part and in four, the referrer lists are the same.
    let (one, four) = (
        heaptui::heap::Referrers::build_in(&g, 1),
        heaptui::heap::Referrers::build_in(&g, 4),
    );
    assert_eq!(&*one.in_sources, &*four.in_sources);
    assert_eq!(&*one.in_weak, &*four.in_weak);
    assert!((0..=n as usize).all(|i| one.in_start.get(i) == four.in_start.get(i)));
    assert_eq!(plain.retained(0).map(|r| r > 0), Some(true));
    // On a graph this large the shallow sizes are gathered on two cores: every retained
    // size must still be the object's own size plus its dominator children's, and the
    // reachable bytes the sum over what has a dominator.
    let mut sum_children = vec![0u64; n as usize];
    let (mut strong, mut weak) = (0u64, 0u64);
    for o in 0..n {
        let Some(d) = plain.idom(o) else { continue };
        if plain.is_weakly_reachable(o) {
            weak += sizes[o as usize];
        } else {
            strong += sizes[o as usize];
        }
        if d != VIRTUAL_ROOT {
            sum_children[d as usize] += plain.retained(o).unwrap();
        }
    }
    for o in 0..n {
        if plain.idom(o).is_some() {
            assert_eq!(
                plain.retained(o),
                Some(sizes[o as usize] + sum_children[o as usize]),
                "retained of {o}"
            );
        }
    }
    assert_eq!(
        (
            plain.reach.reachable_bytes,
            plain.reach.weakly_reachable_bytes
        ),
        (strong, weak)
    );
}

/// A node with more children than one list sort takes on one core (4,096): its list is
/// sorted by size and id packed in one word while every size is below 4 GiB, by pairs
/// once one is not. Either way: largest retained first, ties by id.
#[test]
fn a_long_children_list_is_largest_first_ties_by_id() {
    for big in [false, true] {
        let n = 6_001u32;
        // Sizes with many ties; with `big`, one child of 5 GiB.
        let sizes: Vec<u64> = (0..n as u64)
            .map(|i| match i {
                0 => 16,
                77 if big => 5 << 30,
                _ => 8 + (i * 7919) % 13,
            })
            .collect();
        let edges: Vec<(u32, u32, bool)> = (1..n).map(|c| (0, c, false)).collect();
        let g = Graph::from_edge_list(&sizes, &[], &edges, &[0]);
        let d = compute(&g, &Progress::new());
        let kids = d.children(0);
        assert_eq!(kids.len(), n as usize - 1);
        let mut want: Vec<u32> = (1..n).collect();
        want.sort_by(|&a, &b| sizes[b as usize].cmp(&sizes[a as usize]).then(a.cmp(&b)));
        assert_eq!(kids, &want[..], "big: {big}");
    }
}
