//! The shortest paths of every instance of a class from the GC roots, merged into one
//! tree of objects (MAT's "merge shortest paths to GC roots" of a whole class), read from
//! the depths ([`super::depth`]) without a search of the graph.
//!
//! The tree is built level by level from the instances furthest from the roots up: each
//! object at depth `d` on a path takes as its holder one of its referrers at depth
//! `d - 1` over strong references (the first in the referrer index: the only one where
//! it has one), and the holders of one level, with the instances at that depth, make
//! the level above, each object once. Every instance is counted, and each object on the
//! tree knows how many instances lie below it and their retained bytes: the 5.5 M
//! sessions of the 50 M-object bench dump make 11 M objects on two levels.
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
    /// How many instances the path of which goes through it (itself included).
    pub count: Vec<u32>,
    /// Their retained bytes.
    pub bytes: Vec<u64>,
    /// Their places in order of their holders' (empty: in their own order), for a pass
    /// over them that reads their holders' references in order.
    pub by_up: Vec<u32>,
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

/// The merged paths of all instances of `class` (those marked in `only`), with the
/// retained bytes of each instance from `retained`. `None` where an instance is [`FAR`]
/// from the roots (the caller searches instead), where the depths are not this graph's,
/// or once `stop` says so.
pub fn merge_all(
    g: &Graph,
    depth: &[u8],
    class: u32,
    only: Option<&[bool]>,
    retained: impl Fn(ObjId) -> u64 + Sync,
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
    let at = |d: usize| -> Vec<ObjId> {
        let mut v = Vec::with_capacity(chunks.iter().map(|c| c.1[d].len()).sum());
        for c in &chunks {
            v.extend_from_slice(&c.1[d]);
        }
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
    let mut count = vec![1u32; objs.len()];
    let mut bytes: Vec<u64> = objs.par_iter().map(|&o| retained(o)).collect();
    let mut below: Vec<Level> = Vec::with_capacity(deepest + 1);
    for d in (1..=deepest).rev() {
        if stop() {
            return None;
        }
        // Each object's holder with its place, by holder.
        let mut keyed: Vec<u64> = objs
            .par_iter()
            .enumerate()
            .map(|(i, &x)| (holder(x, d as u8) as u64) << 32 | i as u64)
            .collect();
        if !keyed.windows(2).all(|w| w[0] <= w[1]) {
            radix_by_holder(&mut keyed, g.len());
        }
        if keyed.last().is_some_and(|&k| k >> 32 == ObjId::MAX as u64) {
            // Not the depths of this graph: no tree rather than a wrong one.
            return None;
        }
        let inst = at(d - 1);
        let mut up = vec![TOP; objs.len()];
        let n = keyed.len() + inst.len();
        let (mut next, mut ncount, mut nbytes) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut k, mut j) = (0usize, 0usize);
        while k < keyed.len() || j < inst.len() {
            let from_keyed = keyed.get(k).map(|&x| (x >> 32) as ObjId);
            let o = match (from_keyed, inst.get(j)) {
                (Some(a), Some(&b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => break,
            };
            let place = next.len() as u32;
            next.push(o);
            let (mut c, mut b) = (0u32, 0u64);
            if inst.get(j) == Some(&o) {
                j += 1;
                c = 1;
                b = retained(o);
            }
            while k < keyed.len() && (keyed[k] >> 32) as ObjId == o {
                let i = keyed[k] as u32 as usize;
                up[i] = place;
                c = c.saturating_add(count[i]);
                b += bytes[i];
                k += 1;
            }
            ncount.push(c);
            nbytes.push(b);
        }
        below.push(Level {
            by_up: keyed.iter().map(|&k| k as u32).collect(),
            objs: std::mem::replace(&mut objs, next),
            up,
            count: std::mem::replace(&mut count, ncount),
            bytes: std::mem::replace(&mut bytes, nbytes),
        });
    }
    below.push(Level {
        up: vec![TOP; objs.len()],
        objs,
        count,
        bytes,
        by_up: Vec::new(),
    });
    below.reverse();
    Some(Merged {
        levels: below,
        instances,
        merged,
    })
}

/// `keyed` (holder << 32 | place) in order of holder, each holder's in order of place as
/// they came (the places come in order): a least-significant-digit radix sort on the
/// holder's bits in passes of 13 (8,192 counters, in the first cache), two for 50 M
/// objects. The 5.5 M sessions' holders of the 50 M-object bench dump took 88 ms to sort
/// by comparison on two loaded cores.
fn radix_by_holder(keyed: &mut Vec<u64>, objects: usize) {
    const BITS: u32 = 13;
    let need = usize::BITS - objects.max(2).leading_zeros();
    let mut from = std::mem::take(keyed);
    let mut to = vec![0u64; from.len()];
    let mut shift = 32;
    while shift < 32 + need {
        let mask = (1u64 << BITS) - 1;
        let digit = |k: u64| ((k >> shift) & mask) as usize;
        let mut at = vec![0usize; 1 << BITS];
        for &k in &from {
            at[digit(k)] += 1;
        }
        let mut sum = 0;
        for c in at.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &k in &from {
            let d = digit(k);
            to[at[d]] = k;
            at[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        shift += BITS;
    }
    *keyed = from;
}

/// The same tree from paths found otherwise (each root first, its instance last; the
/// search from the roots where the depths cannot tell): the objects of each level in the
/// order met.
pub fn from_paths(paths: &[Vec<ObjId>], retained: impl Fn(ObjId) -> u64) -> Vec<Level> {
    let mut levels: Vec<Level> = Vec::new();
    let mut index: std::collections::HashMap<(usize, u32, ObjId), u32> = Default::default();
    for p in paths {
        let Some(&last) = p.last() else {
            continue;
        };
        let r = retained(last);
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
                l.bytes.push(0);
                l.objs.len() as u32 - 1
            });
            l.count[place as usize] += 1;
            l.bytes[place as usize] += r;
            up = place;
        }
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_sort_is_the_sort() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for objects in [1usize, 100, 8_192, 50_000_000, u32::MAX as usize] {
            let mut keyed: Vec<u64> = (0..20_000u64)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % objects as u64) << 32 | i
                })
                .collect();
            let mut want = keyed.clone();
            want.sort();
            radix_by_holder(&mut keyed, objects);
            assert_eq!(keyed, want, "{objects}");
        }
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
        let m = merge_all(&g, &d, 1, None, |o| o as u64, || false).unwrap();
        let wanted = (0..n).filter(|o| o % 13 == 0).count();
        assert_eq!(m.instances, wanted);
        let reached = (0..n)
            .filter(|&o| o % 13 == 0 && d[o as usize] != crate::heap::depth::UNREACHED)
            .count();
        assert_eq!(m.merged, reached);
        let top: u64 = m.levels[0].count.iter().map(|&c| c as u64).sum();
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
                    sum[u as usize] += next.count[i] as u64;
                }
                for (i, &x) in l.objs.iter().enumerate() {
                    let own = (x % 13 == 0) as u64;
                    assert_eq!(l.count[i] as u64, sum[i] + own);
                }
            }
        }
        // The same objects as the paths read back one by one.
        let (_, paths) = nearest_paths(&g, &d, 1, None, usize::MAX).unwrap();
        let by_paths = from_paths(&paths, |o| o as u64);
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
        assert_eq!(merge_all(&g, &d, 1, None, |_| 0, || false), None);
    }
}
