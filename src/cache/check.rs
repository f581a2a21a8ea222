//! The checks an index read back from a cache entry passes before any view uses it: the
//! invariants every view relies on (see the parent module's doc).

use crate::heap::packed::Starts;
use crate::heap::{CompactColumn, Graph};

/// The greatest of `v` (0 when empty), compiled for AVX2 where the processor has it: a
/// fold that vectorises, twice as wide as the baseline's (which has no unsigned maximum
/// of four bytes either).
fn greatest<T: Copy + Ord + Into<u32> + Default>(v: &[T]) -> u32 {
    #[inline(always)]
    fn fold<T: Copy + Ord + Into<u32> + Default>(v: &[T]) -> u32 {
        v.iter().fold(T::default(), |m, &x| m.max(x)).into()
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn wide<T: Copy + Ord + Into<u32> + Default>(v: &[T]) -> u32 {
            fold(v)
        }
        // SAFETY: the processor has AVX2 (checked just above).
        return unsafe { wide(v) };
    }
    fold(v)
}

/// The invariants every view relies on.
pub(super) fn check(g: &Graph, file_bytes: u64) -> Result<(), &'static str> {
    use rayon::prelude::*;
    let n = g.class_of.len();
    // (MoarVM keeps no record offsets: its decoder holds what it needs.)
    let offsets = g.offset.len() == n || g.offset.is_empty();
    if g.shallow.len() != n || !offsets || n >= u32::MAX as usize - 1 {
        return Err("columns of different lengths");
    }
    // Branch-free reductions over blocks (they vectorise; `all` stops early but does not).
    const BLOCK: usize = 1 << 16;
    let below =
        |v: &[u32], limit: usize| v.par_chunks(BLOCK).all(|c| (greatest(c) as usize) < limit);
    let csr = |start: &Starts, items: &[u32], what: &'static str| -> Result<(), &'static str> {
        // `consistent` first: it checks the parts' lengths, which lookups rely on.
        if start.len() != n + 1
            || !start.consistent(items.len() as u64, true)
            || start.get(0) != Some(0)
            || start.get(n).map(|s| s as usize) != Some(items.len())
            || (!items.is_empty() && !below(items, n))
        {
            return Err(what);
        }
        Ok(())
    };
    csr(&g.out_start, &g.out_targets, "inconsistent references")?;
    // (An entry always has its referrers: read, never built here.)
    let r = g.referrer_index.get().ok_or("no referrers")?;
    csr(&r.in_start, &r.in_sources, "inconsistent referrers")?;
    let bits = |b: &[u64], len: usize| b.len() == len.div_ceil(64);
    if !bits(&g.weak, g.out_targets.len())
        || !(r.in_weak.is_empty() || bits(&r.in_weak, r.in_sources.len()))
    {
        return Err("weak bits of the wrong length");
    }
    let classes = g.classes.len();
    let max_class = match &g.class_of {
        CompactColumn::Narrow(c) => c.par_chunks(BLOCK).map(greatest).max(),
        CompactColumn::Wide(c) => c.par_chunks(BLOCK).map(greatest).max(),
    };
    if n > 0 && max_class.is_none_or(|c| c as usize >= classes) {
        return Err("a class out of range");
    }
    if !g.offset.consistent(file_bytes, false) {
        return Err("a record offset past the end of the dump");
    }
    if g.roots.iter().any(|r| r.obj as usize >= n)
        || g.big_sizes.iter().any(|b| b.0 as usize >= n)
        || g.big_sizes.windows(2).any(|w| w[0].0 >= w[1].0)
    {
        return Err("a root or size of no object");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::{ClassInfo, Referrers, Root};

    /// Three objects, 0 → 1 → 2, one class.
    fn graph() -> Graph {
        Graph {
            class_of: vec![0, 0, 0].into(),
            shallow: vec![8, 8, 8].into(),
            offset: vec![0, 10, 20].into(),
            out_start: vec![0, 1, 2, 2].into(),
            out_targets: vec![1, 2].into(),
            weak: vec![0].into(),
            referrer_index: Referrers {
                in_start: vec![0, 0, 1, 2].into(),
                in_sources: vec![0, 1].into(),
                in_weak: Default::default(),
            }
            .into(),
            classes: vec![ClassInfo { name: "A".into() }],
            ..Graph::default()
        }
    }

    #[test]
    fn a_consistent_index_passes_and_each_broken_invariant_is_caught() {
        assert_eq!(check(&graph(), 30), Ok(()));
        type Break = Box<dyn Fn(&mut Graph)>;
        let cases: Vec<(&str, Break)> = vec![
            (
                "inconsistent references",
                Box::new(|g| g.out_targets[1] = 3),
            ),
            (
                "inconsistent references",
                Box::new(|g| g.out_start = vec![0, 3, 2, 2].into()),
            ),
            (
                "inconsistent references",
                Box::new(|g| g.out_start = vec![0, 1, 2, 1].into()),
            ),
            (
                "inconsistent referrers",
                Box::new(|g| g.referrer_index.get_mut().unwrap().in_sources[0] = 7),
            ),
            (
                "inconsistent referrers",
                Box::new(|g| g.referrer_index.get_mut().unwrap().in_start = vec![0, 0, 1].into()),
            ),
            // A base column cut short (the parts are read back as separate columns).
            (
                "inconsistent references",
                Box::new(|g| g.out_start.base.clear()),
            ),
            (
                "a record offset past the end of the dump",
                Box::new(|g| g.offset.base.clear()),
            ),
            (
                "weak bits of the wrong length",
                Box::new(|g| g.weak.clear()),
            ),
            (
                "a class out of range",
                Box::new(|g| g.class_of = vec![0, 0, 1].into()),
            ),
            (
                "a class out of range",
                Box::new(|g| g.class_of = vec![0, 0, 70_000].into()),
            ),
            (
                "a record offset past the end of the dump",
                Box::new(|g| g.offset = vec![0, 31, 20].into()),
            ),
            (
                "columns of different lengths",
                Box::new(|g| g.shallow.pop().map(drop).unwrap()),
            ),
            (
                "a root or size of no object",
                Box::new(|g| {
                    g.roots.push(Root {
                        obj: 3,
                        kind: crate::heap::RootKind::Unknown,
                        thread: u32::MAX,
                        frame: u32::MAX,
                    })
                }),
            ),
        ];
        for (want, break_it) in cases {
            let mut g = graph();
            break_it(&mut g);
            assert_eq!(check(&g, 30), Err(want));
        }
    }
}
