//! The instances of one class, largest retained size first (largest shallow size until
//! the dominator tree is ready): the step from "what is big" to "which one".

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell as TCell, Row as TRow, Table};
use ratatui::Frame;

use super::list::ListState;
use super::{human, Ctx, Outcome, Pane, Request};
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::{action_for, Action};
use crate::ui::panes::histogram::thousands;
use crate::ui::text::sanitize;

pub struct InstancesPane {
    class: ClassId,
    /// How many instances the class has.
    len: usize,
    /// (sort key, object), in order: the key is `u64::MAX - size`, so ascending is
    /// largest first. Only the top rows until the list scrolls near their end; then all.
    objs: Vec<(u64, ObjId)>,
    full: bool,
    by_retained: bool,
    list: ListState,
}

/// How many rows are put in order when the pane opens.
const FIRST_ROWS: usize = 2048;

impl InstancesPane {
    pub fn new(class: ClassId, ctx: &Ctx) -> Self {
        let mut p = InstancesPane {
            class,
            len: 0,
            objs: Vec::new(),
            full: false,
            by_retained: false,
            list: ListState::new(),
        };
        p.sort(ctx);
        p
    }

    /// The best `keep` (key, object) pairs of the class (all of them for `usize::MAX`),
    /// in order, found on all cores in chunks that keep only their own best, so that
    /// opening a class of millions of instances allocates little and sorts less.
    fn collect(&self, ctx: &Ctx, keep: usize) -> (usize, Vec<(u64, ObjId)>) {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 18;
        let g = &ctx.snap.graph;
        let dom = ctx.dom;
        let class = self.class;
        let key = |o: ObjId| {
            u64::MAX
                - match dom {
                    Some(d) => d.retained(o).unwrap_or(0),
                    None => g.shallow_size(o),
                }
        };
        let trim = |v: &mut Vec<(u64, ObjId)>| {
            if v.len() > keep {
                v.select_nth_unstable(keep - 1);
                v.truncate(keep);
            }
        };
        let parts: Vec<(usize, Vec<(u64, ObjId)>)> = g
            .class_of
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(k, chunk)| {
                let mut v = Vec::new();
                let mut n = 0;
                for (i, &c) in chunk.iter().enumerate() {
                    if c == class {
                        n += 1;
                        let o = (k * CHUNK + i) as ObjId;
                        v.push((key(o), o));
                        if keep != usize::MAX && v.len() >= 2 * keep {
                            trim(&mut v);
                        }
                    }
                }
                trim(&mut v);
                (n, v)
            })
            .collect();
        let len = parts.iter().map(|p| p.0).sum();
        let mut all: Vec<(u64, ObjId)> = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
        for (_, v) in parts {
            all.extend_from_slice(&v);
        }
        trim(&mut all);
        all.par_sort_unstable();
        (len, all)
    }

    fn sort(&mut self, ctx: &Ctx) {
        self.by_retained = ctx.dom.is_some();
        let (len, top) = self.collect(ctx, FIRST_ROWS);
        self.len = len;
        self.full = top.len() == len;
        self.objs = top;
    }

    /// All rows, once the selection comes near the end of the top ones.
    fn ensure_rows(&mut self, ctx: &Ctx) {
        let page = self.list.height.get().max(1);
        if !self.full && self.list.selected + 2 * page >= self.objs.len() {
            let (_, all) = self.collect(ctx, usize::MAX);
            self.objs = all;
            self.full = true;
        }
    }
}

impl Pane for InstancesPane {
    fn title(&self, ctx: &Ctx) -> String {
        format!(
            "Instances of {} — {} objects, by {} size",
            ctx.snap.graph.classes[self.class as usize].name,
            thousands(self.len as u64),
            if self.by_retained {
                "retained"
            } else {
                "shallow"
            }
        )
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        if self.list.apply(a, self.len) {
            self.ensure_rows(ctx);
            return Outcome::Consumed;
        }
        match (a, self.selected_object()) {
            (Action::Open, Some(o)) => Outcome::Open(Request::Inspect(o)),
            _ => Outcome::Ignored,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let g = &ctx.snap.graph;
        let block = Block::default()
            .borders(Borders::TOP)
            .title(format!(" {} ", sanitize(&self.title(ctx))));
        let rows_h = area.height.saturating_sub(2) as usize;
        let range = self.list.visible(rows_h, self.objs.len());
        let _ = self.len;
        let rows: Vec<TRow> = range
            .clone()
            .map(|i| {
                let o = self.objs[i].1;
                let retained = ctx
                    .dom
                    .map(|d| d.retained(o).map(human).unwrap_or_else(|| "-".into()))
                    .unwrap_or_else(|| "…".into());
                let style = if i == self.list.selected {
                    ctx.theme.selected()
                } else {
                    Default::default()
                };
                TRow::new(vec![
                    TCell::from(ctx.snap.object_name(o)),
                    TCell::from(Line::from(human(g.shallow_size(o))).right_aligned()),
                    TCell::from(Line::from(retained).right_aligned()),
                    TCell::from(sanitize(&ctx.snap.label(o).unwrap_or_default()).into_owned()),
                ])
                .style(style)
            })
            .collect();
        let header = TRow::new(vec![
            TCell::from("Object"),
            TCell::from(Line::from("Shallow").right_aligned()),
            TCell::from(Line::from("Retained").right_aligned()),
            TCell::from("Value"),
        ])
        .style(ctx.theme.header());
        let table = Table::new(
            rows,
            [
                Constraint::Length(20),
                Constraint::Length(11),
                Constraint::Length(11),
                Constraint::Min(10),
            ],
        )
        .header(header)
        .block(block);
        f.render_widget(table, area);
    }

    fn selected_object(&self) -> Option<ObjId> {
        self.objs.get(self.list.selected).map(|x| x.1)
    }

    fn selected_text(&self, ctx: &Ctx) -> Option<String> {
        self.selected_object().map(|o| ctx.snap.object_name(o))
    }

    fn dominators_ready(&mut self, ctx: &Ctx) {
        let keep = self.selected_object();
        self.sort(ctx);
        if let Some(o) = keep {
            self.list.selected = self.objs.iter().position(|x| x.1 == o).unwrap_or(0);
            self.list.scroll(self.objs.len());
        }
    }
}
