//! Where each of many objects first appears among one object's references, in one pass
//! over them. A merged-paths tree puts thousands of a map's entries below its table, an
//! array of millions of elements: the name of each (`[i]`) read alone is a scan of the
//! array up to it (55 ms for a frame of them on the 50 M-object bench dump), so a format's
//! decoder names them all in one pass; and the tree lists siblings in the order of their
//! parent's references.

use std::collections::HashMap;

/// Bits in the filter that spares most items the hash lookup: 64 per wanted item, from
/// 4 Ki (a few wanted among an instance's fields) to 1 Mi (128 KiB: in cache).
fn filter_bits(wanted: usize) -> usize {
    (wanted * 64).next_power_of_two().clamp(1 << 12, 1 << 20)
}

fn slot(k: u64, bits: usize) -> usize {
    // Addresses are aligned: mix the low bits away.
    ((k ^ k >> 3 ^ k >> 23).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 44) as usize & (bits - 1)
}

/// The position in `items` of the first occurrence of each of `wanted` (`None` for those
/// absent), in one pass that stops once all are found. Also where a merged-paths tree's
/// children come among their parent's references, to list them in that order.
pub fn first_positions(wanted: &[u64], items: impl Iterator<Item = u64>) -> Vec<Option<usize>> {
    let mut out = vec![None; wanted.len()];
    let bits = filter_bits(wanted.len());
    let mut filter = vec![0u64; bits / 64];
    let mut at: HashMap<u64, Vec<usize>> = HashMap::with_capacity(wanted.len());
    for (i, &k) in wanted.iter().enumerate() {
        let s = slot(k, bits);
        filter[s / 64] |= 1 << (s % 64);
        at.entry(k).or_default().push(i);
    }
    let mut left = at.len();
    for (pos, k) in items.enumerate() {
        let s = slot(k, bits);
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
