//! The shortest paths of every instance of a class from the GC roots, merged into one
//! tree of objects (MAT's "merge shortest paths to GC roots" of a whole class), read from
//! the depths ([`super::depth`]) without a search of the graph.
//!
//! The tree is built level by level from the instances furthest from the roots up: each
//! object at depth `d` on a path takes as its holder one of its referrers at depth
//! `d - 1` over strong references (the first in the referrer index: the only one where
//! it has one), and the holders of one level, with the instances at that depth, make
//! the level above, each object once. Every instance is counted, and each object on the
//! tree knows how many instances lie below it: the 5.5 M sessions of the 50 M-object
//! bench dump make 11 M objects on two levels.
//!
//! The tree holds no names: the caller groups the objects of one level by their holder's
//! group, class and reference name (see `ui::panes::merged`).

use rayon::prelude::*;

use super::depth::FAR;
use super::{Graph, ObjId};

/// No holder: a level-0 object (a root).
pub const TOP: u32 = u32::MAX;

/// The objects at one depth on the merged paths.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Level {
    /// The objects, by id.
    pub objs: Vec<ObjId>,
    /// Each one's holder on its path: its place in the level above ([`TOP`] on level 0).
    pub up: Vec<u32>,
    /// How many instances the path of which goes through it (itself included); empty
    /// where that is one each (a level of instances, or of their holders one each):
    /// [`Level::count_of`].
    pub count: Vec<u32>,
}

impl Level {
    /// How many instances the path of which goes through the object at place `i`.
    pub fn count_of(&self, i: usize) -> u32 {
        self.count.get(i).copied().unwrap_or(1)
    }
}

/// The merged paths of a class's instances: the levels from the roots (level 0) down.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Merged {
    pub levels: Vec<Level>,
    /// The instances of the class (of those marked).
    pub instances: usize,
    /// How many of them lie on the tree (the others no root reaches).
    pub merged: usize,
}

/// The merged paths of all instances of `class` (those marked in `only`). `None` where
/// an instance is [`FAR`] from the roots (the caller searches instead), where the depths
/// are not this graph's, or once `stop` says so.
///
/// The tree holds counts, not bytes: the retained bytes below a row of the caller's are
/// its own instances' and its rows' below, added up over the rows (a few), not the
/// objects (millions). Every array it makes is touched once, by one pass: on the bench
/// machine first touch of fresh memory runs at 0.35–2.9 GB/s, and in the TUI, where the
/// build's freed pages have gone back to the kernel, clearing fresh pages took 79 % of the
/// time of the 5.5 M sessions' merged paths when the tree carried bytes per object and
/// the places in order of holder.
pub fn merge_all(
    g: &Graph,
    depth: &[u8],
    class: u32,
    only: Option<&[bool]>,
    stop: impl Fn() -> bool,
) -> Option<Merged> {
    let chunks = match &g.class_of {
        super::column::CompactColumn::Narrow(c) => {
            super::depth::scan(c, depth, class, only, usize::MAX)
        }
        super::column::CompactColumn::Wide(c) => {
            super::depth::scan(c, depth, class, only, usize::MAX)
        }
    };
    let instances: usize = chunks.iter().map(|c| c.0).sum();
    // The instances at depth `d`, copied on every core (each core faults in its part of
    // the fresh block).
    let at = |d: usize| -> Vec<ObjId> {
        let mut v = vec![0 as ObjId; chunks.iter().map(|c| c.1[d].len()).sum()];
        let mut parts = Vec::with_capacity(chunks.len());
        let mut rest = &mut v[..];
        for c in &chunks {
            let (part, more) = rest.split_at_mut(c.1[d].len());
            parts.push((part, &c.1[d]));
            rest = more;
        }
        parts
            .into_par_iter()
            .for_each(|(part, from)| part.copy_from_slice(from));
        v
    };
    if chunks.iter().any(|c| !c.1[FAR as usize].is_empty()) {
        return None;
    }
    let Some(deepest) = (0..FAR as usize)
        .rev()
        .find(|&d| chunks.iter().any(|c| !c.1[d].is_empty()))
    else {
        return Some(Merged {
            levels: Vec::new(),
            instances,
            merged: 0,
        });
    };
    let merged = (0..=deepest)
        .map(|d| chunks.iter().map(|c| c.1[d].len()).sum::<usize>())
        .sum();
    let refs = g.referrer_index();
    // The holder of `x` at depth `d`: a strong referrer at `d - 1`.
    let holder = |x: ObjId, d: u8| -> ObjId {
        let r = refs.range(x);
        if r.len() == 1 && !refs.is_weak(r.start) {
            return refs.in_sources[r.start];
        }
        r.into_iter()
            .find_map(|i| {
                let s = refs.in_sources[i];
                (!refs.is_weak(i) && depth.get(s as usize) == Some(&(d - 1))).then_some(s)
            })
            .unwrap_or(ObjId::MAX)
    };
    let mut objs = at(deepest);
    // One each (empty: see `Level::count`).
    let mut count: Vec<u32> = Vec::new();
    let mut below: Vec<Level> = Vec::with_capacity(deepest + 1);
    for d in (1..=deepest).rev() {
        if stop() {
            return None;
        }
        // Each object's holder, then (in place) the holder's place in the level above.
        let mut up: Vec<u32> = objs.par_iter().map(|&x| holder(x, d as u8)).collect();
        if up.par_iter().any(|&h| h == ObjId::MAX) {
            // Not the depths of this graph: no tree rather than a wrong one.
            return None;
        }
        // The level above: the holders and the instances at that depth, each once, in
        // order of id.
        let inst = at(d - 1);
        let set = IdSet::of(&up, &inst);
        let next = set.ids();
        up.par_iter_mut().for_each(|h| *h = set.rank(*h));
        let ncount = if count.is_empty() && inst.is_empty() && next.len() == up.len() {
            // Each holder holds one object that lies on one path: one each.
            Vec::new()
        } else {
            let mut ncount = vec![0u32; next.len()];
            // Faulted in on every core before the one-core pass below.
            ncount.par_chunks_mut(1 << 16).for_each(|c| c.fill(0));
            for &o in &inst {
                ncount[set.rank(o) as usize] = 1;
            }
            for (i, &u) in up.iter().enumerate() {
                let (u, c) = (u as usize, count.get(i).copied().unwrap_or(1));
                ncount[u] = ncount[u].saturating_add(c);
            }
            ncount
        };
        below.push(Level {
            objs: std::mem::replace(&mut objs, next),
            up,
            count: std::mem::replace(&mut count, ncount),
        });
    }
    below.push(Level {
        up: vec![TOP; objs.len()],
        objs,
        count,
    });
    below.reverse();
    Some(Merged {
        levels: below,
        instances,
        merged,
    })
}

/// A set of object ids as bits over the span they cover, with each word's count of the
/// bits before it: the level above in order of id, and each holder's place in it, without
/// a sort (a radix sort of the 5.5 M sessions' holders of the 50 M-object bench dump by
/// holder took 48 ms of the 150; the set takes a sixth of that).
struct IdSet {
    /// The first word's number (id / 64).
    base: usize,
    words: Vec<u64>,
    /// The bits set in the words before each.
    ranks: Vec<u32>,
}

impl IdSet {
    fn of(a: &[ObjId], b: &[ObjId]) -> IdSet {
        let span = |v: &[ObjId]| {
            v.par_iter()
                .fold(|| (ObjId::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)))
                .reduce(|| (ObjId::MAX, 0), |x, y| (x.0.min(y.0), x.1.max(y.1)))
        };
        let ((alo, ahi), (blo, bhi)) = (span(a), span(b));
        let (lo, hi) = (alo.min(blo), ahi.max(bhi));
        if lo > hi {
            return IdSet {
                base: 0,
                words: Vec::new(),
                ranks: Vec::new(),
            };
        }
        let base = lo as usize / 64;
        let mut words = vec![0u64; hi as usize / 64 - base + 1];
        for &x in a.iter().chain(b) {
            words[x as usize / 64 - base] |= 1 << (x % 64);
        }
        let mut ranks = Vec::with_capacity(words.len());
        let mut sum = 0u32;
        for w in &words {
            ranks.push(sum);
            sum += w.count_ones();
        }
        IdSet { base, words, ranks }
    }

    /// How many ids the set holds.
    fn len(&self) -> usize {
        match (self.ranks.last(), self.words.last()) {
            (Some(&r), Some(w)) => r as usize + w.count_ones() as usize,
            _ => 0,
        }
    }

    /// The place of `x` (one of the set's) among the set's ids.
    fn rank(&self, x: ObjId) -> u32 {
        let w = x as usize / 64 - self.base;
        self.ranks[w] + (self.words[w] & ((1u64 << (x % 64)) - 1)).count_ones()
    }

    /// The ids, in order.
    fn ids(&self) -> Vec<ObjId> {
        const WORDS: usize = 1 << 12;
        let mut out = vec![0 as ObjId; self.len()];
        let mut parts = Vec::new();
        let mut rest = &mut out[..];
        for (c, words) in self.words.chunks(WORDS).enumerate() {
            let n: u32 = words.iter().map(|w| w.count_ones()).sum();
            let (part, more) = rest.split_at_mut(n as usize);
            rest = more;
            parts.push((c * WORDS, words, part));
        }
        parts.into_par_iter().for_each(|(first, words, part)| {
            let mut at = 0;
            for (i, &w) in words.iter().enumerate() {
                let mut w = w;
                let from = ((self.base + first + i) * 64) as ObjId;
                while w != 0 {
                    part[at] = from + w.trailing_zeros();
                    at += 1;
                    w &= w - 1;
                }
            }
        });
        out
    }
}

/// The same tree from paths found otherwise (each root first, its instance last; the
/// search from the roots where the depths cannot tell): the objects of each level in the
/// order met.
pub fn from_paths(paths: &[Vec<ObjId>]) -> Vec<Level> {
    let mut levels: Vec<Level> = Vec::new();
    let mut index: std::collections::HashMap<(usize, u32, ObjId), u32> = Default::default();
    for p in paths {
        let mut up = TOP;
        for (d, &x) in p.iter().enumerate() {
            if levels.len() <= d {
                levels.push(Level::default());
            }
            let l = &mut levels[d];
            let place = *index.entry((d, up, x)).or_insert_with(|| {
                l.objs.push(x);
                l.up.push(up);
                l.count.push(0);
                l.objs.len() as u32 - 1
            });
            l.count[place as usize] += 1;
            up = place;
        }
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_set_is_the_sorted_ids_with_their_places() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for objects in [1u64, 100, 8_192, 50_000_000, u32::MAX as u64 - 1] {
            let mut draw = |n: usize| -> Vec<ObjId> {
                (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x % objects) as ObjId
                    })
                    .collect()
            };
            let (a, b) = (draw(20_000), draw(300));
            let set = IdSet::of(&a, &b);
            let mut want: Vec<ObjId> = a.iter().chain(&b).copied().collect();
            want.sort();
            want.dedup();
            assert_eq!(set.ids(), want, "{objects}");
            for &v in a.iter().chain(&b) {
                assert_eq!(want[set.rank(v) as usize], v);
            }
        }
        assert_eq!(IdSet::of(&[], &[]).ids(), Vec::<ObjId>::new());
        assert_eq!(IdSet::of(&[7, 7, 3], &[]).ids(), vec![3, 7]);
    }
    use crate::heap::depth::{depths, nearest_paths};

    /// On 300,000 objects with pseudo-random references: every instance counted once on
    /// the tree, each object's count the instances below it, each level's objects at that
    /// depth and held by one in the level above, and the tree the one the paths read
    /// back one by one make.
    #[test]
    fn every_instance_lies_once_on_a_tree_of_shortest_paths() {
        let n = 300_000u32;
        let classes: Vec<u32> = (0..n).map(|o| (o % 13 == 0) as u32).collect();
        let g = Graph::random_for_tests(n, 0x2545_f491_4f6c_dd1d, &classes);
        let d = depths(&g, || false).unwrap();
        let m = merge_all(&g, &d, 1, None, || false).unwrap();
        let wanted = (0..n).filter(|o| o % 13 == 0).count();
        assert_eq!(m.instances, wanted);
        let reached = (0..n)
            .filter(|&o| o % 13 == 0 && d[o as usize] != crate::heap::depth::UNREACHED)
            .count();
        assert_eq!(m.merged, reached);
        let top: u64 = (0..m.levels[0].objs.len())
            .map(|i| m.levels[0].count_of(i) as u64)
            .sum();
        assert_eq!(top as usize, reached);
        let strong = |a: u32, b: u32| g.edges(a).any(|e| g.out_targets[e] == b && !g.is_weak(e));
        for (k, l) in m.levels.iter().enumerate() {
            assert!(l.objs.windows(2).all(|w| w[0] < w[1]));
            for (i, &x) in l.objs.iter().enumerate() {
                assert_eq!(d[x as usize] as usize, k);
                if k > 0 {
                    let h = m.levels[k - 1].objs[l.up[i] as usize];
                    assert!(strong(h, x));
                }
            }
            // Counts add up level by level.
            if k + 1 < m.levels.len() {
                let mut sum = vec![0u64; l.objs.len()];
                let next = &m.levels[k + 1];
                for (i, &u) in next.up.iter().enumerate() {
                    sum[u as usize] += next.count_of(i) as u64;
                }
                for (i, &x) in l.objs.iter().enumerate() {
                    let own = (x % 13 == 0) as u64;
                    assert_eq!(l.count_of(i) as u64, sum[i] + own);
                }
            }
        }
        // The same objects as the paths read back one by one.
        let (_, paths) = nearest_paths(&g, &d, 1, None, usize::MAX).unwrap();
        let by_paths = from_paths(&paths);
        for (a, b) in m.levels.iter().zip(&by_paths) {
            let mut x = b.objs.clone();
            x.sort();
            assert_eq!(a.objs, x);
        }
        // None past the depths' reach.
        let edges: Vec<(u32, u32, bool)> = (0..299).map(|o| (o, o + 1, false)).collect();
        let mut classes = vec![0u32; 300];
        classes[299] = 1;
        let g = Graph::from_edge_list(&[8; 300], &classes, &edges, &[0]);
        let d = depths(&g, || false).unwrap();
        assert_eq!(merge_all(&g, &d, 1, None, || false), None);
    }
}
