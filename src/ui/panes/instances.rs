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
    objs: Vec<ObjId>,
    by_retained: bool,
    list: ListState,
}

impl InstancesPane {
    pub fn new(class: ClassId, ctx: &Ctx) -> Self {
        let g = &ctx.snap.graph;
        let objs = (0..g.len() as ObjId)
            .filter(|&o| g.class_of[o as usize] == class)
            .collect();
        let mut p = InstancesPane {
            class,
            objs,
            by_retained: false,
            list: ListState::new(),
        };
        p.sort(ctx);
        p
    }

    fn sort(&mut self, ctx: &Ctx) {
        let g = &ctx.snap.graph;
        match ctx.dom {
            Some(d) => {
                self.objs
                    .sort_by_key(|&o| (std::cmp::Reverse(d.retained(o).unwrap_or(0)), o));
                self.by_retained = true;
            }
            None => self
                .objs
                .sort_by_key(|&o| (std::cmp::Reverse(g.shallow_size(o)), o)),
        }
    }
}

impl Pane for InstancesPane {
    fn title(&self, ctx: &Ctx) -> String {
        format!(
            "Instances of {} — {} objects, by {} size",
            ctx.snap.graph.classes[self.class as usize].name,
            thousands(self.objs.len() as u64),
            if self.by_retained {
                "retained"
            } else {
                "shallow"
            }
        )
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        if self.list.apply(a, self.objs.len()) {
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
        let rows: Vec<TRow> = range
            .clone()
            .map(|i| {
                let o = self.objs[i];
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
        self.objs.get(self.list.selected).copied()
    }

    fn selected_text(&self, ctx: &Ctx) -> Option<String> {
        self.selected_object().map(|o| ctx.snap.object_name(o))
    }

    fn dominators_ready(&mut self, ctx: &Ctx) {
        let keep = self.selected_object();
        self.sort(ctx);
        if let Some(o) = keep {
            self.list.selected = self.objs.iter().position(|&x| x == o).unwrap_or(0);
            self.list.scroll(self.objs.len());
        }
    }
}
