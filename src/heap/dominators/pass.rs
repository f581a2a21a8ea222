//! The dominator pass itself: Lengauer–Tarjan's search, semidominators and immediate
//! dominators over the graph's CSR, and the working arrays it packs per node.

use super::*;

/// Per-node working state of the semidominator pass, kept together for locality.
///
/// The nodes are processed in reverse preorder, and each is linked into the forest as
/// soon as it is processed; so a node is linked exactly when its number is at least the
/// current bound (see [`eval`]), and `ancestor` can hold the DFS parent until then: the
/// parent is read only while the node is processed, before anything compresses its link.
///
/// Until a node is processed, its path-compression label would be the node itself, and
/// nothing reads it ([`eval`] reads the labels of linked nodes only); so the slot holds
/// the head of the node's bucket instead (the processed nodes whose semidominator it is,
/// linked through `idom_pre`; `NONE` when empty). A node's bucket is empty by its own
/// step: the bucket of a node `p` is emptied at each of its children's steps, the last of
/// which, `p + 1`, comes just before `p`; and a node with a bucket has a child. So the
/// heads need no array of their own, and neither do the labels of unprocessed nodes.
/// A processed node's semidominator goes into `vertex`, whose slot the step has just read
/// for the last time (see [`compute`]). 8 bytes per node where a separate parent,
/// semidominator, label and bucket head took 16.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Work {
    /// The bucket head until the node is processed, then its label: the node with the
    /// smallest semidominator on the compressed path above it.
    pub(super) label: u32,
    /// The DFS parent (preorder number), then the path-compression link.
    pub(super) ancestor: u32,
}

/// How the pass finds the immediate dominators once it has the semidominators.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Idoms {
    /// Semi-NCA's walk up the dominators found so far; gives up (the pass returns `None`)
    /// when the walks, all together, take more than `NCA_SLACK` steps beyond one per node.
    Nca,
    /// Lengauer–Tarjan's buckets: O(m log n) whatever the shape.
    Buckets,
}

/// Steps Semi-NCA's walks may take beyond one per node before the pass starts again with
/// Lengauer–Tarjan's buckets. The shapes that make the walks long (a long chain of
/// dominators fanning out to objects that the chain's head also references) make them
/// long at once: `a_long_dominator_chain_with_a_wide_fan_is_not_quadratic` would take
/// 5·10⁹ steps.
pub(super) const NCA_SLACK: u64 = 1 << 20;

pub(super) fn compute_once_referred(
    g: &Graph,
    progress: &Progress,
    idoms: Idoms,
) -> Option<Dominators> {
    let n = g.len();
    assert!(
        n < VIRTUAL_ROOT as usize,
        "object ids stay below u32::MAX - 1"
    );

    // 1. Iterative depth-first search from the virtual root (preorder number 0).
    progress.phase("dominators: depth-first search", n as u64);
    let mut pre = huge::filled(n, NONE);
    let mut vertex: Vec<ObjId> = huge::with_capacity(n + 1);
    let mut work: Vec<Work> = huge::with_capacity(n + 1);
    let mut entry = vec![0u64; n.div_ceil(64)];
    vertex.push(NONE);
    work.push(Work {
        label: NONE,
        ancestor: 0,
    });
    let mut stack: Vec<(ObjId, u32)> = Vec::new();
    let dfs = |start: ObjId,
               pre: &mut [u32],
               vertex: &mut Vec<ObjId>,
               work: &mut Vec<Work>,
               stack: &mut Vec<(ObjId, u32)>| {
        let visit = |o: ObjId,
                     parent: u32,
                     pre: &mut [u32],
                     vertex: &mut Vec<ObjId>,
                     work: &mut Vec<Work>,
                     stack: &mut Vec<(ObjId, u32)>| {
            let p = vertex.len() as u32;
            pre[o as usize] = p;
            vertex.push(o);
            work.push(Work {
                label: NONE,
                ancestor: parent,
            });
            stack.push((o, g.out_start.at(o as usize)));
        };
        visit(start, 0, pre, vertex, work, stack);
        while let Some(&mut (o, ref mut next)) = stack.last_mut() {
            let end = g.out_start.at(o as usize + 1);
            let mut found = None;
            while *next < end {
                let e = *next as usize;
                *next += 1;
                let t = g.out_targets[e];
                if pre[t as usize] == NONE && !g.is_weak(e) {
                    found = Some(t);
                    break;
                }
            }
            match found {
                Some(t) => {
                    let parent = pre[o as usize];
                    visit(t, parent, pre, vertex, work, stack);
                }
                None => {
                    stack.pop();
                }
            }
        }
    };
    for r in &g.roots {
        let o = r.obj as usize;
        entry[o / 64] |= 1 << (o % 64);
        if pre[o] == NONE {
            dfs(r.obj, &mut pre, &mut vertex, &mut work, &mut stack);
        }
    }
    // Preorder numbers below this are strong.
    let strong_end = vertex.len() as u32;
    // Then whatever is reachable only through weak edges. Every target of a weak edge
    // that is not strongly reachable hangs from the virtual root (whatever order the
    // search meets them in, so the result does not depend on it). Nothing to do when the
    // strong edges reached every object (V8's snapshots, dumps of live objects): looking
    // costs a pass over every edge, 45 ms on 6 M V8 nodes.
    let mut i = if vertex.len() > n { vertex.len() } else { 1 };
    while i < vertex.len() {
        let o = vertex[i];
        for e in g.edges(o) {
            let t = g.out_targets[e];
            if g.is_weak(e) {
                let pt = pre[t as usize];
                if pt == NONE || pt >= strong_end {
                    entry[t as usize / 64] |= 1 << (t % 64);
                }
                if pt == NONE {
                    dfs(t, &mut pre, &mut vertex, &mut work, &mut stack);
                }
            }
        }
        i += 1;
    }
    let weak_end = vertex.len() as u32;
    // memlab's rule for what nothing reaches (formats that ask for it, V8): objects whose
    // only referrers are weak (or none) hang below the virtual root with their subtrees,
    // in object order; whatever is still left (unreachable cycles, self-references)
    // hangs below it one by one. Edges from these into objects found before are ignored.
    if g.orphans_are_roots {
        for o in 0..n as ObjId {
            if pre[o as usize] != NONE {
                continue;
            }
            let strong_ref = g.referrer_range(o).any(|i| !g.is_weak_referrer(i));
            if !strong_ref {
                entry[o as usize / 64] |= 1 << (o % 64);
                dfs(o, &mut pre, &mut vertex, &mut work, &mut stack);
            }
        }
        for o in 0..n as ObjId {
            if pre[o as usize] == NONE {
                entry[o as usize / 64] |= 1 << (o % 64);
                let p = vertex.len() as u32;
                pre[o as usize] = p;
                vertex.push(o);
                work.push(Work {
                    label: NONE,
                    ancestor: 0,
                });
            }
        }
    }
    drop(stack);
    let k = vertex.len() as u32; // nodes 0..k, 0 the virtual root
                                 // Regions in preorder: strong, weak-only, orphans. A reference from a later region
                                 // into an earlier one does not retain.
    let region = |p: u32| (p >= strong_end) as u8 + (p >= weak_end) as u8;

    // 2. Semidominators in reverse preorder, and with them (Lengauer–Tarjan's buckets)
    //    each node's immediate dominator or a node that has the same one. `vertex[w]` is
    //    read once, at the start of `w`'s step, and then holds `w`'s semidominator (the
    //    slot is free, and the array is rebuilt from `pre` after the pass): `semi` below
    //    is the same array.
    if !g.has_referrers() {
        progress.phase("building referrers", 0);
    }
    let refs = g.referrer_index();
    progress.phase("dominators: semidominators", k as u64);
    let mut path: Vec<u32> = Vec::new();
    // `idom_pre[w]` links `w` into its semidominator's bucket (whose head is in the
    // semidominator's `label`, see [`Work`]) until the bucket is emptied and `w` gets its
    // (stand-in) dominator: every node sits in exactly one bucket, and nothing reads its
    // `idom_pre` before then, so the links need no array of their own.
    let mut idom_pre = huge::filled(k as usize, 0u32);
    let semi = &mut vertex;
    for w in (1..k).rev() {
        if w & 0xffff == 0 {
            progress.set((k - w) as u64);
        }
        let node = semi[w as usize];
        // Not linked yet: `ancestor` is still the parent.
        let parent = work[w as usize].ancestor;
        let mut s = parent;
        if entry[node as usize / 64] >> (node % 64) & 1 == 1 {
            s = 0;
        }
        if s > 0 {
            for i in refs.range(node) {
                if refs.is_weak(i) {
                    continue;
                }
                let v = refs.in_sources[i];
                let pv = pre[v as usize];
                if pv == NONE || region(pv) > region(w) {
                    continue;
                }
                let cand = if pv <= w {
                    pv
                } else {
                    // Nodes after `w` are linked.
                    let u = eval(&mut work, semi, pv, w + 1, &mut path);
                    semi[u as usize]
                };
                if cand < s {
                    s = cand;
                    if s == 0 {
                        break;
                    }
                }
            }
        }
        // Linking `w` below its parent: `ancestor` already says so, and from here on
        // nodes from `w` are linked. Its bucket is empty (see [`Work`]): the slot becomes
        // its label, itself.
        semi[w as usize] = s;
        work[w as usize].label = w;
        if idoms == Idoms::Nca {
            // Step 3 walks up from the parent.
            idom_pre[w as usize] = parent;
            continue;
        }
        idom_pre[w as usize] = work[s as usize].label;
        work[s as usize].label = w;
        // Everything whose semidominator is the parent now has its path in the forest.
        let mut v = std::mem::replace(&mut work[parent as usize].label, NONE);
        while v != NONE {
            let next = idom_pre[v as usize];
            let u = eval(&mut work, semi, v, w, &mut path);
            idom_pre[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                parent
            };
            v = next;
        }
    }
    let semi = &vertex;

    drop(path);
    drop(work);

    // 3. Immediate dominators, in preorder (a node's dominators come before it, so theirs
    //    are final when it comes).
    progress.phase("dominators: immediate dominators", k as u64);
    match idoms {
        Idoms::Nca => {
            // Semi-NCA: the immediate dominator of `w` is the nearest common ancestor, in
            // the dominator tree so far, of its DFS parent and its semidominator, an
            // ancestor of the parent: the parent's first dominator numbered no higher
            // than the semidominator. Usually a step or two (0.07 per node on a 6 M-node
            // V8 snapshot, 0.13 on a 5 M-object HPROF dump); past the budget, give up.
            let budget = k as u64 + NCA_SLACK;
            let mut steps = 0u64;
            for w in 1..k as usize {
                let s = semi[w];
                let mut x = idom_pre[w];
                while x > s {
                    x = idom_pre[x as usize];
                    steps += 1;
                }
                if steps > budget {
                    return None;
                }
                idom_pre[w] = x;
            }
        }
        Idoms::Buckets => {
            // Where the bucket step named a stand-in, take the stand-in's.
            for w in 1..k as usize {
                if idom_pre[w] != semi[w] {
                    idom_pre[w] = idom_pre[idom_pre[w] as usize];
                }
            }
        }
    }
    // The semidominators are done with: `vertex` becomes the preorder's objects again.
    for (o, &p) in pre.iter().enumerate() {
        if p != NONE {
            vertex[p as usize] = o as ObjId;
        }
    }
    drop(pre);
    drop(entry);

    // 4. Retained sizes and counts, children before parents (reverse preorder), summed
    //    in preorder arrays (sequential) and then scattered into the per-object arrays
    //    that are kept, one at a time, each preorder array freed as soon as it is copied.
    //    The sizes are kept in 4 bytes (the rare ones of 4 GiB or more in a sorted side
    //    list, as the graph keeps shallow sizes), so no step holds more than 20 bytes per
    //    node: `vertex`, `idom_pre`, and then the sizes in preorder (8) and by object (4),
    //    or a kept array (4) with a preorder one (4) and its copy (4).
    progress.phase("dominators: retained sizes", k as u64);
    let mut r = huge::filled(k as usize, 0u64);
    // The shallow sizes in preorder, and their sums per region: on two cores for a large
    // graph (the sizes are loaded at random), each filling half of `r`.
    let fill = |from: usize, part: &mut [u64]| {
        let mut sums = [0u64; 3];
        for (i, x) in part.iter_mut().enumerate() {
            let w = from + i;
            if w > 0 {
                *x = g.shallow_size(vertex[w]);
                sums[region(w as u32) as usize] += *x;
            }
        }
        sums
    };
    let sums = if k >= 1 << 20 && rayon::current_num_threads() >= 2 {
        let mid = k as usize / 2;
        let (low, high) = r.split_at_mut(mid);
        std::thread::scope(|s| {
            let other = s.spawn(|| fill(mid, high));
            let a = fill(0, low);
            let b = other.join().expect("the other half of the sizes");
            [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
        })
    } else {
        fill(0, &mut r)
    };
    let [strong_bytes, weak_bytes, orphan_bytes] = sums;
    for w in (1..k as usize).rev() {
        let p = idom_pre[w] as usize;
        r[p] += r[w];
    }
    let mut retained = huge::filled(n, 0u32);
    let mut big_retained = Vec::new();
    for w in 1..k as usize {
        let o = vertex[w];
        retained[o as usize] = if r[w] >= BIG as u64 {
            big_retained.push((o, r[w]));
            BIG
        } else {
            r[w] as u32
        };
    }
    drop(r);
    big_retained.sort_unstable();
    big_retained.shrink_to_fit();
    let mut rc = huge::filled(k as usize, 1u32);
    for w in (1..k as usize).rev() {
        let p = idom_pre[w] as usize;
        rc[p] = rc[p].saturating_add(rc[w]);
    }
    let mut retained_count = huge::filled(n, 0u32);
    for w in 1..k as usize {
        retained_count[vertex[w] as usize] = rc[w];
    }
    drop(rc);
    let mut idom = huge::filled(n, NONE);
    for w in 1..k as usize {
        let d = idom_pre[w];
        idom[vertex[w] as usize] = if d == 0 {
            VIRTUAL_ROOT
        } else {
            vertex[d as usize]
        };
    }
    drop(idom_pre);
    let mut weak_only = vec![0u64; n.div_ceil(64)];
    for &o in &vertex[strong_end as usize..weak_end as usize] {
        weak_only[o as usize / 64] |= 1 << (o % 64);
    }

    drop(vertex);
    Some(Dominators {
        idom: idom.into(),
        retained: retained.into(),
        big_retained,
        retained_count: retained_count.into(),
        tree: Default::default(),
        weak_only: weak_only.into(),
        class_retained: Default::default(),
        class_unreachable: Default::default(),
        origin: Origin::Computed,
        reach: Reach {
            reachable: (strong_end - 1) as u64,
            reachable_bytes: strong_bytes,
            weakly_reachable: (weak_end - strong_end) as u64,
            weakly_reachable_bytes: weak_bytes,
            orphans: (k - weak_end) as u64,
            orphan_bytes,
        },
        by_buckets: idoms == Idoms::Buckets,
    })
}

/// Lengauer–Tarjan's EVAL with simple path compression, iteratively: the node with the
/// smallest semidominator on the path from `v` up to (not including) the root of its
/// tree in the forest of processed nodes (`v` itself when it is such a root). The
/// processed (linked) nodes are those numbered `linked` or more; `semi` holds their
/// semidominators.
#[inline]
pub(super) fn eval(
    work: &mut [Work],
    semi: &[u32],
    v: u32,
    linked: u32,
    path: &mut Vec<u32>,
) -> u32 {
    if v < linked {
        return v;
    }
    if work[v as usize].ancestor < linked {
        return work[v as usize].label;
    }
    path.clear();
    let mut x = v;
    while work[x as usize].ancestor >= linked {
        path.push(x);
        x = work[x as usize].ancestor;
    }
    while let Some(y) = path.pop() {
        let a = work[y as usize].ancestor as usize;
        let (al, aa) = (work[a].label, work[a].ancestor);
        let yl = work[y as usize].label;
        if semi[al as usize] < semi[yl as usize] {
            work[y as usize].label = al;
        }
        work[y as usize].ancestor = aa;
    }
    work[v as usize].label
}
