//! The dominator tree and retained sizes.
//!
//! Definitions. Add a virtual root `r` with an edge to every GC root. An object `d`
//! dominates `o` when every path from `r` to `o` passes through `d`; the immediate
//! dominator `idom(o)` is the dominator closest to `o`, and these form a tree rooted at
//! `r`. The retained size of `o` is the sum of the shallow sizes of its subtree: the
//! memory a collector would free if `o` were gone. Weak edges (HPROF's
//! `Reference.referent`, V8's weak edges) do not keep anything alive and are left out,
//! as Eclipse MAT and Chrome DevTools leave them out.
//!
//! Objects reachable only through weak edges are not dropped: they are still in memory
//! until the collector clears them. They hang directly below the virtual root (they are
//! their own owners, like MAT's and DevTools' "weakly reachable" objects), and references
//! from them into the strongly reachable heap are ignored, so they never change who
//! dominates a strongly reachable object. Objects reachable from nothing at all have no
//! dominator and no retained size (`None`, MAT's rule), unless the graph asks for
//! memlab's rule ([`Graph::orphans_are_roots`], set by the V8 reader): then those whose
//! only referrers are weak hang below the virtual root with their subtrees, and the rest
//! (unreachable cycles, self-references) below it one by one.
//!
//! Algorithm: Lengauer and Tarjan, "A Fast Algorithm for Finding Dominators in a
//! Flowgraph" (1979), with simple path compression, for the semidominators, in reverse
//! DFS preorder; then Semi-NCA (Georgiadis, 2005) for the immediate dominators: in
//! preorder, a node's is the first dominator of its DFS parent (itself included) numbered
//! no higher than its semidominator, found by walking up the dominators already final.
//! The walk is a step or two per node on heaps, and it replaces Lengauer–Tarjan's
//! buckets, whose second evaluation per node took a third of the semidominator pass on a
//! 5 M-object HPROF dump. But it is quadratic on some shapes (a long chain of dominators
//! whose end fans out to objects that the chain's head also references: see the
//! regression test; a 65 M-node snapshot with edges misaligned by a generator bug kept an
//! earlier plain Semi-NCA walking for minutes). So the walks have a budget of one step
//! per node and a million more; past it, the pass starts again with the buckets (each
//! node waits in the bucket of its semidominator until that node's subtree is linked,
//! then gets its immediate dominator or a stand-in with the same one): O(m log n) on any
//! shape, at the price of a second pass on the shapes that need it.
//!
//! Memory and speed. Everything is flat `u32` arrays indexed by DFS preorder number; the
//! depth-first search and the path compression are iterative (a heap-allocated stack, no
//! recursion, so a chain of ten million objects needs no deep call stack); no allocation
//! per object. The working state of a node (path-compression label or bucket head, and
//! the DFS parent that becomes the path-compression link) sits in one 8-byte record, so
//! the pass that touches both pays one cache miss, not two; a processed node's
//! semidominator lives in the slot of the preorder-to-object map that its step has just
//! read for the last time (the map is rebuilt after the pass). Peak extra memory is 20
//! bytes per object: that record, the object's preorder number and the reverse map, and
//! the DFS parent or bucket link that becomes the immediate dominator; the working state is freed
//! before the result arrays are allocated, and they are made one at a time. What stays
//! is 4 (idom) + 4 (retained; sizes of 4 GiB or more in a sorted side list) + 4
//! (retained count) + 1/8 (weakly reachable bit) bytes per object, and 8 more for the
//! children lists once a view walks the tree from the top. The large arrays ask for
//! transparent huge pages ([`super::huge`]): the passes load from them at random. On a
//! graph whose numbering has little locality ([`Graph::scattered`]: V8's), a second core
//! walks the preorder a little ahead of the semidominator loop and prefetches the
//! records the loop is about to evaluate ([`prefetch_ahead`]); it writes nothing, and the
//! loop's semidominators and records are shared with it as relaxed atomics (plain loads
//! and stores). It helps only while the two cores share a cache, which a virtual machine's
//! host may change every few seconds: the loop times a few round trips to the thread
//! every 262,144 nodes ([`Beside::check`]) and has it idle while they are far apart.

use super::{huge, Graph, ObjId};
use crate::progress::Progress;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// The virtual root above all GC roots, as an `idom` value and a `children` key.
pub const VIRTUAL_ROOT: ObjId = u32::MAX - 1;
const NONE: u32 = u32::MAX;
/// A retained size kept in `big_retained`.
const BIG: u32 = u32::MAX;

/// The children lists of the dominator tree (a CSR over objects, slot `n` the virtual
/// root).
#[derive(Debug, Default)]
struct Tree {
    child_start: Vec<u32>,
    children: Vec<ObjId>,
}

/// The dominator tree of a snapshot, with retained sizes.
#[derive(Debug, Default)]
pub struct Dominators {
    /// Immediate dominator of every object: an object, [`VIRTUAL_ROOT`], or `NONE` for an
    /// object that nothing reaches.
    idom: Vec<ObjId>,
    /// Retained size of every object (0 where unreachable; see `idom`); [`BIG`] means
    /// "look in `big_retained`".
    retained: Vec<u32>,
    /// The retained sizes of 4 GiB - 1 or more, sorted by object.
    big_retained: Vec<(ObjId, u64)>,
    /// How many objects each object retains, itself included (its dominator subtree).
    retained_count: Vec<u32>,
    /// Dominator-tree children as a CSR, largest retained first; slot `n` is the
    /// virtual root. Built on first use: `path`, `inspect` and `--flat` never need it.
    tree: std::sync::OnceLock<Tree>,
    /// One bit per object: reachable only through weak edges.
    weak_only: Vec<u64>,
    /// Objects (and their shallow bytes) reachable from the roots over strong edges.
    pub reachable: u64,
    pub reachable_bytes: u64,
    /// Objects reachable only through weak edges, and their shallow bytes.
    pub weakly_reachable: u64,
    pub weakly_reachable_bytes: u64,
    /// Objects nothing reaches, kept below the virtual root because the graph asks for it
    /// ([`Graph::orphans_are_roots`]), and their shallow bytes.
    pub orphans: u64,
    pub orphan_bytes: u64,
    /// Whether the immediate dominators came from Lengauer–Tarjan's buckets: Semi-NCA
    /// gave up on the graph's shape, or the caller asked for them.
    #[doc(hidden)]
    pub by_buckets: bool,
}

impl Dominators {
    /// The retained size of `o` as kept (0 when nothing reaches it).
    #[inline]
    fn size(&self, o: ObjId) -> u64 {
        match self.retained[o as usize] {
            BIG => self
                .big_retained
                .binary_search_by_key(&o, |&(x, _)| x)
                .map_or(BIG as u64, |i| self.big_retained[i].1),
            r => r as u64,
        }
    }

    /// The immediate dominator of `o`: `Some(VIRTUAL_ROOT)` for a GC root or a weakly
    /// reachable entry point, `None` for an object nothing reaches.
    pub fn idom(&self, o: ObjId) -> Option<ObjId> {
        match self.idom.get(o as usize) {
            Some(&d) if d != NONE => Some(d),
            _ => None,
        }
    }

    /// The retained size of `o`, `None` when nothing reaches it.
    pub fn retained(&self, o: ObjId) -> Option<u64> {
        self.idom(o).map(|_| self.size(o))
    }

    /// Everything the tree retains: strongly and weakly reachable objects, and the orphans
    /// kept below the root (the virtual root's retained size).
    pub fn total_bytes(&self) -> u64 {
        self.reachable_bytes + self.weakly_reachable_bytes + self.orphan_bytes
    }

    /// Whether `o` is reachable only through weak edges.
    pub fn is_weakly_reachable(&self, o: ObjId) -> bool {
        self.weak_only
            .get(o as usize / 64)
            .is_some_and(|w| w >> (o % 64) & 1 == 1)
    }

    /// How many objects `o` retains, itself included; `None` when nothing reaches it.
    pub fn retained_count(&self, o: ObjId) -> Option<u32> {
        self.idom(o).map(|_| self.retained_count[o as usize])
    }

    /// Dominator-tree children of `o` (or of [`VIRTUAL_ROOT`]), largest retained first.
    pub fn children(&self, o: ObjId) -> &[ObjId] {
        let i = if o == VIRTUAL_ROOT {
            self.idom.len()
        } else {
            o as usize
        };
        let t = self.tree();
        match (t.child_start.get(i), t.child_start.get(i + 1)) {
            (Some(&a), Some(&b)) => &t.children[a as usize..b as usize],
            _ => &[],
        }
    }

    /// For each of `parents` (objects or [`VIRTUAL_ROOT`]): its `top` largest children,
    /// in [`children`](Self::children)'s order, and how many children it has. Where the
    /// children lists are not built yet, this is one parallel scan of the immediate
    /// dominators, not the lists (which take 12 bytes per object and a sort: 0.8 s on
    /// 50 M objects, for a command that prints the tree's first few levels).
    pub fn top_children(&self, parents: &[ObjId], top: usize) -> Vec<(Vec<ObjId>, usize)> {
        if self.tree.get().is_some() {
            return parents
                .iter()
                .map(|&p| {
                    let c = self.children(p);
                    (c.iter().take(top).copied().collect(), c.len())
                })
                .collect();
        }
        use rayon::prelude::*;
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.idom.len();
        // Which parent each object is (a bit, then the slot), the virtual root apart.
        let mut member = vec![0u64; n.div_ceil(64)];
        let mut slot: crate::heap::index::IdMap<usize> = Default::default();
        let mut root_slot = None;
        for (i, &p) in parents.iter().enumerate() {
            if p == VIRTUAL_ROOT {
                root_slot.get_or_insert(i);
            } else if (p as usize) < n {
                member[p as usize / 64] |= 1 << (p % 64);
                slot.entry(p as u64).or_insert(i);
            }
        }
        // Largest retained first, ties by id: the heap keeps the `top` greatest keys.
        type Best = Vec<(BinaryHeap<Reverse<(u64, Reverse<ObjId>)>>, usize)>;
        let empty = || -> Best { (0..parents.len()).map(|_| (BinaryHeap::new(), 0)).collect() };
        let add = |acc: &mut Best, i: usize, o: ObjId| {
            let (heap, count) = &mut acc[i];
            *count += 1;
            heap.push(Reverse((self.size(o), Reverse(o))));
            if heap.len() > top {
                heap.pop();
            }
        };
        let found = self
            .idom
            .par_chunks(1 << 16)
            .enumerate()
            .fold(empty, |mut acc, (c, chunk)| {
                for (k, &d) in chunk.iter().enumerate() {
                    let o = (c << 16 | k) as ObjId;
                    let i = if d == VIRTUAL_ROOT {
                        root_slot
                    } else if d != NONE && member[d as usize / 64] >> (d % 64) & 1 == 1 {
                        slot.get(&(d as u64)).copied()
                    } else {
                        None
                    };
                    if let Some(i) = i {
                        add(&mut acc, i, o);
                    }
                }
                acc
            })
            .reduce(empty, |mut a, b| {
                for (i, (heap, count)) in b.into_iter().enumerate() {
                    a[i].1 += count;
                    for Reverse((_, Reverse(o))) in heap {
                        add(&mut a, i, o);
                        a[i].1 -= 1;
                    }
                }
                a
            });
        parents
            .iter()
            .map(|&p| {
                let i = if p == VIRTUAL_ROOT {
                    root_slot
                } else {
                    slot.get(&(p as u64)).copied()
                };
                match i {
                    Some(i) => {
                        let (heap, count) = &found[i];
                        let mut kids: Vec<(u64, ObjId)> = heap
                            .iter()
                            .map(|Reverse((r, Reverse(o)))| (*r, *o))
                            .collect();
                        kids.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                        (kids.into_iter().map(|(_, o)| o).collect(), *count)
                    }
                    None => (Vec::new(), 0),
                }
            })
            .collect()
    }

    fn tree(&self) -> &Tree {
        self.tree.get_or_init(|| {
            let n = self.idom.len();
            let slot = |d: ObjId| if d == VIRTUAL_ROOT { n } else { d as usize };
            // Counts two slots up, summed one slot up, then each list filled through its
            // own start, which it moves to its end, the next list's start: no copy of the
            // starts to fill through (fresh memory costs its first touch).
            let mut child_start = vec![0u32; n + 3];
            for &d in &self.idom {
                if d != NONE {
                    child_start[slot(d) + 2] += 1;
                }
            }
            for i in 0..n + 1 {
                child_start[i + 2] += child_start[i + 1];
            }
            let mut children = vec![0 as ObjId; child_start[n + 2] as usize];
            for (o, &d) in self.idom.iter().enumerate() {
                if d != NONE {
                    let at = &mut child_start[slot(d) + 1];
                    children[*at as usize] = o as ObjId;
                    *at += 1;
                }
            }
            // Largest first; ties by id, so the order is deterministic. The lists are
            // sorted on every core, in blocks of nodes whose lists lie side by side.
            use rayon::prelude::*;
            const BLOCK: usize = 1 << 16;
            let mut blocks: Vec<(usize, &mut [ObjId])> = Vec::with_capacity(n / BLOCK + 2);
            let mut rest: &mut [ObjId] = &mut children;
            let mut first = 0;
            while first < n + 1 {
                let last = (first + BLOCK).min(n + 1);
                let len = (child_start[last] - child_start[first]) as usize;
                let (block, tail) = std::mem::take(&mut rest).split_at_mut(len);
                blocks.push((first, block));
                rest = tail;
                first = last;
            }
            blocks.into_par_iter().for_each(|(first, block)| {
                let base = child_start[first] as usize;
                let last = (first + BLOCK).min(n + 1);
                for i in first..last {
                    let range = child_start[i] as usize - base..child_start[i + 1] as usize - base;
                    if range.len() > 1 << 12 {
                        // A long list (a big collection's entries): its sizes read once,
                        // then sorted on every core, not looked up at every comparison.
                        let list = &mut block[range];
                        let mut keyed: Vec<(std::cmp::Reverse<u64>, ObjId)> = list
                            .par_iter()
                            .map(|&o| (std::cmp::Reverse(self.size(o)), o))
                            .collect();
                        keyed.par_sort_unstable();
                        list.par_iter_mut()
                            .zip(keyed.par_iter())
                            .for_each(|(x, k)| *x = k.1);
                    } else if range.len() > 1 {
                        block[range].sort_unstable_by(|a, b| {
                            self.size(*b).cmp(&self.size(*a)).then(a.cmp(b))
                        });
                    }
                }
            });
            Tree {
                child_start,
                children,
            }
        })
    }

    /// The chain of dominators of `o`, from `o`'s immediate dominator up to (not
    /// including) the virtual root.
    pub fn dominator_chain(&self, o: ObjId) -> Vec<ObjId> {
        let mut out = Vec::new();
        let mut cur = self.idom(o);
        while let Some(d) = cur {
            if d == VIRTUAL_ROOT || out.len() > self.idom.len() {
                break;
            }
            out.push(d);
            cur = self.idom(d);
        }
        out
    }

    /// Retained bytes per class by Eclipse MAT's rule: the sum of the retained sizes of
    /// the instances of the class that no other instance of the same class dominates (so
    /// that a linked list of nodes is not counted once per node).
    /// Per class id, how many of its objects no GC root reaches, strongly or weakly
    /// (they have no retained size and count in no class's).
    pub fn class_unreachable(&self, g: &Graph) -> Vec<u64> {
        use rayon::prelude::*;
        let n = g.len();
        (0..n.div_ceil(1 << 16))
            .into_par_iter()
            .map(|k| {
                let mut out = vec![0u64; g.classes.len()];
                for o in k << 16..((k + 1) << 16).min(n) {
                    if self.retained(o as ObjId).is_none() {
                        if let Some(c) = out.get_mut(g.class_of.get(o) as usize) {
                            *c += 1;
                        }
                    }
                }
                out
            })
            .reduce(
                || vec![0u64; g.classes.len()],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            )
    }

    pub fn class_retained(&self, g: &Graph) -> Vec<u64> {
        let identity: Vec<u32> = (0..g.classes.len() as u32).collect();
        self.group_retained(g, &identity, g.classes.len())
    }

    /// The same rule for any grouping of classes (packages, libraries): `group_of[class]`
    /// in `0..groups`. One iterative walk of the dominator tree keeps, per group, how
    /// many of its objects are on the current path.
    pub fn group_retained(&self, g: &Graph, group_of: &[u32], groups: usize) -> Vec<u64> {
        let mut active = vec![0u32; groups];
        let mut total = vec![0u64; groups];
        let mut stack: Vec<(ObjId, u32)> = Vec::new();
        let group = |o: ObjId| group_of[g.class_of.get(o as usize) as usize] as usize;
        let tree = self.tree();
        for &top in self.children(VIRTUAL_ROOT) {
            let enter =
                |o: ObjId, stack: &mut Vec<(ObjId, u32)>, active: &mut [u32], total: &mut [u64]| {
                    let c = group(o);
                    if active[c] == 0 {
                        total[c] += self.size(o);
                    }
                    active[c] += 1;
                    stack.push((o, tree.child_start[o as usize]));
                };
            enter(top, &mut stack, &mut active, &mut total);
            while let Some(&mut (o, ref mut next)) = stack.last_mut() {
                if *next < tree.child_start[o as usize + 1] {
                    let child = tree.children[*next as usize];
                    *next += 1;
                    enter(child, &mut stack, &mut active, &mut total);
                } else {
                    stack.pop();
                    active[group(o)] -= 1;
                }
            }
        }
        total
    }

    /// Bytes held by this structure.
    pub fn bytes(&self) -> u64 {
        let t = self.tree.get();
        (self.idom.capacity() * 4
            + self.retained.capacity() * 4
            + self.big_retained.capacity() * std::mem::size_of::<(ObjId, u64)>()
            + self.retained_count.capacity() * 4
            + t.map_or(0, |t| {
                t.child_start.capacity() * 4 + t.children.capacity() * 4
            })
            + self.weak_only.capacity() * 8) as u64
    }
}

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
struct Work {
    /// The bucket head until the node is processed, then its label: the node with the
    /// smallest semidominator on the compressed path above it.
    label: u32,
    /// The DFS parent (preorder number), then the path-compression link.
    ancestor: u32,
}

/// [`Work`] as the semidominator loop shares it with the prefetching thread, which reads
/// the labels and links of the records it has prefetched (relaxed atomics: plain loads
/// and stores).
#[repr(C)]
struct SharedWork {
    label: AtomicU32,
    ancestor: AtomicU32,
}

impl SharedWork {
    #[inline(always)]
    fn label(&self) -> u32 {
        self.label.load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn ancestor(&self) -> u32 {
        self.ancestor.load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn set_label(&self, v: u32) {
        self.label.store(v, Ordering::Relaxed)
    }
    #[inline(always)]
    fn set_ancestor(&self, v: u32) {
        self.ancestor.store(v, Ordering::Relaxed)
    }
}

/// `work` as shared records, for the length of the borrow.
fn shared(work: &mut [Work]) -> &[SharedWork] {
    // SAFETY: both are `repr(C)` pairs of 4-byte fields (AtomicU32 has the size and
    // alignment of u32), and the exclusive borrow of `work` keeps every other access out
    // while the view lives.
    unsafe { &*(work as *mut [Work] as *const [SharedWork]) }
}

/// Computes the dominator tree of `g` over strong edges, from a virtual root above every
/// GC root.
///
/// When the graph's referrers are not built yet, a second core builds them while the
/// depth-first search runs (it needs only the references; where that pays,
/// [`Graph::referrers_beside_the_search`], else they are built first); the semidominator
/// pass waits for them. In one part, on that core alone: the search keeps the other, and the build's
/// working counts (4 bytes per object per part) are added to the search's arrays, so
/// that the peak stays that of the semidominator pass (two parts put the 6 M-node V8
/// snapshot's at 381 MB, against 356).
pub fn compute(g: &Graph, progress: &Progress) -> Dominators {
    std::thread::scope(|scope| {
        if !g.has_referrers() {
            if g.referrers_beside_the_search() {
                scope.spawn(|| {
                    g.referrer_index_beside_the_search();
                });
            } else {
                // Before the search, on every core: after it, the search's arrays would
                // be beside the build's counts at its peak.
                progress.phase("building referrers", 0);
                g.referrer_index();
            }
        }
        compute_once_referred(g, progress, Idoms::Nca).unwrap_or_else(|| by_buckets(g, progress))
    })
}

/// The pass with Lengauer–Tarjan's buckets from the start: what [`compute`] falls back
/// on. Public for the tests, which check both ways on every graph.
#[doc(hidden)]
pub fn compute_by_buckets(g: &Graph, progress: &Progress) -> Dominators {
    g.referrer_index();
    by_buckets(g, progress)
}

fn by_buckets(g: &Graph, progress: &Progress) -> Dominators {
    compute_once_referred(g, progress, Idoms::Buckets)
        .expect("the pass with buckets does not give up")
}

/// How the pass finds the immediate dominators once it has the semidominators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Idoms {
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
const NCA_SLACK: u64 = 1 << 20;

fn compute_once_referred(g: &Graph, progress: &Progress, idoms: Idoms) -> Option<Dominators> {
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
    // `vertex`, as the semidominators it becomes: shared with the prefetching thread,
    // which reads the objects of the nodes ahead of this loop while the loop writes the
    // semidominators of those behind it.
    let semi = atomic(&mut vertex);
    let beside = Beside::new(k);
    let mut records = work;
    let work = shared(&mut records);
    let mut checks = Checks::default();
    // The first multiple of 64 the loop comes to, where it checks first.
    let first_check = 64 * ((k - 1) / 64);
    std::thread::scope(|scope| {
        let helped = g.scattered && prefetching(k as usize);
        if helped {
            let (pre, beside) = (&pre, &beside);
            scope.spawn(move || prefetch_ahead(g, pre, semi, work, beside));
        }
        for w in (1..k).rev() {
            if w & 63 == 0 {
                beside.at.0.store(w, Ordering::Relaxed);
                if helped && (w == first_check || w & CHECK_EVERY == 0) {
                    checks.add(beside.check());
                }
            }
            if w & 0xffff == 0 {
                progress.set((k - w) as u64);
            }
            let node = semi[w as usize].load(Ordering::Relaxed);
            // Not linked yet: `ancestor` is still the parent.
            let parent = work[w as usize].ancestor();
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
                        let u = eval(work, semi, pv, w + 1, &mut path);
                        semi[u as usize].load(Ordering::Relaxed)
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
            semi[w as usize].store(s, Ordering::Relaxed);
            work[w as usize].set_label(w);
            if idoms == Idoms::Nca {
                // Step 3 walks up from the parent.
                idom_pre[w as usize] = parent;
                continue;
            }
            idom_pre[w as usize] = work[s as usize].label();
            work[s as usize].set_label(w);
            // Everything whose semidominator is the parent now has its path in the forest.
            let mut v = work[parent as usize].label();
            work[parent as usize].set_label(NONE);
            while v != NONE {
                let next = idom_pre[v as usize];
                let u = eval(work, semi, v, w, &mut path);
                idom_pre[v as usize] = if semi[u as usize].load(Ordering::Relaxed)
                    < semi[v as usize].load(Ordering::Relaxed)
                {
                    u
                } else {
                    parent
                };
                v = next;
            }
        }
        beside.control.0.done.store(true, Ordering::Release);
    });
    if checks.count > 0 && std::env::var_os("HEAPTUI_TIMING").is_some() {
        let (lo, hi) = checks.range_ns.unwrap_or_default();
        eprintln!(
            "timing: semidominators' prefetching thread near at {} of {} checks, round trips {lo}-{hi} ns",
            checks.near, checks.count
        );
    }
    let semi = &vertex;

    drop(path);
    drop(records);

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
        idom,
        retained,
        big_retained,
        retained_count,
        tree: Default::default(),
        weak_only,
        reachable: (strong_end - 1) as u64,
        reachable_bytes: strong_bytes,
        weakly_reachable: (weak_end - strong_end) as u64,
        orphans: (k - weak_end) as u64,
        orphan_bytes,
        weakly_reachable_bytes: weak_bytes,
        by_buckets: idoms == Idoms::Buckets,
    })
}

/// Lengauer–Tarjan's EVAL with simple path compression, iteratively: the node with the
/// smallest semidominator on the path from `v` up to (not including) the root of its
/// tree in the forest of processed nodes (`v` itself when it is such a root). The
/// processed (linked) nodes are those numbered `linked` or more; `semi` holds their
/// semidominators.
#[inline]
fn eval(work: &[SharedWork], semi: &[AtomicU32], v: u32, linked: u32, path: &mut Vec<u32>) -> u32 {
    if v < linked {
        return v;
    }
    if work[v as usize].ancestor() < linked {
        return work[v as usize].label();
    }
    path.clear();
    let mut x = v;
    while work[x as usize].ancestor() >= linked {
        path.push(x);
        x = work[x as usize].ancestor();
    }
    while let Some(y) = path.pop() {
        let a = work[y as usize].ancestor() as usize;
        let (al, aa) = (work[a].label(), work[a].ancestor());
        let yl = work[y as usize].label();
        if semi[al as usize].load(Ordering::Relaxed) < semi[yl as usize].load(Ordering::Relaxed) {
            work[y as usize].set_label(al);
        }
        work[y as usize].set_ancestor(aa);
    }
    work[v as usize].label()
}

/// `v` as atomics, for the length of the borrow.
fn atomic(v: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the size and alignment of u32, and the exclusive borrow of `v`
    // keeps every other access out while the view lives.
    unsafe { &*(v as *mut [u32] as *const [AtomicU32]) }
}

/// Whether the semidominator loop of a [`Graph::scattered`] graph gets a thread that
/// prefetches ahead of it: when it is large enough that the loop's loads miss the caches,
/// on x86-64, with a second core.
fn prefetching(k: usize) -> bool {
    cfg!(target_arch = "x86_64") && k >= 1 << 20 && rayon::current_num_threads() >= 2
}

/// Nodes the prefetching thread keeps ahead of the semidominator loop: far enough to hide
/// the loads' latency, near enough that the lines are still cached when the loop comes
/// (128 did at least as well as 384, and both better than 2048, which was slower than no
/// thread, on the 6 M-node V8 snapshot).
const AHEAD: u32 = 128;

/// How far behind its first stage (nearer the loop) the prefetching thread's second stage
/// goes: far enough for the first stage's prefetches to have arrived.
const SECOND_STAGE: u32 = 48;

/// The semidominator loop's second core. Going down the preorder a little ahead of the
/// loop (whose position is `at`), it reads what the loop will read for each node (the
/// node's referrers and their preorder numbers) and prefetches the working records and
/// semidominator slots of those that the loop will evaluate, so the loop finds them in
/// the shared cache rather than in memory. A second stage, [`SECOND_STAGE`] nodes nearer
/// the loop, goes over the same referrers again and reads the records the first stage
/// prefetched: it prefetches the semidominator of each one's label (what an evaluation
/// compares, a node of its own) and the record its link leads to (where a compression
/// starts). On the 6 M-node V8 snapshot it took the loop from 0.26 to 0.23 s.
///
/// It idles while the last nearness check ([`Beside::check`]) found it far from the loop.
/// It writes nothing but its answers to the checks: a value it reads after the loop has passed (a semidominator in
/// place of an object, a label or link the loop has since changed) only misdirects a
/// prefetch.
fn prefetch_ahead(
    g: &Graph,
    pre: &[u32],
    semi: &[AtomicU32],
    work: &[SharedWork],
    beside: &Beside,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let n = g.len();
        let k = semi.len().min(work.len());
        let refs = g.referrer_index();
        let fetch = |p: *const u8| {
            // SAFETY: a prefetch hint reads and writes nothing; every address given is
            // inside `work` or `semi`.
            unsafe { _mm_prefetch(p as *const i8, _MM_HINT_T0) }
        };
        // The referrers of the node at preorder `x` that the loop will evaluate: those
        // numbered after it.
        let later = |x: u32, mut each: &mut dyn FnMut(usize)| {
            let node = semi[x as usize].load(Ordering::Relaxed) as usize;
            if node < n {
                for i in refs.range(node as ObjId) {
                    if refs.is_weak(i) {
                        continue;
                    }
                    let pv = pre[refs.in_sources[i] as usize];
                    if pv != NONE && pv > x && (pv as usize) < k {
                        each(pv as usize);
                    }
                }
            }
            let _ = &mut each;
        };
        let c = &beside.control.0;
        let mut x = u32::MAX;
        let mut idle = 0u32;
        while !c.done.load(Ordering::Acquire) {
            if c.ping.load(Ordering::Acquire) & 1 == 1 {
                beside.answer();
            }
            if c.far.load(Ordering::Relaxed) {
                // Far from the loop's core: prefetching would only slow it. Idle, but
                // answer the next check.
                std::thread::sleep(std::time::Duration::from_micros(20));
                x = u32::MAX;
                continue;
            }
            let w = beside.at.0.load(Ordering::Relaxed);
            if x >= w {
                // Behind the loop (or starting): go on from just ahead of it.
                x = w.saturating_sub(64);
            }
            if x == 0 {
                return;
            }
            if w - x > AHEAD {
                idle += 1;
                if idle % 1024 == 0 {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            later(x, &mut |pv| {
                fetch(&work[pv] as *const SharedWork as *const u8);
                fetch(&semi[pv] as *const AtomicU32 as *const u8);
            });
            let y = x + SECOND_STAGE;
            if y < w {
                later(y, &mut |pv| {
                    let (label, link) = (work[pv].label(), work[pv].ancestor());
                    if (label as usize) < k {
                        fetch(&semi[label as usize] as *const AtomicU32 as *const u8);
                    }
                    if link > y && (link as usize) < k {
                        fetch(&work[link as usize] as *const SharedWork as *const u8);
                    }
                });
            }
            x -= 1;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, pre, semi, work, beside);
}

/// A value on a cache line of its own (128 bytes: adjacent-line prefetchers pair lines).
#[repr(align(128))]
struct Padded<T>(T);

/// What the semidominator loop shares with its prefetching thread, beside the arrays.
struct Beside {
    /// The loop's position, every 64 nodes.
    at: Padded<AtomicU32>,
    control: Padded<Control>,
}

/// The rarely written part of [`Beside`].
struct Control {
    /// The nearness check's handshake ([`Beside::check`]): odd values from the loop,
    /// each answered by the thread with the next even one; 0 when no check runs.
    ping: AtomicU32,
    /// What the last check found: the thread's core is far from the loop's, and it idles.
    far: AtomicBool,
    /// The loop is over.
    done: AtomicBool,
}

/// Nodes between two nearness checks, less one (a mask): 262,144, 23 checks on the
/// 6 M-node V8 snapshot, a few microseconds each.
const CHECK_EVERY: u32 = (1 << 18) - 1;

/// Round trips in a nearness check.
const CHECK_ROUNDS: u32 = 32;

/// The longest round trip, in nanoseconds, of two cores near enough for the prefetching
/// thread to help: those that share a cache. On this project's 2-core VM the round trip
/// is 75–110 ns while the two virtual cores share a cache, and 350–400 ns when the host
/// has put them apart (it moves them every few seconds); apart, the thread's prefetches
/// land in the wrong cache and its reads of the lines the loop writes make each write
/// wait: the semidominators of the 6 M-node V8 snapshot took 0.5–1.0 s with the thread,
/// 0.30–0.33 s without it, and 0.23–0.29 s with it when near.
const NEAR_NS: u128 = 200;

impl Beside {
    fn new(k: u32) -> Self {
        Beside {
            at: Padded(AtomicU32::new(k)),
            control: Padded(Control {
                ping: AtomicU32::new(0),
                far: AtomicBool::new(false),
                done: AtomicBool::new(false),
            }),
        }
    }

    /// On the loop's side: times [`CHECK_ROUNDS`] round trips to the prefetching thread
    /// and tells it whether to prefetch (`far`). A thread that does not answer within
    /// 2 ms (not started yet, or not running) counts as far until the next check.
    /// Returns the mean round trip, or `None` when there was no answer.
    fn check(&self) -> Option<u128> {
        let c = &self.control.0;
        let start = std::time::Instant::now();
        let limit = std::time::Duration::from_millis(2);
        let wait = |want: u32| {
            let mut spins = 0u32;
            loop {
                if c.ping.load(Ordering::Acquire) == want {
                    return true;
                }
                spins += 1;
                if spins % 256 == 0 && start.elapsed() > limit {
                    return false;
                }
                std::hint::spin_loop();
            }
        };
        c.ping.store(1, Ordering::Release);
        let mut answered = wait(2);
        let t = std::time::Instant::now();
        let mut i = 0;
        while answered && i < CHECK_ROUNDS {
            c.ping.store(3 + 2 * i, Ordering::Release);
            answered = wait(4 + 2 * i);
            i += 1;
        }
        let round_trip = t.elapsed().as_nanos() / CHECK_ROUNDS as u128;
        let near = answered && round_trip <= NEAR_NS;
        c.far.store(!near, Ordering::Relaxed);
        c.ping.store(0, Ordering::Release);
        answered.then_some(round_trip)
    }

    /// On the thread's side: answers a check until the loop ends it.
    fn answer(&self) {
        let c = &self.control.0;
        loop {
            let p = c.ping.load(Ordering::Acquire);
            if p == 0 || c.done.load(Ordering::Relaxed) {
                return;
            }
            if p & 1 == 1 {
                // The loop may have given up and reset `ping` meanwhile: answer only the
                // value it wrote.
                let _ = c
                    .ping
                    .compare_exchange(p, p + 1, Ordering::AcqRel, Ordering::Relaxed);
            }
            std::hint::spin_loop();
        }
    }
}

/// What the nearness checks found (for `HEAPTUI_TIMING`).
#[derive(Default)]
struct Checks {
    count: u32,
    near: u32,
    /// The shortest and longest round trips of the answered checks.
    range_ns: Option<(u128, u128)>,
}

impl Checks {
    fn add(&mut self, round_trip: Option<u128>) {
        self.count += 1;
        if let Some(ns) = round_trip {
            self.near += (ns <= NEAR_NS) as u32;
            let (lo, hi) = self.range_ns.unwrap_or((ns, ns));
            self.range_ns = Some((lo.min(ns), hi.max(ns)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nearness_check_without_an_answer_says_far_and_gives_up() {
        let beside = Beside::new(1000);
        let t = std::time::Instant::now();
        assert_eq!(beside.check(), None);
        assert!(t.elapsed() < std::time::Duration::from_millis(500));
        assert!(beside.control.0.far.load(Ordering::Relaxed));
        assert_eq!(beside.control.0.ping.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_nearness_check_is_answered_by_the_thread_and_ends_it() {
        let beside = Beside::new(1000);
        std::thread::scope(|s| {
            let b = &beside;
            let answering = s.spawn(move || {
                let c = &b.control.0;
                let mut answered = 0u32;
                while !c.done.load(Ordering::Acquire) {
                    if c.ping.load(Ordering::Acquire) & 1 == 1 {
                        b.answer();
                        answered += 1;
                    }
                    std::hint::spin_loop();
                }
                answered
            });
            // A check gives up after 2 ms without an answer: on a busy machine (the tests
            // run side by side) the thread may not run for longer. Check until one is
            // answered, for up to 10 s.
            let mut got = Vec::new();
            let t = std::time::Instant::now();
            while got.last().is_none_or(|r: &Option<u128>| r.is_none())
                && t.elapsed() < std::time::Duration::from_secs(10)
            {
                got.push(beside.check());
            }
            beside.control.0.done.store(true, Ordering::Release);
            let answered = answering.join().unwrap();
            assert!(got.iter().any(|r| r.is_some()), "{got:?}");
            assert!(answered >= 1);
            // Far or near depends on where the two threads run; the handshake is over.
            assert_eq!(beside.control.0.ping.load(Ordering::Relaxed), 0);
            let last = got.last().unwrap();
            assert_eq!(
                beside.control.0.far.load(Ordering::Relaxed),
                last.is_none_or(|ns| ns > NEAR_NS)
            );
        });
    }
}
