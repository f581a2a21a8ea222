//! The names of many references from one object at once ([`super::Decoder::edge_labels`]):
//! where each wanted target first appears among the object's references, in one pass over
//! them. A merged-paths tree puts thousands of a map's entries below its table, an array
//! of millions of elements: the name of each (`[i]`) read alone is a scan of the array up
//! to it (55 ms for a frame of them on the 50 M-object bench dump).

use std::collections::HashMap;

/// Bits in the filter that spares most items the hash lookup (128 KiB: in cache).
const FILTER_BITS: usize = 1 << 20;

fn slot(k: u64) -> usize {
    // Addresses are aligned: mix the low bits away.
    (k ^ k >> 3 ^ k >> 23).wrapping_mul(0x9e37_79b9_7f4a_7c15) as usize >> 44 & (FILTER_BITS - 1)
}

/// The position in `items` of the first occurrence of each of `wanted` (`None` for those
/// absent), in one pass that stops once all are found.
pub fn first_positions(wanted: &[u64], items: impl Iterator<Item = u64>) -> Vec<Option<usize>> {
    let mut out = vec![None; wanted.len()];
    let mut filter = vec![0u64; FILTER_BITS / 64];
    let mut at: HashMap<u64, Vec<usize>> = HashMap::with_capacity(wanted.len());
    for (i, &k) in wanted.iter().enumerate() {
        let s = slot(k);
        filter[s / 64] |= 1 << (s % 64);
        at.entry(k).or_default().push(i);
    }
    let mut left = at.len();
    for (pos, k) in items.enumerate() {
        let s = slot(k);
        if filter[s / 64] >> (s % 64) & 1 == 0 {
            continue;
        }
        if let Some(slots) = at.remove(&k) {
            for i in slots {
                out[i] = Some(pos);
            }
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wanted_item_s_first_position() {
        let items: Vec<u64> = (0..100_000u64).map(|i| (i * 8) % 40_000).collect();
        let wanted = [8, 39_992, 8, 123_456, 0, 16];
        assert_eq!(
            first_positions(&wanted, items.iter().copied()),
            vec![Some(1), Some(4999), Some(1), None, Some(0), Some(2)]
        );
        assert!(first_positions(&[], items.iter().copied()).is_empty());
    }
}
