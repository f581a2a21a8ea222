//! The checksum of a cache file's columns: what catches an entry damaged on disk or cut
//! short (not an adversary: the entry is the user's own file, in their own directory).
//!
//! A column is summed by blocks of [`BLOCK`] bytes on the thread pool, so that a reopen
//! reads its 2.4 GB of columns (50 M objects) on every core whatever the columns'
//! lengths; a column's digest is the xxh3-64 of its length field and its blocks' sums.
//! A block's sum is an xxh3-style accumulation (eight 64-bit lanes, each adding the
//! product of the two halves of a word mixed with a key, and the word itself to its
//! neighbour lane; the lanes scrambled every KiB, folded at the end) compiled for AVX2
//! where the processor has it: there it runs at memory speed, where the xxh3 crate,
//! which picks its vector width when it is compiled, uses SSE2 (a reopen spent 38 % of
//! its time in it).

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

/// The bytes summed apart, in parallel.
const BLOCK: usize = 8 << 20;

/// Lane keys and the scramble's (odd 64-bit constants of no structure).
const KEY: [u64; 8] = [
    0x9e37_79b9_7f4a_7c15,
    0xbf58_476d_1ce4_e5b9,
    0x94d0_49bb_1331_11eb,
    0xd6e8_feb8_6659_fd93,
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
    0x8ebc_6af0_9c88_c6e3,
    0x5899_65cc_7537_4cc3,
];
const MIX: u64 = 0x9e37_79b1_85eb_ca87;

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

/// One stripe of 64 bytes into the lanes.
#[inline(always)]
fn stripe(acc: &mut [u64; 8], s: &[u8]) {
    for i in 0..8 {
        let d = u64::from_le_bytes(s[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        let dk = d ^ KEY[i];
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(d);
        acc[i] = acc[i].wrapping_add((dk & 0xffff_ffff).wrapping_mul(dk >> 32));
    }
}

#[inline(always)]
fn scramble(acc: &mut [u64; 8]) {
    for i in 0..8 {
        acc[i] = (acc[i] ^ (acc[i] >> 47) ^ KEY[7 - i]).wrapping_mul(MIX);
    }
}

#[inline(always)]
fn sum(b: &[u8]) -> u64 {
    let mut acc = KEY;
    let mut kibs = b.chunks_exact(1024);
    for kib in &mut kibs {
        for s in kib.chunks_exact(64) {
            stripe(&mut acc, s);
        }
        scramble(&mut acc);
    }
    let rest = kibs.remainder();
    let mut stripes = rest.chunks_exact(64);
    for s in &mut stripes {
        stripe(&mut acc, s);
    }
    let tail = stripes.remainder();
    if !tail.is_empty() {
        let mut last = [0u8; 64];
        last[..tail.len()].copy_from_slice(tail);
        stripe(&mut acc, &last);
    }
    if !rest.is_empty() {
        scramble(&mut acc);
    }
    let mut h = (b.len() as u64).wrapping_mul(MIX);
    for p in acc.chunks_exact(2) {
        let m = (p[0] as u128).wrapping_mul(p[1] as u128 ^ MIX as u128);
        h = (h ^ (m as u64) ^ (m >> 64) as u64)
            .rotate_left(27)
            .wrapping_mul(MIX);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// [`sum`] compiled for AVX2 where the processor has it (the lanes' multiplies and
/// adds vectorise four wide), else as it is.
fn block(b: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn wide(b: &[u8]) -> u64 {
            sum(b)
        }
        // SAFETY: the processor has AVX2 (checked just above).
        return unsafe { wide(b) };
    }
    sum(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_and_the_length_count() {
        let base: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 3) as u8).collect();
        let d = sum(&base);
        assert_eq!(d, sum(&base.clone()));
        assert_eq!(d, block(&base), "the wide build sums the same");
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
}
