//! The object inspector: what the object is (class, sizes in human units and exact
//! bytes, dominator, GC roots, the format's own facts, a string's or array's contents),
//! then every field with its value and every referrer with the reference's name. `Enter`
//! on a reference inspects that object; `p`, `r`, `o`, `d` open paths, referrers,
//! outgoing references and the dominator tree of the inspected object.

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

use super::list::ListState;
use super::{human, Ctx, Outcome, Pane};
use crate::format::{Inspection, Value};
use crate::heap::dominators::VIRTUAL_ROOT;
use crate::heap::ObjId;
use crate::present::value_text;
use crate::ui::keys::{action_for, Action};
use crate::ui::text::{sanitize, take_width};

/// Referrers listed; the rest are counted.
const MAX_REFERRERS: usize = 200;

enum Row {
    Section(String),
    Field(usize),
    Referrer(ObjId, String),
    More(String),
}

pub struct InspectorPane {
    o: ObjId,
    ins: Inspection,
    header: Vec<String>,
    rows: Vec<Row>,
    list: ListState,
}

impl InspectorPane {
    pub fn new(o: ObjId, ctx: &Ctx) -> Self {
        let snap = ctx.snap;
        let ins = snap.inspect(o);
        let mut rows = Vec::new();
        rows.push(Row::Section(format!("fields ({})", ins.fields.len())));
        rows.extend((0..ins.fields.len()).map(Row::Field));
        if ins.more_elements > 0 {
            rows.push(Row::More(format!("… {} more elements", ins.more_elements)));
        }
        let mut refs: Vec<ObjId> = snap.graph.referrers(o).to_vec();
        refs.dedup();
        rows.push(Row::Section(format!("referrers ({})", refs.len())));
        for &r in refs.iter().take(MAX_REFERRERS) {
            let e = snap.edge_label(r, o).unwrap_or_else(|| "?".into());
            rows.push(Row::Referrer(r, e));
        }
        if refs.len() > MAX_REFERRERS {
            rows.push(Row::More(format!(
                "… {} more referrers",
                refs.len() - MAX_REFERRERS
            )));
        }
        let mut p = InspectorPane {
            o,
            ins,
            header: Vec::new(),
            rows,
            list: ListState::new(),
        };
        p.list.selected = 1.min(p.rows.len().saturating_sub(1));
        p.dominators_ready(ctx);
        p
    }

    fn row_object(&self, i: usize) -> Option<ObjId> {
        match self.rows.get(i)? {
            Row::Field(k) => match self.ins.fields[*k].value {
                Value::Object(t) => Some(t),
                _ => None,
            },
            Row::Referrer(r, _) => Some(*r),
            _ => None,
        }
    }
}

impl Pane for InspectorPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        self.list.click(x, y, self.rows.len())
    }

    fn title(&self, ctx: &Ctx) -> String {
        format!(
            "Inspector — {} {}",
            ctx.snap.class_name(self.o),
            ctx.snap.object_name(self.o)
        )
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        match Outcome::list_key(&mut self.list, action_for(key), self.rows.len()) {
            Ok(Action::Open) => Outcome::inspect(self.row_object(self.list.selected)),
            Ok(_) => Outcome::Ignored,
            Err(o) => o,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snap = ctx.snap;
        let head_h = (self.header.len() as u16 + 1).min(area.height / 2);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(head_h), Constraint::Min(1)]).areas(area);
        let head: Vec<Line> = self
            .header
            .iter()
            .map(|l| Line::from(sanitize(l).into_owned()))
            .collect();
        f.render_widget(
            Paragraph::new(head).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(Borders::TOP)
                    .title(format!(" {} ", sanitize(&self.title(ctx)))),
            ),
            top,
        );
        let range = self.list.visible_in(bottom, self.rows.len());
        let lines: Vec<Line> = range
            .clone()
            .map(|i| {
                let text = match &self.rows[i] {
                    Row::Section(s) => {
                        return Line::from(Span::styled(s.clone(), ctx.theme.header()))
                    }
                    Row::More(s) => format!("  {s}"),
                    Row::Field(k) => {
                        let fld = &self.ins.fields[*k];
                        let st = if fld.is_static { "static " } else { "" };
                        format!(
                            "  {st}{:<8} {:<24} {}",
                            fld.ty,
                            fld.name,
                            value_text(snap, &fld.value)
                        )
                    }
                    Row::Referrer(r, e) => {
                        let mut s =
                            format!("  {} {} via {e}", snap.object_name(*r), snap.class_name(*r));
                        if let Some(l) = snap.label(*r) {
                            s.push(' ');
                            s.push_str(&l);
                        }
                        s
                    }
                };
                let text = take_width(&sanitize(&text), area.width as usize).to_string();
                Line::from(Span::styled(text, ctx.theme.row(i == self.list.selected)))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), bottom);
    }

    fn selected_object(&self) -> Option<ObjId> {
        Some(self.o)
    }

    /// The selected row whole (a field's value or a referrer is cut to the pane): a
    /// field with the object it holds, a referrer with the reference's name; on a
    /// heading, the inspected object.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let snap = ctx.snap;
        Some(match self.rows.get(self.list.selected)? {
            Row::Field(k) => {
                let fld = &self.ins.fields[*k];
                let st = if fld.is_static { "static " } else { "" };
                let mut s = format!("{st}{} {} = ", fld.ty, fld.name);
                match fld.value {
                    Value::Object(t) => s.push_str(&super::object_line(ctx, t)),
                    ref v => s.push_str(&value_text(snap, v)),
                }
                s
            }
            Row::Referrer(r, e) => format!("{} via {e}", super::object_line(ctx, *r)),
            Row::More(m) => m.clone(),
            Row::Section(_) => super::object_line(ctx, self.o),
        })
    }

    fn dominators_ready(&mut self, ctx: &Ctx) {
        let snap = ctx.snap;
        let o = self.o;
        let g = &snap.graph;
        let mut h = Vec::new();
        let mut what = format!("{} {}", snap.object_name(o), snap.class_name(o));
        if let Some(l) = snap.label(o) {
            what.push_str(&format!("  {l}"));
        }
        h.push(what);
        let shallow = g.shallow_size(o);
        let retained = match ctx.dom.map(|d| d.retained(o)) {
            Some(Some(r)) => format!("{} ({r} bytes)", human(r)),
            Some(None) => "- (no GC root reaches it)".to_string(),
            None => "computing…".to_string(),
        };
        h.push(format!(
            "shallow {} ({shallow} bytes) · retained {retained}",
            human(shallow)
        ));
        if let Some((dom, d)) = ctx.dom.and_then(|dom| Some((dom, dom.idom(o)?))) {
            // Weakly reachable objects hang below the tree's root too: they are said to
            // be what they are, as the README and the CLI's `dominators` call them.
            let weak = dom.is_weakly_reachable(o);
            h.push(format!(
                "dominator {}",
                if d == VIRTUAL_ROOT && weak {
                    "none: weakly reachable (only weak or soft references lead to it)".to_string()
                } else if d == VIRTUAL_ROOT && g.roots_of(o).is_empty() {
                    "(the GC roots: held by several of them)".to_string()
                } else if d == VIRTUAL_ROOT {
                    "(the GC roots)".to_string()
                } else if weak {
                    format!(
                        "{} {} (weakly reachable)",
                        snap.object_name(d),
                        snap.class_name(d)
                    )
                } else {
                    format!("{} {}", snap.object_name(d), snap.class_name(d))
                }
            ));
        }
        let roots = snap.describe_roots(o);
        if !roots.is_empty() {
            h.push(format!("GC root: {roots}"));
        }
        for (k, v) in &self.ins.facts {
            if k != "id" {
                h.push(format!("{k}: {v}"));
            }
        }
        if let Some(n) = self.ins.length {
            h.push(format!("length {n}"));
        }
        if let Some(p) = &self.ins.preview {
            let short: String = p.chars().take(300).collect();
            h.push(format!("value {short:?}"));
        }
        for p in &self.ins.problems {
            h.push(format!("problem: {p}"));
        }
        self.header = h;
    }
}
