//! What a cache entry keeps of a dominator tree ([`crate::cache`] owns the file), and
//! the checks a tree read back passes before any view sees it.
//!
//! Kept: the columns (immediate dominators, retained sizes and counts, the weakly
//! reachable bits, the children lists in their order), the figures (reachable counts
//! and bytes, the retained sizes of 4 GiB or more) and the per-class retained sizes and
//! unreachable counts, so that a reopen shows the histogram with retained sizes and the
//! tree without walking it.
//!
//! The checks ([`Dominators::from_stored`]) make the tree one that the views can use:
//! every column of its length; every immediate dominator an object, the virtual root or
//! none; the children lists a CSR over the objects and the virtual root, every child an
//! object; the (child, parent) pairs of the lists the same as the (object, immediate
//! dominator) pairs (their mixed sums compared: so a walk down the lists follows
//! immediate dominators and ends); every reached object retaining at least its own
//! shallow size (read from the graph) and itself, nothing retained where nothing
//! reaches; the counts and the virtual root's retained size those of the figures. Each
//! column is read once, in order: what the checks leave out (a child's place in its
//! list, a size that is not the sum of its subtree's) the entry's checksum answers, as
//! it answers whether the immediate dominators are the graph's at all (that would be the
//! pass itself), with the entry's key and its tie to the index entry.

use serde::{Deserialize, Serialize};

use super::{Dominators, Origin, Reach, Tree, BIG, NONE, VIRTUAL_ROOT};
use crate::heap::{Column, CompactColumn, Graph, ObjId};

/// The scalars and short lists of a kept tree.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    pub objects: u64,
    pub reach: Reach,
    pub by_buckets: bool,
    pub big_retained: Vec<(ObjId, u64)>,
    pub class_retained: Vec<u64>,
    pub class_unreachable: Vec<u64>,
}

/// The columns of a kept tree, in the order a cache entry keeps them.
pub struct Parts<'a> {
    pub idom: &'a [u32],
    pub retained: &'a [u32],
    pub retained_count: &'a [u32],
    pub weak_only: &'a [u64],
    pub child_start: &'a [u32],
    pub children: &'a [u32],
}

/// The same columns read back (mapped from the entry).
pub struct Columns {
    pub idom: Column<u32>,
    pub retained: Column<u32>,
    pub retained_count: Column<u32>,
    pub weak_only: Column<u64>,
    pub child_start: Column<u32>,
    pub children: Column<u32>,
}

impl Dominators {
    /// What a cache entry keeps of this tree. Builds the children lists and the
    /// per-class figures first where they are not yet (a view would, on the reopen).
    pub fn stored(&self, g: &Graph) -> (Figures, Parts<'_>) {
        let class_retained = self.class_retained(g);
        let class_unreachable = self.class_unreachable(g);
        let t = self.tree();
        let figures = Figures {
            objects: self.idom.len() as u64,
            reach: self.reach,
            by_buckets: self.by_buckets,
            big_retained: self.big_retained.clone(),
            class_retained,
            class_unreachable,
        };
        let parts = Parts {
            idom: &self.idom,
            retained: &self.retained,
            retained_count: &self.retained_count,
            weak_only: &self.weak_only,
            child_start: &t.child_start,
            children: &t.children,
        };
        (figures, parts)
    }

    /// A tree read back from a cache entry, once it has passed the checks of the module
    /// doc against `g`; the error says which failed.
    pub fn from_stored(f: Figures, c: Columns, g: &Graph) -> Result<Dominators, &'static str> {
        let u = Unchecked::new(f, c, g)?;
        let n = u.d.idom.len();
        let fold = u.piece(g, 0..n + 3);
        u.checked(g, fold)
    }
}

/// A tree read back from a cache entry whose columns are of their lengths, not checked
/// further yet: the cache reads its columns once, gathering [`Unchecked::piece`] over
/// them piece by piece as it sums them, then [`Unchecked::checked`] gives the verdict.
pub struct Unchecked {
    d: Dominators,
    t: Tree,
}

impl Unchecked {
    /// The tree of the columns `c`, of their lengths for `g` (else the error).
    pub fn new(f: Figures, c: Columns, g: &Graph) -> Result<Unchecked, &'static str> {
        let n = g.len();
        if f.objects != n as u64
            || c.idom.len() != n
            || c.retained.len() != n
            || c.retained_count.len() != n
            || c.weak_only.len() != n.div_ceil(64)
            || c.child_start.len() != n + 3
        {
            return Err("tree columns of the wrong length");
        }
        let classes = g.classes.len();
        if f.class_retained.len() != classes || f.class_unreachable.len() != classes {
            return Err("per-class figures of the wrong length");
        }
        if f.big_retained.windows(2).any(|w| w[0].0 >= w[1].0)
            || f.big_retained
                .iter()
                .any(|&(o, r)| o as usize >= n || c.retained[o as usize] != BIG || r < BIG as u64)
        {
            return Err("a large retained size of no object");
        }
        let d = Dominators {
            idom: c.idom,
            retained: c.retained,
            big_retained: f.big_retained,
            retained_count: c.retained_count,
            tree: Default::default(),
            weak_only: c.weak_only,
            class_retained: f.class_retained.into(),
            class_unreachable: f.class_unreachable.into(),
            origin: Origin::Computed,
            reach: f.reach,
            by_buckets: f.by_buckets,
        };
        let t = Tree {
            child_start: c.child_start,
            children: c.children,
        };
        Ok(Unchecked { d, t })
    }

    /// What the checks gather over the elements `range` of the columns of one element
    /// per object (the immediate dominators, the retained sizes and counts, the children
    /// starts: read together), on the thread pool by blocks of [`BLOCK`] (a piece of a
    /// few of them is what a reader hands over).
    pub fn piece(&self, g: &Graph, range: std::ops::Range<usize>) -> Fold {
        use rayon::prelude::*;
        let (d, t) = (&self.d, &self.t);
        let n = d.idom.len();
        let (starts, kids) = (&t.child_start[..], &t.children[..]);
        let blocks = range.start / BLOCK..range.end.div_ceil(BLOCK);
        blocks
            .into_par_iter()
            .map(|b| {
                let r = (b * BLOCK).max(range.start)..((b + 1) * BLOCK).min(range.end);
                let mut f = Fold::default();
                // The lists of the slots here (every object, then the virtual root):
                // starts ascending, every child an object; their (child, parent) pairs
                // summed.
                let slots = r.start..r.end.min(n + 1);
                if !slots.is_empty() {
                    let s = &starts[slots.start..slots.end + 1];
                    (f.descends, f.max_child, f.lists) = wide::lists(slots.start, s, kids);
                }
                // The objects here: every immediate dominator in range; sizes where
                // reached (at least the object's own, itself among what it retains: a
                // shallow size kept aside counts as the column's escape value here, and
                // is checked in the verdict), none where not; their (object, immediate
                // dominator) pairs summed, the objects reached counted.
                let objs = r.start..r.end.min(n);
                if !objs.is_empty() {
                    let (idom, ret) = (&d.idom[objs.clone()], &d.retained[objs.clone()]);
                    (f.bad, f.reached, f.dominators) = match &g.shallow {
                        CompactColumn::Narrow(c) => {
                            wide::objects(objs.start, n, idom, ret, &c[objs])
                        }
                        CompactColumn::Wide(c) => wide::objects(objs.start, n, idom, ret, &c[objs]),
                    };
                }
                f
            })
            .reduce(Fold::default, Fold::join)
    }

    /// The tree, once what [`Unchecked::piece`] gathered over all its elements passes
    /// the checks of the module doc against `g`; else the error says which failed.
    pub fn checked(self, g: &Graph, fold: Fold) -> Result<Dominators, &'static str> {
        let Unchecked { d, t } = self;
        verdict(&d, &t, g, fold)?;
        let _ = d.tree.set(t);
        Ok(d)
    }
}

/// What the checks gather over a piece of a kept tree ([`Unchecked::piece`]).
#[derive(Default, Clone, Copy, Debug)]
pub struct Fold {
    /// Children starts that descend, or lists past the children's end.
    descends: bool,
    max_child: u32,
    /// The sum of the lists' (child, parent) pairs.
    lists: u32,
    /// An immediate dominator out of range, or sizes that cannot be.
    bad: bool,
    reached: u64,
    /// The sum of the (object, immediate dominator) pairs.
    dominators: u32,
}

impl Fold {
    pub fn join(a: Fold, b: Fold) -> Fold {
        Fold {
            descends: a.descends | b.descends,
            max_child: a.max_child.max(b.max_child),
            lists: a.lists.wrapping_add(b.lists),
            bad: a.bad | b.bad,
            reached: a.reached + b.reached,
            dominators: a.dominators.wrapping_add(b.dominators),
        }
    }
}

/// One (child, parent) pair of the tree, mixed: the pairs of the children lists and
/// those of the immediate dominators are summed apart, and the sums compared. The
/// virtual root is slot `n` on both sides.
/// In 32-bit lanes, so that the loops that sum them vectorise.
#[inline(always)]
fn pair(child: ObjId, parent: u32) -> u32 {
    let h = child.wrapping_mul(0x85eb_ca6b)
        ^ parent.wrapping_mul(0xc2b2_ae35).wrapping_add(0x27d4_eb2f);
    let h = (h ^ (h >> 15)).wrapping_mul(0x2c1b_3c6d);
    h ^ (h >> 13)
}

/// The objects' part of the checks, over a block of objects from `first`: whether one
/// fails, how many are reached, and the sum of their (object, immediate dominator) pairs.
#[inline(always)]
fn objects<S: Copy + Into<u32>>(
    first: usize,
    n: usize,
    idom: &[u32],
    retained: &[u32],
    shallow: &[S],
) -> (bool, u64, u32) {
    let len = idom.len().min(retained.len()).min(shallow.len());
    let (idom, retained, shallow) = (&idom[..len], &retained[..len], &shallow[..len]);
    let (n, first) = (n as u32, first as u32);
    let (mut bad, mut reached, mut sum) = (0u32, 0u32, 0u32);
    for k in 0..len {
        let (i, r, s) = (idom[k], retained[k], shallow[k].into());
        let reach = (i != NONE) as u32;
        let root = i == VIRTUAL_ROOT;
        let parent = if root { n } else { i };
        bad |= (reach ^ 1) & (r != 0) as u32;
        bad |= reach & (i >= n && !root) as u32;
        bad |= reach & (r < s) as u32;
        reached += reach;
        sum = sum.wrapping_add(pair(first + k as u32, parent) & reach.wrapping_neg());
    }
    (bad != 0, reached as u64, sum)
}

/// The lists' part of the checks, over the slots `first..` whose starts are `s` (one
/// more than the slots: the last list's end), the children `kids`: whether the starts
/// fail to ascend within `kids`, the largest child, and the sum of the (child, parent)
/// pairs. The lists lie side by side; each child's parent is found from where the lists
/// end (the last slot ending at each place, then a running maximum), not by a loop per
/// list, whose lengths (mostly 0, 1 or 2) would defeat the branch predictor; by runs of
/// `RUN` places, so that the scratch space stays small whatever the lists' lengths (one
/// as long as the lists of a block was a fresh mapping for a list of millions, whose
/// zeroed pages cost 37 ms of a reopen).
#[inline(always)]
fn lists(first: usize, s: &[u32], kids: &[u32]) -> (bool, u32, u32) {
    const RUN: usize = 4096;
    let len = s.len() - 1;
    let descends = s[..len]
        .iter()
        .zip(&s[1..])
        .fold(false, |bad, (a, b)| bad | (a > b));
    let (base, end) = (s[0] as usize, s[len] as usize);
    if descends || end > kids.len() {
        return (true, 0, 0);
    }
    let mut ends = [0u32; RUN];
    let (mut sum, mut max) = (0u32, 0u32);
    let mut parent = first as u32;
    // The next slot whose end is to be placed: slot `first + k` ends at `s[k + 1]`.
    let mut k = 0;
    let mut at = base;
    while at < end {
        let to = (at + RUN).min(end);
        let run = &mut ends[..to - at];
        run.fill(0);
        // Each place holds the last slot ending there, plus one: the parent of the
        // children from there on.
        while k < len && (s[k + 1] as usize) < to {
            run[s[k + 1] as usize - at] = (first + k + 1) as u32;
            k += 1;
        }
        for e in run.iter_mut() {
            parent = parent.max(*e);
            *e = parent;
        }
        let list = &kids[at..to];
        for j in 0..list.len() {
            max = max.max(list[j]);
            sum = sum.wrapping_add(pair(list[j], run[j]));
        }
        at = to;
    }
    (false, max, sum)
}

/// [`lists`] and [`objects`] compiled for AVX2 where the processor has it: the loops
/// vectorise twice as wide (50 M objects: 65 ms against 135 ms for the objects' part,
/// 85 against 110 for the lists', on one core). Elsewhere, and on other processors,
/// the same functions as they are.
mod wide {
    use crate::sys::simd::with_avx2;

    pub(super) fn lists(first: usize, s: &[u32], kids: &[u32]) -> (bool, u32, u32) {
        with_avx2(|| super::lists(first, s, kids))
    }

    pub(super) fn objects<S: Copy + Into<u32>>(
        first: usize,
        n: usize,
        idom: &[u32],
        retained: &[u32],
        shallow: &[S],
    ) -> (bool, u64, u32) {
        with_avx2(|| super::objects(first, n, idom, retained, shallow))
    }
}

/// Blocks of objects (and slots) the checks take at a time.
const BLOCK: usize = 1 << 14;

/// The checks of the module doc, given what [`Unchecked::piece`] gathered over every
/// object and slot. Each column is read once, in order, on every core, without a branch
/// per object: a check that followed every child to its sizes (a random load per
/// object) cost 0.5 s on 50 M objects, more than reading the tree.
fn verdict(d: &Dominators, t: &Tree, g: &Graph, f: Fold) -> Result<(), &'static str> {
    let n = d.idom.len();
    let (starts, kids) = (&t.child_start[..], &t.children[..]);
    if starts[0] != 0 || starts[n + 1] as usize != kids.len() || starts[n + 2] != starts[n + 1] {
        return Err("inconsistent tree lists");
    }
    if f.descends {
        return Err("inconsistent tree lists");
    }
    if !kids.is_empty() && f.max_child as usize >= n {
        return Err("a tree child of no object");
    }
    let big_ok = g
        .big_sizes
        .iter()
        .all(|&(o, s)| d.retained(o).is_none_or(|r| r >= s));
    if f.bad || !big_ok {
        return Err("an immediate dominator out of range, or sizes that cannot be");
    }
    let reached = f.reached;
    if reached != kids.len() as u64
        || reached != d.reach.reachable + d.reach.weakly_reachable + d.reach.orphans
        || n as u64 - reached != d.class_unreachable.get().map_or(0, |u| u.iter().sum())
    {
        return Err("tree counts that do not add up");
    }
    if f.lists != f.dominators {
        return Err("tree lists that are not the immediate dominators'");
    }
    // What the virtual root retains: everything reached.
    let top = &kids[starts[n] as usize..starts[n + 1] as usize];
    if top.iter().map(|&c| d.size(c)).sum::<u64>() != d.total_bytes() {
        return Err("retained sizes that do not add up");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::{ClassInfo, Referrers, Root, RootKind};

    /// Four objects: a root 0 → 1 → 2, and 3 that nothing reaches.
    fn graph() -> Graph {
        Graph {
            class_of: vec![0, 0, 0, 0].into(),
            shallow: vec![8, 16, 24, 32].into(),
            offset: vec![0, 10, 20, 30].into(),
            out_start: vec![0, 1, 2, 2, 2].into(),
            out_targets: vec![1, 2].into(),
            weak: vec![0].into(),
            referrer_index: Referrers {
                in_start: vec![0, 0, 1, 2, 2].into(),
                in_sources: vec![0, 1].into(),
                in_weak: Default::default(),
            }
            .into(),
            classes: vec![ClassInfo { name: "A".into() }],
            roots: vec![Root {
                obj: 0,
                kind: RootKind::Unknown,
                thread: u32::MAX,
                frame: u32::MAX,
            }],
            ..Graph::default()
        }
    }

    fn columns(p: &Parts) -> Columns {
        Columns {
            idom: p.idom.to_vec().into(),
            retained: p.retained.to_vec().into(),
            retained_count: p.retained_count.to_vec().into(),
            weak_only: p.weak_only.to_vec().into(),
            child_start: p.child_start.to_vec().into(),
            children: p.children.to_vec().into(),
        }
    }

    #[test]
    fn a_kept_tree_reads_back_the_same_and_each_broken_invariant_is_caught() {
        let g = graph();
        let d = super::super::compute(&g, &crate::sys::progress::Progress::new());
        let (f, p) = d.stored(&g);
        let back = Dominators::from_stored(f.clone(), columns(&p), &g).unwrap();
        for o in 0..4 {
            assert_eq!(back.idom(o), d.idom(o));
            assert_eq!(back.retained(o), d.retained(o));
            assert_eq!(back.retained_count(o), d.retained_count(o));
            assert_eq!(back.children(o), d.children(o));
        }
        assert_eq!(back.children(VIRTUAL_ROOT), &[0]);
        assert_eq!(back.class_retained(&g), vec![48]);
        assert_eq!(back.class_unreachable(&g), vec![1]);
        // Each check's message, and the ways of breaking a kept tree that it catches.
        type Break = fn(&mut Figures, &mut Columns);
        let cases: &[(&str, &[Break])] = &[
            (
                "tree columns of the wrong length",
                &[|_, c| c.idom.truncate(3), |f, _| f.objects = 5],
            ),
            (
                "per-class figures of the wrong length",
                &[|f, _| f.class_retained.push(0)],
            ),
            (
                "a large retained size of no object",
                &[|f, _| f.big_retained.push((1, 1 << 33))],
            ),
            (
                "inconsistent tree lists",
                &[|_, c| c.child_start[1] = 9, |_, c| c.child_start[6] = 2],
            ),
            ("a tree child of no object", &[|_, c| c.children[0] = 4]),
            (
                "an immediate dominator out of range, or sizes that cannot be",
                &[
                    |_, c| c.idom[2] = 7,
                    |_, c| c.idom[2] = 4,
                    |_, c| c.retained[3] = 1,
                    |_, c| c.retained[2] = 16,
                ],
            ),
            (
                "tree counts that do not add up",
                &[
                    |f, _| f.reach.reachable += 1,
                    |f, _| f.class_unreachable[0] = 0,
                ],
            ),
            (
                "tree lists that are not the immediate dominators'",
                &[|_, c| c.idom[2] = 0],
            ),
            (
                "retained sizes that do not add up",
                &[|f, _| f.reach.reachable_bytes += 1],
            ),
        ];
        for &(want, breaks) in cases {
            for break_it in breaks {
                let (mut f, p) = d.stored(&g);
                let mut c = columns(&p);
                break_it(&mut f, &mut c);
                assert_eq!(
                    Dominators::from_stored(f, c, &g).map(|_| ()),
                    Err(want),
                    "{want}"
                );
            }
        }
    }

    #[test]
    fn the_lists_pairs_are_those_of_a_loop_per_list() {
        // Lists of lengths 0 to 3, and two longer than a run of places (one of them
        // across two runs' end), from slot 5.
        let lens: Vec<usize> = (0..3000)
            .map(|i| match i {
                700 => 9000,
                1500 => 4096,
                _ => i % 4,
            })
            .collect();
        let mut s = vec![0u32];
        for l in &lens {
            s.push(s.last().unwrap() + *l as u32);
        }
        let kids: Vec<u32> = (0..*s.last().unwrap())
            .map(|i| i.wrapping_mul(2_654_435_761) % 50_000)
            .collect();
        let naive = |from: usize| {
            let (mut sum, mut max) = (0u32, 0u32);
            for (k, w) in s[from..].windows(2).enumerate() {
                for &c in &kids[w[0] as usize..w[1] as usize] {
                    sum = sum.wrapping_add(pair(c, (from + k) as u32));
                    max = max.max(c);
                }
            }
            (false, max, sum)
        };
        assert_eq!(lists(0, &s, &kids), naive(0));
        assert_eq!(wide::lists(0, &s, &kids), naive(0));
        // From the middle of the lists (a block's slots).
        assert_eq!(lists(1000, &s[1000..], &kids), naive(1000));
        // Starts that descend, lists past the children's end.
        let mut down = s.clone();
        down[10] = down[9] - 1;
        assert!(lists(0, &down, &kids).0);
        assert!(lists(0, &s, &kids[..kids.len() - 1]).0);
    }

    #[test]
    fn a_child_moved_to_another_list_is_caught() {
        // A root with two children: 0 → 1, 0 → 2; then 2 listed below 1 instead.
        let mut g = graph();
        g.out_start = vec![0, 2, 2, 2, 2].into();
        g.referrer_index = Referrers {
            in_start: vec![0, 0, 1, 2, 2].into(),
            in_sources: vec![0, 0].into(),
            in_weak: Default::default(),
        }
        .into();
        let d = super::super::compute(&g, &crate::sys::progress::Progress::new());
        assert_eq!(d.children(0), &[2, 1]);
        let (f, p) = d.stored(&g);
        let mut c = columns(&p);
        // Slot 0's list [2, 1] split in two: [2] for slot 0, [1] for slot 1 (1 below
        // itself).
        c.child_start[1] = 1;
        assert_eq!(
            Dominators::from_stored(f, c, &g).map(|_| ()),
            Err("tree lists that are not the immediate dominators'")
        );
    }
}
