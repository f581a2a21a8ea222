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

/// The merged paths, as a job's thread builds them.
#[derive(Default)]
pub(super) struct Built {
    /// Instances of the class (of `only`), and how many of them are merged.
    pub(super) instances: usize,
    pub(super) merged: usize,
    pub(super) unreached: usize,
    /// Each level's objects, the row each is in, and the instances below each.
    pub(super) levels: Vec<(Vec<ObjId>, Vec<u32>, Vec<u32>)>,
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
        .and_then(|d| crate::heap::merged::merge_all(g, d, class, only, retained, stop));
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
            crate::heap::merged::from_paths(&paths, retained)
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
    group(&mut b, levels, ctx, &stop);
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

/// The rows of `levels`: level by level from the roots, the objects held from one row
/// by one class and one reference name are one row.
fn group(b: &mut Built, levels: Vec<Level>, ctx: &Ctx, stop: &dyn Fn() -> bool) {
    use rayon::prelude::*;
    use std::collections::HashMap;
    let snap = ctx.snap;
    let g = &snap.graph;
    let class = |o: ObjId| g.class_of.get(o as usize);
    for (k, mut l) in levels.into_iter().enumerate() {
        if stop() {
            return;
        }
        let n = l.objs.len();
        // Each object's key: the row above, its class, and the reference's place among
        // its holder's (or [`ELEMENTS`]; a root's: its kind), read in order of the
        // holders (their references are then read in order, not at random).
        let order: Vec<u32> = if l.by_up.len() == n {
            std::mem::take(&mut l.by_up)
        } else {
            (0..n as u32).collect()
        };
        let keys: Vec<(u32, u32, u32)> = if k == 0 {
            order
                .par_iter()
                .map(|&i| {
                    let o = l.objs[i as usize];
                    let kind = g.roots_of(o).first().map_or(0, |r| r.kind as u32);
                    (TOP, class(o), kind)
                })
                .collect()
        } else {
            let prev = levels_objs(b, k - 1);
            let above = &b.levels[k - 1].1;
            // Whether a row above holds its objects as an array's elements: asked of
            // its first object's first references.
            let elements: Vec<bool> = b
                .groups
                .iter()
                .map(|gr| gr.level + 1 == k && holds_elements(snap, gr.first))
                .collect();
            order
                .par_iter()
                .map(|&i| {
                    let (x, p) = (l.objs[i as usize], l.up[i as usize] as usize);
                    let (from, u) = (prev[p], above[p]);
                    let place = if elements[u as usize] {
                        ELEMENTS
                    } else {
                        g.edges(from)
                            .position(|e| g.out_targets[e] == x)
                            .map_or(ELEMENTS - 1, |p| p as u32)
                    };
                    (u, class(x), place)
                })
                .collect()
        };
        // Rows by key; then rows of one name merged (a reference's place can differ
        // where a holder's earlier references are null).
        let mut by_key: HashMap<(u32, u32, u32), u32> = HashMap::new();
        let mut by_name: HashMap<(u32, u32, Option<String>), u32> = HashMap::new();
        let mut row_of = vec![0u32; n];
        let mut last: Option<((u32, u32, u32), u32)> = None;
        for (&i, &key) in order.iter().zip(&keys) {
            let i = i as usize;
            let row = match last {
                Some((lk, r)) if lk == key => r,
                _ => {
                    let r = match by_key.get(&key) {
                        Some(&r) => r,
                        None => {
                            let x = l.objs[i];
                            let (u, c, place) = key;
                            let edge = if k == 0 {
                                None
                            } else if place == ELEMENTS {
                                Some("[*]".to_string())
                            } else {
                                let from = levels_objs(b, k - 1)[l.up[i] as usize];
                                snap.edge_label(from, x)
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
                            by_key.insert(key, r);
                            r
                        }
                    };
                    last = Some((key, r));
                    r
                }
            };
            row_of[i] = row;
        }
        drop(keys);
        // The rows' figures, the objects in their own order; a row's first object the
        // first of them by id.
        for (i, &r) in row_of.iter().enumerate() {
            let gr = &mut b.groups[r as usize];
            if gr.objects == 0 || l.objs[i] < gr.first {
                gr.first = l.objs[i];
            }
            gr.objects += 1;
            gr.count += l.count[i] as u64;
            gr.bytes += l.bytes[i];
        }
        // One object's row names its own reference (`[818]`, not `[*]`).
        let prev = if k > 0 {
            levels_objs(b, k - 1)
        } else {
            &[][..]
        };
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

/// The objects of level `k` already grouped.
fn levels_objs(b: &Built, k: usize) -> &[ObjId] {
    &b.levels[k].0
}
