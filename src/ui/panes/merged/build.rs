//! The merged paths' tree built on a job's thread: every instance's path from the depths
//! ([`crate::heap::merged::merge_all`]) or the search's nearest, and its objects grouped
//! level by level into rows by their holder's row, their class and the reference's
//! name.

use std::sync::atomic::{AtomicBool, Ordering};

use super::MAX_INSTANCES;
use crate::heap::merged::{Level, TOP};
use crate::heap::{ClassId, ObjId};
use crate::ui::panes::Ctx;

/// The name of the references from an array to its elements, as one.
const ELEMENTS: u32 = u32::MAX;

/// One row of the merged tree: the objects of one level held from one row above, of one
/// class, by one reference name.
pub(super) struct Group {
    pub(super) level: usize,
    pub(super) class: ClassId,
    /// The reference's name from the row above (one object's, or `[*]` for several of
    /// an array's elements); for a row of roots, none.
    pub(super) edge: Option<String>,
    /// Its objects, the first of them, the instances below them and their bytes.
    pub(super) objects: u64,
    pub(super) first: ObjId,
    pub(super) count: u64,
    pub(super) bytes: u64,
    pub(super) children: Vec<u32>,
}

/// The row of each object of one level: as runs where a level's objects fall in a few
/// runs of one row (the 5.5 M sessions of the bench dump and their 5.5 M holders are
/// one run each), else one per object.
#[derive(Debug, PartialEq)]
pub(super) enum Rows {
    /// Each run's first object's place and its row, by place; a run ends where the next
    /// begins. [`RUNS`] at most.
    Runs(Vec<(u32, u32)>),
    Each(Vec<u32>),
}

/// The most runs [`Rows::Runs`] holds (a lookup is a search of them).
const RUNS: usize = 1024;

impl Rows {
    /// The row of the object at place `i`.
    pub(super) fn get(&self, i: usize) -> u32 {
        match self {
            Rows::Each(v) => v[i],
            Rows::Runs(r) => {
                let k = r.partition_point(|&(at, _)| at as usize <= i);
                r[k.saturating_sub(1)].1
            }
        }
    }

    /// The places of `row`'s objects, in order, on a level of `n` objects.
    pub(super) fn of(&self, row: u32, n: usize) -> Box<dyn Iterator<Item = usize> + '_> {
        match self {
            Rows::Each(v) => Box::new(
                v.iter()
                    .enumerate()
                    .filter(move |&(_, &r)| r == row)
                    .map(|(i, _)| i),
            ),
            Rows::Runs(r) => Box::new(
                r.iter()
                    .enumerate()
                    .filter(move |(_, &(_, x))| x == row)
                    .flat_map(move |(k, &(at, _))| {
                        let end = r.get(k + 1).map_or(n, |&(e, _)| e as usize);
                        at as usize..end
                    }),
            ),
        }
    }
}

/// The merged paths, as a job's thread builds them.
#[derive(Default)]
pub(super) struct Built {
    /// Instances of the class (of `only`), and how many of them are merged.
    pub(super) instances: usize,
    pub(super) merged: usize,
    pub(super) unreached: usize,
    /// Each level's objects, the row each is in, and the instances below each (empty:
    /// one each, as [`Level::count`]).
    pub(super) levels: Vec<(Vec<ObjId>, Rows, Vec<u32>)>,
    pub(super) groups: Vec<Group>,
    /// The rows of the top, the busiest first.
    pub(super) tops: Vec<u32>,
    /// Built before the dominator tree was ready: each row's retained figure is the
    /// instances' shallow sizes until it is built again.
    pub(super) shallow_only: bool,
    /// Only the first instances the search from the roots met are merged.
    pub(super) searched: bool,
}

/// Finds and merges the paths of `class`'s instances (those marked in `only`).
pub(super) fn build(
    class: ClassId,
    only: Option<&[bool]>,
    ctx: &Ctx,
    cancel: &AtomicBool,
) -> Built {
    let g = &ctx.snap.graph;
    let mut b = Built {
        shallow_only: ctx.dom.is_none(),
        ..Built::default()
    };
    use rayon::prelude::*;
    let wanted = |o: ObjId| {
        g.class_of.get(o as usize) == class && only.is_none_or(|m| m.get(o as usize) == Some(&true))
    };
    let stop = || cancel.load(Ordering::Relaxed);
    let retained = |o: ObjId| {
        ctx.dom
            .and_then(|d| d.retained(o))
            .unwrap_or_else(|| g.shallow_size(o))
    };
    let timing = crate::sys::env::flag("HEAPTUI_TIMING");
    let started = std::time::Instant::now();
    // Every instance from the depths, once built; else the first instances the search
    // from the roots reaches, counted on one core while the search runs on the other.
    let all = g
        .depths
        .get()
        .and_then(|d| crate::heap::merged::merge_all(g, d, class, only, stop));
    let levels = match all {
        Some(m) => {
            b.instances = m.instances;
            b.merged = m.merged;
            m.levels
        }
        None => {
            if stop() {
                return b;
            }
            let (instances, paths) = rayon::join(
                || {
                    (0..g.len() as ObjId)
                        .into_par_iter()
                        .filter(|&o| wanted(o))
                        .count()
                },
                || crate::heap::paths::first_paths(g, false, wanted, MAX_INSTANCES, stop),
            );
            b.instances = instances;
            b.merged = paths.len();
            // Stopped at its cap, short of all: the nearest the roots only.
            b.searched = paths.len() >= MAX_INSTANCES && instances > paths.len();
            crate::heap::merged::from_paths(&paths)
        }
    };
    if timing {
        eprintln!(
            "timing: merged paths: {} instances on {} levels in {:.3} s",
            b.merged,
            levels.len(),
            started.elapsed().as_secs_f64()
        );
    }
    if stop() {
        return b;
    }
    // Fewer reached than counted: the others no root reaches.
    b.unreached = if b.searched {
        0
    } else {
        b.instances - b.merged
    };
    // An instance's retained bytes; none for the other objects on the paths.
    let own = |o: ObjId| wanted(o).then(|| retained(o));
    group(&mut b, levels, ctx, &own, &stop);
    if timing {
        eprintln!(
            "timing: merged paths: {} rows in {:.3} s",
            b.groups.len(),
            started.elapsed().as_secs_f64()
        );
    }
    b
}

/// Whether `o` holds what it holds as an array's elements: one of its first references
/// is named `[i]`.
fn holds_elements(snap: &crate::format::Snapshot, o: ObjId) -> bool {
    let g = &snap.graph;
    g.edges(o).take(4).any(|e| {
        snap.edge_label(o, g.out_targets[e])
            .as_deref()
            .is_some_and(is_element)
    })
}

/// Whether a reference's name is an array's element's (`[818]`).
fn is_element(name: &str) -> bool {
    name.strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

/// A row's share of one chunk of a level's objects: its key, its first object's place,
/// and the chunk's figures for it.
struct Part {
    key: (u32, u32, u32),
    at: usize,
    objects: u64,
    first: ObjId,
    count: u64,
    bytes: u64,
}

/// Each object's row, from each chunk's objects' keys (`chunks`, as runs or one by
/// one) and each key's row (`rows`): runs while they are [`RUNS`] at most, else one row
/// per object, written on every core.
fn rows_of(chunks: Vec<Rows>, rows: &[Vec<u32>], n: usize) -> Rows {
    use rayon::prelude::*;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (chunk, of) in chunks.iter().zip(rows) {
        let Rows::Runs(r) = chunk else {
            runs.clear();
            break;
        };
        for &(at, p) in r {
            let row = of[p as usize];
            if runs.last().is_none_or(|l| l.1 != row) {
                runs.push((at, row));
            }
        }
        if runs.len() > RUNS {
            runs.clear();
            break;
        }
    }
    if !runs.is_empty() || n == 0 {
        return Rows::Runs(runs);
    }
    let mut each = vec![0u32; n];
    each.par_chunks_mut(CHUNK)
        .zip(chunks.par_iter().zip(rows))
        .for_each(|(out, (chunk, of))| match chunk {
            Rows::Each(v) => {
                for (o, &p) in out.iter_mut().zip(v) {
                    *o = of[p as usize];
                }
            }
            Rows::Runs(r) => {
                let from = r.first().map_or(0, |x| x.0 as usize);
                for (k, &(at, p)) in r.iter().enumerate() {
                    let end = r.get(k + 1).map_or(from + out.len(), |x| x.0 as usize);
                    out[at as usize - from..end - from].fill(of[p as usize]);
                }
            }
        });
    Rows::Each(each)
}

/// Objects per chunk of a level grouped on one core.
const CHUNK: usize = 1 << 16;

/// The rows of `levels`: level by level from the roots, the objects held from one row
/// by one class and one reference name are one row. A row's retained bytes are its own
/// instances' (`own`) and those of the rows below it.
fn group(
    b: &mut Built,
    levels: Vec<Level>,
    ctx: &Ctx,
    own: &(dyn Fn(ObjId) -> Option<u64> + Sync),
    stop: &dyn Fn() -> bool,
) {
    use rayon::prelude::*;
    use std::collections::HashMap;
    let snap = ctx.snap;
    let g = &snap.graph;
    let class = |o: ObjId| g.class_of.get(o as usize);
    for (k, l) in levels.into_iter().enumerate() {
        if stop() {
            return;
        }
        let n = l.objs.len();
        let (prev, above): (&[ObjId], Option<&Rows>) = match k {
            0 => (&[], None),
            _ => (&b.levels[k - 1].0, Some(&b.levels[k - 1].1)),
        };
        // Whether a row above holds its objects as an array's elements: asked of its
        // first object's first references.
        let elements: Vec<bool> = b
            .groups
            .iter()
            .map(|gr| k > 0 && gr.level + 1 == k && holds_elements(snap, gr.first))
            .collect();
        // Each object's key: the row above, its class, and the reference's place among
        // its holder's (or [`ELEMENTS`]; a root's: its kind).
        let key = |i: usize| -> (u32, u32, u32) {
            let x = l.objs[i];
            if k == 0 {
                let kind = g.roots_of(x).first().map_or(0, |r| r.kind as u32);
                return (TOP, class(x), kind);
            }
            let p = l.up[i] as usize;
            let (from, u) = (prev[p], above.map_or(TOP, |a| a.get(p)));
            let place = if elements[u as usize] {
                ELEMENTS
            } else {
                g.edges(from)
                    .position(|e| g.out_targets[e] == x)
                    .map_or(ELEMENTS - 1, |p| p as u32)
            };
            (u, class(x), place)
        };
        // Chunk by chunk on every core: each key's figures, and the chunk's objects as
        // runs of one key (or, past [`RUNS`] runs, each object's key).
        let parts: Vec<(Vec<Part>, Rows)> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let from = c * CHUNK;
                let to = (from + CHUNK).min(n);
                let mut parts: Vec<Part> = Vec::new();
                let mut index: HashMap<(u32, u32, u32), u32> = HashMap::new();
                let mut last: Option<((u32, u32, u32), u32)> = None;
                let mut rows = Rows::Runs(Vec::new());
                for i in from..to {
                    let key = key(i);
                    let p = match last {
                        Some((lk, p)) if lk == key => p,
                        _ => {
                            let p = *index.entry(key).or_insert_with(|| {
                                parts.push(Part {
                                    key,
                                    at: i,
                                    objects: 0,
                                    first: ObjId::MAX,
                                    count: 0,
                                    bytes: 0,
                                });
                                parts.len() as u32 - 1
                            });
                            last = Some((key, p));
                            if let Rows::Runs(runs) = &mut rows {
                                if runs.len() < RUNS {
                                    runs.push((i as u32, p));
                                } else {
                                    let mut each = Vec::with_capacity(to - from);
                                    for (k, &(at, q)) in runs.iter().enumerate() {
                                        let end = runs.get(k + 1).map_or(i, |r| r.0 as usize);
                                        each.extend(std::iter::repeat_n(q, end - at as usize));
                                    }
                                    rows = Rows::Each(each);
                                }
                            }
                            p
                        }
                    };
                    if let Rows::Each(each) = &mut rows {
                        each.push(p);
                    }
                    let (part, x) = (&mut parts[p as usize], l.objs[i]);
                    part.objects += 1;
                    part.first = part.first.min(x);
                    part.count += l.count_of(i) as u64;
                    part.bytes += own(x).unwrap_or(0);
                }
                (parts, rows)
            })
            .collect();
        if stop() {
            return;
        }
        // The rows, in the order their first objects come; then rows of one name
        // merged (a reference's place can differ where a holder's earlier references
        // are null).
        let mut by_key: HashMap<(u32, u32, u32), u32> = HashMap::new();
        let mut by_name: HashMap<(u32, u32, Option<String>), u32> = HashMap::new();
        let mut rows_of_parts: Vec<Vec<u32>> = Vec::with_capacity(parts.len());
        for (chunk, _) in &parts {
            let mut rows = Vec::with_capacity(chunk.len());
            for part in chunk {
                let r = match by_key.get(&part.key) {
                    Some(&r) => r,
                    None => {
                        let (i, x) = (part.at, l.objs[part.at]);
                        let (u, c, place) = part.key;
                        let edge = if k == 0 {
                            None
                        } else if place == ELEMENTS {
                            Some("[*]".to_string())
                        } else {
                            snap.edge_label(prev[l.up[i] as usize], x)
                        };
                        // Roots by their kind; the others by the reference's name.
                        let name = if k == 0 {
                            Some(place.to_string())
                        } else {
                            Some(edge.clone().unwrap_or_default())
                        };
                        let r = *by_name.entry((u, c, name)).or_insert_with(|| {
                            b.groups.push(Group {
                                level: k,
                                class: c,
                                edge,
                                objects: 0,
                                first: x,
                                count: 0,
                                bytes: 0,
                                children: Vec::new(),
                            });
                            let r = b.groups.len() as u32 - 1;
                            if u == TOP {
                                b.tops.push(r);
                            } else {
                                b.groups[u as usize].children.push(r);
                            }
                            r
                        });
                        by_key.insert(part.key, r);
                        r
                    }
                };
                let gr = &mut b.groups[r as usize];
                gr.first = gr.first.min(part.first);
                gr.objects += part.objects;
                gr.count += part.count;
                gr.bytes += part.bytes;
                rows.push(r);
            }
            rows_of_parts.push(rows);
        }
        let row_of = rows_of(parts.into_iter().map(|p| p.1).collect(), &rows_of_parts, n);
        // One object's row names its own reference (`[818]`, not `[*]`).
        let sorted = l.objs.windows(2).all(|w| w[0] < w[1]);
        let place: HashMap<ObjId, usize> = if sorted {
            HashMap::new()
        } else {
            l.objs.iter().enumerate().map(|(i, &o)| (o, i)).collect()
        };
        let named: Vec<(usize, Option<String>)> = b
            .groups
            .iter()
            .enumerate()
            .filter(|(_, gr)| gr.level == k && gr.objects == 1 && gr.edge.as_deref() == Some("[*]"))
            .filter_map(|(r, gr)| {
                let i = if sorted {
                    l.objs.binary_search(&gr.first).ok()?
                } else {
                    *place.get(&gr.first)?
                };
                Some((r, snap.edge_label(prev[l.up[i] as usize], gr.first)))
            })
            .collect();
        for (r, e) in named {
            b.groups[r].edge = e;
        }
        b.levels.push((l.objs, row_of, l.count));
    }
    // Each row's bytes with those of the rows below it: a row's rows below come after
    // it (they are made a level later).
    for r in (0..b.groups.len()).rev() {
        let below: u64 = b.groups[r]
            .children
            .iter()
            .map(|&c| b.groups[c as usize].bytes)
            .sum();
        b.groups[r].bytes += below;
    }
    // The busiest first; ties by class name and then the first object.
    let order = |v: &mut Vec<u32>, groups: &[Group]| {
        v.sort_by(|&x, &y| {
            let (a, c) = (&groups[x as usize], &groups[y as usize]);
            c.count.cmp(&a.count).then(a.first.cmp(&c.first))
        })
    };
    let mut tops = std::mem::take(&mut b.tops);
    order(&mut tops, &b.groups);
    b.tops = tops;
    for i in 0..b.groups.len() {
        let mut kids = std::mem::take(&mut b.groups[i].children);
        order(&mut kids, &b.groups);
        b.groups[i].children = kids;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows as runs and rows one by one give every object the same row, and list the
    /// same objects for each row; past [`RUNS`] runs, one by one.
    #[test]
    fn rows_as_runs_are_rows_one_by_one() {
        let n = 3 * CHUNK + 17;
        // Object i's row: long runs, or a new row every third object.
        for (name, row) in [
            (
                "long runs",
                Box::new(|i: usize| (i / 50_000) as u32) as Box<dyn Fn(usize) -> u32>,
            ),
            ("short runs", Box::new(|i: usize| (i / 3 % 5) as u32)),
        ] {
            // Each chunk's keys are the rows themselves (key `p` is row `p`).
            let chunks: Vec<Rows> = (0..n.div_ceil(CHUNK))
                .map(|c| {
                    let (from, to) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                    let mut runs = Vec::new();
                    for i in from..to {
                        if i == from || row(i) != row(i - 1) {
                            runs.push((i as u32, row(i)));
                        }
                    }
                    if runs.len() > RUNS {
                        Rows::Each((from..to).map(&row).collect())
                    } else {
                        Rows::Runs(runs)
                    }
                })
                .collect();
            let of: Vec<Vec<u32>> = chunks.iter().map(|_| (0..8).collect()).collect();
            let rows = rows_of(chunks, &of, n);
            assert_eq!(matches!(rows, Rows::Runs(_)), name == "long runs", "{name}");
            for i in 0..n {
                assert_eq!(rows.get(i), row(i), "{name}: object {i}");
            }
            for r in 0..5 {
                let want: Vec<usize> = (0..n).filter(|&i| row(i) == r).collect();
                assert_eq!(rows.of(r, n).collect::<Vec<_>>(), want, "{name}: row {r}");
            }
        }
    }
}
