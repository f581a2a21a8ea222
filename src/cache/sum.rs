//! The checksum of a cache file's columns: what catches an entry damaged on disk or cut
//! short (not an adversary: the entry is the user's own file, in their own directory).
//!
//! A column is summed by blocks of [`BLOCK`] bytes on the thread pool, so that a reopen
//! reads its 2.4 GB of columns (50 M objects) on every core whatever the columns'
//! lengths; a column's digest is the xxh3-64 of its length field and its blocks' sums.
//! A block's sum is XXH3-64 by `twox-hash`, which picks AVX2 at run time where the
//! processor has it. (An accumulation of our own, compiled for AVX2 by
//! `crate::sys::simd`, was measured against it on a reopen of the 50 M-object HPROF dump
//! and of the 6 M-node V8 snapshot by `bench/tricks.sh`: 0.77 s against 0.73 s and 0.32
//! against 0.33, medians of five. It did not win the 10 % that keeping code of our own
//! asks for, and went: `bench/README.md`, "Tricks".)

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

/// The bytes summed apart, in parallel.
const BLOCK: usize = 8 << 20;

/// A column's digest: its length field and the sums of its blocks. (Public for the
/// tests that forge entries with consistent checksums.)
pub fn column_digest(len: &[u8], bytes: &[u8]) -> u64 {
    let sums: Vec<u64> = bytes.par_chunks(BLOCK).map(block).collect();
    let mut h = Xxh3::new();
    h.update(len);
    for s in sums {
        h.update(&s.to_ne_bytes());
    }
    h.digest()
}

/// Bytes of a block looked at in one go: summed, then handed to the checks while they
/// are still in the core's cache (a block of 8 MiB is not, and reading the columns
/// twice from memory was half of a reopen's time).
pub(super) const PIECE: usize = 64 << 10;

/// The digests of the columns `cols` (as [`column_digest`] makes them) and what the
/// checks `look` gather over them, each byte read from memory once: the columns of a
/// group (of one element width, so that a byte offset is the same element in each) are
/// walked together, block by block on the thread pool and piece by piece ([`PIECE`])
/// within a block, and `look(group, bytes)` is called once the group's pieces at those
/// byte offsets (past a shorter column's end: none of it) are summed. Every column is in
/// one group. Returns the digests by column and the folds by group (`join`ed in any
/// order).
pub(super) fn digests_and_folds<F: Default + Send>(
    cols: &[&[u8]],
    groups: &[&[usize]],
    look: impl Fn(usize, std::ops::Range<usize>) -> F + Sync,
    join: impl Fn(F, F) -> F + Sync + Send,
) -> (Vec<u64>, Vec<F>) {
    let jobs: Vec<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(gi, cs)| {
            let blocks = cs.iter().map(|&c| cols[c].len().div_ceil(BLOCK)).max();
            (0..blocks.unwrap_or(0)).map(move |b| (gi, b))
        })
        .collect();
    let done: Vec<(Vec<u64>, F)> = jobs
        .par_iter()
        .with_max_len(1)
        .map(|&(gi, b)| {
            let cs = groups[gi];
            let mut sums = vec![Running::new(); cs.len()];
            let mut fold = F::default();
            let end = (b + 1) * BLOCK;
            let mut at = b * BLOCK;
            while at < end {
                let to = (at + PIECE).min(end);
                let mut any = false;
                for (k, &c) in cs.iter().enumerate() {
                    let col = cols[c];
                    if at < col.len() {
                        sums[k].feed(&col[at..to.min(col.len())]);
                        any = true;
                    }
                }
                if !any {
                    break;
                }
                fold = join(fold, look(gi, at..to));
                at = to;
            }
            (sums.into_iter().map(Running::finish).collect(), fold)
        })
        .collect();
    let mut sums: Vec<Vec<u64>> = vec![Vec::new(); cols.len()];
    let mut folds: Vec<F> = groups.iter().map(|_| F::default()).collect();
    for (&(gi, b), (s, f)) in jobs.iter().zip(done) {
        for (&c, s) in groups[gi].iter().zip(s) {
            if b * BLOCK < cols[c].len() {
                sums[c].push(s);
            }
        }
        let g = std::mem::take(&mut folds[gi]);
        folds[gi] = join(g, f);
    }
    let digests = cols
        .iter()
        .zip(sums)
        .map(|(col, sums)| {
            let mut h = Xxh3::new();
            h.update(&(col.len() as u64).to_ne_bytes());
            for s in sums {
                h.update(&s.to_ne_bytes());
            }
            h.digest()
        })
        .collect();
    (digests, folds)
}

/// A block's sum taken piece by piece ([`Running::feed`]), so that a reader can look at
/// each piece right after it is summed, while it is in the core's cache.
#[derive(Clone)]
pub(super) struct Running(twox_hash::XxHash3_64);

impl Running {
    pub(super) fn new() -> Self {
        Running(twox_hash::XxHash3_64::with_seed(0))
    }

    /// The next piece of the block.
    pub(super) fn feed(&mut self, b: &[u8]) {
        std::hash::Hasher::write(&mut self.0, b)
    }

    /// The block's sum.
    pub(super) fn finish(self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// A block's sum in one piece.
fn block(b: &[u8]) -> u64 {
    let mut r = Running::new();
    r.feed(b);
    r.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block's sum in one piece.
    fn sum(b: &[u8]) -> u64 {
        block(b)
    }

    #[test]
    fn every_byte_and_the_length_count() {
        let base: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 3) as u8).collect();
        let d = sum(&base);
        assert_eq!(d, sum(&base.clone()));
        assert_eq!(
            d,
            twox_hash::XxHash3_64::oneshot(&base),
            "XXH3-64 as the crate has it"
        );
        for at in [0, 1, 63, 64, 1023, 1024, 4095, 4999] {
            for bit in [0, 3, 7] {
                let mut b = base.clone();
                b[at] ^= 1 << bit;
                assert_ne!(sum(&b), d, "byte {at} bit {bit}");
            }
        }
        // Zeros of different lengths, and a cut.
        assert_ne!(sum(&[0; 64]), sum(&[0; 128]));
        assert_ne!(sum(&base[..4999]), d);
        // Two words swapped.
        let mut b = base.clone();
        b.swap(0, 8);
        assert_ne!(sum(&b), d);
    }

    #[test]
    fn a_block_summed_by_pieces_sums_the_same() {
        let b: Vec<u8> = (0..70_000u32).map(|i| (i * 13 + i / 7) as u8).collect();
        for piece in [1024, 4096, 65536] {
            for len in [0, 1, 1024, 5000, 65536, 70_000] {
                let mut r = Running::new();
                for p in b[..len].chunks(piece) {
                    r.feed(p);
                }
                assert_eq!(
                    r.finish(),
                    block(&b[..len]),
                    "pieces of {piece}, {len} bytes"
                );
            }
        }
    }

    #[test]
    fn digests_and_folds_sum_as_columns_do_and_look_at_every_byte_once() {
        // Columns around the block and piece sizes, in groups of one width.
        let col = |len: usize, seed: u8| -> Vec<u8> {
            (0..len)
                .map(|i| (i as u8).wrapping_mul(31) ^ seed)
                .collect()
        };
        let cols = [
            col(BLOCK * 2 + 3 * PIECE + 100, 1),
            col(BLOCK * 2 + 3 * PIECE + 96, 2),
            col(0, 3),
            col(PIECE - 8, 4),
            col(BLOCK + 8, 5),
        ];
        let cols: Vec<&[u8]> = cols.iter().map(|c| &c[..]).collect();
        let groups: [&[usize]; 3] = [&[0, 1], &[2, 3], &[4]];
        // Per group, the bytes of its columns seen (summed) and the pieces' lengths.
        let (digests, folds) = digests_and_folds(
            &cols,
            &groups,
            |g, r: std::ops::Range<usize>| {
                assert_eq!(r.start % PIECE, 0);
                let seen: u64 = groups[g]
                    .iter()
                    .map(|&c| {
                        let c = cols[c];
                        c[r.start.min(c.len())..r.end.min(c.len())]
                            .iter()
                            .map(|&b| b as u64)
                            .sum::<u64>()
                    })
                    .sum();
                (seen, r.len() as u64)
            },
            |a, b| (a.0 + b.0, a.1 + b.1),
        );
        for (c, d) in cols.iter().zip(&digests) {
            assert_eq!(*d, column_digest(&(c.len() as u64).to_ne_bytes(), c));
        }
        for (g, f) in groups.iter().zip(&folds) {
            let all: u64 = g
                .iter()
                .map(|&c| cols[c].iter().map(|&b| b as u64).sum::<u64>())
                .sum();
            let longest = g.iter().map(|&c| cols[c].len()).max().unwrap_or(0);
            assert_eq!(f.0, all);
            assert!(f.1 as usize >= longest && (f.1 as usize) < longest + PIECE);
        }
    }
}
