//! The class histogram pane: class, count, shallow and retained bytes; sortable, fuzzy
//! filtered, and virtual — drawing walks only the visible rows, so a histogram of a
//! hundred thousand classes draws as fast as one of ten.

use std::cell::Cell;

use crate::heap::matcher::{Kind, Matcher};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell as TCell, Row as TRow, Table};
use ratatui::Frame;

use super::Outcome;
use crate::heap::histogram::{self, Row, SortKey};
use crate::ui::keys::{action_for, Action};
use crate::ui::text::{fit_parts, sanitize, Part};
use crate::ui::theme::Theme;

pub struct HistogramPane {
    rows: Vec<Row>,
    /// Indices into `rows` that pass the filter: by how they match, then in sort order.
    view: Vec<usize>,
    /// How each row of `view` matched the filter (empty without one).
    kinds: Vec<Kind>,
    selected: usize,
    offset: usize,
    sort: SortKey,
    filter: String,
    /// The filter a `/` replaced: shown in the prompt, which starts empty, and brought
    /// back by `↑`.
    recall: String,
    /// The filter prompt is open and takes the keys.
    editing: bool,
    /// `S` was pressed: the next key names the column to sort by.
    sort_menu: bool,
    /// Rows that fit, as last drawn (the one thing drawing records, with `rows_area`).
    height: Cell<usize>,
    /// Where the rows were last drawn, for a mouse click.
    rows_area: Cell<Rect>,
    /// Instances per class id that no GC root reaches (retained by nothing, so a
    /// class's retained size can be below its shallow size): marked `†`.
    unreachable: Vec<u64>,
}

pub use crate::text::thousands;

/// Keeps the end of a long class name (the class, not its package) within `cells`
/// (measured as drawn: `text::width`).
pub fn elide_left(s: &str, cells: usize) -> String {
    if cells == 0 || crate::ui::text::width(s) <= cells {
        return s.to_string();
    }
    format!("…{}", crate::ui::text::take_width_from_end(s, cells - 1))
}

impl HistogramPane {
    pub fn new(rows: Vec<Row>) -> Self {
        let mut p = HistogramPane {
            rows,
            view: Vec::new(),
            kinds: Vec::new(),
            selected: 0,
            offset: 0,
            sort: SortKey::Shallow,
            filter: String::new(),
            recall: String::new(),
            editing: false,
            sort_menu: false,
            height: Cell::new(20),
            rows_area: Cell::default(),
            unreachable: Vec::new(),
        };
        p.rebuild();
        p
    }

    pub fn sort_key(&self) -> SortKey {
        self.sort
    }

    pub fn filter(&self) -> &str {
        &self.filter
    }

    pub fn is_editing(&self) -> bool {
        self.editing || self.sort_menu
    }

    pub fn visible_len(&self) -> usize {
        self.view.len()
    }

    pub fn total_len(&self) -> usize {
        self.rows.len()
    }

    /// Every row, filtered or not.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Takes the sort, the filter and the selected class (by name) of `other`: the
    /// quick histogram the user browsed while the index was built.
    pub fn carry_from(&mut self, other: &HistogramPane) {
        self.sort = other.sort;
        self.filter = other.filter.clone();
        self.recall = other.recall.clone();
        self.editing = other.editing;
        self.rebuild();
        if let Some(name) = other.selected_row().map(|r| r.name.clone()) {
            if let Some(p) = self.view.iter().position(|&i| self.rows[i].name == name) {
                self.selected = p;
            }
        }
        self.height.set(other.height.get());
        self.offset = other.offset;
        self.scroll();
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.view.get(self.selected).map(|&i| &self.rows[i])
    }

    /// Fills in retained sizes (per class id) once the dominator tree is ready, keeping
    /// the selected class selected.
    pub fn set_retained(&mut self, per_class: &[u64]) {
        let keep = self.selected_row().and_then(|r| r.class);
        histogram::add_retained(&mut self.rows, per_class);
        self.rebuild();
        if let Some(c) = keep {
            if let Some(p) = self
                .view
                .iter()
                .position(|&i| self.rows[i].class == Some(c))
            {
                self.selected = p;
                self.scroll();
            }
        }
    }

    fn rebuild(&mut self) {
        histogram::sort(&mut self.rows, self.sort);
        if self.filter.is_empty() {
            self.view = (0..self.rows.len()).collect();
            self.kinds.clear();
        } else {
            // Exact, then prefix, then substring matches, then fuzzy ones; in the sort's
            // order within each kind.
            let m = Matcher::new(&self.filter);
            let mut found: Vec<(Kind, usize)> = (0..self.rows.len())
                .filter_map(|i| m.find(&self.rows[i].name).map(|k| (k, i)))
                .collect();
            // No better match than a fuzzy one: the names a typo meant first (`?`).
            if found.iter().all(|&(k, _)| k == Kind::Fuzzy) {
                let near = histogram_nearest(&self.rows, &self.filter);
                found.retain(|(_, i)| !near.contains(i));
                found.extend(near.into_iter().map(|i| (Kind::Near, i)));
            }
            found.sort_by_key(|&(k, _)| k);
            self.kinds = found.iter().map(|&(k, _)| k).collect();
            self.view = found.into_iter().map(|(_, i)| i).collect();
        }
        self.selected = self.selected.min(self.view.len().saturating_sub(1));
        self.scroll();
    }

    fn scroll(&mut self) {
        let h = self.height.get().max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
        self.offset = self.offset.min(self.view.len().saturating_sub(1));
    }

    /// `/`: a new filter, whatever the list was filtered by (after `H`, the histogram's
    /// old filter is not typed on); the old one is kept for `↑`, and the selected class
    /// stays selected in the whole list.
    fn start_filter(&mut self) {
        self.editing = true;
        if self.filter.is_empty() {
            return;
        }
        let keep = self.selected_row().map(|r| r.name.clone());
        self.recall = std::mem::take(&mut self.filter);
        self.rebuild();
        if let Some(p) = keep.and_then(|n| self.view.iter().position(|&i| self.rows[i].name == n)) {
            self.selected = p;
            self.scroll();
        }
    }

    /// A click at the screen cell (`x`, `y`): selects the class drawn there. Whether it
    /// did.
    pub fn click(&mut self, x: u16, y: u16) -> bool {
        if self.is_editing() {
            return false;
        }
        match super::list::row_at(self.rows_area.get(), self.offset, x, y) {
            Some(i) if i < self.view.len() => {
                self.selected = i;
                self.scroll();
                true
            }
            _ => false,
        }
    }

    fn next_sort(&mut self) {
        let retained = self.rows.iter().any(|r| r.retained.is_some());
        self.sort = match self.sort {
            SortKey::Shallow => SortKey::Count,
            SortKey::Count => SortKey::Name,
            SortKey::Name if retained => SortKey::Retained,
            _ => SortKey::Shallow,
        };
        self.rebuild();
    }

    pub fn handle(&mut self, key: &KeyEvent) -> Outcome {
        if self.sort_menu {
            // The column's letter; any other key closes the menu.
            self.sort_menu = false;
            let retained = self.rows.iter().any(|r| r.retained.is_some());
            let pick = match key.code {
                KeyCode::Char('r') if retained => Some(SortKey::Retained),
                KeyCode::Char('c') => Some(SortKey::Count),
                KeyCode::Char('s') => Some(SortKey::Shallow),
                KeyCode::Char('n') => Some(SortKey::Name),
                _ => None,
            };
            if let Some(k) = pick {
                self.sort = k;
                self.rebuild();
            }
            return Outcome::Consumed;
        }
        if self.editing {
            match key.code {
                KeyCode::Enter => self.editing = false,
                KeyCode::Esc => {
                    self.editing = false;
                    self.filter.clear();
                    self.rebuild();
                }
                KeyCode::Backspace => {
                    self.filter.pop();
                    self.rebuild();
                }
                // The filter this one replaced, back to be edited.
                KeyCode::Up if self.filter.is_empty() && !self.recall.is_empty() => {
                    self.filter = self.recall.clone();
                    self.selected = 0;
                    self.rebuild();
                }
                KeyCode::Char(c)
                    if !key
                        .modifiers
                        .contains(crossterm::event::KeyModifiers::CONTROL) =>
                {
                    self.filter.push(c);
                    self.selected = 0;
                    self.rebuild();
                }
                _ => return Outcome::Ignored,
            }
            return Outcome::Consumed;
        }
        let page = self.height.get().max(1);
        let last = self.view.len().saturating_sub(1);
        match action_for(key) {
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::Down) => self.selected = (self.selected + 1).min(last),
            Some(Action::PageUp) => self.selected = self.selected.saturating_sub(page),
            Some(Action::PageDown) => self.selected = (self.selected + page).min(last),
            Some(Action::Top) => self.selected = 0,
            Some(Action::Bottom) => self.selected = last,
            Some(Action::Sort) => self.next_sort(),
            Some(Action::SortMenu) => self.sort_menu = true,
            Some(Action::Filter) => self.start_filter(),
            Some(Action::Back) if !self.filter.is_empty() => {
                self.filter.clear();
                self.rebuild();
            }
            _ => return Outcome::Ignored,
        }
        self.scroll();
        Outcome::Consumed
    }

    /// The title in at most `cells`: whole where it fits; else without the filter's
    /// legend, then in fewer words, then cut in the middle, so that the counts, the sort
    /// and the filter stay readable beside a detail pane (120 to 140 columns).
    pub fn heading(&self, cells: usize) -> String {
        let (shown, all) = (
            thousands(self.view.len() as u64),
            thousands(self.rows.len() as u64),
        );
        let sort = self.sort.label();
        let filter = sanitize(&self.filter);
        let with_filter = |text: String| {
            if self.filter.is_empty() {
                text
            } else {
                format!("{text}, filter \"{filter}\"")
            }
        };
        let long = with_filter(format!(
            "Class histogram — {shown} of {all} classes, sorted by {sort}"
        ));
        let legend = if self.filter.is_empty() {
            String::new()
        } else if self.kinds.contains(&Kind::Near) {
            " (? ~: did you mean, fuzzy)".to_string()
        } else {
            " (= ^ + ~: exact, prefix, contains, fuzzy)".to_string()
        };
        let fits = |t: &String| crate::ui::text::width(t) <= cells;
        let short = format!("Class histogram — {shown}/{all} classes by {sort}");
        let candidates = [
            format!("{long}{legend}"),
            long,
            with_filter(short.clone()),
            format!("Class histogram — {shown}/{all} by {sort}, \"{filter}\""),
        ];
        if let Some(t) = candidates.into_iter().find(fits) {
            return t;
        }
        // The filter's text cut in its middle, the counts and the sort kept whole.
        let bare = format!("{short}, filter \"\"");
        let room = cells.saturating_sub(crate::ui::text::width(&bare));
        if !self.filter.is_empty() && room >= 6 {
            return format!(
                "{short}, filter \"{}\"",
                crate::ui::text::elide_middle(&filter, room)
            );
        }
        crate::ui::text::elide_middle(&with_filter(short), cells)
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let title = format!(" {} ", self.heading(area.width.saturating_sub(2) as usize));
        let block = Block::default().borders(Borders::TOP).title(title);
        let unreachable = |r: &Row| {
            r.class
                .and_then(|c| self.unreachable.get(c as usize))
                .copied()
                .unwrap_or(0)
        };
        // A footnote under the table when a class has unreachable instances: wrapped,
        // in as many rows as it takes (two at most, the cut then marked).
        let all_unreachable: u64 = self.unreachable.iter().sum();
        let foot_text = match self.selected_row().map(|r| (r, unreachable(r))) {
            Some((r, n)) if n > 0 => format!(
                "† {} of {} {} unreachable, not retained by anything (garbage in this dump)",
                thousands(n),
                thousands(r.count),
                sanitize(&r.name),
            ),
            _ => format!(
                "† classes with instances no GC root reaches ({} in all): unreachable, not retained by anything",
                thousands(all_unreachable)
            ),
        };
        let mut foot_rows = crate::ui::text::wrap(&foot_text, area.width as usize);
        if foot_rows.len() > 2 {
            foot_rows.truncate(2);
            foot_rows[1] =
                crate::ui::text::cut_marked(&format!("{}  …", foot_rows[1]), area.width as usize);
        }
        let foot_h = foot_rows.len() as u16;
        let (area, foot) = if all_unreachable > 0 && area.height > 4 + foot_h {
            let foot = Rect::new(area.x, area.y + area.height - foot_h, area.width, foot_h);
            (
                Rect {
                    height: area.height - foot_h,
                    ..area
                },
                Some(foot),
            )
        } else {
            (area, None)
        };
        let inner_h = area.height.saturating_sub(2) as usize; // top border + header
        self.height.set(inner_h.max(1));
        self.rows_area.set(Rect {
            y: area.y + 2.min(area.height),
            height: inner_h as u16,
            ..area
        });
        let arrow = |k: SortKey| if self.sort == k { "▼" } else { "" };
        let header = TRow::new(vec![
            TCell::from(format!("Class{}", arrow(SortKey::Name))),
            TCell::from(Line::from(format!("Count{}", arrow(SortKey::Count))).right_aligned()),
            TCell::from(Line::from(format!("Shallow{}", arrow(SortKey::Shallow))).right_aligned()),
            TCell::from(
                Line::from(format!("Retained{}", arrow(SortKey::Retained))).right_aligned(),
            ),
        ])
        .style(theme.header());
        // The selection stays in view when the pane is shorter than when it moved (the
        // line under the list wraps over more rows for a longer name).
        let offset = if self.selected >= self.offset + inner_h.max(1) {
            self.selected + 1 - inner_h.max(1)
        } else {
            self.offset
        };
        let end = (offset + inner_h).min(self.view.len());
        // The number columns: 11, 15 and 15 cells where the class keeps 20 beside them;
        // in a narrower pane (the split moved with `<`), as wide as their largest figure
        // (never cut: a digit lost changes the number), and the class has what is left.
        let figure_w = |v: u64, header: &str| {
            let digits = v.max(1).ilog10() as usize + 1;
            (digits + (digits - 1) / 3 + 1).max(header.chars().count() + 1)
        };
        let most = |f: &dyn Fn(&Row) -> u64| self.rows.iter().map(f).max().unwrap_or(0);
        let mut cols = [11, 15, 15];
        if (area.width as usize) < 20 + cols.iter().sum::<usize>() + 3 {
            cols = [
                figure_w(most(&|r| r.count), "Count"),
                figure_w(most(&|r| r.shallow), "Shallow"),
                figure_w(most(&|r| r.retained.unwrap_or(0)), "Retained"),
            ];
        }
        // Class column width: what the three number columns and the gaps leave.
        let name_w = (area.width as usize)
            .saturating_sub(cols.iter().sum::<usize>() + 3)
            .max(1);
        let rows: Vec<TRow> = self.view[offset.min(end)..end]
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let r = &self.rows[i];
                let style = theme.row(offset + k == self.selected);
                // With a filter, how the row matched: = exact, ^ prefix, + substring,
                // ~ fuzzy.
                // A long name is cut in its middle (package head and class tail both
                // tell), as the trees cut theirs; the line under the list has it whole.
                let mut parts = Vec::with_capacity(2);
                if let Some(kind) = self.kinds.get(offset + k) {
                    parts.push(Part::keep(format!("{} ", kind.mark())));
                }
                parts.push(Part::shrink(sanitize(&r.name).into_owned(), 1));
                let name = fit_parts(parts, name_w);
                TRow::new(vec![
                    TCell::from(name),
                    TCell::from(Line::from(thousands(r.count)).right_aligned()),
                    TCell::from(Line::from(thousands(r.shallow)).right_aligned()),
                    TCell::from(
                        Line::from(match r.retained {
                            Some(v) if unreachable(r) > 0 => format!("{}†", thousands(v)),
                            Some(v) if all_unreachable > 0 => format!("{} ", thousands(v)),
                            Some(v) => thousands(v),
                            None => "…".into(),
                        })
                        .right_aligned(),
                    ),
                ])
                .style(style)
            })
            .collect();
        let table = Table::new(
            rows,
            [
                Constraint::Min(name_w.min(20) as u16),
                Constraint::Length(cols[0] as u16),
                Constraint::Length(cols[1] as u16),
                Constraint::Length(cols[2] as u16),
            ],
        )
        .header(header)
        .block(block);
        f.render_widget(table, area);
        if let Some(foot) = foot {
            let lines: Vec<Line> = foot_rows
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim())))
                .collect();
            f.render_widget(ratatui::widgets::Paragraph::new(lines), foot);
        }
        if self.view.is_empty() {
            let msg = match crate::ui::goto::object_id(&self.filter) {
                Some(id) => format!(
                    "  no class matches the filter; Enter opens object {}",
                    crate::ui::text::sanitize(id)
                ),
                None => "  no class matches the filter".to_string(),
            };
            let msg = Line::from(Span::styled(msg, theme.dim()));
            if area.height > 3 {
                let r = Rect::new(area.x, area.y + 2, area.width, 1);
                f.render_widget(msg, r);
            }
        }
    }
}

/// The prompt's mention of the filter a `/` replaced, while the new one is empty: `↑`
/// brings it back.
pub fn recall_hint(filter: &str, recall: &str) -> String {
    if filter.is_empty() && !recall.is_empty() {
        format!("  ↑ \"{}\"", sanitize(recall))
    } else {
        String::new()
    }
}

impl super::Pane for HistogramPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &super::Ctx) -> bool {
        HistogramPane::click(self, x, y)
    }

    fn selected_class(&self) -> Option<crate::heap::ClassId> {
        self.selected_row().and_then(|r| r.class)
    }

    fn wants_class_detail(&self) -> bool {
        true
    }

    fn title(&self, _ctx: &super::Ctx) -> String {
        "Class histogram".into()
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &super::Ctx) -> Outcome {
        // An object id typed into the filter (`/@73001`): its inspector.
        if HistogramPane::is_editing(self) {
            if let Some(out) = super::filter_goto(key, &self.filter, ctx) {
                self.editing = false;
                self.filter.clear();
                self.rebuild();
                return out;
            }
        }
        if !HistogramPane::is_editing(self) && action_for(key) == Some(Action::Open) {
            return match self.selected_row().and_then(|r| r.class) {
                Some(c) => Outcome::Open(super::Request::Instances(c)),
                None => Outcome::nothing_to_open(),
            };
        }
        HistogramPane::handle(self, key)
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &super::Ctx) {
        HistogramPane::draw(self, f, area, ctx.theme)
    }

    fn selected_text(&self, _ctx: &super::Ctx) -> Option<String> {
        self.selected_row().map(|r| r.name.clone())
    }

    fn selected_line(&self, _ctx: &super::Ctx) -> Option<String> {
        let r = self.selected_row()?;
        let mut s = format!(
            "{} · {} objects · shallow {}",
            r.name,
            thousands(r.count),
            thousands(r.shallow)
        );
        if let Some(v) = r.retained {
            s.push_str(&format!(" · retained {}", thousands(v)));
        }
        Some(s)
    }

    fn is_editing(&self) -> bool {
        HistogramPane::is_editing(self)
    }

    fn editing_hint(&self) -> Option<String> {
        if self.sort_menu {
            let retained = self.rows.iter().any(|r| r.retained.is_some());
            return Some(format!(
                "sort by: {}c count  s shallow  n name  (any other key: as it was)",
                if retained { "r retained  " } else { "" }
            ));
        }
        self.editing.then(|| {
            format!(
                "filter: {}▏  Enter keep  Esc clear{}",
                sanitize(&self.filter),
                recall_hint(&self.filter, &self.recall)
            )
        })
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::Down,
            Action::Open,
            Action::Sort,
            Action::Filter,
            Action::DominatorTree,
            Action::Threads,
            Action::Help,
            Action::Quit,
        ]
    }

    fn dominators_ready(&mut self, ctx: &super::Ctx) {
        if let Some(d) = ctx.dom {
            self.unreachable = d.class_unreachable(&ctx.snap.graph);
            self.set_retained(&d.class_retained(&ctx.snap.graph));
        }
    }
}

/// The rows whose names are nearest the filter by edit distance
/// ([`crate::heap::matcher::nearest`]: a typo's "did you mean"), as indices into `rows`.
fn histogram_nearest(rows: &[Row], filter: &str) -> Vec<usize> {
    let near = crate::heap::matcher::nearest(rows.iter().map(|r| r.name.as_str()), filter);
    rows.iter()
        .enumerate()
        .filter(|(_, r)| near.contains(&r.name.as_str()))
        .map(|(i, _)| i)
        .collect()
}
