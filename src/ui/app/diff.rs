//! The diff view of `heaptui BASE TARGET`: DevTools' Comparison view and MAT's compare
//! basket in the terminal.
//!
//! First a table of every class with its count and bytes on both sides and the deltas,
//! sorted by the delta `s` picks, and below it the owners that grew most, matched by
//! their path from the GC roots (`crate::diff`), once both dominator trees are ready.
//! `Enter` on a class opens the two snapshots side by side, base on the left and target
//! on the right, each on that class's instances (where ids survive: the gone objects on
//! the left and the new ones on the right, `n` shows all). Each side is a whole
//! single-snapshot view with its own navigation stack (inspector, paths, dominators,
//! ...); `Tab` moves between the sides and `Esc` from a side's first pane returns to
//! the table. `:` queries both snapshots in SQL (`query`).
//!
//! The owners are a list too (MAT's compare basket rows, memlab's retainer traces): `Tab`
//! moves the keys between the class table and them, and on an owner `Enter` opens its
//! object on both sides (the inspector), `p` its paths from the GC roots and `d` its
//! subtree of the dominator tree, each side on its own snapshot's object at that path.

use std::sync::{Arc, Mutex};

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell as TCell, Paragraph, Row as TRow, Table, Wrap};
use ratatui::Frame;

use super::Ready;

mod owners;
mod query;
use crate::diff::{ClassDelta, DiffSort, Identity, OwnerDelta};
use crate::heap::dominators::Dominators;
use crate::ui::keys::{action_for, Action};
use crate::ui::panes::histogram::thousands;
use crate::ui::panes::instances::InstancesPane;
use crate::ui::panes::list::ListState;
use crate::ui::panes::{human, Ctx, Outcome, Pane};
use crate::ui::text::elide_middle;
use crate::ui::text::sanitize;
use crate::ui::theme::Theme;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Base,
    Target,
}

/// From this many columns the two sides get the focused side's inspector beside them.
pub const DIFF_WIDE: u16 = 160;

pub struct DiffView {
    pub base: Ready,
    pub target: Ready,
    /// New and gone objects, where the two snapshots share ids.
    pub ids: Option<Arc<Identity>>,
    /// The new objects of the target and the gone ones of the base, as instance-list
    /// marks.
    new_mask: Option<Arc<Vec<bool>>>,
    gone_mask: Option<Arc<Vec<bool>>>,
    /// Every class's figures, computed when the view opens and again when the dominator
    /// trees are ready (a walk of both snapshots: not for every key).
    every: Vec<ClassDelta>,
    /// The rows shown: the changed classes of `every` (all of them with `all`, which
    /// `n` toggles), sorted by `sort`.
    rows: Vec<ClassDelta>,
    all: bool,
    /// The widest figure of each number column of `rows` (base and target counts, the
    /// three deltas, new, gone): the columns are sized to them, so that no figure loses
    /// a digit or its sign (issue 39, bug 9).
    figures_w: [usize; 7],
    owners: Vec<OwnerDelta>,
    /// The owners' selection, and whether `Tab` gave them the keys.
    owners_list: ListState,
    pub focus_owners: bool,
    sort: DiffSort,
    list: ListState,
    /// Side by side on a class, and which side has the keys; `None` shows the table.
    pub sides: Option<Side>,
    /// The focused side alone, the whole width: a query's answer asked for on the table
    /// (`query`).
    pub alone: bool,
    /// Why the comparison is coarser than it could be (different formats, no common ids).
    pub warning: Option<String>,
}

impl DiffView {
    /// The two sides, with the ids and the warning of [`crate::diff::identity_checked`].
    pub fn new(
        base: Ready,
        target: Ready,
        ids: Option<Arc<Identity>>,
        warning: Option<String>,
    ) -> Self {
        let new_mask = ids.as_ref().map(|i| Arc::new(i.new_in_target.clone()));
        let gone_mask = ids.as_ref().map(|i| Arc::new(i.gone_in_base.clone()));
        let mut v = DiffView {
            base,
            target,
            ids,
            new_mask,
            gone_mask,
            every: Vec::new(),
            rows: Vec::new(),
            all: false,
            figures_w: [0; 7],
            owners: Vec::new(),
            owners_list: ListState::new(),
            focus_owners: false,
            sort: DiffSort::DeltaShallow,
            list: ListState::new(),
            sides: None,
            alone: false,
            warning,
        };
        v.pair_sides();
        v.compute();
        v
    }

    fn compute(&mut self) {
        let doms = match (&self.base.dom, &self.target.dom) {
            (Some(a), Some(b)) => Some((a.as_ref(), b.as_ref())),
            _ => None,
        };
        self.every = crate::diff::class_deltas(
            &self.base.snap,
            &self.target.snap,
            doms,
            self.ids.as_deref(),
        );
        self.show();
    }

    /// Filters and sorts `every` into `rows`, keeping the selected class selected.
    fn show(&mut self) {
        let selected = self.selected_row().map(|r| r.class.clone());
        self.rows = self
            .every
            .iter()
            .filter(|r| {
                self.all
                    || r.delta_count() != 0
                    || r.delta_shallow() != 0
                    || r.delta_retained() != 0
                    || r.new != 0
                    || r.gone != 0
            })
            .cloned()
            .collect();
        crate::diff::sort_deltas(&mut self.rows, self.sort);
        let retained = self.dominators_ready();
        self.figures_w = [0; 7];
        for r in &self.rows {
            let cells = figures(r, retained);
            for (w, c) in self.figures_w.iter_mut().zip(&cells) {
                *w = (*w).max(c.chars().count());
            }
        }
        if let Some(c) = selected {
            if let Some(i) = self.rows.iter().position(|r| r.class == c) {
                self.list.selected = i;
            }
        }
        self.list.scroll(self.rows.len());
    }

    /// Both dominator trees are ready, with the class figures and the owners that grew
    /// that they give (computed beside them, off the UI thread).
    pub fn set_dominators(
        &mut self,
        a: Arc<Dominators>,
        b: Arc<Dominators>,
        classes: Vec<ClassDelta>,
        owners: Vec<OwnerDelta>,
        theme: &Theme,
    ) {
        self.owners = owners;
        self.owners_list = ListState::new();
        self.focus_owners &= !self.owners.is_empty();
        self.every = classes;
        self.base.set_dominators(a, theme);
        self.target.set_dominators(b, theme);
        self.pair_sides();
        self.show();
    }

    pub fn dominators_ready(&self) -> bool {
        self.base.dom.is_some() && self.target.dom.is_some()
    }

    fn selected_row(&self) -> Option<&ClassDelta> {
        self.rows.get(self.list.selected)
    }

    pub fn side(&self, s: Side) -> &Ready {
        match s {
            Side::Base => &self.base,
            Side::Target => &self.target,
        }
    }

    /// Does the side in front's announced work (see [`Ready::work`]).
    pub fn work(&mut self, theme: &Theme) -> bool {
        match self.sides {
            Some(side) => self.side_mut(side).work(theme),
            None => false,
        }
    }

    pub fn side_mut(&mut self, s: Side) -> &mut Ready {
        match s {
            Side::Base => &mut self.base,
            Side::Target => &mut self.target,
        }
    }

    /// Opens the two sides on the selected class.
    fn open_sides(&mut self, theme: &Theme) {
        let Some(row) = self.selected_row().cloned() else {
            return;
        };
        for side in [Side::Base, Side::Target] {
            let (mask, word, changed) = match side {
                Side::Base => (self.gone_mask.clone(), "gone", row.gone),
                Side::Target => (self.new_mask.clone(), "new", row.new),
            };
            let r = self.side_mut(side);
            let class = r
                .snap
                .graph
                .classes
                .iter()
                .position(|c| c.name == row.class);
            let count = match side {
                Side::Base => row.base_count,
                Side::Target => row.target_count,
            };
            let pane: Box<dyn Pane> = match class {
                // An HPROF file lists every loaded class, instances or not: a class
                // without any says so as one a V8 snapshot does not list.
                Some(c) if count > 0 => {
                    let ctx = r.ctx(theme);
                    // Only the changed objects when there are some; all otherwise.
                    let marks = mask.filter(|_| changed > 0).map(|m| (m, word));
                    Box::new(InstancesPane::with_changed(c as u32, &ctx, marks))
                }
                _ => Box::new(MessagePane(format!(
                    "No instance of {} in this snapshot.",
                    row.class
                ))),
            };
            r.stack = vec![pane];
            r.forward.clear();
        }
        self.sides = Some(Side::Target);
    }

    /// Handles a key; false when it is the app's (quit, help, summary).
    pub fn on_key(
        &mut self,
        key: &KeyEvent,
        theme: &Theme,
        clipboard: &Mutex<Vec<String>>,
        message: &mut Option<String>,
    ) -> bool {
        if let Some(used) = self.query_key(key, theme, message) {
            return used;
        }
        let action = action_for(key);
        if let Some(side) = self.sides {
            if !self.side(side).top().is_editing() {
                if self.alone_key(action) {
                    return true;
                }
                let r = self.side_mut(side);
                match action {
                    Some(Action::Side) => {
                        self.sides = Some(match side {
                            Side::Base => Side::Target,
                            Side::Target => Side::Base,
                        });
                        return true;
                    }
                    Some(Action::Back) if r.stack.len() == 1 => {
                        // A filter on the first pane is cleared first, a running query
                        // cancelled.
                        let (ctx, stack, _) = r.parts(theme);
                        let top = stack.last_mut().expect("one pane");
                        match top.handle(key, &ctx) {
                            Outcome::Consumed => return true,
                            Outcome::Done(m) => {
                                *message = Some(m);
                                return true;
                            }
                            _ => {}
                        }
                        self.sides = None;
                        self.alone = false;
                        return true;
                    }
                    _ => {}
                }
            }
            return self.side_mut(side).on_key(key, theme, clipboard, message);
        }
        let Some(a) = action else {
            return false;
        };
        if a == Action::Query {
            self.open_query_line(message);
            return true;
        }
        if let Some(used) = self.owners_key(a, theme, message) {
            return used;
        }
        if self.list.apply(a, self.rows.len()) {
            return true;
        }
        match a {
            Action::Paths | Action::DominatorTree if !self.owners.is_empty() => {
                *message = Some(format!(
                    "`{}` works on an owner: Tab moves to the owners that grew",
                    crate::ui::keys::key_name(key)
                ));
                true
            }
            Action::Sort => {
                self.sort = self.sort.next();
                if self.sort == DiffSort::DeltaRetained && !self.dominators_ready() {
                    *message = Some("retained sizes are still being computed".into());
                }
                self.show();
                true
            }
            Action::Open if self.selected_row().is_none() => {
                *message = Some("`Enter` does nothing here: no class is listed".into());
                true
            }
            Action::Open => {
                self.open_sides(theme);
                true
            }
            Action::Changed => {
                self.all = !self.all;
                self.show();
                true
            }
            _ => false,
        }
    }

    pub fn draw(
        &self,
        f: &mut Frame,
        area: Rect,
        theme: &Theme,
        dom_fraction: f64,
        split: super::split::Split,
    ) {
        match self.sides {
            Some(focus) => self.draw_sides(f, area, theme, focus, split),
            None => self.draw_table(f, area, theme, dom_fraction),
        }
    }

    /// The focused side's inspector, drawn in a third column from [`DIFF_WIDE`] columns.
    fn third(&self, width: u16) -> Option<&dyn Pane> {
        let focus = self.sides?;
        self.side(focus)
            .detail
            .as_ref()
            .filter(|_| width >= DIFF_WIDE)
            .map(|(_, d)| d.as_ref())
    }

    /// The left part's own share of a screen `width` wide, in percent: the two sides
    /// of the sides' two thirds beside the third column, or of the whole width.
    pub fn left_share(&self, width: u16) -> u16 {
        if self.third(width).is_some() {
            67
        } else {
            50
        }
    }

    fn draw_table(&self, f: &mut Frame, area: Rect, theme: &Theme, dom_fraction: f64) {
        let warn_h = self.warning.is_some() as u16;
        let owners_h = if self.owners.is_empty() {
            0
        } else {
            (self.owners.len() as u16 + 2).min(area.height / 3)
        };
        // The selected row whole under the table, as under the other lists (the class
        // column cuts long names), where there is room.
        // Wrapped over the rows it needs, up to a quarter of the screen.
        let line = self.line_under().filter(|_| area.height > 8).map(|l| {
            crate::ui::text::wrap_rows(
                &format!("▸ {}", sanitize(&l)),
                area.width as usize,
                (area.height / 4).max(2) as usize,
            )
        });
        let line_h = line.as_ref().map_or(0, |l| l.len() as u16);
        let [warn, table_area, line_area, owners_area] = Layout::vertical([
            Constraint::Length(warn_h),
            Constraint::Min(3),
            Constraint::Length(line_h),
            Constraint::Length(owners_h),
        ])
        .areas(area);
        if let Some(l) = line {
            let lines: Vec<Line> = l.into_iter().map(Line::from).collect();
            f.render_widget(Paragraph::new(lines).style(theme.dim()), line_area);
        }
        if let Some(w) = &self.warning {
            f.render_widget(
                Paragraph::new(format!(" ⚠ {}", sanitize(w))).style(theme.warn()),
                warn,
            );
        }
        let ids = self.ids.is_some();
        let retained = self.dominators_ready();
        let title = format!(
            " Diff — {} of {} classes{}, sorted by {}{}{} ",
            thousands(self.rows.len() as u64),
            thousands(self.every.len() as u64),
            if self.all { "" } else { " changed" },
            self.sort.name(),
            match &self.ids {
                Some(i) => format!(
                    "; by {}: {} new, {} gone, {} kept",
                    i.kind,
                    thousands(i.new),
                    thousands(i.gone),
                    thousands(i.kept)
                ),
                None => String::new(),
            },
            if retained {
                String::new()
            } else {
                format!("; retained sizes: computing {:.0}%", dom_fraction * 100.0)
            }
        );
        let block = Block::default().borders(Borders::TOP).title(title);
        // The rows under the title and the header.
        let rows_area = Rect {
            y: table_area.y + 2.min(table_area.height),
            height: table_area.height.saturating_sub(2),
            ..table_area
        };
        let range = self.list.visible_in(rows_area, self.rows.len());
        let arrow = |s: DiffSort| if self.sort == s { "▼" } else { "" };
        let labels = [
            "Base #".to_string(),
            "Target #".to_string(),
            format!("Δ #{}", arrow(DiffSort::DeltaCount)),
            format!("Δ Shallow{}", arrow(DiffSort::DeltaShallow)),
            format!("Δ Retained{}", arrow(DiffSort::DeltaRetained)),
            "New".to_string(),
            "Gone".to_string(),
        ];
        // Each number column as wide as its widest figure or its header; the class
        // name has the rest, cut in its middle.
        let n = if ids { 7 } else { 5 };
        let col_w: Vec<u16> = labels
            .iter()
            .zip(&self.figures_w)
            .take(n)
            .map(|(h, &w)| h.chars().count().max(w) as u16)
            .collect();
        let mut header = vec![TCell::from("Class")];
        header.extend(
            labels
                .into_iter()
                .take(n)
                .map(|h| TCell::from(Line::from(h).right_aligned())),
        );
        let spacing = n as u16;
        let fixed: u16 = col_w.iter().sum::<u16>() + spacing;
        let name_w = table_area.width.saturating_sub(fixed).max(1) as usize;
        let rows: Vec<TRow> = range
            .map(|i| {
                let r = &self.rows[i];
                let mut cells = vec![TCell::from(elide_middle(&sanitize(&r.class), name_w))];
                cells.extend(
                    figures(r, retained)
                        .into_iter()
                        .take(n)
                        .map(|f| TCell::from(Line::from(f).right_aligned())),
                );
                TRow::new(cells).style(theme.row(i == self.list.selected && !self.focus_owners))
            })
            .collect();
        let mut widths = vec![Constraint::Length(name_w as u16)];
        widths.extend(col_w.iter().map(|&w| Constraint::Length(w)));
        f.render_widget(
            Table::new(rows, widths)
                .header(TRow::new(header).style(theme.header()))
                .block(block),
            table_area,
        );
        if owners_h > 0 {
            self.draw_owners(f, owners_area, table_area, theme);
        }
    }

    fn draw_sides(
        &self,
        f: &mut Frame,
        area: Rect,
        theme: &Theme,
        focus: Side,
        split: super::split::Split,
    ) {
        use super::split::columns;
        // From DIFF_WIDE columns: base, target, and the focused side's selected object
        // inspected beside them; a blank column between each two. Zoomed (`z`): the
        // focused side alone.
        let share = split.left(self.left_share(area.width));
        let (left, right) = match self.third(area.width) {
            _ if split.zoom || self.alone => match focus {
                Side::Base => (area, Rect::default()),
                Side::Target => (Rect::default(), area),
            },
            Some(d) => {
                let [sides, third] = columns(area, share);
                let [left, right] = columns(sides, 50);
                let r = self.side(focus);
                let [head, body] =
                    Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(third);
                let word = match focus {
                    Side::Base => "BASE",
                    Side::Target => "TARGET",
                };
                f.render_widget(
                    Paragraph::new(format!(" {word}: the selected object ")).style(theme.dim()),
                    head,
                );
                d.draw(f, body, &r.ctx(theme));
                (left, right)
            }
            None => {
                let [left, right] = columns(area, share);
                (left, right)
            }
        };
        for (side, area) in [(Side::Base, left), (Side::Target, right)] {
            if area.width == 0 {
                continue;
            }
            let r = self.side(side);
            let [head, body] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
            let name = r
                .snap
                .source
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let word = match side {
                Side::Base => "BASE",
                Side::Target => "TARGET",
            };
            let text = format!(
                " {word}{} · {} ",
                if focus == side { " ◆" } else { "" },
                sanitize(&name)
            );
            let style = if focus == side {
                theme.selected()
            } else {
                theme.dim()
            };
            f.render_widget(Paragraph::new(text).style(style), head);
            let ctx = r.ctx(theme);
            r.top().draw(f, body, &ctx);
        }
    }

    /// What the status line says about the selection.
    pub fn selected_text(&self, theme: &Theme) -> Option<String> {
        match self.sides {
            Some(s) => {
                let r = self.side(s);
                r.top().selected_text(&r.ctx(theme))
            }
            None if self.focus_owners => self.selected_owner().map(|o| o.owner.clone()),
            None => self.selected_row().map(|r| r.class.clone()),
        }
    }

    /// The table's selected row whole: the class and every figure, exact.
    pub fn table_line(&self) -> Option<String> {
        let r = self.selected_row()?;
        let bytes = |v: i64| match v.signum() {
            1 => format!("+{} B", thousands(v as u64)),
            -1 => format!("-{} B", thousands(v.unsigned_abs())),
            _ => "0 B".into(),
        };
        let mut s = format!(
            "{} · count {} → {} ({}) · shallow {}",
            r.class,
            thousands(r.base_count),
            thousands(r.target_count),
            signed_count(r.delta_count()),
            bytes(r.delta_shallow()),
        );
        if self.dominators_ready() {
            s.push_str(&format!(" · retained {}", bytes(r.delta_retained())));
        }
        if self.ids.is_some() {
            s.push_str(&format!(
                " · {} new, {} gone",
                thousands(r.new),
                thousands(r.gone)
            ));
        }
        Some(s)
    }

    /// The hint line's keys.
    pub fn hints(&self) -> &'static [Action] {
        match self.sides {
            Some(s) => self.side(s).top().hints(),
            None if self.focus_owners => &[
                Action::Down,
                Action::Open,
                Action::Back,
                Action::Paths,
                Action::DominatorTree,
                Action::Side,
                Action::Help,
                Action::Quit,
            ],
            None if !self.owners.is_empty() => &[
                Action::Down,
                Action::Open,
                Action::Sort,
                Action::Changed,
                Action::Side,
                Action::Help,
                Action::Quit,
            ],
            None => &[
                Action::Down,
                Action::Open,
                Action::Sort,
                Action::Changed,
                Action::Summary,
                Action::Help,
                Action::Quit,
            ],
        }
    }

    /// The pane on screen is taking every key (a filter prompt).
    pub fn editing_hint(&self) -> Option<String> {
        let r = self.side(self.sides?);
        if r.top().is_editing() {
            r.top().editing_hint()
        } else {
            None
        }
    }
}

/// A size's change: `+5.5 KiB`, `-32 B`, `0`.
fn signed_bytes(v: i64) -> String {
    match v.signum() {
        1 => format!("+{}", human(v as u64)),
        -1 => format!("-{}", human(v.unsigned_abs())),
        _ => "0".into(),
    }
}

/// A table row's figures, as its number columns show them: base and target counts,
/// the changes of count, shallow and retained size (`…` until the dominator trees are
/// ready), new and gone objects.
fn figures(r: &ClassDelta, retained: bool) -> [String; 7] {
    [
        thousands(r.base_count),
        thousands(r.target_count),
        signed_count(r.delta_count()),
        signed_bytes(r.delta_shallow()),
        if retained {
            signed_bytes(r.delta_retained())
        } else {
            "…".into()
        },
        thousands(r.new),
        thousands(r.gone),
    ]
}

/// A count's change: `+3,000`, `-150`, `0`.
fn signed_count(v: i64) -> String {
    match v.signum() {
        1 => format!("+{}", thousands(v as u64)),
        -1 => format!("-{}", thousands(v.unsigned_abs())),
        _ => "0".into(),
    }
}

/// A pane that only says something (a class with no instance on one side).
struct MessagePane(String);

impl Pane for MessagePane {
    fn title(&self, _ctx: &Ctx) -> String {
        String::new()
    }
    fn handle(&mut self, _key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        Outcome::Ignored
    }
    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        f.render_widget(
            Paragraph::new(sanitize(&self.0).into_owned())
                .style(ctx.theme.dim())
                .wrap(Wrap { trim: false })
                .block(Block::default().borders(Borders::TOP)),
            area,
        );
    }
    fn hints(&self) -> &'static [Action] {
        &[Action::Back, Action::Side, Action::Help, Action::Quit]
    }
}
