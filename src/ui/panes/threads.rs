//! Threads (Java threads, goroutines), each expandable to its frames, innermost first,
//! with the objects each frame holds: MAT's thread overview. `Enter` on a local (or on a
//! thread, for its own object) opens the inspector; `p` on a local shows its paths, which
//! end at that frame.

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane};
use crate::heap::ObjId;
use crate::ui::keys::{action_for, Action};
use crate::ui::text::{fit_parts, sanitize, Part};

enum Row {
    Thread(usize),
    Frame(usize, usize),
    Local(ObjId),
    Empty(&'static str),
}

pub struct ThreadsPane {
    rows: Vec<Row>,
    expanded: Vec<bool>,
    list: ListState,
}

impl ThreadsPane {
    /// Row `i`'s text in parts, each sanitised: what may shrink (names, a frame's place)
    /// and what is kept whole (ids, sizes, counts).
    fn row_parts(&self, i: usize, ctx: &Ctx) -> Vec<Part> {
        let snap = ctx.snap;
        let clean = |t: &str| sanitize(t).into_owned();
        let mut parts = Vec::new();
        match &self.rows[i] {
            Row::Thread(t) => {
                let t_ = &snap.thread_list[*t];
                parts.push(Part::keep(if self.expanded[*t] { "▾ " } else { "▸ " }));
                parts.push(Part::shrink(format!("\"{}\"", clean(&t_.name)), 8));
                if let Some(id) = t_.id {
                    parts.push(Part::keep(format!(" #{id}")));
                }
                if let Some(st) = &t_.state {
                    parts.push(Part::keep(format!(" {}", clean(st))));
                }
                if t_.system {
                    parts.push(Part::keep(" (system)"));
                }
                let locals: usize =
                    t_.frames.iter().map(|f| f.locals.len()).sum::<usize>() + t_.held.len();
                parts.push(Part::shrink(
                    format!(" · {} frames, {locals} locals", t_.frames.len()),
                    0,
                ));
            }
            Row::Frame(t, k) => {
                let fr = &snap.thread_list[*t].frames[*k];
                parts.push(Part::keep("    at "));
                parts.push(Part::shrink(clean(&fr.function), 12));
                parts.push(Part::shrink(format!(" ({})", clean(&fr.location)), 8));
            }
            Row::Local(o) => {
                parts.push(Part::keep("        "));
                parts.push(Part::shrink(clean(snap.class_name(*o)), 8));
                parts.push(Part::keep(format!(
                    " {} {}",
                    clean(&snap.object_name(*o)),
                    human(snap.graph.shallow_size(*o))
                )));
                if let Some(r) = ctx.dom.and_then(|d| d.retained(*o)) {
                    parts.push(Part::keep(format!(" (retains {})", human(r))));
                }
                if let Some(l) = snap.label(*o) {
                    parts.push(Part::shrink(format!(" {}", clean(&l)), 0));
                }
            }
            Row::Empty(m) => parts.push(Part::shrink(format!("    {m}"), 0)),
        }
        parts
    }

    pub fn new(ctx: &Ctx) -> Self {
        let n = ctx.snap.thread_list.len();
        let mut p = ThreadsPane {
            rows: Vec::new(),
            expanded: vec![false; n],
            list: ListState::new(),
        };
        p.rebuild(ctx);
        p
    }

    fn rebuild(&mut self, ctx: &Ctx) {
        self.rows.clear();
        let threads = &ctx.snap.thread_list;
        if threads.is_empty() {
            self.rows.push(Row::Empty("this snapshot has no threads"));
        }
        for (i, t) in threads.iter().enumerate() {
            self.rows.push(Row::Thread(i));
            if !self.expanded[i] {
                continue;
            }
            if t.frames.is_empty() && t.held.is_empty() {
                self.rows.push(Row::Empty("no stack in the dump"));
            }
            for (k, f) in t.frames.iter().enumerate() {
                self.rows.push(Row::Frame(i, k));
                self.rows.extend(f.locals.iter().map(|&o| Row::Local(o)));
            }
            self.rows.extend(t.held.iter().map(|&o| Row::Local(o)));
        }
        self.list.scroll(self.rows.len());
    }

    fn thread_of_row(&self, i: usize) -> Option<usize> {
        self.rows[..=i.min(self.rows.len().saturating_sub(1))]
            .iter()
            .rev()
            .find_map(|r| match r {
                Row::Thread(t) => Some(*t),
                _ => None,
            })
    }
}

impl Pane for ThreadsPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        self.list.click(x, y, self.rows.len())
    }

    fn title(&self, ctx: &Ctx) -> String {
        format!("Threads — {}", ctx.snap.thread_list.len())
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        let a = match Outcome::list_key(&mut self.list, action_for(key), self.rows.len()) {
            Ok(a) => a,
            Err(o) => return o,
        };
        let i = self.list.selected;
        match a {
            Action::Expand | Action::Collapse => {
                if let Some(t) = self.thread_of_row(i) {
                    if self.expanded[t] == (a == Action::Expand) {
                        return Outcome::Refused(format!(
                            "this thread is already {} ({} {} it)",
                            if self.expanded[t] {
                                "expanded"
                            } else {
                                "collapsed"
                            },
                            if self.expanded[t] { "←" } else { "→" },
                            if self.expanded[t] {
                                "collapses"
                            } else {
                                "expands"
                            },
                        ));
                    }
                    self.expanded[t] = a == Action::Expand;
                    if a == Action::Collapse {
                        self.list.selected = self
                            .rows
                            .iter()
                            .position(|r| matches!(r, Row::Thread(x) if *x == t))
                            .unwrap_or(0);
                    }
                    self.rebuild(ctx);
                }
                Outcome::Consumed
            }
            Action::Open => match self.rows.get(i) {
                Some(Row::Thread(t)) if !self.expanded[*t] => {
                    self.expanded[*t] = true;
                    self.rebuild(ctx);
                    Outcome::Consumed
                }
                _ => Outcome::inspect(self.selected_object()),
            },
            _ => Outcome::Ignored,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let inner = titled(f, area, &self.title(ctx));
        let range = self.list.visible_in(inner, self.rows.len());
        let lines: Vec<Line> = range
            .map(|i| {
                // Names give way in their middle, never an id or a size.
                let text = fit_parts(self.row_parts(i, ctx), inner.width as usize);
                Line::from(Span::styled(text, ctx.theme.row(i == self.list.selected)))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }

    /// The selected row whole: a thread or a frame in full, a local as an object.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let i = self.list.selected;
        match self.rows.get(i)? {
            Row::Local(o) => Some(super::object_line(ctx, *o)),
            row => {
                // A thread without its ▸/▾ (the line's own ▸ leads).
                let skip = matches!(row, Row::Thread(_)) as usize;
                let whole: String = self
                    .row_parts(i, ctx)
                    .into_iter()
                    .skip(skip)
                    .map(|p| p.text)
                    .collect();
                Some(whole.trim_start().to_string())
            }
        }
    }

    fn selected_object(&self) -> Option<ObjId> {
        match self.rows.get(self.list.selected)? {
            Row::Local(o) => Some(*o),
            Row::Thread(_) | Row::Frame(..) => None,
            Row::Empty(_) => None,
        }
    }

    /// A tree's keys: its locals are objects (`p`, `r` act on them).
    fn hints(&self) -> &'static [Action] {
        &super::tree::TREE_HINTS
    }
}
