//! Record offsets: where each object's record starts in the file, at a little over four
//! bytes per object instead of eight.
//!
//! Every reader numbers objects in file order, so objects close in id are close in the
//! file. A block of [`BLOCK`] objects keeps one `u64` base (its first object's offset)
//! and each object a `u32` distance from it: 4 + 8/64 = 4.125 bytes per object, which on
//! a 50 M-object HPROF dump is the difference between 39 and 35 index bytes per object
//! (issue 11's budget is 24 per object plus 8 per edge). An offset below its block's base
//! or 4 GiB or more above it (objects out of file order, a block spanning a 4 GiB array)
//! is kept whole in `wide`, sorted by object, and its `u32` slot holds [`WIDE`]: exact for
//! any order, and no worse than the plain `u64` column plus a binary search for a reader
//! that numbers objects out of order.
//!
//! The road not taken: a delta from the previous object (two bytes would often do) makes
//! a lookup sum up to 63 deltas, and the views look offsets up one at a time at random.

use super::ObjId;

/// Objects per block (one `u64` base each).
pub const BLOCK: usize = 64;
/// The `u32` slot of an offset kept whole in `wide`.
const WIDE: u32 = u32::MAX;

/// The record offset of every object (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offsets {
    /// The first offset of each block of [`BLOCK`] objects.
    pub(crate) base: Vec<u64>,
    /// Each object's distance from its block's base, or [`WIDE`].
    pub(crate) rel: Vec<u32>,
    /// The offsets that do not fit a `u32` from their base, by object.
    pub(crate) wide: Vec<(ObjId, u64)>,
}

impl Offsets {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        let mut o = Self::new();
        o.reserve_exact(n);
        o
    }

    /// Room for `n` more objects.
    pub fn reserve_exact(&mut self, n: usize) {
        let blocks = (self.rel.len() + n).div_ceil(BLOCK);
        self.base
            .reserve_exact(blocks.saturating_sub(self.base.len()));
        self.rel.reserve_exact(n);
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.rel.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rel.is_empty()
    }

    /// Appends the offset of the next object.
    #[inline]
    pub fn push(&mut self, off: u64) {
        let i = self.rel.len();
        if i % BLOCK == 0 {
            self.base.push(off);
        }
        let b = self.base[i / BLOCK];
        match off.checked_sub(b) {
            Some(d) if d < WIDE as u64 => self.rel.push(d as u32),
            _ => {
                self.rel.push(WIDE);
                self.wide.push((i as ObjId, off));
            }
        }
    }

    /// The offset of object `o`, `None` past the end.
    #[inline]
    pub fn get(&self, o: usize) -> Option<u64> {
        let r = *self.rel.get(o)?;
        if r != WIDE {
            return Some(self.base[o / BLOCK] + r as u64);
        }
        let k = self
            .wide
            .binary_search_by_key(&(o as ObjId), |w| w.0)
            .ok()?;
        Some(self.wide[k].1)
    }

    /// The offset of object `o`; panics past the end, as indexing a slice does.
    #[inline]
    pub fn at(&self, o: usize) -> u64 {
        match self.get(o) {
            Some(off) => off,
            None => panic!("no record offset for object {o} of {}", self.len()),
        }
    }

    /// Every offset, in object order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let mut wide = self.wide.iter();
        self.rel.iter().enumerate().map(move |(o, &r)| {
            if r != WIDE {
                self.base[o / BLOCK] + r as u64
            } else {
                // `wide` is sorted by object and holds exactly the WIDE slots.
                wide.next().map_or(0, |w| w.1)
            }
        })
    }

    pub fn shrink_to_fit(&mut self) {
        self.base.shrink_to_fit();
        self.rel.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    /// Bytes held (capacity, as the index counts its columns).
    pub fn bytes(&self) -> u64 {
        (self.base.capacity() * 8
            + self.rel.capacity() * 4
            + self.wide.capacity() * std::mem::size_of::<(ObjId, u64)>()) as u64
    }

    /// Whether the parts fit together (for columns read back from the index cache): one
    /// base per block, `wide` sorted and holding exactly the objects whose slot says so,
    /// and every offset at most `limit`.
    pub fn consistent(&self, limit: u64) -> bool {
        use rayon::prelude::*;
        let n = self.rel.len();
        if self.base.len() != n.div_ceil(BLOCK) {
            return false;
        }
        let wide_ok = self.wide.windows(2).all(|w| w[0].0 < w[1].0)
            && self
                .wide
                .iter()
                .all(|&(o, off)| off <= limit && self.rel.get(o as usize) == Some(&WIDE));
        if !wide_ok {
            return false;
        }
        // Per block: how many WIDE slots, and whether base + the largest distance fits.
        let (wides, fits) = self
            .rel
            .par_chunks(BLOCK)
            .zip(self.base.par_iter())
            .map(|(c, &b)| {
                let (mut w, mut max) = (0usize, 0u32);
                for &r in c {
                    let is_wide = (r == WIDE) as usize;
                    w += is_wide;
                    max = max.max(if is_wide == 1 { 0 } else { r });
                }
                (w, b.checked_add(max as u64).is_some_and(|e| e <= limit))
            })
            .reduce(|| (0, true), |a, b| (a.0 + b.0, a.1 & b.1));
        fits && wides == self.wide.len()
    }
}

impl From<Vec<u64>> for Offsets {
    fn from(v: Vec<u64>) -> Self {
        v.into_iter().collect()
    }
}

impl FromIterator<u64> for Offsets {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut o = Offsets::with_capacity(iter.size_hint().0);
        for off in iter {
            o.push(off);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ascending_offsets_take_four_bytes_and_an_eighth() {
        let v: Vec<u64> = (0..10_000u64).map(|i| 5_000_000_000 + i * 40).collect();
        let mut o: Offsets = v.iter().copied().collect();
        o.shrink_to_fit();
        assert!(o.wide.is_empty());
        assert_eq!(o.bytes(), 10_000 * 4 + 10_000u64.div_ceil(64) * 8);
        assert_eq!(o.iter().collect::<Vec<_>>(), v);
        assert!(o.consistent(5_000_000_000 + 10_000 * 40));
        assert!(!o.consistent(5_000_000_000 + 9_998 * 40));
    }

    #[test]
    fn offsets_out_of_order_or_far_apart_are_kept_whole() {
        let v = vec![
            100,
            50,
            100 + u32::MAX as u64,
            100 + u32::MAX as u64 - 1,
            7,
            u64::MAX,
        ];
        let o: Offsets = v.iter().copied().collect();
        assert_eq!(o.wide.len(), 4); // 50, 100 + 2^32 - 1, 7, u64::MAX
        for (i, &off) in v.iter().enumerate() {
            assert_eq!(o.get(i), Some(off));
        }
        assert_eq!(o.get(v.len()), None);
        assert_eq!(o.iter().collect::<Vec<_>>(), v);
        assert!(o.consistent(u64::MAX));
        assert!(!o.consistent(u64::MAX - 1));
    }

    #[test]
    fn inconsistent_parts_are_caught() {
        let o: Offsets = (0..200u64).map(|i| i * 3).collect();
        assert!(o.consistent(600));
        let mut a = o.clone();
        a.base.pop();
        assert!(!a.consistent(600));
        let mut b = o.clone();
        b.rel[5] = WIDE; // a WIDE slot with no entry
        assert!(!b.consistent(600));
        let mut c = o.clone();
        c.wide.push((3, 9)); // an entry whose slot is not WIDE
        assert!(!c.consistent(600));
    }

    proptest! {
        #[test]
        fn any_offsets_read_back_exactly(v in proptest::collection::vec(any::<u64>(), 0..300),
                                         start in 0u64..1 << 40,
                                         steps in proptest::collection::vec(0u64..1 << 33, 0..300)) {
            let o: Offsets = v.iter().copied().collect();
            prop_assert_eq!(o.iter().collect::<Vec<_>>(), v.clone());
            for (i, &off) in v.iter().enumerate() {
                prop_assert_eq!(o.get(i), Some(off));
            }
            prop_assert!(o.consistent(u64::MAX));
            // Mostly ascending, with some steps of 4 GiB or more.
            let mut at = start;
            let asc: Vec<u64> = steps.iter().map(|s| { at += s; at }).collect();
            let o: Offsets = asc.iter().copied().collect();
            prop_assert_eq!(o.iter().collect::<Vec<_>>(), asc.clone());
            for (i, &off) in asc.iter().enumerate() {
                prop_assert_eq!(o.at(i), off);
            }
        }
    }
}
