//! The checks an index read back from a cache entry passes before any view uses it: the
//! invariants every view relies on (see the parent module's doc).

use std::ops::Range;

use crate::heap::histogram::ClassTotals;
use crate::heap::packed::{Starts, BLOCK};
use crate::heap::{CompactColumn, Graph};

/// The greatest of `v` (0 when empty), compiled for AVX2 where the processor has it: a
/// fold that vectorises, twice as wide as the baseline's (which has no unsigned maximum
/// of four bytes either).
fn greatest<T: Copy + Ord + Into<u32> + Default>(v: &[T]) -> u32 {
    #[inline(always)]
    fn fold<T: Copy + Ord + Into<u32> + Default>(v: &[T]) -> u32 {
        v.iter().fold(T::default(), |m, &x| m.max(x)).into()
    }
    crate::sys::simd::with_avx2(|| fold(v))
}

/// What the checks gather over a piece of a column: whether a value failed, the
/// greatest value, and the slots marked as kept aside (a packed column's).
#[derive(Default, Clone, Copy, Debug)]
pub(super) struct Fold {
    bad: bool,
    max: u32,
    marked: usize,
    /// The sum of the values (the shallow sizes': escape values as they are).
    total: u64,
}

impl Fold {
    pub(super) fn join(a: Fold, b: Fold) -> Fold {
        Fold {
            bad: a.bad | b.bad,
            max: a.max.max(b.max),
            marked: a.marked + b.marked,
            total: a.total.wrapping_add(b.total),
        }
    }
}

/// The index's columns, in the order of an entry (`src/cache.rs`): class_of, shallow,
/// the record offsets' bases and distances, the references' starts (bases, distances),
/// targets and weak bits, the referrers' the same.
const CLASS_OF: usize = 0;
const SHALLOW: usize = 1;
const OFFSET_REL: usize = 3;
const OUT_REL: usize = 5;
const OUT_TARGETS: usize = 6;
const IN_REL: usize = 9;
const IN_SOURCES: usize = 10;

/// Whether [`piece`] can look at `g`'s columns: the packed columns' bases of their
/// length (the folds look them up), the referrers there.
pub(super) fn lookable(g: &Graph) -> bool {
    let fits = |p: &Starts| p.base.len() == p.len().div_ceil(BLOCK);
    g.offset.base.len() == g.offset.len().div_ceil(BLOCK)
        && fits(&g.out_start)
        && g.referrer_index.get().is_some_and(|r| fits(&r.in_start))
}

/// What the checks gather over the bytes `bytes` of column `col` of `g` (a piece of
/// whole blocks of the packed columns, which [`crate::cache`] hands out: pieces start
/// at multiples of [`crate::cache::sum::PIECE`]); `g` [`lookable`].
pub(super) fn piece(g: &Graph, file_bytes: u64, col: usize, bytes: Range<usize>) -> Fold {
    fn of<T>(v: &[T], bytes: &Range<usize>) -> Range<usize> {
        let w = std::mem::size_of::<T>();
        (bytes.start / w).min(v.len())..(bytes.end / w).min(v.len())
    }
    let max = |v: &[u32]| Fold {
        max: greatest(&v[of(v, &bytes)]),
        ..Fold::default()
    };
    let packed = |marked: usize, ok: bool| Fold {
        bad: !ok,
        marked,
        ..Fold::default()
    };
    let r = g.referrer_index.get();
    match col {
        CLASS_OF => Fold {
            max: match &g.class_of {
                CompactColumn::Narrow(c) => greatest(&c[of(c, &bytes)]),
                CompactColumn::Wide(c) => greatest(&c[of(c, &bytes)]),
            },
            ..Fold::default()
        },
        SHALLOW => Fold {
            total: match &g.shallow {
                CompactColumn::Narrow(c) => total(&c[of(c, &bytes)]),
                CompactColumn::Wide(c) => total(&c[of(c, &bytes)]),
            },
            ..Fold::default()
        },
        OFFSET_REL => {
            let (m, ok) = g.offset.fold(of(&g.offset.rel, &bytes), file_bytes, false);
            packed(m, ok)
        }
        OUT_REL => {
            let limit = g.out_targets.len() as u64;
            let (m, ok) = g.out_start.fold(of(&g.out_start.rel, &bytes), limit, true);
            packed(m, ok)
        }
        OUT_TARGETS => max(&g.out_targets),
        IN_REL => r.map_or(Fold::default(), |r| {
            let limit = r.in_sources.len() as u64;
            let (m, ok) = r.in_start.fold(of(&r.in_start.rel, &bytes), limit, true);
            packed(m, ok)
        }),
        IN_SOURCES => r.map_or(Fold::default(), |r| max(&r.in_sources)),
        _ => Fold::default(),
    }
}

/// The invariants every view relies on, over the index `g` whose columns are folded
/// whole here (an index read from an entry has its folds made as the entry is read:
/// [`piece`], [`verdict`]).
#[cfg(test)]
pub(super) fn check(g: &Graph, file_bytes: u64) -> Result<(), &'static str> {
    let bytes = [
        g.class_of.raw().len(),
        g.shallow.raw().len(),
        0,
        g.offset.rel.len() * 4,
        0,
        g.out_start.rel.len() * 2,
        g.out_targets.len() * 4,
        0,
        0,
        g.referrer_index
            .get()
            .map_or(0, |r| r.in_start.rel.len() * 2),
        g.referrer_index.get().map_or(0, |r| r.in_sources.len() * 4),
        0,
    ];
    let folds: Vec<Fold> = if lookable(g) {
        (0..bytes.len())
            .map(|c| piece(g, file_bytes, c, 0..bytes[c]))
            .collect()
    } else {
        vec![Fold::default(); bytes.len()]
    };
    verdict(g, file_bytes, &folds)
}

/// The invariants every view relies on, given what [`piece`] gathered over each column
/// (by column; nothing where `g` was not [`lookable`]).
pub(super) fn verdict(g: &Graph, file_bytes: u64, folds: &[Fold]) -> Result<(), &'static str> {
    let n = g.class_of.len();
    // (MoarVM keeps no record offsets: its decoder holds what it needs.)
    let offsets = g.offset.len() == n || g.offset.is_empty();
    if g.shallow.len() != n || !offsets || n >= u32::MAX as usize - 1 {
        return Err("columns of different lengths");
    }
    let csr = |start: &Starts,
               items: &[u32],
               (s, t): (Fold, Fold),
               what: &'static str|
     -> Result<(), &'static str> {
        // The parts first: the lookups rely on them.
        if start.len() != n + 1
            || !start.parts_fit(items.len() as u64)
            || s.bad
            || s.marked != start.wide.len()
            || start.get(0) != Some(0)
            || start.get(n).map(|s| s as usize) != Some(items.len())
            || (!items.is_empty() && t.max as usize >= n)
        {
            return Err(what);
        }
        Ok(())
    };
    csr(
        &g.out_start,
        &g.out_targets,
        (folds[OUT_REL], folds[OUT_TARGETS]),
        "inconsistent references",
    )?;
    // (An entry always has its referrers: read, never built here.)
    let r = g.referrer_index.get().ok_or("no referrers")?;
    csr(
        &r.in_start,
        &r.in_sources,
        (folds[IN_REL], folds[IN_SOURCES]),
        "inconsistent referrers",
    )?;
    let bits = |b: &[u64], len: usize| b.len() == len.div_ceil(64);
    if !bits(&g.weak, g.out_targets.len())
        || !(r.in_weak.is_empty() || bits(&r.in_weak, r.in_sources.len()))
    {
        return Err("weak bits of the wrong length");
    }
    if n > 0 && folds[CLASS_OF].max as usize >= g.classes.len() {
        return Err("a class out of range");
    }
    let o = folds[OFFSET_REL];
    if !g.offset.parts_fit(file_bytes) || o.bad || o.marked != g.offset.wide.len() {
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

/// The per-class totals an entry keeps ([`crate::heap::histogram::ClassTotals`]), once
/// they are of the index `g`'s: one per class, as many objects as `g` has, as many
/// shallow bytes as its shallow sizes add up to (what [`piece`] summed of the column,
/// with the sizes kept aside for its escape values).
pub(super) fn totals(
    g: &Graph,
    folds: &[Fold],
    count: Vec<u64>,
    shallow: Vec<u64>,
) -> Result<ClassTotals, &'static str> {
    let escape = g.shallow.escape();
    let aside = g
        .big_sizes
        .iter()
        .filter(|&&(o, _)| g.shallow.get(o as usize) == escape)
        .fold(0u64, |t, &(_, s)| {
            t.wrapping_add(s.wrapping_sub(escape as u64))
        });
    let bytes = folds[SHALLOW].total.wrapping_add(aside);
    let sum = |v: &[u64]| v.iter().fold(0u64, |t, &x| t.wrapping_add(x));
    if count.len() != g.classes.len()
        || shallow.len() != g.classes.len()
        || sum(&count) != g.len() as u64
        || sum(&shallow) != bytes
    {
        return Err("class totals that do not add up");
    }
    Ok(ClassTotals { count, shallow })
}

/// The sum of `v`, compiled for AVX2 where the processor has it (the additions
/// vectorise four wide).
fn total<T: Copy + Into<u32>>(v: &[T]) -> u64 {
    #[inline(always)]
    fn fold<T: Copy + Into<u32>>(v: &[T]) -> u64 {
        v.iter().fold(0u64, |t, &x| t + x.into() as u64)
    }
    crate::sys::simd::with_avx2(|| fold(v))
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

    #[test]
    fn class_totals_are_used_only_when_they_add_up() {
        // Three objects of 8 bytes, one of 70,000 (kept aside: the escape value).
        let mut g = graph();
        g.shallow = vec![8, 8, u16::MAX as u32].into();
        g.big_sizes = vec![(2, 70_000)];
        g.classes.push(ClassInfo { name: "B".into() });
        g.class_of = vec![0, 1, 1].into();
        let folds = vec![piece(&g, 30, SHALLOW, 0..g.shallow.raw().len()); 12];
        let counted = crate::heap::histogram::totals(&g).clone();
        assert_eq!(counted.shallow, vec![8, 70_008]);
        let t = |count: Vec<u64>, shallow: Vec<u64>| totals(&g, &folds, count, shallow);
        assert_eq!(t(vec![1, 2], vec![8, 70_008]), Ok(counted));
        for (count, shallow) in [
            (vec![1, 2], vec![8, 70_007]),
            (vec![2, 2], vec![8, 70_008]),
            (vec![3], vec![70_016]),
            (vec![1, 2, 0], vec![8, 70_008, 0]),
        ] {
            assert_eq!(t(count, shallow), Err("class totals that do not add up"));
        }
    }
}
