//! Building the index: dense ids from sparse addresses, the edge CSR and its transpose.
//!
//! Formats whose objects are named by sparse addresses (HPROF, Go) collect each object's
//! address and record offset in one pass, then sort by address: the rank of an address is
//! its dense id, so ids follow heap order, which is also file order for HotSpot and so
//! keeps the later passes sequential. [`AddrIndex`] answers address → id in O(1) expected
//! with a block table over the sorted addresses (one table slot per 2^shift bytes of the
//! address span, the shift chosen so that the table has at most about two slots per
//! object), falling back to a binary search inside a block. The road not taken: a hash
//! map costs ~16–24 bytes per object and a cache miss per probe as well; a plain binary
//! search costs ~25 dependent misses per reference on a large heap.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Graph, ObjId};

/// A multiplicative hasher for u64 keys (class ids, string ids): these are addresses, so
/// SipHash's protection buys nothing and costs a lot on the per-object hot path.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e3779b97f4a7c15);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (i ^ (i >> 29)).wrapping_mul(0x9e3779b97f4a7c15);
    }
}

/// A hash map keyed by ids or addresses, with [`IdHasher`].
pub type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// Sorted addresses with a block table for fast lookup. Lives only while the index is
/// being built.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct AddrIndex {
    addrs: Vec<u64>,
    min: u64,
    shift: u32,
    /// `table[b]` = first index whose address falls in block `b` or later.
    table: Vec<u32>,
}

impl AddrIndex {
    /// `addrs` must be sorted ascending and free of duplicates.
    pub fn new(addrs: Vec<u64>) -> Self {
        let n = addrs.len();
        if n == 0 {
            return AddrIndex {
                addrs,
                min: 0,
                shift: 0,
                table: vec![0, 0],
            };
        }
        let min = addrs[0];
        let span = addrs[n - 1] - min;
        // About two addresses per block: the table costs 2 bytes per object (it was 8,
        // with a block per half object: 300 MB more to fault in on 50 M objects, for
        // lookups no faster, since both miss the cache once in the table and once in
        // `addrs`).
        let budget = (n as u64 / 2).max(1024);
        let mut shift = 3u32;
        while shift < 63 && (span >> shift) + 1 > budget {
            shift += 1;
        }
        let blocks = ((span >> shift) + 1) as usize;
        let mut table = Vec::with_capacity(blocks + 1);
        let mut i = 0usize;
        for b in 0..blocks as u64 {
            while i < n && (addrs[i] - min) >> shift < b {
                i += 1;
            }
            table.push(i as u32);
        }
        table.push(n as u32);
        AddrIndex {
            addrs,
            min,
            shift,
            table,
        }
    }

    #[inline]
    pub fn get(&self, addr: u64) -> Option<ObjId> {
        if addr < self.min {
            return None;
        }
        let b = ((addr - self.min) >> self.shift) as usize;
        // Not `b + 1 >= len`: an empty index has shift 0, so `u64::MAX` gives
        // `b == usize::MAX` and `b + 1` wrapped to 0 (hprof fuzzer; fuzz/README.md).
        if b >= self.table.len() - 1 {
            return None;
        }
        let lo = self.table[b] as usize;
        let hi = self.table[b + 1] as usize;
        let slice = &self.addrs[lo..hi];
        if slice.len() <= 8 {
            slice
                .iter()
                .position(|&a| a == addr)
                .map(|p| (lo + p) as ObjId)
        } else {
            slice.binary_search(&addr).ok().map(|p| (lo + p) as ObjId)
        }
    }

    /// The id of the greatest address at or below `addr` (for resolving pointers into
    /// the middle of an object by range).
    #[inline]
    pub fn floor(&self, addr: u64) -> Option<ObjId> {
        if addr < self.min || self.addrs.is_empty() {
            return None;
        }
        let b = ((addr - self.min) >> self.shift) as usize;
        if b >= self.table.len() - 1 {
            return Some((self.addrs.len() - 1) as ObjId);
        }
        let lo = self.table[b] as usize;
        let hi = self.table[b + 1] as usize;
        let k = self.addrs[lo..hi].partition_point(|&a| a <= addr);
        if k > 0 {
            Some((lo + k - 1) as ObjId)
        } else {
            lo.checked_sub(1).map(|i| i as ObjId)
        }
    }

    pub fn len(&self) -> usize {
        self.addrs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty()
    }

    pub fn addr(&self, id: ObjId) -> u64 {
        self.addrs[id as usize]
    }

    /// The sorted addresses.
    pub fn addrs(&self) -> &[u64] {
        &self.addrs
    }

    pub fn bytes(&self) -> usize {
        self.addrs.capacity() * 8 + self.table.capacity() * 4
    }
}

/// Collects outgoing edges object by object, in id order.
#[derive(Default)]
pub struct EdgeBuilder {
    pub start: Vec<u32>,
    pub targets: Vec<ObjId>,
    pub weak: Vec<u64>,
}

impl EdgeBuilder {
    pub fn with_capacity(objects: usize, edges: usize) -> Self {
        let mut start = crate::sys::huge::with_capacity(objects + 1);
        start.push(0);
        EdgeBuilder {
            start,
            targets: crate::sys::huge::with_capacity(edges),
            weak: Vec::new(),
        }
    }

    #[inline]
    pub fn push(&mut self, target: ObjId, weak: bool) {
        let e = self.targets.len();
        self.targets.push(target);
        if weak {
            let w = e / 64;
            if self.weak.len() <= w {
                self.weak.resize(w + 1, 0);
            }
            self.weak[w] |= 1 << (e % 64);
        }
    }

    /// Marks edge `e` (already pushed or about to be) as weak.
    #[inline]
    pub fn mark_weak(&mut self, e: usize) {
        let w = e / 64;
        if self.weak.len() <= w {
            self.weak.resize(w + 1, 0);
        }
        self.weak[w] |= 1 << (e % 64);
    }

    /// Closes the current object's edge list.
    #[inline]
    pub fn finish_object(&mut self) {
        // Edge counts beyond u32 are refused by the caller before they happen.
        self.start.push(self.targets.len() as u32);
    }

    /// Moves the edges into `g`. Its referrers are built from them when first asked for
    /// ([`Graph::referrer_index`]): the dominator pass builds them on a second core while
    /// its depth-first search runs, which needs only the references, and a histogram never
    /// waits for them.
    pub fn install(mut self, g: &mut Graph) {
        // Every reader has pushed its sizes by now: they go to two bytes each here, before
        // the referrers add to the peak.
        g.compact_sizes();
        let m = self.targets.len();
        self.weak.resize(m.div_ceil(64), 0);
        self.targets.shrink_to_fit();
        g.out_start = self.start.into();
        g.out_targets = self.targets.into();
        g.weak = self.weak.into();
        g.referrer_index = Default::default();
    }
}

impl super::Referrers {
    /// The referrer CSR of `g`'s references, by a counting sort.
    ///
    /// On up to four threads: the sources are cut into parts of about equal edge counts;
    /// each part counts its targets, and fills its own slots of every target's referrer
    /// list, after the slots of the parts before it. The lists come out in source order,
    /// exactly as one thread would write them. Costs 4 bytes per object per part while it
    /// runs.
    ///
    /// The parts run on threads of their own, not on rayon's pool: the build runs inside
    /// [`Graph::referrer_index`]'s once-cell, and a pool thread waiting at that cell (a
    /// view's parallel loop) must not be what the build waits for.
    pub fn build(g: &Graph) -> super::Referrers {
        Self::build_in(g, rayon::current_num_threads().clamp(1, 4))
    }

    /// [`Self::build`] in at most `parts` parts (on as many threads).
    pub fn build_in(g: &Graph, parts: usize) -> super::Referrers {
        use std::sync::atomic::{AtomicU64, Ordering};
        let start = &g.out_start;
        let (targets, weak): (&[ObjId], &[u64]) = (&g.out_targets, &g.weak);
        let n = start.len().saturating_sub(1);
        let m = targets.len();
        let parts = if m < (1 << 20) { 1 } else { parts.max(1) };
        // Source ranges of about m / parts edges each.
        let mut cut = vec![0usize];
        for p in 1..parts {
            let want = (m * p / parts) as u64;
            // The first source whose edges start at `want` or later.
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if (start.at(mid) as u64) < want {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            cut.push(lo.max(*cut.last().unwrap_or(&0)));
        }
        cut.push(n);
        let edges_of = |p: usize| start.at(cut[p]) as usize..start.at(cut[p + 1]) as usize;
        let count = |p: usize| {
            let mut c = crate::sys::huge::filled(n + 1, 0u32);
            for &t in &targets[edges_of(p)] {
                c[t as usize] += 1;
            }
            c
        };
        let mut counts: Vec<Vec<u32>> = std::thread::scope(|s| {
            let others: Vec<_> = (1..parts).map(|p| s.spawn(move || count(p))).collect();
            let mut all = vec![count(0)];
            all.extend(
                others
                    .into_iter()
                    .map(|h| h.join().expect("a counting part")),
            );
            all
        });
        // in_start (packed as it goes: no 4-byte array of it beside the counts, 4 bytes per
        // object less at the peak of this step), and each part's first slot per target in
        // place of its count.
        let mut in_start = super::Starts::with_capacity(n + 1);
        let mut sum = 0u32;
        for t in 0..n {
            in_start.push(sum);
            for c in counts.iter_mut() {
                let k = c[t];
                c[t] = sum;
                sum += k;
            }
        }
        in_start.push(sum);
        let mut in_sources = crate::sys::huge::filled(m, 0 as ObjId);
        let any_weak = weak.iter().any(|&w| w != 0);
        let mut in_weak = vec![0u64; if any_weak { weak.len() } else { 0 }];
        {
            struct Slots(*mut ObjId);
            // SAFETY (Send/Sync): the parts write disjoint slots (each target's list is
            // cut into one range per part by the counts above).
            unsafe impl Send for Slots {}
            unsafe impl Sync for Slots {}
            let slots = Slots(in_sources.as_mut_ptr());
            // SAFETY: AtomicU64 has the size and alignment of u64.
            let bits: &[AtomicU64] =
                unsafe { &*(in_weak.as_mut_slice() as *mut [u64] as *const [AtomicU64]) };
            let fill_part = |p: usize, fill: &mut Vec<u32>| {
                let slots = &slots;
                let mut e = start.at(cut[p]) as usize;
                for src in cut[p]..cut[p + 1] {
                    let end = start.at(src + 1) as usize;
                    while e < end {
                        let t = targets[e] as usize;
                        let at = fill[t] as usize;
                        fill[t] += 1;
                        // SAFETY: `at` is in this part's range of target t's list, inside
                        // `in_sources` (the counts sum to m).
                        unsafe { *slots.0.add(at) = src as ObjId };
                        if any_weak && weak[e / 64] >> (e % 64) & 1 == 1 {
                            bits[at / 64].fetch_or(1 << (at % 64), Ordering::Relaxed);
                        }
                        e += 1;
                    }
                }
            };
            std::thread::scope(|s| {
                let (first, rest) = counts.split_at_mut(1);
                for (i, fill) in rest.iter_mut().enumerate() {
                    s.spawn(move || fill_part(i + 1, fill));
                }
                fill_part(0, &mut first[0]);
            });
        }
        drop(counts);
        super::Referrers {
            in_start,
            in_sources: in_sources.into(),
            in_weak: in_weak.into(),
        }
    }
}

impl Graph {
    /// `n` objects of 8 bytes with three references each to pseudo-random objects (every
    /// 7th weak) and 50 pseudo-random roots, drawn by xorshift from `seed`; classes as
    /// given (tests of the searches over large graphs).
    #[cfg(test)]
    pub(crate) fn random_for_tests(n: u32, seed: u64, classes: &[super::ClassId]) -> Graph {
        let mut x = seed;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as u32
        };
        let mut edges = Vec::new();
        for o in 0..n {
            for k in 0..3 {
                edges.push((o, next(), (o + k) % 7 == 0));
            }
        }
        let roots: Vec<u32> = (0..50).map(|_| next()).collect();
        Graph::from_edge_list(&vec![8; n as usize], classes, &edges, &roots)
    }

    /// A graph from an edge list `(source, target, weak)` over objects `0..n`, every
    /// object of class 0 unless `classes` says otherwise, with the given shallow sizes and
    /// roots (of kind "unknown"). For tests and small hand-built graphs.
    pub fn from_edge_list(
        sizes: &[u64],
        classes: &[super::ClassId],
        edges: &[(ObjId, ObjId, bool)],
        roots: &[ObjId],
    ) -> Graph {
        let n = sizes.len();
        let mut g = Graph::default();
        let mut by_src: Vec<Vec<(ObjId, bool)>> = vec![Vec::new(); n];
        for &(s, t, w) in edges {
            by_src[s as usize].push((t, w));
        }
        let mut b = EdgeBuilder::with_capacity(n, edges.len());
        let mut max_class = 0;
        let mut class_of = Vec::with_capacity(n);
        for (o, out) in by_src.iter().enumerate() {
            for &(t, w) in out {
                b.push(t, w);
            }
            b.finish_object();
            let c = classes.get(o).copied().unwrap_or(0);
            max_class = max_class.max(c);
            class_of.push(c);
            g.push_shallow(o as ObjId, sizes[o]);
        }
        g.class_of = class_of.into();
        b.install(&mut g);
        g.classes = (0..=max_class)
            .map(|c| super::ClassInfo {
                name: format!("class {c}"),
            })
            .collect();
        g.roots = roots
            .iter()
            .map(|&obj| super::Root {
                obj,
                kind: super::RootKind::Unknown,
                thread: u32::MAX,
                frame: u32::MAX,
            })
            .collect();
        g.sort_roots();
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addr_index_finds_every_address_and_nothing_else() {
        let mut addrs: Vec<u64> = (0..5000u64)
            .map(|i| 0xe000_0000 + i * 24 + (i % 7) * 8)
            .collect();
        addrs.push(0x7fff_0000_0000); // a far outlier widens the blocks
        addrs.sort_unstable();
        addrs.dedup();
        let idx = AddrIndex::new(addrs.clone());
        for (i, &a) in addrs.iter().enumerate() {
            assert_eq!(idx.get(a), Some(i as u32));
            assert_eq!(idx.get(a + 1), None);
        }
        assert_eq!(idx.get(0), None);
        assert_eq!(idx.get(u64::MAX), None);
    }

    #[test]
    fn floor_finds_the_greatest_address_at_or_below() {
        let mut addrs: Vec<u64> = (0..3000u64)
            .map(|i| 0x1000 + i * 48 + (i % 5) * 16)
            .collect();
        addrs.push(0x9_0000_0000);
        addrs.sort_unstable();
        addrs.dedup();
        let idx = AddrIndex::new(addrs.clone());
        for probe in [
            0u64,
            0xfff,
            0x1000,
            0x1001,
            0x1000 + 48 * 1000 + 7,
            0x8_0000_0000,
            0x9_0000_0000,
            u64::MAX,
        ] {
            let want = addrs
                .partition_point(|&a| a <= probe)
                .checked_sub(1)
                .map(|i| i as u32);
            assert_eq!(idx.floor(probe), want, "probe 0x{probe:x}");
        }
        for (i, &a) in addrs.iter().enumerate() {
            assert_eq!(idx.floor(a + 1), Some(i as u32));
        }
    }

    #[test]
    fn referrers_are_the_transpose() {
        let mut g = Graph::default();
        let mut b = EdgeBuilder::with_capacity(3, 4);
        b.push(1, false);
        b.push(2, true);
        b.finish_object();
        b.push(2, false);
        b.finish_object();
        b.finish_object();
        b.install(&mut g);
        assert_eq!(g.referrers(2), &[0, 1]);
        let r2 = g.referrer_range(2);
        assert!(g.is_weak_referrer(r2.start) && !g.is_weak_referrer(r2.start + 1));
        assert_eq!(g.referrers(1), &[0]);
        assert!(g.referrers(0).is_empty());
        assert!(g.is_weak(1) && !g.is_weak(0) && !g.is_weak(2));
    }
}
