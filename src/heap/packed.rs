//! Monotone-ish integer columns packed by blocks: the record offsets (a `u64` per object,
//! stored in a little over four bytes) and the two CSR start arrays (a `u32` per object,
//! stored in a little over two).
//!
//! Both columns change little from one object to the next: every reader numbers objects
//! in file order, so objects close in id have records close in the file; and a CSR start
//! grows by the object's reference count, a handful on average. So a block of [`BLOCK`]
//! values keeps one full-width base (its first value) and each value only its distance
//! from that base, in half the width: [`Offsets`] = `u64` bases and `u32` distances,
//! 4 + 8/64 = 4.125 bytes per object instead of 8; [`Starts`] = `u32` bases and `u16`
//! distances, 2 + 4/64 = 2.0625 instead of 4. On a 50 M-object HPROF dump that takes the
//! index from 39 to 31 bytes per object (issue 11's budget is 24 per object plus 8 per
//! edge). A value below its block's base or too far above it for the narrow width (objects
//! out of file order, a block spanning a 4 GiB array, a block whose objects hold 65 535
//! references or more) is kept whole in `wide`, sorted by position, and its narrow slot
//! holds the narrow type's maximum: exact for any sequence. One that never fits costs a
//! narrow slot plus a 16-byte (`Offsets`) or 8-byte (`Starts`) entry per value, 2.5 times
//! the plain column, and a binary search per lookup; no reader numbers its objects so.
//!
//! The road not taken: a delta from the previous value (often one byte would do) makes a
//! lookup sum up to 63 deltas, and the graph passes look values up at random.

/// Values per block (one full-width base each).
pub const BLOCK: usize = 64;

/// An unsigned integer type that can be a base or a distance.
use super::column::{Column, Plain};

pub trait Part: Plain + Eq + Ord + std::fmt::Debug {
    /// The largest value; as a distance, the mark of a value kept in `wide`.
    const MAX: Self;
    fn to_u64(self) -> u64;
    /// `v` as this type; `v` fits (callers check).
    fn from_u64(v: u64) -> Self;
}

macro_rules! part {
    ($($t:ty),*) => {$(
        impl Part for $t {
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
part!(u16, u32, u64);

/// `v`'s distance from the block base `b` as an `R`, or `R::MAX` when it does not fit
/// (`v` below `b`, or `R::MAX` or more above it): the one rule of [`Packed::push`] and
/// [`Packed::from_slice`].
#[inline]
fn distance<B: Part, R: Part>(b: B, v: B) -> R {
    match v.to_u64().checked_sub(b.to_u64()) {
        Some(d) if d < R::MAX.to_u64() => R::from_u64(d),
        _ => R::MAX,
    }
}

/// A column of `B` values packed as `B` bases and `R` distances (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Packed<B: Part, R: Part> {
    /// The first value of each block of [`BLOCK`].
    pub(crate) base: Column<B>,
    /// Each value's distance from its block's base, or `R::MAX`.
    pub(crate) rel: Column<R>,
    /// The values that do not fit an `R` from their base, by position.
    pub(crate) wide: Vec<(u32, B)>,
}

/// Record offsets: 4.125 bytes per object.
pub type Offsets = Packed<u64, u32>;
/// CSR starts (`n + 1` ascending values): 2.0625 bytes per object.
pub type Starts = Packed<u32, u16>;

impl<B: Part, R: Part> Packed<B, R> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        let mut o = Self::new();
        o.reserve_exact(n);
        o
    }

    /// Room for `n` more values.
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

    /// Appends the next value.
    #[inline]
    pub fn push(&mut self, v: B) {
        let i = self.rel.len();
        if i % BLOCK == 0 {
            self.base.push(v);
        }
        let r = distance(self.base[i / BLOCK], v);
        self.rel.push(r);
        if r == R::MAX {
            self.wide.push((i as u32, v));
        }
    }

    /// The value at `i`, `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<B> {
        let r = *self.rel.get(i)?;
        if r != R::MAX {
            return Some(B::from_u64(self.base[i / BLOCK].to_u64() + r.to_u64()));
        }
        let k = self.wide.binary_search_by_key(&(i as u32), |w| w.0).ok()?;
        Some(self.wide[k].1)
    }

    /// The value at `i`; panics past the end, as indexing a slice does.
    #[inline]
    pub fn at(&self, i: usize) -> B {
        match self.get(i) {
            Some(v) => v,
            None => panic!("no value {i} in a column of {}", self.len()),
        }
    }

    /// Every value, in order.
    pub fn iter(&self) -> impl Iterator<Item = B> + '_ {
        let mut wide = self.wide.iter();
        self.rel.iter().enumerate().map(move |(i, &r)| {
            if r != R::MAX {
                B::from_u64(self.base[i / BLOCK].to_u64() + r.to_u64())
            } else {
                // `wide` is sorted by position and holds exactly the marked slots.
                wide.next().map_or(B::default(), |w| w.1)
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
        (self.base.bytes()
            + self.rel.bytes()
            + self.wide.capacity() * std::mem::size_of::<(u32, B)>()) as u64
    }

    /// Whether the parts fit together (for columns read back from the index cache): one
    /// base per block, `wide` sorted and holding exactly the positions whose slot says so,
    /// every value at most `limit`, and with `ascending`, no value below the one before.
    /// ([`Packed::parts_fit`] and [`Packed::fold`] over the whole column, on the thread
    /// pool.)
    pub fn consistent(&self, limit: u64, ascending: bool) -> bool {
        use rayon::prelude::*;
        if !self.parts_fit(limit) {
            return false;
        }
        const RUN: usize = BLOCK * 4096;
        let n = self.rel.len();
        let (marked, fits) = (0..n.div_ceil(RUN))
            .into_par_iter()
            .map(|run| self.fold(run * RUN..((run + 1) * RUN).min(n), limit, ascending))
            .reduce(|| (0, true), |a, b| (a.0 + b.0, a.1 & b.1));
        fits && marked == self.wide.len()
    }

    /// The part of [`Packed::consistent`] that reads no distance but the marked slots':
    /// one base per block, `wide` sorted, its values at most `limit`, each at a marked
    /// slot. [`Packed::fold`] looks bases up: only where this holds.
    pub fn parts_fit(&self, limit: u64) -> bool {
        self.base.len() == self.rel.len().div_ceil(BLOCK)
            && self.wide.windows(2).all(|w| w[0].0 < w[1].0)
            && self
                .wide
                .iter()
                .all(|&(i, v)| v.to_u64() <= limit && self.rel.get(i as usize) == Some(&R::MAX))
    }

    /// The rest of [`Packed::consistent`] over the values `range` (starting at a block's
    /// first; the parts fit): the slots marked there, and whether every value fits under
    /// `limit` and (when asked) ascends from the one before (the one before the range
    /// included). A block without a marked slot (nearly all) is checked by folds over
    /// its distances, which vectorise (compiled for AVX2 where the processor has it: the
    /// baseline has no unsigned maximum of two or four bytes); one with a marked slot
    /// value by value.
    pub fn fold(
        &self,
        range: std::ops::Range<usize>,
        limit: u64,
        ascending: bool,
    ) -> (usize, bool) {
        crate::sys::simd::with_avx2(|| self.fold_here(range, limit, ascending))
    }

    #[inline(always)]
    fn fold_here(
        &self,
        range: std::ops::Range<usize>,
        limit: u64,
        ascending: bool,
    ) -> (usize, bool) {
        let first = range.start;
        debug_assert!(first % BLOCK == 0);
        let Some(c) = self.rel.get(range) else {
            return (0, false);
        };
        let mut marked = 0usize;
        let mut ok = true;
        let mut prev = if first == 0 || !ascending {
            0
        } else {
            self.get(first - 1).map_or(u64::MAX, |v| v.to_u64())
        };
        for (kk, c) in c.chunks(BLOCK).enumerate() {
            let k = first / BLOCK + kk;
            let base = self.base[k].to_u64();
            // A marked slot holds the greatest distance there is.
            let top = c.iter().fold(R::from_u64(0), |m, &r| m.max(r));
            if top != R::MAX {
                let descends =
                    ascending && c[1..].iter().zip(c).fold(false, |d, (&b, &a)| d | (a > b));
                let low = base.checked_add(c[0].to_u64());
                let high = base.checked_add(top.to_u64());
                ok &= !descends
                    && high.is_some_and(|h| h <= limit)
                    && low.is_some_and(|l| !ascending || prev <= l);
                prev = base.saturating_add(c[c.len() - 1].to_u64());
                continue;
            }
            marked += c.iter().fold(0usize, |m, &r| m + (r == R::MAX) as usize);
            for (j, &r) in c.iter().enumerate() {
                let v = if r != R::MAX {
                    base.checked_add(r.to_u64())
                } else {
                    self.get(k * BLOCK + j).map(|v| v.to_u64())
                };
                let Some(v) = v else {
                    return (marked, false);
                };
                ok &= v <= limit && (!ascending || prev <= v);
                prev = v;
            }
        }
        (marked, ok)
    }
}

impl<B: Part, R: Part> Packed<B, R> {
    /// Packs `v` on the thread pool: the blocks are independent, so each fills its own
    /// slots (the same column as pushing the values one by one).
    pub fn from_slice(v: &[B]) -> Self {
        use rayon::prelude::*;
        const CHUNK: usize = BLOCK * 4096;
        let mut base = vec![B::default(); v.len().div_ceil(BLOCK)];
        let mut rel = vec![R::default(); v.len()];
        let wide: Vec<Vec<(u32, B)>> = rel
            .par_chunks_mut(CHUNK)
            .zip(base.par_chunks_mut(CHUNK / BLOCK))
            .zip(v.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, ((rel, base), v))| {
                let mut wide = Vec::new();
                for (k, (rel, v)) in rel.chunks_mut(BLOCK).zip(v.chunks(BLOCK)).enumerate() {
                    let b = v[0];
                    base[k] = b;
                    for (j, (r, &x)) in rel.iter_mut().zip(v).enumerate() {
                        *r = distance(b, x);
                        if *r == R::MAX {
                            wide.push(((c * CHUNK + k * BLOCK + j) as u32, x));
                        }
                    }
                }
                wide
            })
            .collect();
        Packed {
            base: base.into(),
            rel: rel.into(),
            wide: wide.concat(),
        }
    }
}

impl<B: Part, R: Part> From<Vec<B>> for Packed<B, R> {
    fn from(v: Vec<B>) -> Self {
        Self::from_slice(&v)
    }
}

impl<B: Part, R: Part> FromIterator<B> for Packed<B, R> {
    fn from_iter<I: IntoIterator<Item = B>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut p = Packed::with_capacity(iter.size_hint().0);
        for x in iter {
            p.push(x);
        }
        p
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
        assert!(o.consistent(5_000_000_000 + 10_000 * 40, true));
        assert!(!o.consistent(5_000_000_000 + 9_998 * 40, true));
    }

    #[test]
    fn starts_of_a_block_with_a_huge_array_are_kept_whole() {
        // 200 objects with 0 to 3 references each, but object 70 with 100 000: the
        // starts after it in its block are 65 535 or more above the block's base.
        let mut v = vec![0u32];
        let mut s = 0;
        for o in 0..200u32 {
            s += if o == 70 { 100_000 } else { o % 4 };
            v.push(s);
        }
        let p: Starts = v.clone().into();
        assert_eq!(p.wide.len(), 128 - 71);
        assert_eq!(p.iter().collect::<Vec<_>>(), v);
        for (i, &x) in v.iter().enumerate() {
            assert_eq!(p.at(i), x);
        }
        assert!(p.consistent(s as u64, true));
        assert!(!p.consistent(s as u64 - 1, true));
        let mut down = p.clone();
        down.rel[10] = 0; // below the value before it
        assert!(!down.consistent(s as u64, true));
        // Without the array, a start costs two bytes and a sixteenth.
        let small: Starts = (0..6400u32).map(|i| i * 3).collect::<Vec<_>>().into();
        assert!(small.wide.is_empty());
        assert_eq!(small.bytes(), 6400 * 2 + 100 * 4);
    }

    #[test]
    fn packing_on_the_pool_equals_packing_one_by_one() {
        // Several of `from_slice`'s chunks, with wide values in more than one of them.
        let mut s = 0u32;
        let v: Vec<u32> = (0..700_000u32)
            .map(|i| {
                s += if i % (64 * 4096) == 17 { 70_000 } else { i % 5 };
                s
            })
            .collect();
        let one_by_one: Starts = v.iter().copied().collect();
        let chunks: std::collections::BTreeSet<u32> =
            one_by_one.wide.iter().map(|w| w.0 / (64 * 4096)).collect();
        assert_eq!(chunks.len(), 3, "wide values in three chunks");
        let pooled = Starts::from_slice(&v);
        assert_eq!(pooled, one_by_one);
        assert_eq!(pooled.iter().collect::<Vec<_>>(), v);
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
        assert!(o.consistent(u64::MAX, false));
        assert!(!o.consistent(u64::MAX, true));
        assert!(!o.consistent(u64::MAX - 1, false));
    }

    #[test]
    fn inconsistent_parts_are_caught() {
        let o: Offsets = (0..200u64).map(|i| i * 3).collect();
        assert!(o.consistent(600, true));
        let mut a = o.clone();
        a.base.pop();
        assert!(!a.consistent(600, true));
        let mut b = o.clone();
        b.rel[5] = u32::MAX; // a WIDE slot with no entry
        assert!(!b.consistent(600, true));
        let mut c = o.clone();
        c.wide.push((3, 9)); // an entry whose slot is not WIDE
        assert!(!c.consistent(600, true));
    }

    proptest! {
        #[test]
        fn any_offsets_read_back_exactly(v in proptest::collection::vec(any::<u64>(), 0..300),
                                         start in 0u64..1 << 40,
                                         steps in proptest::collection::vec(0u64..1 << 33, 0..300)) {
            let o: Offsets = v.iter().copied().collect();
            prop_assert_eq!(&Offsets::from_slice(&v), &o);
            prop_assert_eq!(o.iter().collect::<Vec<_>>(), v.clone());
            for (i, &off) in v.iter().enumerate() {
                prop_assert_eq!(o.get(i), Some(off));
            }
            prop_assert!(o.consistent(u64::MAX, false));
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
