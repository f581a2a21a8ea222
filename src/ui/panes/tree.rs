//! Expandable trees of objects: the dominator tree (from the top or below an object), the
//! referrer tree (who holds this, and who holds them), the outgoing-reference tree, and
//! the shortest paths to GC roots merged into one tree (the object at the top, each row
//! below holding the one above by the reference named before `←`, as in the referrer
//! tree, while `field → X` in the other trees says the row above holds X; GC roots at the
//! leaves, as MAT's "merge shortest paths"). `→`/`l` expands a row, `←`/`h` collapses it (or goes
//! to its parent); a row whose object already appears above it on its branch is marked
//! as a cycle (↺) and not followed. Each row shows the reference's name, the object, and
//! its shallow and retained sizes with the share of the heap.

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::histogram::thousands;
use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane};
use crate::heap::dominators::VIRTUAL_ROOT;
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::{key_name, tree_action_for, Action};
use crate::ui::panes::job::Job;
use crate::ui::text::{fit_parts, sanitize, width, Part};

pub(super) mod group;
mod rows;
use group::Group;

/// Children listed under one row; the rest are counted in a "… more" row.
const MAX_CHILDREN: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    Dominators(Option<ObjId>),
    Referrers(ObjId),
    Outgoing(ObjId),
    Paths(ObjId),
}

#[derive(Debug, Clone)]
struct Row {
    depth: usize,
    /// `None` for a "… N more" row.
    obj: Option<ObjId>,
    edge: Option<String>,
    expanded: bool,
    cycle: bool,
    text: Option<String>,
    /// A "… N more" row: the object whose children it stands for (of one class, under
    /// a class row), and how many of them are shown above it (`Enter` shows the next
    /// page).
    more: Option<(ObjId, Option<ClassId>, usize)>,
    /// An object row whose children are shown grouped by class (`g`).
    grouped: bool,
    /// A class row of a grouped node: the node, the class, and its children of that
    /// class: how many, their shallow and retained bytes.
    group: Option<Group>,
}

impl Row {
    /// A row of text alone (a message, or what stands for rows not shown).
    fn text(depth: usize, text: String) -> Row {
        Row {
            depth,
            obj: None,
            edge: None,
            expanded: false,
            cycle: false,
            text: Some(text),
            more: None,
            grouped: false,
            group: None,
        }
    }
}

pub struct TreePane {
    kind: TreeKind,
    /// Paths follow weak and soft references too (`w`).
    weak: bool,
    rows: Vec<Row>,
    list: ListState,
    total: u64,
    /// `g` on a row whose node has [`GROUP_LATER`] children or more: grouped after the
    /// frame that says so ([`Pane::has_work`]), on a thread of its own.
    pending_group: Option<usize>,
    /// That grouping, running: the node's object and depth, and the class rows to come.
    group_job: Option<(ObjId, usize, Job<Vec<Row>>)>,
}

/// Children from which `g` says "grouping…" before it groups (a node of 10 M children
/// takes about 0.2 s).
const GROUP_LATER: usize = 100_000;

impl TreePane {
    pub fn new(kind: TreeKind, ctx: &Ctx) -> Self {
        let mut p = TreePane {
            kind,
            weak: false,
            rows: Vec::new(),
            list: ListState::new(),
            total: 0,
            pending_group: None,
            group_job: None,
        };
        p.build(ctx);
        p
    }

    fn build(&mut self, ctx: &Ctx) {
        let row = |depth, obj, edge| Row {
            depth,
            obj: Some(obj),
            edge,
            expanded: false,
            cycle: false,
            text: None,
            more: None,
            grouped: false,
            group: None,
        };
        self.rows.clear();
        if let Some(d) = ctx.dom {
            self.total = d.total_bytes();
        }
        match self.kind {
            TreeKind::Dominators(None) => {
                if ctx.dom.is_none() {
                    return;
                }
                let rows = self.page_rows((VIRTUAL_ROOT, None), 0, 0, &[], ctx);
                self.rows.extend(rows);
            }
            TreeKind::Dominators(Some(o)) if ctx.dom.is_none() => {
                let _ = o;
            }
            TreeKind::Dominators(Some(o)) | TreeKind::Referrers(o) | TreeKind::Outgoing(o) => {
                self.rows.push(row(0, o, None));
                self.expand(0, ctx);
            }
            TreeKind::Paths(o) => {
                // MAT's "merge shortest paths": the object at the top, the objects that
                // hold it below, and so on up to the GC roots; paths that share a
                // referrer share its row.
                let g = &ctx.snap.graph;
                let paths = crate::heap::paths::to_roots(g, o, 10, self.weak);
                if paths.is_empty() {
                    let text =
                        if !self.weak && !crate::heap::paths::to_roots(g, o, 1, true).is_empty() {
                            "held only by weak or soft references (w follows them)"
                        } else {
                            "unreachable (garbage in this dump): no path from a GC root"
                        };
                    self.rows.push(Row::text(0, text.into()));
                }
                // A trie of the reversed paths, each folded as the CLI folds it (a
                // linked list's run of `next` is one row but for its ends): (step,
                // children), node 0 = the object.
                use crate::results::path::{fold, Piece};
                #[derive(PartialEq)]
                enum Step {
                    Obj(ObjId),
                    /// Steps left out: the first and last objects (from the root), and
                    /// the words.
                    Fold(ObjId, ObjId, String),
                }
                impl Step {
                    /// The object the row below it in the tree is held by.
                    fn rootward(&self) -> ObjId {
                        match self {
                            Step::Obj(x) | Step::Fold(x, _, _) => *x,
                        }
                    }
                }
                let snap = ctx.snap;
                let mut trie: Vec<(Step, Vec<usize>)> = vec![(Step::Obj(o), Vec::new())];
                for p in &paths {
                    let mut at = 0;
                    for piece in fold(snap, p).iter().rev().skip(1) {
                        let step = match piece {
                            Piece::Step(i) => Step::Obj(p[*i]),
                            Piece::Fold(f) => {
                                Step::Fold(p[f.from], p[f.to - 1], f.words(snap, |c| c.to_string()))
                            }
                        };
                        let next = trie[at].1.iter().copied().find(|&c| trie[c].0 == step);
                        at = match next {
                            Some(c) => c,
                            None => {
                                trie.push((step, Vec::new()));
                                let c = trie.len() - 1;
                                trie[at].1.push(c);
                                c
                            }
                        };
                    }
                }
                if !paths.is_empty() {
                    let mut stack = vec![(0usize, 0usize, None::<ObjId>)];
                    while let Some((node, depth, below)) = stack.pop() {
                        let r = match &trie[node].0 {
                            Step::Fold(_, _, words) => Row::text(depth, words.clone()),
                            Step::Obj(x) => {
                                let edge = below.and_then(|b| snap.edge_label(*x, b));
                                let mut r = row(depth, *x, edge);
                                r.expanded = true;
                                if trie[node].1.is_empty() {
                                    r.text = Some(format!("GC root: {}", snap.describe_roots(*x)));
                                }
                                r
                            }
                        };
                        self.rows.push(r);
                        let up = trie[node].0.rootward();
                        for &c in trie[node].1.iter().rev() {
                            stack.push((c, depth + 1, Some(up)));
                        }
                    }
                }
            }
        }
        self.list.scroll(self.rows.len());
    }

    /// [`Self::children_in`], read in place where the tree keeps them (a dominator
    /// tree's: a copy of a node's 10 M children took 40 ms).
    fn children_of<'a>(kind: TreeKind, o: ObjId, ctx: &Ctx<'a>) -> std::borrow::Cow<'a, [ObjId]> {
        match (kind, ctx.dom) {
            (TreeKind::Dominators(_), Some(d)) => std::borrow::Cow::Borrowed(d.children(o)),
            _ => std::borrow::Cow::Owned(Self::children_in(kind, o, ctx)),
        }
    }

    /// Every child of `o` in a tree of `kind`, in the tree's order.
    fn children_in(kind: TreeKind, o: ObjId, ctx: &Ctx) -> Vec<ObjId> {
        let g = &ctx.snap.graph;
        match kind {
            TreeKind::Dominators(_) => ctx.dom.map(|d| d.children(o).to_vec()).unwrap_or_default(),
            TreeKind::Referrers(_) => {
                let mut r: Vec<ObjId> = g.referrers(o).to_vec();
                r.dedup();
                r
            }
            TreeKind::Outgoing(_) => {
                let mut seen = std::collections::HashSet::new();
                g.edges(o)
                    .map(|e| g.out_targets[e])
                    .filter(|&t| seen.insert(t))
                    .collect()
            }
            TreeKind::Paths(_) => Vec::new(),
        }
    }

    /// The class rows of `o`'s children, largest first: at most a page of them, the
    /// rest counted in a last row.
    fn group_rows(kind: TreeKind, o: ObjId, depth: usize, ctx: &Ctx) -> Vec<Row> {
        let children = Self::children_of(kind, o, ctx);
        let groups = group::by_class(&children, o, ctx);
        let more = groups.len().saturating_sub(MAX_CHILDREN);
        let mut rows: Vec<Row> = groups
            .into_iter()
            .take(MAX_CHILDREN)
            .map(|gr| Row {
                depth,
                obj: None,
                edge: None,
                expanded: false,
                cycle: false,
                text: None,
                more: None,
                grouped: false,
                group: Some(gr),
            })
            .collect();
        if more > 0 {
            rows.push(Row::text(
                depth,
                format!("… {} more classes", thousands(more as u64)),
            ));
        }
        rows
    }

    /// The children of `o` in this tree, from the `skip`th, at most a page of them;
    /// with how many there are in all and the bytes of those past the page (retained
    /// where the dominator tree is ready, else shallow).
    #[allow(clippy::type_complexity)]
    fn children(
        &self,
        o: ObjId,
        class: Option<ClassId>,
        ctx: &Ctx,
        skip: usize,
    ) -> (Vec<(ObjId, Option<String>)>, usize, u64) {
        let snap = ctx.snap;
        let g = &snap.graph;
        use rayon::prelude::*;
        let mut all = Self::children_of(self.kind, o, ctx);
        if let Some(c) = class {
            let of_class = all
                .par_iter()
                .copied()
                .filter(|&x| g.class_of.get(x as usize) == c)
                .collect();
            all = std::borrow::Cow::Owned(of_class);
        }
        let total = all.len();
        let page = &all[skip.min(total)..(skip + MAX_CHILDREN).min(total)];
        let rest = &all[(skip + MAX_CHILDREN).min(total)..];
        let size = |x: ObjId| {
            ctx.dom
                .and_then(|d| d.retained(x))
                .unwrap_or_else(|| g.shallow_size(x))
        };
        let rest_bytes = rest.par_iter().map(|&x| size(x)).sum();
        // Name the reference from the dominator where there is a direct one and finding
        // it is cheap (a parent of a few hundred references at most).
        let dom_label = o != VIRTUAL_ROOT && g.edges(o).len() <= 256;
        // A child held by several references has them all named (`[0], [3]`), the
        // page's in one pass over `o`'s references.
        let names = match self.kind {
            TreeKind::Dominators(_) if !dom_label => vec![None; page.len()],
            TreeKind::Referrers(_) => page.iter().map(|&c| snap.edge_name(c, o)).collect(),
            _ => snap.edge_names(o, page),
        };
        let kids = page.iter().copied().zip(names).collect();
        (kids, total, rest_bytes)
    }

    /// The rows of a page of `o`'s children at `depth`, with a "… N more" row when more
    /// follow; `branch` marks the cycles.
    fn page_rows(
        &self,
        (o, class): (ObjId, Option<ClassId>),
        depth: usize,
        skip: usize,
        branch: &[ObjId],
        ctx: &Ctx,
    ) -> Vec<Row> {
        let (kids, total, rest_bytes) = self.children(o, class, ctx, skip);
        let shown = skip + kids.len();
        let mut rows: Vec<Row> = kids
            .into_iter()
            .map(|(c, e)| Row {
                depth,
                obj: Some(c),
                edge: e,
                expanded: false,
                cycle: branch.contains(&c),
                text: None,
                more: None,
                grouped: false,
                group: None,
            })
            .collect();
        if shown < total {
            rows.push(Row {
                more: Some((o, class, shown)),
                ..Row::text(
                    depth,
                    format!(
                        "… {} more ({}): Enter shows the next {MAX_CHILDREN}, g groups by class",
                        thousands((total - shown) as u64),
                        human(rest_bytes)
                    ),
                )
            });
        }
        rows
    }

    /// `Enter` on a "… N more" row: the next page in its place.
    fn next_page(&mut self, i: usize, ctx: &Ctx) {
        let Some(Row {
            more: Some((o, class, shown)),
            depth,
            ..
        }) = self.rows.get(i).cloned()
        else {
            return;
        };
        let branch = if i > 0 {
            self.branch(i - 1)
        } else {
            Vec::new()
        };
        let rows = self.page_rows((o, class), depth, shown, &branch, ctx);
        self.rows.splice(i..i + 1, rows);
    }

    /// The objects on the branch from the top down to row `i` (inclusive).
    fn branch(&self, i: usize) -> Vec<ObjId> {
        let mut out = Vec::new();
        let mut depth = self.rows[i].depth + 1;
        for r in self.rows[..=i].iter().rev() {
            if r.depth < depth {
                depth = r.depth;
                out.extend(r.obj);
            }
        }
        out
    }

    fn expand(&mut self, i: usize, ctx: &Ctx) {
        let Some(row) = self.rows.get(i) else { return };
        if row.expanded || row.cycle || matches!(self.kind, TreeKind::Paths(_)) {
            return;
        }
        let depth = row.depth;
        let branch = self.branch(i);
        let new = match (row.obj, row.group) {
            (Some(o), _) if row.grouped => Self::group_rows(self.kind, o, depth + 1, ctx),
            (Some(o), _) => self.page_rows((o, None), depth + 1, 0, &branch, ctx),
            (None, Some(gr)) => {
                self.page_rows((gr.parent, Some(gr.class)), depth + 1, 0, &branch, ctx)
            }
            (None, None) => return,
        };
        self.rows[i].expanded = true;
        self.rows.splice(i + 1..i + 1, new);
    }

    /// `g`: the children of the node at or above row `i` grouped by class, or no
    /// longer grouped; the node is selected, expanded.
    fn group(&mut self, i: usize, ctx: &Ctx) {
        let Some(n) = self.group_node(i) else { return };
        if self.rows[n].expanded {
            self.collapse(n);
        }
        self.rows[n].grouped = !self.rows[n].grouped;
        self.list.selected = n;
        self.expand(n, ctx);
    }

    /// `g` on a node of many children: its class rows found on a thread of its own
    /// (ungrouping is at once).
    fn start_group(&mut self, i: usize, ctx: &Ctx) {
        let Some(n) = self.group_node(i) else { return };
        let r = &self.rows[n];
        let Some(o) = r.obj.filter(|_| !r.grouped) else {
            return self.group(i, ctx);
        };
        let (kind, depth) = (self.kind, r.depth);
        let job = Job::start(ctx, move |ctx, _| Self::group_rows(kind, o, depth + 1, ctx));
        self.group_job = Some((o, depth, job));
    }

    /// The node that `g` on row `i` groups: this row's object, or for a page or class
    /// row, its parent's.
    fn group_node(&self, i: usize) -> Option<usize> {
        let row = self.rows.get(i)?;
        // The node: this row's object, or for a page or class row, its parent's.
        let mut node = Some(i).filter(|_| row.obj.is_some() && !row.cycle);
        let mut depth = row.depth;
        while node.is_none() {
            let p = self.rows[..i].iter().rposition(|r| r.depth < depth)?;
            depth = self.rows[p].depth;
            node = Some(p).filter(|&p| self.rows[p].obj.is_some());
        }
        node
    }

    /// A grouping's class rows have come: in place of the node's children, wherever the
    /// node is now (keys went on meanwhile); dropped when it is no longer there.
    fn grouped(&mut self, o: ObjId, depth: usize, rows: Vec<Row>) {
        let Some(n) = self
            .rows
            .iter()
            .position(|r| r.obj == Some(o) && r.depth == depth && !r.grouped)
        else {
            return;
        };
        if self.rows[n].expanded {
            self.collapse(n);
        }
        self.rows[n].grouped = true;
        self.rows[n].expanded = true;
        self.rows.splice(n + 1..n + 1, rows);
        self.list.selected = n;
        self.list.scroll(self.rows.len());
    }

    fn collapse(&mut self, i: usize) {
        let Some(row) = self.rows.get(i) else { return };
        if matches!(self.kind, TreeKind::Paths(_)) {
            return;
        }
        let depth = row.depth;
        if row.expanded {
            let end = self.rows[i + 1..]
                .iter()
                .position(|r| r.depth <= depth)
                .map_or(self.rows.len(), |k| i + 1 + k);
            self.rows.drain(i + 1..end);
            self.rows[i].expanded = false;
        } else if let Some(p) = self.rows[..i].iter().rposition(|r| r.depth < depth) {
            self.list.selected = p;
        }
    }
}

/// The keys worth a hint in a tree of objects (and in the threads pane's).
pub const TREE_HINTS: [Action; 8] = [
    Action::Down,
    Action::Expand,
    Action::Open,
    Action::Back,
    Action::Paths,
    Action::Referrers,
    Action::Help,
    Action::Quit,
];

impl Pane for TreePane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        self.list.click(x, y, self.rows.len())
    }

    fn title(&self, ctx: &Ctx) -> String {
        let name = |o: ObjId| format!("{} {}", ctx.snap.class_name(o), ctx.snap.object_name(o));
        if self.pending_group.is_some() || self.group_job.is_some() {
            return "working… grouping the children by class (Esc cancels)".into();
        }
        match self.kind {
            TreeKind::Dominators(None) => "Dominator tree — from the GC roots".into(),
            TreeKind::Dominators(Some(o)) => format!("Dominator tree — below {}", name(o)),
            TreeKind::Referrers(o) => format!("Referrers of {}", name(o)),
            TreeKind::Outgoing(o) => format!("References from {}", name(o)),
            TreeKind::Paths(o) => format!(
                "Shortest paths to GC roots, merged{}: {}",
                if self.weak {
                    ", weak references too"
                } else {
                    ""
                },
                name(o)
            ),
        }
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        let a = match Outcome::list_key(&mut self.list, tree_action_for(key), self.rows.len()) {
            Ok(a) => a,
            Err(o) => return o,
        };
        let i = self.list.selected;
        let paths = matches!(self.kind, TreeKind::Paths(_));
        let grouping = self.pending_group.is_some() || self.group_job.is_some();
        match a {
            Action::Back if grouping => {
                self.pending_group = None;
                self.group_job = None;
                return Outcome::Done("grouping cancelled".into());
            }
            Action::Group if grouping => {
                return Outcome::Refused("already grouping by class… (Esc cancels)".into())
            }
            Action::Expand | Action::Collapse if paths => {
                return Outcome::Refused(format!(
                    "`{}` does nothing here: the paths are drawn whole",
                    key_name(key)
                ))
            }
            Action::Expand if self.rows.get(i).is_some_and(|r| r.cycle) => {
                return Outcome::Refused(
                    "↺ this object is already on the branch above: not followed again".into(),
                )
            }
            Action::Expand if self.rows.get(i).is_some_and(|r| r.expanded) => {
                return Outcome::Refused("this row is already expanded (← collapses it)".into())
            }
            Action::Expand => {
                let before = self.rows.len();
                self.expand(i, ctx);
                if self.rows.len() == before {
                    return Outcome::Refused("nothing below this row to expand".into());
                }
            }
            Action::Group if !matches!(self.kind, TreeKind::Paths(_)) => {
                let many = self
                    .rows
                    .get(i)
                    .and_then(|r| r.obj.or(r.more.map(|m| m.0)))
                    .is_some_and(|o| Self::children_of(self.kind, o, ctx).len() >= GROUP_LATER);
                if many {
                    self.pending_group = Some(i);
                    self.group_job = None;
                    return Outcome::Consumed;
                }
                self.group(i, ctx)
            }
            Action::Collapse => {
                let (before, sel) = (self.rows.len(), self.list.selected);
                self.collapse(i);
                if self.rows.len() == before && self.list.selected == sel {
                    return Outcome::Refused("nothing above this row to collapse to".into());
                }
            }
            Action::Weak if matches!(self.kind, TreeKind::Paths(_)) => {
                self.weak = !self.weak;
                self.list.selected = 0;
                self.build(ctx);
            }
            Action::Open if self.rows.get(i).is_some_and(|r| r.more.is_some()) => {
                self.next_page(i, ctx)
            }
            Action::Open => return Outcome::inspect(self.selected_object()),
            _ => return Outcome::Ignored,
        }
        self.list.scroll(self.rows.len());
        Outcome::Consumed
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let inner = titled(f, area, &self.title(ctx));
        if self.rows.is_empty() {
            let msg = if ctx.dom.is_none() {
                "waiting for the dominator tree (it is being computed in the background)"
            } else {
                "nothing to show"
            };
            f.render_widget(Paragraph::new(Span::styled(msg, ctx.theme.dim())), inner);
            return;
        }
        let w = inner.width as usize;
        let range = self.list.visible_in(inner, self.rows.len());
        let lines: Vec<Line> = range
            .map(|i| {
                let r = &self.rows[i];
                let (parts, right) = self.row_parts(r, ctx);
                // The size columns that fit beside the names and the id, all rows alike.
                let (right, sizes_w) = right.map_or((String::new(), 26), |s| s.shown(w));
                let left_w = w.saturating_sub(sizes_w + 1);
                let left = fit_parts(parts, left_w);
                let pad = left_w.saturating_sub(width(&left));
                let text = format!("{left}{} {right:>sizes_w$}", " ".repeat(pad));
                Line::from(Span::styled(text, ctx.theme.row(i == self.list.selected)))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn selected_object(&self) -> Option<ObjId> {
        self.rows.get(self.list.selected).and_then(|r| r.obj)
    }

    fn has_work(&self) -> bool {
        self.pending_group.is_some()
    }

    fn work(&mut self, ctx: &Ctx) {
        if let Some(i) = self.pending_group.take() {
            self.start_group(i, ctx);
            self.list.scroll(self.rows.len());
        }
    }

    fn poll(&mut self, _ctx: &Ctx) -> bool {
        let Some(got) = self.group_job.as_ref().and_then(|(_, _, j)| j.poll()) else {
            return false;
        };
        let (o, depth, _) = self.group_job.take().expect("polled above");
        if let Ok(rows) = got {
            self.grouped(o, depth, rows);
        }
        true
    }

    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let r = self.rows.get(self.list.selected)?;
        match (r.obj, r.group) {
            (Some(o), _) => {
                let mut s = String::new();
                if let Some(e) = &r.edge {
                    s.push_str(e);
                    s.push_str(if self.upward() { " ← " } else { " → " });
                }
                s.push_str(&super::object_line(ctx, o));
                Some(s)
            }
            (None, Some(gr)) => Some(format!(
                "{} × {} · shallow {}{}",
                thousands(gr.count),
                ctx.snap
                    .graph
                    .classes
                    .get(gr.class as usize)
                    .map_or("?", |c| c.name.as_str()),
                human(gr.shallow),
                gr.retained
                    .map(|r| format!(" · retained {}", human(r)))
                    .unwrap_or_default()
            )),
            (None, None) => r.text.clone(),
        }
    }

    fn hints(&self) -> &'static [Action] {
        &TREE_HINTS
    }

    fn dominators_ready(&mut self, ctx: &Ctx) {
        if matches!(self.kind, TreeKind::Dominators(_)) && self.rows.is_empty() {
            self.build(ctx);
        }
        if let Some(d) = ctx.dom {
            self.total = d.total_bytes();
        }
    }
}
