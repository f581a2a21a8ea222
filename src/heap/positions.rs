//! Where each of many objects appears among one object's references, in one pass over
//! them. A merged-paths tree puts thousands of a map's entries below its table, an
//! array of millions of elements: the name of each (`[i]`) read alone is a scan of the
//! array up to it (55 ms for a frame of them on the 50 M-object bench dump), so a format's
//! decoder names them all in one pass; and the tree lists siblings in the order of their
//! parent's references.
//!
//! An object may refer to one target several times (an array holding it at `[0]` and
//! `[3]`, two fields of an instance): each such reference is named by its own place, the
//! first by the first, the second by the second ([`in_turn`]), not all by the first.

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

/// The position in `items` of each of `wanted`, in turn: the first occurrence of a
/// value in `wanted` gets its first position in `items`, the second its second, and so
/// on; one wanted more often than it stands gets its first position again for the
/// extra ones (as asked one at a time), one absent `None`. In one pass that stops once
/// all are found: linear in both (`wanted` may be all of an array's millions of
/// references).
pub fn in_turn(wanted: &[u64], items: impl Iterator<Item = u64>) -> Vec<Option<usize>> {
    /// A wanted value: its indexes in `wanted`, how many of them have a position, and
    /// its first position.
    #[derive(Default)]
    struct Want {
        slots: Vec<usize>,
        done: usize,
        first: Option<usize>,
    }
    let mut out = vec![None; wanted.len()];
    let bits = filter_bits(wanted.len());
    let mut filter = vec![0u64; bits / 64];
    let mut at: HashMap<u64, Want> = HashMap::with_capacity(wanted.len());
    for (i, &k) in wanted.iter().enumerate() {
        let s = slot(k, bits);
        filter[s / 64] |= 1 << (s % 64);
        at.entry(k).or_default().slots.push(i);
    }
    let mut left = at.len();
    for (pos, k) in items.enumerate() {
        let s = slot(k, bits);
        if filter[s / 64] >> (s % 64) & 1 == 0 {
            continue;
        }
        let Some(w) = at.get_mut(&k).filter(|w| w.done < w.slots.len()) else {
            continue;
        };
        out[w.slots[w.done]] = Some(pos);
        w.first.get_or_insert(pos);
        w.done += 1;
        if w.done == w.slots.len() {
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    for w in at.values() {
        for &i in &w.slots[w.done..] {
            out[i] = w.first;
        }
    }
    out
}

/// How many times each of `wanted` stands in `items` (a value wanted twice is counted
/// for both), in one pass.
pub fn counts(wanted: &[u64], items: impl Iterator<Item = u64>) -> Vec<usize> {
    let bits = filter_bits(wanted.len());
    let mut filter = vec![0u64; bits / 64];
    let mut seen: HashMap<u64, usize> = HashMap::with_capacity(wanted.len());
    for &k in wanted {
        let s = slot(k, bits);
        filter[s / 64] |= 1 << (s % 64);
        seen.insert(k, 0);
    }
    for k in items {
        let s = slot(k, bits);
        if filter[s / 64] >> (s % 64) & 1 == 0 {
            continue;
        }
        if let Some(n) = seen.get_mut(&k) {
            *n += 1;
        }
    }
    wanted.iter().map(|k| seen[k]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wanted_item_s_position() {
        let items: Vec<u64> = (0..100_000u64).map(|i| (i * 8) % 40_000).collect();
        let wanted = [16, 39_992, 123_456, 0];
        assert_eq!(
            in_turn(&wanted, items.iter().copied()),
            vec![Some(2), Some(4999), None, Some(0)]
        );
        assert!(in_turn(&[], items.iter().copied()).is_empty());
    }

    #[test]
    fn a_value_wanted_again_gets_its_next_position_in_turn() {
        // 8 stands at 1, 5001, 10001, … (every 5,000): the first 8 wanted gets 1, the
        // second 5001, the third 10001; a value wanted more often than it stands gets
        // its first place again past its last.
        let items: Vec<u64> = (0..100_000u64).map(|i| (i * 8) % 40_000).collect();
        let wanted = [8, 0, 8, 8, 7, 7];
        assert_eq!(
            in_turn(&wanted, items.iter().copied()),
            vec![Some(1), Some(0), Some(5001), Some(10001), None, None]
        );
        assert_eq!(
            counts(&[8, 7, 0, 8], items.iter().copied()),
            [20, 0, 20, 20]
        );
        let wanted = vec![3u64; 4];
        assert_eq!(
            in_turn(&wanted, [3, 1, 3, 3].into_iter()),
            vec![Some(0), Some(2), Some(3), Some(0)]
        );
    }
}
