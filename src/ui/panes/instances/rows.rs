//! The rows of an instance list: which instances, in what order ([`collect`]).

use std::sync::Arc;

use super::super::Ctx;
use super::SortBy;
use crate::heap::{ClassId, ObjId};

/// The best `keep` (key, object) pairs of the class (all of them for `usize::MAX`),
/// in order, found on all cores in chunks that keep only their own best, so that
/// opening a class of millions of instances allocates little and sorts less.
pub(super) fn collect(spec: &Spec, ctx: &Ctx, keep: usize) -> (usize, Vec<(u64, ObjId)>) {
    use rayon::prelude::*;
    let (len, mut all) = gather(spec, ctx, keep);
    all.par_sort_unstable();
    (len, all)
}

/// [`collect`]'s pairs before they are put in order: all of them in object order for
/// `usize::MAX`.
pub(super) fn gather(spec: &Spec, ctx: &Ctx, keep: usize) -> (usize, Vec<(u64, ObjId)>) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 18;
    let g = &ctx.snap.graph;
    let key = |o: ObjId| spec.key(ctx, o);
    let trim = |v: &mut Vec<(u64, ObjId)>| {
        if v.len() > keep {
            v.select_nth_unstable(keep - 1);
            v.truncate(keep);
        }
    };
    let chunk = |k: usize| k * CHUNK..((k + 1) * CHUNK).min(g.len());
    let picked = |i: usize| spec.picks(ctx, i);
    if keep == usize::MAX {
        // All of them: counted per chunk, then written in place, each chunk into its own
        // stretch of one vector (growing a vector per chunk and joining them took 170
        // ms of 5.5 M sessions' first filter).
        let counts: Vec<usize> = (0..g.len().div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| chunk(k).filter(|&i| picked(i)).count())
            .collect();
        let len = counts.iter().sum();
        let mut all = vec![(0u64, 0 as ObjId); len];
        let mut stretches = Vec::with_capacity(counts.len());
        let mut rest = &mut all[..];
        for &c in &counts {
            let (head, tail) = rest.split_at_mut(c);
            stretches.push(head);
            rest = tail;
        }
        stretches.into_par_iter().enumerate().for_each(|(k, out)| {
            let mut at = out.iter_mut();
            for i in chunk(k).filter(|&i| picked(i)) {
                if let Some(slot) = at.next() {
                    *slot = (key(i as ObjId), i as ObjId);
                }
            }
        });
        return (len, all);
    }
    let parts: Vec<(usize, Vec<(u64, ObjId)>)> = (0..g.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut v = Vec::new();
            let mut n = 0;
            for i in chunk(k) {
                if picked(i) {
                    n += 1;
                    let o = i as ObjId;
                    v.push((key(o), o));
                    if v.len() >= 2 * keep {
                        trim(&mut v);
                    }
                }
            }
            trim(&mut v);
            (n, v)
        })
        .collect();
    let len = parts.iter().map(|p| p.0).sum();
    let mut all: Vec<(u64, ObjId)> = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (_, v) in parts {
        all.extend_from_slice(&v);
    }
    trim(&mut all);
    (len, all)
}

/// The first `n` of the list's rows in object order (those a filter reads first): from
/// `all`, the list's rows when it has them all and they are few, else found by reading
/// the class column from its start (a class of 40 instances spread over 50 M objects
/// took 40 ms to read it all).
pub(super) fn first(
    spec: &Spec,
    ctx: &Ctx,
    n: usize,
    all: Option<&[(u64, ObjId)]>,
) -> Vec<(u64, ObjId)> {
    if let Some(all) = all.filter(|a| a.len() <= 1 << 16) {
        let mut v = all.to_vec();
        v.sort_unstable_by_key(|r| r.1);
        v.truncate(n);
        return v;
    }
    (0..ctx.snap.graph.len())
        .filter(|&i| spec.picks(ctx, i))
        .take(n)
        .map(|i| (spec.key(ctx, i as ObjId), i as ObjId))
        .collect()
}

/// Which instances a pane lists and in what order (what [`collect`] needs).
pub(super) struct Spec {
    pub(super) class: ClassId,
    pub(super) sort_by: SortBy,
    pub(super) only: Option<Arc<Vec<bool>>>,
}

impl Spec {
    /// Whether object `i` is one of the list's rows.
    fn picks(&self, ctx: &Ctx, i: usize) -> bool {
        ctx.snap.graph.class_of.get(i) == self.class
            && self.only.as_ref().is_none_or(|m| m.get(i) == Some(&true))
    }

    /// The row's sort key: ascending is the list's order (largest first).
    fn key(&self, ctx: &Ctx, o: ObjId) -> u64 {
        match (self.sort_by, ctx.dom) {
            (SortBy::Address, _) => o as u64,
            (SortBy::Retained, Some(d)) => u64::MAX - d.retained(o).unwrap_or(0),
            _ => u64::MAX - ctx.snap.graph.shallow_size(o),
        }
    }
}
