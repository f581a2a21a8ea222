//! Leak suspects (the first pane once the dominator tree is ready) and, one key away
//! (`W`), the waste findings: MAT's Leak Suspects report as a list. One line per
//! finding with its size and share first, so that they stay readable at 80 columns;
//! the selected one in full below the list (kind, holder, where the size accumulates,
//! the classes it retains, the path from a GC root). `Enter` inspects the object;
//! `p`, `r`, `d` work on it as everywhere.

use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane};
use crate::heap::ObjId;
use crate::suspects::{brief, Report};
use crate::ui::keys::{action_for, Action};
use crate::ui::text::{fit_parts, sanitize, take_width, wrap_cells, Part};
use crate::waste::Waste;

/// Which findings the pane lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Suspects,
    Waste,
}

/// One waste finding as a row: its words and the object `Enter` opens.
struct WasteRow {
    wasted: u64,
    text: String,
    example: ObjId,
}

pub struct SuspectsPane {
    report: Arc<Report>,
    mode: Mode,
    waste: Option<Vec<WasteRow>>,
    /// `W` asked for the waste findings and they are not computed yet.
    pending: bool,
    list: ListState,
    waste_list: ListState,
}

impl SuspectsPane {
    pub fn new(report: Arc<Report>, mode: Mode) -> Self {
        SuspectsPane {
            report,
            pending: mode == Mode::Waste,
            mode,
            waste: None,
            list: ListState::new(),
            waste_list: ListState::new(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn len(&self) -> usize {
        match self.mode {
            Mode::Suspects => self.report.suspects.len(),
            Mode::Waste => self.waste.as_ref().map_or(0, |w| w.len()),
        }
    }

    fn rows_of(w: &Waste, ctx: &Ctx) -> Vec<WasteRow> {
        let snap = ctx.snap;
        let mut rows = Vec::new();
        for s in &w.strings {
            let mut t = take_width(&s.text, 40).to_string();
            if t.len() < s.text.len() {
                t.push('…');
            }
            rows.push(WasteRow {
                wasted: s.wasted_bytes(),
                text: format!("{} equal strings {t:?}", s.count),
                example: s.example,
            });
        }
        for a in &w.arrays {
            rows.push(WasteRow {
                wasted: a.wasted_bytes(),
                text: format!(
                    "{} equal {} of length {}{}",
                    a.count,
                    brief(snap.format, snap.class_name(a.example)),
                    a.length,
                    a.preview
                        .as_ref()
                        .map(|p| format!(" {p}"))
                        .unwrap_or_default()
                ),
                example: a.example,
            });
        }
        for c in &w.sparse {
            rows.push(WasteRow {
                wasted: c.wasted_bytes,
                text: format!(
                    "{} sparse {} in {}: {} entries in {} slots",
                    c.count,
                    brief(snap.format, &c.class),
                    brief(snap.format, &crate::suspects::in_title(&c.holder)),
                    c.size,
                    c.capacity
                ),
                example: c.example,
            });
        }
        rows.sort_by_key(|r| std::cmp::Reverse(r.wasted));
        rows
    }

    fn detail(&self, ctx: &Ctx) -> Vec<String> {
        let snap = ctx.snap;
        let mut out = Vec::new();
        match self.mode {
            Mode::Suspects => {
                let Some(s) = self.report.suspects.get(self.list.selected) else {
                    out.push(
                        "Nothing holds 1 % of the heap or more below the GC roots' own objects."
                            .into(),
                    );
                    return out;
                };
                let b = |t: &str| brief(snap.format, t);
                out.push(b(&s.title));
                out.push(format!(
                    "{} · retains {} ({:.1} % of {}) · {} {}",
                    s.kind,
                    human(s.retained),
                    s.share * 100.0,
                    human(self.report.heap_bytes),
                    snap.object_name(s.object),
                    b(snap.class_name(s.object))
                ));
                out.push(format!("held by {}", b(&s.holder)));
                if let Some((a, r)) = s.accumulation {
                    out.push(format!(
                        "accumulates in {} {} ({})",
                        snap.object_name(a),
                        b(snap.class_name(a)),
                        human(r)
                    ));
                }
                for m in s.members.iter().take(4) {
                    out.push(format!(
                        "  {:>9} × {} {}",
                        m.count,
                        brief(snap.format, &snap.graph.classes[m.class as usize].name),
                        human(m.retained)
                    ));
                }
                if !s.path.is_empty() {
                    let mut p = snap.describe_roots(s.path[0]);
                    use crate::results::path::{fold, Piece};
                    for piece in fold(snap, &s.path).into_iter().skip(1) {
                        match piece {
                            Piece::Step(k) => {
                                let e = snap
                                    .edge_label(s.path[k - 1], s.path[k])
                                    .unwrap_or_else(|| "?".into());
                                p.push_str(&format!(" → {e}"));
                            }
                            Piece::Fold(f) => {
                                let w = f.words(snap, |c| brief(snap.format, c));
                                p.push_str(&format!(" → {w}"));
                            }
                        }
                    }
                    out.push(format!("path: {p}"));
                }
            }
            Mode::Waste => match &self.waste {
                None => out.push("looking for duplicate strings and sparse collections…".into()),
                Some(rows) if rows.is_empty() => {
                    out.push("No duplicate strings or arrays, no sparse collections.".into());
                    if let Some(note) = snap.format.roles().strings_note() {
                        out.push(note.trim().to_string());
                    }
                }
                Some(rows) => {
                    if let Some(r) = rows.get(self.waste_list.selected) {
                        out.push(r.text.clone());
                        out.push(format!(
                            "wastes {} · e.g. {} {}",
                            human(r.wasted),
                            snap.object_name(r.example),
                            snap.class_name(r.example)
                        ));
                    }
                }
            },
        }
        out
    }
}

impl Pane for SuspectsPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        match self.mode {
            Mode::Suspects => {
                let n = self.len();
                self.list.click(x, y, n)
            }
            Mode::Waste => {
                let n = self.waste.as_ref().map_or(0, |w| w.len());
                self.waste_list.click(x, y, n)
            }
        }
    }

    fn title(&self, ctx: &Ctx) -> String {
        match self.mode {
            Mode::Suspects => format!(
                "Leak suspects — {} of {} reachable (W: waste)",
                self.report.suspects.len(),
                human(self.report.heap_bytes)
            ),
            Mode::Waste => match &self.waste {
                Some(w) => format!(
                    "Waste — {} findings, {} (W: suspects)",
                    w.len(),
                    human(w.iter().map(|r| r.wasted).sum())
                ),
                None => format!(
                    "Waste — looking in {} objects… (W: suspects)",
                    ctx.snap.graph.len()
                ),
            },
        }
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        let len = self.len();
        let list = match self.mode {
            Mode::Suspects => &mut self.list,
            Mode::Waste => &mut self.waste_list,
        };
        if list.apply(a, len) {
            return Outcome::Consumed;
        }
        match a {
            Action::Waste => {
                self.mode = match self.mode {
                    Mode::Suspects => Mode::Waste,
                    Mode::Waste => Mode::Suspects,
                };
                self.pending = self.mode == Mode::Waste && self.waste.is_none();
                Outcome::Consumed
            }
            Action::Suspects => {
                self.mode = Mode::Suspects;
                Outcome::Consumed
            }
            Action::Open => Outcome::inspect(self.selected_object()),
            _ => Outcome::Ignored,
        }
    }

    fn is_suspects(&self) -> bool {
        true
    }

    fn wants_detail(&self) -> bool {
        true
    }

    fn has_work(&self) -> bool {
        self.pending
    }

    fn work(&mut self, ctx: &Ctx) {
        self.pending = false;
        if self.waste.is_none() {
            let w = crate::waste::find(ctx.snap, 20);
            self.waste = Some(Self::rows_of(&w, ctx));
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snap = ctx.snap;
        let inner = titled(f, area, &self.title(ctx));
        // The selected finding below the list, each line wrapped (an id at a line's end
        // was cut at 120 columns beside the inspector): as tall as it needs, up to what
        // the list leaves (at least half the pane); a longer one ends with `…`.
        let w = inner.width as usize;
        let mut detail: Vec<String> = Vec::new();
        for l in self.detail(ctx) {
            detail.extend(wrap_cells(&sanitize(&l), w));
        }
        let room = (inner.height / 2)
            .max(inner.height.saturating_sub(self.len() as u16))
            .saturating_sub(1) as usize;
        if detail.len() > room.max(1) {
            detail.truncate(room.max(1));
            if let Some(last) = detail.last_mut() {
                *last = format!("{}…", take_width(last, w.saturating_sub(1)));
            }
        }
        let want = (detail.len() as u16 + 1).min(inner.height);
        let [top, bottom] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(want)]).areas(inner);
        // A row wider than the pane is cut with a mark (the line under the list has it
        // whole), never silently.
        let cut = |s: &str| -> String { crate::ui::text::cut_marked(&sanitize(s), w) };
        let lines: Vec<Line> = match self.mode {
            Mode::Suspects => {
                let range = self.list.visible_in(top, self.len());
                range
                    .map(|i| {
                        let s = &self.report.suspects[i];
                        let head = format!("{:>9} {:>3.0}% ", human(s.retained), s.share * 100.0);
                        let title = sanitize(&brief(snap.format, &s.title)).to_string();
                        Line::from(Span::styled(
                            fit_title(head, &title, w),
                            ctx.theme.row(i == self.list.selected),
                        ))
                    })
                    .collect()
            }
            Mode::Waste => match &self.waste {
                None => vec![Line::from("looking for waste…")],
                Some(rows) => {
                    let range = self.waste_list.visible_in(top, rows.len());
                    range
                        .map(|i| {
                            let r = &rows[i];
                            let text = format!("{:>10} wasted  {}", human(r.wasted), r.text);
                            Line::from(Span::styled(
                                cut(&text),
                                ctx.theme.row(i == self.waste_list.selected),
                            ))
                        })
                        .collect()
                }
            },
        };
        f.render_widget(Paragraph::new(lines), top);
        let block = Block::default().borders(Borders::TOP);
        let area = block.inner(bottom);
        f.render_widget(block, bottom);
        let lines: Vec<Line> = detail
            .into_iter()
            .map(|l| Line::from(Span::styled(l, ctx.theme.dim())))
            .collect();
        f.render_widget(Paragraph::new(lines), area);
    }

    fn selected_object(&self) -> Option<ObjId> {
        match self.mode {
            Mode::Suspects => self
                .report
                .suspects
                .get(self.list.selected)
                .map(|s| s.object),
            Mode::Waste => self
                .waste
                .as_ref()?
                .get(self.waste_list.selected)
                .map(|r| r.example),
        }
    }

    /// The selected finding whole (the row cuts it), then its object.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let o = self.selected_object()?;
        let words = match self.mode {
            Mode::Suspects => self.report.suspects.get(self.list.selected)?.title.clone(),
            Mode::Waste => {
                let r = self.waste.as_ref()?.get(self.waste_list.selected)?;
                format!("{} wasted: {}", human(r.wasted), r.text)
            }
        };
        Some(format!("{words} · {}", super::object_line(ctx, o)))
    }

    fn selected_text(&self, ctx: &Ctx) -> Option<String> {
        let o = self.selected_object()?;
        Some(format!(
            "{} {}",
            ctx.snap.class_name(o),
            ctx.snap.object_name(o)
        ))
    }

    fn hints(&self) -> &'static [Action] {
        const HINTS: [Action; 9] = super::object_hints_and(Action::Waste);
        &HINTS
    }
}

/// A suspect's row in `cells`: its size and share whole, then its title with the holder
/// cut in the middle first, then the class, then the member, so that `CLASS in HOLDER
/// holds N MEMBER` keeps each part readable on one line.
fn fit_title(head: String, title: &str, cells: usize) -> String {
    let mut parts = vec![Part::keep(head)];
    let (front, tail) = match title.rfind(" holds ").or_else(|| title.rfind(" hold ")) {
        Some(i) => title.split_at(i),
        None => (title, ""),
    };
    match front.split_once(" in ") {
        Some((class, holder)) => {
            parts.push(Part::shrink(class, 12));
            parts.push(Part::keep(" in "));
            parts.push(Part::shrink(holder, 8));
        }
        None => parts.push(Part::shrink(front, 12)),
    }
    // ` holds 12,000 ` whole, the member's name cut.
    let words: Vec<&str> = tail.splitn(4, ' ').collect();
    if let [_, verb, count, member] = words[..] {
        parts.push(Part::keep(format!(" {verb} {count} ")));
        parts.push(Part::shrink(member, 10));
    } else if !tail.is_empty() {
        parts.push(Part::shrink(tail, 10));
    }
    fit_parts(parts, cells)
}
