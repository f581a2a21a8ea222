//! MAT's "Merge Shortest Paths to GC Roots" for a whole class (`P` on a class or an
//! instance list): the shortest path of each instance (the 10,000 nearest the roots) from the GC
//! roots, merged into one tree from the roots down, each node with how many of the
//! instances reach it through it and what they retain. Where a thousand sessions all
//! hang below one map, the map's row says `1,000 objects`.
//!
//! The paths come from one breadth-first search from the roots, which takes the first
//! instances it reaches (the nearest to the roots) and stops once it has them
//! ([`crate::heap::paths::parents_of_first`]), not a search per instance; it runs
//! after the frame that announces it ([`Pane::has_work`]).

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
use crate::ui::text::{fit_parts, sanitize, width, Part};

/// Instances whose paths are merged.
pub const MAX_INSTANCES: usize = 10_000;

struct Node {
    obj: ObjId,
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
    /// Instances of the class, and how many of them are merged.
    instances: usize,
    merged: usize,
    unreached: usize,
    nodes: Vec<Node>,
    rows: Vec<Row>,
    list: ListState,
    pending: bool,
    /// Built before the dominator tree was ready: each node's retained figure is the
    /// instances' shallow sizes until it is built again.
    shallow_only: bool,
}

impl MergedPathsPane {
    pub fn new(class: ClassId) -> Self {
        MergedPathsPane {
            class,
            instances: 0,
            merged: 0,
            unreached: 0,
            nodes: Vec::new(),
            rows: Vec::new(),
            list: ListState::new(),
            pending: true,
            shallow_only: false,
        }
    }

    fn build(&mut self, ctx: &Ctx) {
        let g = &ctx.snap.graph;
        self.merged = 0;
        self.shallow_only = ctx.dom.is_none();
        use rayon::prelude::*;
        let class = self.class;
        self.instances = (0..g.len() as ObjId)
            .into_par_iter()
            .filter(|&o| g.class_of.get(o as usize) == class)
            .count();
        // The first instances the search from the roots reaches, nearest first; it
        // stops once it has them.
        let (parent, merged) = crate::heap::paths::parents_of_first(
            g,
            false,
            |o| g.class_of.get(o as usize) == class,
            MAX_INSTANCES,
        );
        // Fewer reached than asked for: the others no root reaches.
        self.unreached = self.instances.min(MAX_INSTANCES) - merged.len();
        // A trie from the roots down; node 0 stands above the roots.
        self.nodes = vec![Node {
            obj: ObjId::MAX,
            parent: 0,
            children: Vec::new(),
            count: 0,
            retained: 0,
        }];
        let mut index: std::collections::HashMap<(usize, ObjId), usize> = Default::default();
        for &o in &merged {
            let path = crate::heap::paths::path_by_parents(&parent, o);
            if path.is_empty() {
                continue;
            }
            self.merged += 1;
            let retained = ctx
                .dom
                .and_then(|d| d.retained(o))
                .unwrap_or_else(|| g.shallow_size(o));
            let mut at = 0;
            for &x in &path {
                at = match index.get(&(at, x)) {
                    Some(&c) => c,
                    None => {
                        self.nodes.push(Node {
                            obj: x,
                            parent: at,
                            children: Vec::new(),
                            count: 0,
                            retained: 0,
                        });
                        let c = self.nodes.len() - 1;
                        self.nodes[at].children.push(c);
                        index.insert((at, x), c);
                        c
                    }
                };
                self.nodes[at].count += 1;
                self.nodes[at].retained += retained;
            }
        }
        // Rows: depth first, the busiest branch first.
        self.rows.clear();
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut top = self.nodes[0].children.clone();
        top.sort_by_key(|&c| std::cmp::Reverse(self.nodes[c].count));
        stack.extend(top.into_iter().rev().map(|c| (c, 0)));
        while let Some((n, depth)) = stack.pop() {
            self.rows.push(Row { depth, node: n });
            let mut kids = self.nodes[n].children.clone();
            kids.sort_by_key(|&c| std::cmp::Reverse(self.nodes[c].count));
            stack.extend(kids.into_iter().rev().map(|c| (c, depth + 1)));
        }
    }
}

impl Pane for MergedPathsPane {
    fn title(&self, ctx: &Ctx) -> String {
        let name = &ctx.snap.graph.classes[self.class as usize].name;
        if self.pending {
            return format!("Merged paths from GC roots — finding the paths of {name}…");
        }
        let mut t = format!(
            "Merged paths from GC roots — {} of {} {name}",
            thousands(self.merged as u64),
            thousands(self.instances as u64)
        );
        if self.unreached > 0 {
            t.push_str(&format!(
                ", {} with no strong path",
                thousands(self.unreached as u64)
            ));
        }
        t
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        match Outcome::list_key(&mut self.list, action_for(key), self.rows.len()) {
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
        if self.shallow_only {
            self.pending = true;
        }
    }

    fn work(&mut self, ctx: &Ctx) {
        self.pending = false;
        self.build(ctx);
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snap = ctx.snap;
        let inner = titled(f, area, &self.title(ctx));
        let range = self.list.visible(inner.height as usize, self.rows.len());
        let w = inner.width as usize;
        let lines: Vec<Line> = range
            .map(|i| {
                let r = &self.rows[i];
                let n = &self.nodes[r.node];
                let clean = |t: &str| sanitize(t).into_owned();
                // Cut in the middle of the names, never at the id or the root kind.
                let mut parts = vec![Part::shrink("  ".repeat(r.depth.min(30)), 2)];
                if r.depth == 0 {
                    parts.push(Part::keep(format!(
                        "[{}] ",
                        clean(&snap.describe_roots(n.obj))
                    )));
                } else {
                    let from = self.nodes[n.parent].obj;
                    let e = snap.edge_label(from, n.obj).unwrap_or_else(|| "?".into());
                    parts.push(Part::shrink(format!("{} → ", clean(&e)), 4));
                }
                parts.push(Part::shrink(clean(snap.class_name(n.obj)), 8));
                parts.push(Part::keep(format!(" {}", clean(&snap.object_name(n.obj)))));
                // The figures on the right, never cut: the name gives way.
                let figures = format!(
                    "  {} objects, {} retained",
                    thousands(n.count),
                    human(n.retained)
                );
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
        self.rows
            .get(self.list.selected)
            .map(|r| self.nodes[r.node].obj)
    }
}
