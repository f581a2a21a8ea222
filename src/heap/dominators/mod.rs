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
//! transparent huge pages ([`crate::sys::huge`]): the passes load from them at random.

use super::{Column, Graph, ObjId};
use crate::sys::huge;
use crate::sys::progress::Progress;

mod pass;
pub mod stored;
use pass::*;

/// The virtual root above all GC roots, as an `idom` value and a `children` key.
pub const VIRTUAL_ROOT: ObjId = u32::MAX - 1;
const NONE: u32 = u32::MAX;
/// A retained size kept in `big_retained`.
const BIG: u32 = u32::MAX;

/// The children lists of the dominator tree (a CSR over objects, slot `n` the virtual
/// root): built here, or mapped from a cache entry ([`stored`]).
#[derive(Debug, Default)]
struct Tree {
    /// `n + 3` starts: slot `i`'s children are `child_start[i]..child_start[i + 1]` for
    /// `i` in `0..=n`, and the last two are both the number of children.
    child_start: Column<u32>,
    children: Column<ObjId>,
}

/// Where a [`Dominators`] comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origin {
    /// Computed by this process.
    #[default]
    Computed,
    /// Read from a cache entry (the file).
    Read(String),
    /// Computed again: the tree kept in a cache entry failed a check (which, and where).
    Rebuilt(String),
}

impl Origin {
    /// The words `summary` gives it (`None` for a tree computed plainly).
    pub fn words(&self) -> Option<String> {
        match self {
            Origin::Computed => None,
            Origin::Read(path) => Some(format!("read from {path}")),
            Origin::Rebuilt(why) => Some(format!("computed again, the kept one not used: {why}")),
        }
    }
}

/// The dominator tree of a snapshot, with retained sizes.
///
/// Its columns are vectors when the pass computes them, or stretches of a mapped cache
/// entry when they are read back ([`stored`], [`crate::cache`]).
#[derive(Debug, Default)]
pub struct Dominators {
    /// Immediate dominator of every object: an object, [`VIRTUAL_ROOT`], or `NONE` for an
    /// object that nothing reaches.
    idom: Column<ObjId>,
    /// Retained size of every object (0 where unreachable; see `idom`); [`BIG`] means
    /// "look in `big_retained`".
    retained: Column<u32>,
    /// The retained sizes of 4 GiB - 1 or more, sorted by object.
    big_retained: Vec<(ObjId, u64)>,
    /// How many objects each object retains, itself included (its dominator subtree).
    retained_count: Column<u32>,
    /// Dominator-tree children as a CSR, largest retained first; slot `n` is the
    /// virtual root. Built on first use: `path`, `inspect` and `--flat` never need it.
    tree: std::sync::OnceLock<Tree>,
    /// One bit per object: reachable only through weak edges.
    weak_only: Column<u64>,
    /// Per class: the retained bytes by MAT's rule and the unreachable instances, once
    /// asked for ([`Self::class_retained`], [`Self::class_unreachable`]; a walk of the
    /// whole tree, which a cache entry keeps).
    class_retained: std::sync::OnceLock<Vec<u64>>,
    class_unreachable: std::sync::OnceLock<Vec<u64>>,
    /// Where the tree comes from.
    pub origin: Origin,
    /// How much the roots reach, and how.
    pub reach: Reach,
    /// Whether the immediate dominators came from Lengauer–Tarjan's buckets: Semi-NCA
    /// gave up on the graph's shape, or the caller asked for them.
    #[doc(hidden)]
    pub by_buckets: bool,
}

/// How many objects (and shallow bytes) the roots reach, and how: a tree's figures
/// beside its columns, computed by the pass and kept in the cache entry.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reach {
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
        self.reach.reachable_bytes + self.reach.weakly_reachable_bytes + self.reach.orphan_bytes
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
                        if list.iter().all(|&o| self.retained[o as usize] != BIG) {
                            // Sizes below 4 GiB: size and id in one word, larger size
                            // first, so that the sort moves half the bytes.
                            let mut keyed: Vec<u64> = list
                                .par_iter()
                                .map(|&o| (!self.retained[o as usize] as u64) << 32 | o as u64)
                                .collect();
                            keyed.par_sort_unstable();
                            list.par_iter_mut()
                                .zip(keyed.par_iter())
                                .for_each(|(x, k)| *x = *k as ObjId);
                        } else {
                            let mut keyed: Vec<(std::cmp::Reverse<u64>, ObjId)> = list
                                .par_iter()
                                .map(|&o| (std::cmp::Reverse(self.size(o)), o))
                                .collect();
                            keyed.par_sort_unstable();
                            list.par_iter_mut()
                                .zip(keyed.par_iter())
                                .for_each(|(x, k)| *x = k.1);
                        }
                    } else if range.len() > 1 {
                        block[range].sort_unstable_by(|a, b| {
                            self.size(*b).cmp(&self.size(*a)).then(a.cmp(b))
                        });
                    }
                }
            });
            Tree {
                child_start: child_start.into(),
                children: children.into(),
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

    /// Per class id, how many of its objects no GC root reaches, strongly or weakly
    /// (they have no retained size and count in no class's). Computed once.
    pub fn class_unreachable(&self, g: &Graph) -> Vec<u64> {
        self.class_unreachable
            .get_or_init(|| self.count_unreachable(g))
            .clone()
    }

    fn count_unreachable(&self, g: &Graph) -> Vec<u64> {
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

    /// Retained bytes per class by Eclipse MAT's rule: the sum of the retained sizes of
    /// the instances of the class that no other instance of the same class dominates (so
    /// that a linked list of nodes is not counted once per node). Computed once.
    pub fn class_retained(&self, g: &Graph) -> Vec<u64> {
        self.class_retained
            .get_or_init(|| {
                let identity: Vec<u32> = (0..g.classes.len() as u32).collect();
                self.group_retained(g, &identity, g.classes.len())
            })
            .clone()
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

    /// Bytes held by this structure (a mapped column counts its stretch of the map).
    pub fn bytes(&self) -> u64 {
        let t = self.tree.get();
        (self.idom.bytes()
            + self.retained.bytes()
            + self.big_retained.capacity() * std::mem::size_of::<(ObjId, u64)>()
            + self.retained_count.bytes()
            + t.map_or(0, |t| t.child_start.bytes() + t.children.bytes())
            + self.weak_only.bytes()) as u64
    }
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
