//! MAT's "Merge Shortest Paths to GC Roots" for a whole class (`P` on a class or an
//! instance list): the shortest path of every instance from the GC roots, merged into one
//! tree from the roots down, each row with how many of the instances reach it through it
//! and what they retain. The objects of one class held by one reference name from one
//! row are one row (`[*] → HashMap$Node (30,000 objects)`), which `Enter`, `→` or `g`
//! opens to its objects, a page at a time; a run of single rows of one class by one
//! reference name (a linked list's) is folded but for its ends, as paths are
//! ([`crate::results::path::fold`]).
//!
//! Once the loading thread has built every object's depth from the roots
//! ([`crate::heap::depth`]), every instance's path is read from them, level by level from
//! the deepest ([`crate::heap::merged::merge_all`]), and the objects of each level are
//! grouped by their holder's row, their class and the reference's name (told by its place
//! among the holder's references; a name is read once per row, and an array's elements
//! are one name), each level on every core in chunks whose objects' rows are kept as runs
//! where they run long: the 5.5 M sessions of the 50 M-object bench dump in 164–205 ms
//! from the key to the frame in `bench/tui-latency.sh`. Until then (or where memory was
//! short for them, or an instance lies beyond the depths' reach), one breadth-first
//! search from the roots takes the first [`MAX_INSTANCES`] instances it reaches and stops
//! once it has them ([`crate::heap::paths::first_paths`]): 190–310 ms on the 50 M-object
//! bench dump. Either runs after the frame that announces it ([`Pane::has_work`]).

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::histogram::thousands;
use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane};
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::{tree_action_for, Action};
use crate::ui::panes::job::Job;
use crate::ui::text::{fit_parts, sanitize, width, Part};
use std::sync::Arc;

mod build;
use build::{build, Built};

/// Instances whose paths the search from the roots merges (where the depths cannot).
pub const MAX_INSTANCES: usize = 10_000;

/// Objects of a row listed at a time when it is opened.
const PAGE: usize = 500;

/// From this many columns the rows' figures are in words (`12 objects, 3.0 KiB
/// retained`); narrower, in short (`12 obj 3.0 KiB`), so that the root kind and the id
/// keep their room beside the histogram (the line under the list has them in words).
const WORDY: usize = 80;

/// What a row on the screen shows.
#[derive(Clone, Debug, PartialEq)]
enum Row {
    Group {
        g: u32,
        depth: usize,
    },
    /// Object `i` of level `level`, one of an opened row's.
    Member {
        level: usize,
        i: usize,
        depth: usize,
    },
    /// The opened row `g`'s objects past the `shown` listed.
    More {
        g: u32,
        shown: usize,
        depth: usize,
    },
    /// Rows left out of a run (a linked list's), in words.
    Fold {
        text: String,
        depth: usize,
    },
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
    /// The rows on the screen.
    rows: Vec<Row>,
    /// Rows opened to their objects, and how many of them are listed.
    open: std::collections::HashMap<u32, usize>,
    /// The classes' names.
    names: Vec<String>,
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
            rows: Vec::new(),
            open: Default::default(),
            names: Vec::new(),
        }
    }

    /// The rows again after the tree or what is open changed; the selection kept in
    /// range.
    fn refresh(&mut self) {
        self.rows = self.rows();
        self.list.scroll(self.rows.len());
    }

    /// The depth of row `g`'s line: its level, less the rows folded above it.
    fn depth_of(&self, g: u32) -> usize {
        self.rows
            .iter()
            .find_map(|r| match r {
                Row::Group { g: x, depth } if *x == g => Some(*depth),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// The class names the folded rows say (read once).
    fn names_from(&mut self, ctx: &Ctx) {
        if self.names.is_empty() {
            self.names = ctx
                .snap
                .graph
                .classes
                .iter()
                .map(|c| c.name.clone())
                .collect();
        }
    }
}

impl MergedPathsPane {
    /// The rows on the screen: the tree from the roots, the busiest row first, opened
    /// rows with their objects (a page at a time), runs of one class by one name folded.
    fn rows(&self) -> Vec<Row> {
        let b = &self.built;
        let mut rows = Vec::new();
        let mut stack: Vec<(u32, usize)> = b.tops.iter().rev().map(|&t| (t, 0)).collect();
        while let Some((gi, depth)) = stack.pop() {
            // A run of single rows of one class held by one name: its ends only.
            let run = self.run_from(gi);
            let keep = crate::results::path::RUN_SHOWN;
            if run.len() > 2 * keep + 1 {
                for (j, &r) in run[..keep].iter().enumerate() {
                    rows.push(Row::Group {
                        g: r,
                        depth: depth + j,
                    });
                }
                let gr = &b.groups[gi as usize];
                let class = self
                    .names
                    .get(gr.class as usize)
                    .map_or("?", |n| n.as_str());
                rows.push(Row::Fold {
                    text: format!(
                        "… {} more {class} via {} …",
                        thousands((run.len() - 2 * keep) as u64),
                        gr.edge.as_deref().unwrap_or("?")
                    ),
                    depth: depth + keep,
                });
                // The run's last rows, one by one (a run of `keep` is not folded again).
                stack.push((run[run.len() - keep], depth + keep + 1));
                continue;
            }
            rows.push(Row::Group { g: gi, depth });
            let gr = &b.groups[gi as usize];
            if let Some(&shown) = self.open.get(&gi) {
                let level = &b.levels[gr.level];
                for i in level.1.of(gi, level.0.len()).take(shown) {
                    rows.push(Row::Member {
                        level: gr.level,
                        i,
                        depth: depth + 1,
                    });
                }
                if (shown as u64) < gr.objects {
                    rows.push(Row::More {
                        g: gi,
                        shown,
                        depth: depth + 1,
                    });
                }
            }
            for &c in gr.children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        rows
    }

    /// The run of rows from `gi` down, while each is the only row below the one before,
    /// of one object, of the same class and held by the same name.
    fn run_from(&self, gi: u32) -> Vec<u32> {
        let groups = &self.built.groups;
        let first = &groups[gi as usize];
        let mut run = vec![gi];
        let mut at = first;
        if first.objects != 1 || self.open.contains_key(&gi) {
            return run;
        }
        while let [only] = at.children[..] {
            let c = &groups[only as usize];
            if c.objects != 1
                || c.class != first.class
                || c.edge != first.edge
                || self.open.contains_key(&only)
            {
                break;
            }
            run.push(only);
            at = c;
        }
        run
    }
}

impl Pane for MergedPathsPane {
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
        if b.searched {
            t.push_str(" (the nearest the roots)");
        }
        t
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        let n = self.rows.len();
        let action = tree_action_for(key);
        let row = self.rows.get(self.list.selected).cloned();
        match (action, row) {
            // A row of several objects opens to them (and closes again); the row that
            // stands for the rest of them lists the next page.
            (Some(Action::Open | Action::Expand | Action::Group), Some(Row::Group { g, .. }))
                if self.built.groups[g as usize].objects > 1 =>
            {
                let open = self.open.contains_key(&g);
                match (action, open) {
                    (Some(Action::Expand), true) => return Outcome::Consumed,
                    (_, true) => {
                        self.open.remove(&g);
                    }
                    (_, false) => {
                        self.open.insert(g, PAGE);
                    }
                }
                self.refresh();
                Outcome::Consumed
            }
            (Some(Action::Open), Some(Row::More { g, shown, .. })) => {
                self.open.insert(g, shown + PAGE);
                self.refresh();
                Outcome::Consumed
            }
            (Some(Action::Collapse | Action::Group), Some(Row::Member { level, i, .. })) => {
                let g = self.built.levels[level].1.get(i);
                self.open.remove(&g);
                self.refresh();
                // Back on the row they are of.
                if let Some(at) = self.rows.iter().position(|r| {
                    *r == Row::Group {
                        g,
                        depth: self.depth_of(g),
                    }
                }) {
                    self.list.selected = at;
                }
                Outcome::Consumed
            }
            (Some(Action::Collapse), Some(Row::Group { g, .. })) if self.open.contains_key(&g) => {
                self.open.remove(&g);
                self.refresh();
                Outcome::Consumed
            }
            _ => match Outcome::list_key(&mut self.list, action_for_list(key), n) {
                Ok(Action::Open) => Outcome::inspect(self.selected_object()),
                Ok(_) => Outcome::Ignored,
                Err(o) => o,
            },
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
        self.names_from(ctx);
        if let Some(b) = self
            .memo_key(ctx, ctx.dom.is_some())
            .and_then(|(j, snap, k)| j.remembered::<Built>(snap, k))
        {
            self.job = None;
            self.built = b;
            self.refresh();
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
            self.refresh();
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snap = ctx.snap;
        let inner = titled(f, area, &self.title(ctx));
        let b = &self.built;
        let rows = &self.rows;
        let range = self.list.visible_in(inner, rows.len());
        let w = inner.width as usize;
        let clean = |t: &str| sanitize(t).into_owned();
        let lines: Vec<Line> = range
            .map(|i| {
                let (parts, figures) = match &rows[i] {
                    Row::Group { g, depth } => {
                        let gr = &b.groups[*g as usize];
                        // Cut in the middle of the names, never at the id or the root kind.
                        let mut parts = vec![Part::shrink("  ".repeat((*depth).min(30)), 2)];
                        if gr.level == 0 {
                            parts.push(Part::keep(format!(
                                "[{}] ",
                                clean(&snap.describe_roots(gr.first))
                            )));
                        } else {
                            let e = gr.edge.as_deref().unwrap_or("?");
                            parts.push(Part::shrink(format!("{} → ", clean(e)), 4));
                        }
                        parts.push(Part::shrink(
                            clean(&snap.graph.classes[gr.class as usize].name),
                            8,
                        ));
                        if gr.objects == 1 {
                            parts.push(Part::keep(format!(
                                " {}",
                                clean(&snap.object_name(gr.first))
                            )));
                        } else {
                            parts.push(Part::keep(format!(" ({} objects)", thousands(gr.objects))));
                        }
                        let figures = if w >= WORDY {
                            format!(
                                "  {} objects, {} retained",
                                thousands(gr.count),
                                human(gr.bytes)
                            )
                        } else {
                            format!("  {} obj {}", thousands(gr.count), human(gr.bytes))
                        };
                        (parts, figures)
                    }
                    Row::Member { level, i, depth } => {
                        let o = b.levels[*level].0[*i];
                        let parts = vec![
                            Part::shrink("  ".repeat((*depth).min(30)), 2),
                            Part::keep("· "),
                            Part::shrink(clean(snap.class_name(o)), 8),
                            Part::keep(format!(" {}", clean(&snap.object_name(o)))),
                        ];
                        let n = thousands(b.levels[*level].2.get(*i).copied().unwrap_or(1) as u64);
                        let figures = if w >= WORDY {
                            format!("  {n} objects")
                        } else {
                            format!("  {n} obj")
                        };
                        (parts, figures)
                    }
                    Row::More { g, shown, depth } => {
                        let gr = &b.groups[*g as usize];
                        let parts = vec![
                            Part::shrink("  ".repeat((*depth).min(30)), 2),
                            Part::keep(format!(
                                "… {} more objects: Enter shows the next {}",
                                thousands(gr.objects - *shown as u64),
                                thousands(PAGE as u64)
                            )),
                        ];
                        (parts, String::new())
                    }
                    Row::Fold { text, depth } => {
                        let parts = vec![
                            Part::shrink("  ".repeat((*depth).min(30)), 2),
                            Part::shrink(clean(text), 8),
                        ];
                        (parts, String::new())
                    }
                };
                // The figures on the right, never cut: the name gives way.
                let room = w.saturating_sub(width(&figures));
                let left = fit_parts(parts, room);
                let pad = room.saturating_sub(width(&left));
                let text = format!("{left}{}{figures}", " ".repeat(pad));
                Line::from(Span::styled(text, ctx.theme.row(i == self.list.selected)))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        self.list.click(x, y, self.rows.len())
    }

    /// The selected row whole: a group with its reference, class and figures in words,
    /// an object as the object line, a fold or a page row as it reads.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let b = &self.built;
        let snap = ctx.snap;
        Some(match self.rows.get(self.list.selected)? {
            Row::Group { g, .. } => {
                let gr = &b.groups[*g as usize];
                let head = match (&gr.edge, gr.level) {
                    (_, 0) => format!("[{}] ", snap.describe_roots(gr.first)),
                    (Some(e), _) => format!("{e} → "),
                    (None, _) => "? → ".into(),
                };
                let what = if gr.objects == 1 {
                    super::object_line(ctx, gr.first)
                } else {
                    format!(
                        "{} ({} objects)",
                        snap.graph.classes[gr.class as usize].name,
                        thousands(gr.objects)
                    )
                };
                format!(
                    "{head}{what} · the paths of {} objects, {} retained",
                    thousands(gr.count),
                    human(gr.bytes)
                )
            }
            Row::Member { level, i, .. } => super::object_line(ctx, b.levels[*level].0[*i]),
            Row::More { g, shown, .. } => format!(
                "{} more objects: Enter shows the next {}",
                thousands(b.groups[*g as usize].objects - *shown as u64),
                thousands(PAGE as u64)
            ),
            Row::Fold { text, .. } => text.clone(),
        })
    }

    fn selected_object(&self) -> Option<ObjId> {
        let b = &self.built;
        match self.rows.get(self.list.selected)? {
            Row::Group { g, .. } => {
                let gr = &b.groups[*g as usize];
                (gr.objects == 1).then_some(gr.first)
            }
            Row::Member { level, i, .. } => Some(b.levels[*level].0[*i]),
            _ => None,
        }
    }
}

/// A key's action in the list (`g` is not `Home` here).
fn action_for_list(key: &KeyEvent) -> Option<Action> {
    match tree_action_for(key) {
        Some(Action::Group) => None,
        a => a,
    }
}
