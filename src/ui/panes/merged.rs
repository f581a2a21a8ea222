//! MAT's "Merge Shortest Paths to GC Roots" for a whole class (`P` on a class or an
//! instance list): the shortest path of each instance (the 10,000 nearest the roots) from the GC
//! roots, merged into one tree from the roots down, each node with how many of the
//! instances reach it through it and what they retain. Where a thousand sessions all
//! hang below one map, the map's row says `1,000 objects`.
//!
//! Once the loading thread has built every object's depth from the roots
//! ([`crate::heap::depth`]), the instances nearest the roots are picked by their depth and
//! each path is read back from the instance through referrers one level nearer
//! ([`crate::heap::depth::nearest_paths`]): 37 ms for the 5.5 M sessions of the 50 M-object
//! bench dump. Until then (or where memory was short for them), one breadth-first search
//! from the roots takes the first instances it reaches and stops once it has them
//! ([`crate::heap::paths::first_paths`]): 190–310 ms there. Either runs after the frame
//! that announces it ([`Pane::has_work`]).

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::histogram::thousands;
use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane};
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::{action_for, Action};
use crate::ui::panes::job::Job;
use crate::ui::text::{fit_parts, sanitize, width, Part};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Instances whose paths are merged.
pub const MAX_INSTANCES: usize = 10_000;

/// From this many columns the rows' figures are in words (`12 objects, 3.0 KiB
/// retained`); narrower, in short (`12 obj 3.0 KiB`).
const WORDY: usize = 80;

/// Objects with this many references or more have their children's names read together.
const MANY_REFERENCES: usize = 1024;

struct Node {
    obj: ObjId,
    /// The name of the reference from the parent, when read with its siblings'.
    label: Option<String>,
    /// Where the reference from the parent comes among the parent's: siblings with as
    /// many objects below them are listed in this order (an array's by index).
    place: u32,
    parent: usize,
    children: Vec<usize>,
    count: u64,
    retained: u64,
}

struct Row {
    depth: usize,
    node: usize,
}

pub struct MergedPathsPane {
    class: ClassId,
    /// Only these objects of the class (a filtered list's, a leak cluster's), and the
    /// words that say which.
    only: Option<(Arc<Vec<bool>>, String)>,
    built: Arc<Built>,
    list: ListState,
    pending: bool,
    /// The search, running on a thread of its own.
    job: Option<Job<Built>>,
}

/// The merged paths, as a job's thread builds them.
#[derive(Default)]
struct Built {
    /// Instances of the class (of `only`), and how many of them are merged.
    instances: usize,
    merged: usize,
    unreached: usize,
    nodes: Vec<Node>,
    rows: Vec<Row>,
    /// Built before the dominator tree was ready: each node's retained figure is the
    /// instances' shallow sizes until it is built again.
    shallow_only: bool,
}

impl MergedPathsPane {
    /// Where the app keeps the merged paths of all of a class's instances, and under
    /// what key (the snapshot, the class, and whether it has the retained sizes);
    /// `None` for some of them (a filtered list's, a cluster's), which are not kept.
    fn memo_key<'a>(
        &self,
        ctx: &Ctx<'a>,
        retained: bool,
    ) -> Option<(
        &'a crate::ui::panes::job::Jobs,
        &'a Arc<crate::format::Snapshot>,
        u64,
    )> {
        let shared = ctx.shared?;
        if self.only.is_some() {
            return None;
        }
        Some((
            shared.jobs,
            shared.snap,
            (self.class as u64) << 1 | retained as u64,
        ))
    }

    pub fn new(class: ClassId) -> Self {
        Self::of(class, None)
    }

    /// The merged paths of the objects of `class` marked in `only` (all its instances
    /// without it).
    pub fn of(class: ClassId, only: Option<(Arc<Vec<bool>>, String)>) -> Self {
        MergedPathsPane {
            class,
            only,
            built: Default::default(),
            list: ListState::new(),
            pending: true,
            job: None,
        }
    }
}

/// Finds and merges the paths of `class`'s instances (those marked in `only`).
fn build(class: ClassId, only: Option<&[bool]>, ctx: &Ctx, cancel: &AtomicBool) -> Built {
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
    // From the depths, once built, on every core; else the instances counted on one core
    // while the search runs on the other.
    let nearest = g
        .depths
        .get()
        .and_then(|d| crate::heap::depth::nearest_paths(g, d, class, only, MAX_INSTANCES));
    let (instances, paths) = nearest.unwrap_or_else(|| {
        rayon::join(
            || {
                (0..g.len() as ObjId)
                    .into_par_iter()
                    .filter(|&o| wanted(o))
                    .count()
            },
            // The first instances the search from the roots reaches, nearest first; it
            // stops once it has them.
            || crate::heap::paths::first_paths(g, false, wanted, MAX_INSTANCES, stop),
        )
    });
    b.instances = instances;
    if stop() {
        return b;
    }
    // Fewer reached than asked for: the others no root reaches.
    b.unreached = b.instances.min(MAX_INSTANCES) - paths.len();
    // A trie from the roots down; node 0 stands above the roots.
    b.nodes = vec![Node {
        obj: ObjId::MAX,
        label: None,
        place: 0,
        parent: 0,
        children: Vec::new(),
        count: 0,
        retained: 0,
    }];
    let mut index: std::collections::HashMap<(usize, ObjId), usize> = Default::default();
    for path in &paths {
        let Some(&o) = path.last() else {
            continue;
        };
        b.merged += 1;
        let retained = ctx
            .dom
            .and_then(|d| d.retained(o))
            .unwrap_or_else(|| g.shallow_size(o));
        let mut at = 0;
        for &x in path {
            at = match index.get(&(at, x)) {
                Some(&c) => c,
                None => {
                    b.nodes.push(Node {
                        obj: x,
                        label: None,
                        place: 0,
                        parent: at,
                        children: Vec::new(),
                        count: 0,
                        retained: 0,
                    });
                    let c = b.nodes.len() - 1;
                    b.nodes[at].children.push(c);
                    index.insert((at, x), c);
                    c
                }
            };
            b.nodes[at].count += 1;
            b.nodes[at].retained += retained;
        }
    }
    // The names of the references from an object of many (a map's table) to its
    // children here, read in one pass of it: each alone is a scan of the array up to it,
    // and a frame of them took 55 ms on the 50 M-object bench dump. And where each
    // child's reference comes among its parent's, for the siblings' order.
    for p in 1..b.nodes.len() {
        let kids = b.nodes[p].children.clone();
        let from = b.nodes[p].obj;
        let many = g.edges(from).len() >= MANY_REFERENCES;
        if kids.len() < 2 && !many {
            continue;
        }
        if stop() {
            return b;
        }
        let to: Vec<ObjId> = kids.iter().map(|&c| b.nodes[c].obj).collect();
        if kids.len() >= 2 {
            let wanted: Vec<u64> = to.iter().map(|&o| o as u64).collect();
            let refs = g.edges(from).map(|e| g.out_targets[e] as u64);
            let at = crate::heap::positions::first_positions(&wanted, refs);
            for (&c, i) in kids.iter().zip(at) {
                b.nodes[c].place = i.map_or(u32::MAX, |i| i as u32);
            }
        }
        if many {
            for (c, l) in kids.into_iter().zip(ctx.snap.edge_labels(from, &to)) {
                b.nodes[c].label = l;
            }
        }
    }
    // Rows: depth first, the busiest branch first.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut top = b.nodes[0].children.clone();
    top.sort_by_key(|&c| std::cmp::Reverse(b.nodes[c].count));
    stack.extend(top.into_iter().rev().map(|c| (c, 0)));
    while let Some((n, depth)) = stack.pop() {
        b.rows.push(Row { depth, node: n });
        let mut kids = b.nodes[n].children.clone();
        kids.sort_by_key(|&c| (std::cmp::Reverse(b.nodes[c].count), b.nodes[c].place));
        stack.extend(kids.into_iter().rev().map(|c| (c, depth + 1)));
    }
    b
}

impl Pane for MergedPathsPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        self.list.click(x, y, self.built.rows.len())
    }

    fn title(&self, ctx: &Ctx) -> String {
        let name = &ctx.snap.graph.classes[self.class as usize].name;
        let which = self
            .only
            .as_ref()
            .map(|(_, w)| format!(" {w}"))
            .unwrap_or_default();
        let b = &self.built;
        if self.pending || self.job.is_some() {
            return format!(
                "Merged paths from GC roots — working… finding the paths of {name}{which} \
                 (Esc cancels)"
            );
        }
        let mut t = format!(
            "Merged paths from GC roots — {} of {} {name}{which}",
            thousands(b.merged as u64),
            thousands(b.instances as u64)
        );
        if b.unreached > 0 {
            t.push_str(&format!(
                ", {} with no strong path",
                thousands(b.unreached as u64)
            ));
        }
        t
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        match Outcome::list_key(&mut self.list, action_for(key), self.built.rows.len()) {
            Ok(Action::Open) => Outcome::inspect(self.selected_object()),
            Ok(_) => Outcome::Ignored,
            Err(o) => o,
        }
    }

    fn has_work(&self) -> bool {
        self.pending
    }

    fn dominators_ready(&mut self, _ctx: &Ctx) {
        // Built again, now with the instances' retained sizes.
        if self.built.shallow_only {
            self.pending = true;
        }
    }

    /// Starts the search on a thread of its own (any running one is dropped, cancelled),
    /// unless the app has the class's merged paths already.
    fn work(&mut self, ctx: &Ctx) {
        self.pending = false;
        if let Some(b) = self
            .memo_key(ctx, ctx.dom.is_some())
            .and_then(|(j, snap, k)| j.remembered::<Built>(snap, k))
        {
            self.job = None;
            self.built = b;
            self.list.scroll(self.built.rows.len());
            return;
        }
        let class = self.class;
        let only = self.only.as_ref().map(|(m, _)| m.clone());
        self.job = Some(Job::start(ctx, move |ctx, cancel| {
            build(class, only.as_deref().map(|m| m.as_slice()), ctx, cancel)
        }));
    }

    fn poll(&mut self, ctx: &Ctx) -> bool {
        let Some(got) = self.job.as_ref().and_then(|j| j.poll()) else {
            return false;
        };
        self.job = None;
        if let Ok(b) = got {
            let b = Arc::new(b);
            // A whole result (not one cut short by Esc, which drops the job first).
            if let Some((jobs, snap, key)) = self.memo_key(ctx, !b.shallow_only) {
                jobs.remember(snap, key, b.clone());
            }
            self.built = b;
            self.list.scroll(self.built.rows.len());
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snap = ctx.snap;
        let inner = titled(f, area, &self.title(ctx));
        let (rows, nodes) = (&self.built.rows, &self.built.nodes);
        let range = self.list.visible_in(inner, rows.len());
        let w = inner.width as usize;
        let lines: Vec<Line> = range
            .map(|i| {
                let r = &rows[i];
                let n = &nodes[r.node];
                let clean = |t: &str| sanitize(t).into_owned();
                // Cut in the middle of the names, never at the id or the root kind.
                let mut parts = vec![Part::shrink("  ".repeat(r.depth.min(30)), 2)];
                if r.depth == 0 {
                    parts.push(Part::keep(format!(
                        "[{}] ",
                        clean(&snap.describe_roots(n.obj))
                    )));
                } else {
                    let from = nodes[n.parent].obj;
                    let e = n.label.clone().or_else(|| snap.edge_label(from, n.obj));
                    let e = e.unwrap_or_else(|| "?".into());
                    parts.push(Part::shrink(format!("{} → ", clean(&e)), 4));
                }
                parts.push(Part::shrink(clean(snap.class_name(n.obj)), 8));
                parts.push(Part::keep(format!(" {}", clean(&snap.object_name(n.obj)))));
                // The figures on the right, never cut: the name gives way. A narrow pane
                // (beside the histogram) has them in short, so that the root kind and
                // the id keep their room; the line under the list has them in words.
                let figures = if w >= WORDY {
                    format!(
                        "  {} objects, {} retained",
                        thousands(n.count),
                        human(n.retained)
                    )
                } else {
                    format!("  {} obj {}", thousands(n.count), human(n.retained))
                };
                let room = w.saturating_sub(width(&figures));
                let left = fit_parts(parts, room);
                let pad = room.saturating_sub(width(&left));
                let text = format!("{left}{}{figures}", " ".repeat(pad));
                Line::from(Span::styled(text, ctx.theme.row(i == self.list.selected)))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn selected_object(&self) -> Option<ObjId> {
        self.built
            .rows
            .get(self.list.selected)
            .map(|r| self.built.nodes[r.node].obj)
    }

    /// The selected row whole: the root kind or the reference from the row above, the
    /// object, and how many of the instances' paths go through it.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let r = self.built.rows.get(self.list.selected)?;
        let nodes = &self.built.nodes;
        let n = &nodes[r.node];
        let snap = ctx.snap;
        // A root's kind is in the object's line (`GC root: …`).
        let head = if r.depth == 0 {
            String::new()
        } else {
            let from = nodes[n.parent].obj;
            let e = n.label.clone().or_else(|| snap.edge_label(from, n.obj));
            format!("{} → ", e.as_deref().unwrap_or("?"))
        };
        Some(format!(
            "{head}{} · the paths of {} objects, {} retained",
            super::object_line(ctx, n.obj),
            thousands(n.count),
            human(n.retained)
        ))
    }
}
