//! The object inspector: what the object is (class, sizes in human units and exact
//! bytes, GC roots, the format's own facts, a string's or array's contents), who holds
//! it (its dominator and its first referrers, folded: a leak hunter reads that first),
//! then its fields or elements with their values. `Enter` on a reference inspects that
//! object; `p`, `r`, `o`, `d` open paths, referrers, outgoing references and the
//! dominator tree of the inspected object.
//!
//! Everything is one list, so nothing falls off: the lines that say what the object is
//! wrap to the pane's width (each takes the rows it wraps to; a paragraph sized by its
//! line count lost its last lines once one wrapped); a row of a reference is cut where
//! it does not fit, with a mark, its id kept, and the line under the list shows it
//! whole. A big array is listed a page at a time, as the trees page (`Enter` on the
//! "… N more" row shows the next page), and `g` groups its elements by class, as `g`
//! groups a tree node's children: a class row opens to its members, paged too.

use std::cell::Cell;

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::histogram::thousands;
use super::job::Job;
use super::list::ListState;
use super::tree::group::{self, Group};
use super::{human, object_line, titled, Ctx, Outcome, Pane, Request};
use crate::format::{Field, Inspection, Value};
use crate::heap::dominators::VIRTUAL_ROOT;
use crate::heap::ObjId;
use crate::present::value_text;
use crate::ui::keys::{tree_action_for, Action};
use crate::ui::text::{fit_marked, sanitize, width, wrap, Part};

/// Referrers listed above the fields; `r` (or `Enter` on the row that counts the rest)
/// opens them all in the referrer tree.
const SHOWN_REFERRERS: usize = 3;

/// The characters of a value shown (a string's, an array's first elements), escaped.
const VALUE_CHARS: usize = 300;

/// References from which `g` says "working…" before it groups, on a thread of its own
/// (as a tree's `g` does).
const GROUP_LATER: usize = 100_000;

/// Elements, and members of a class row, listed at a time (the trees' page).
const MEMBER_PAGE: usize = 500;

enum Row {
    /// A line of what the object is ([`InspectorPane::facts`]): wrapped, never cut.
    Fact(usize),
    /// The immediate dominator (`Enter` inspects it), or why there is none.
    Dominator,
    Section(String),
    Referrer(ObjId, String),
    /// The referrers past the first few: `Enter` opens them all.
    MoreReferrers(usize),
    Field(usize),
    /// The elements past the pages listed: `Enter` lists the next page.
    MoreElements,
    /// A class of the elements, grouped (`g`): `Enter` or `→` shows its members.
    Group(Group, bool),
    /// An element of a class row: the object and the reference's name (`[i]`).
    Member(ObjId, String),
    /// Members of a class row past those listed: the class, how many are listed.
    MoreMembers(Group, usize),
}

pub struct InspectorPane {
    o: ObjId,
    ins: Inspection,
    /// The fields (elements) of the pages listed so far.
    fields: Vec<Field>,
    /// Elements past them, and where their next page starts.
    more: u64,
    next_from: u64,
    /// The lines that say what the object is.
    facts: Vec<String>,
    /// The dominator row: the object to inspect, if it is one, and its text.
    dominator: (Option<ObjId>, String),
    /// Referrers (each once) and the names of their references, the first few.
    referrers: Vec<(ObjId, String)>,
    referrers_total: usize,
    /// The widths of the fields' type and name columns.
    columns: (usize, usize),
    /// The elements are shown by class (`g`): their classes.
    groups: Option<Vec<Group>>,
    /// `g` on an object of [`GROUP_LATER`] references or more: grouped after the frame
    /// that says so ([`Pane::has_work`]), on a thread of its own ([`Job`]).
    pending_group: bool,
    group_job: Option<Job<Vec<Group>>>,
    rows: Vec<Row>,
    /// Rows before the fields' section (facts, dominator, referrers): the same for the
    /// pane's life.
    head_rows: usize,
    list: ListState,
    /// The width the rows were last drawn at (rows that wrap take more than one line).
    width: Cell<usize>,
    /// The first row of the last frame, for a click ([`Pane::click`]): rows of prose take
    /// the lines they wrap to.
    drawn_from: Cell<usize>,
}

impl InspectorPane {
    pub fn new(o: ObjId, ctx: &Ctx) -> Self {
        let snap = ctx.snap;
        let ins = snap.inspect(o);
        let mut refs: Vec<ObjId> = snap.graph.referrers(o).to_vec();
        refs.dedup();
        let referrers = refs
            .iter()
            .take(SHOWN_REFERRERS)
            .map(|&r| (r, snap.edge_name(r, o).unwrap_or_else(|| "?".into())))
            .collect();
        let mut p = InspectorPane {
            o,
            fields: ins.fields.clone(),
            more: ins.more_elements,
            next_from: ins.next_from,
            ins,
            facts: Vec::new(),
            dominator: (None, String::new()),
            referrers,
            referrers_total: refs.len(),
            columns: (0, 0),
            groups: None,
            pending_group: false,
            group_job: None,
            rows: Vec::new(),
            head_rows: 0,
            list: ListState::new(),
            width: Cell::new(80),
            drawn_from: Cell::new(0),
        };
        p.columns = p.measure_columns();
        p.dominators_ready(ctx);
        p.build_head();
        p.rows.extend(p.element_rows());
        // The first field selected (its reference is what `Enter` follows), else the
        // first referrer.
        p.list.selected = p
            .rows
            .iter()
            .position(|r| matches!(r, Row::Field(_)))
            .or_else(|| p.rows.iter().position(|r| matches!(r, Row::Referrer(..))))
            .unwrap_or(0);
        p
    }

    /// The rows before the fields: what it is, who holds it.
    fn build_head(&mut self) {
        let mut rows: Vec<Row> = (0..self.facts.len()).map(Row::Fact).collect();
        rows.push(Row::Dominator);
        rows.push(Row::Section(format!(
            "referrers ({})",
            thousands(self.referrers_total as u64)
        )));
        rows.extend(
            self.referrers
                .iter()
                .map(|(r, e)| Row::Referrer(*r, e.clone())),
        );
        if self.referrers_total > self.referrers.len() {
            rows.push(Row::MoreReferrers(
                self.referrers_total - self.referrers.len(),
            ));
        }
        self.head_rows = rows.len();
        self.rows = rows;
    }

    /// The fields' section: as listed, or by class.
    fn element_rows(&self) -> Vec<Row> {
        let total = self.fields.len() as u64 + self.more;
        let what = if self.ins.length.is_some() {
            "elements"
        } else {
            "fields"
        };
        if let Some(groups) = &self.groups {
            let objects: u64 = groups.iter().map(|g| g.count).sum();
            let mut rows = vec![Row::Section(format!(
                "{what} by class: {} objects in {} classes",
                thousands(objects),
                thousands(groups.len() as u64)
            ))];
            rows.extend(groups.iter().map(|g| Row::Group(*g, false)));
            return rows;
        }
        let mut rows = vec![Row::Section(format!("fields ({})", thousands(total)))];
        rows.extend((0..self.fields.len()).map(Row::Field));
        if self.more > 0 {
            rows.push(Row::MoreElements);
        }
        rows
    }

    /// The classes of the objects `o` refers to (each once), largest first.
    fn groups_of(o: ObjId, ctx: &Ctx) -> Vec<Group> {
        let g = &ctx.snap.graph;
        let mut targets: Vec<ObjId> = g.edges(o).map(|e| g.out_targets[e]).collect();
        targets.sort_unstable();
        targets.dedup();
        group::by_class(&targets, o, ctx)
    }

    /// The members of class row `gr` from the `skip`th, a page of them, with the names
    /// of the references to them; and how many there are in all.
    fn members(&self, gr: &Group, skip: usize, ctx: &Ctx) -> (Vec<Row>, usize) {
        let g = &ctx.snap.graph;
        // Those of the class, each once, in the order of the references.
        let mut seen = std::collections::HashSet::new();
        let all: Vec<ObjId> = g
            .edges(self.o)
            .map(|e| g.out_targets[e])
            .filter(|&t| g.class_of.get(t as usize) == gr.class && seen.insert(t))
            .collect();
        let page = &all[skip.min(all.len())..(skip + MEMBER_PAGE).min(all.len())];
        let labels = ctx.snap.edge_names(self.o, page);
        let rows = page
            .iter()
            .zip(labels)
            .map(|(&t, l)| Row::Member(t, l.unwrap_or_else(|| "?".into())))
            .collect();
        (rows, all.len())
    }

    /// `Enter` on the "… N more elements" row: the next page in its place, as many as
    /// a tree's page (the formats list fewer at a time).
    fn next_page(&mut self, i: usize, ctx: &Ctx) {
        let first = self.fields.len();
        while self.more > 0 && self.fields.len() - first < MEMBER_PAGE {
            let page = ctx.snap.inspect_from(self.o, self.next_from);
            if page.fields.is_empty() {
                // Nothing more can be read (a record cut short): say no more.
                self.more = 0;
                break;
            }
            self.fields.extend(page.fields);
            self.more = page.more_elements;
            self.next_from = page.next_from;
        }
        self.columns = self.measure_columns();
        let mut rows: Vec<Row> = (first..self.fields.len()).map(Row::Field).collect();
        if self.more > 0 {
            rows.push(Row::MoreElements);
        }
        self.rows.splice(i..i + 1, rows);
    }

    /// `Enter` (or `→`) on a class row: its members below it, or (`←`, `Enter` again)
    /// no longer.
    fn toggle_group(&mut self, i: usize, open: bool, ctx: &Ctx) -> bool {
        let Some(Row::Group(gr, expanded)) = self.rows.get(i) else {
            return false;
        };
        let (gr, expanded) = (*gr, *expanded);
        if expanded == open {
            return false;
        }
        if expanded {
            let end = self.rows[i + 1..]
                .iter()
                .position(|r| !matches!(r, Row::Member(..) | Row::MoreMembers(..)))
                .map_or(self.rows.len(), |k| i + 1 + k);
            self.rows.drain(i + 1..end);
        } else {
            let (mut rows, total) = self.members(&gr, 0, ctx);
            if total > rows.len() {
                rows.push(Row::MoreMembers(gr, rows.len()));
            }
            self.rows.splice(i + 1..i + 1, rows);
        }
        self.rows[i] = Row::Group(gr, !expanded);
        true
    }

    /// `Enter` on a class row's "… N more" row: its next page in its place.
    fn next_members(&mut self, i: usize, ctx: &Ctx) {
        let Some(Row::MoreMembers(gr, shown)) = self.rows.get(i) else {
            return;
        };
        let (gr, shown) = (*gr, *shown);
        let (mut rows, total) = self.members(&gr, shown, ctx);
        let now = shown + rows.len();
        if total > now {
            rows.push(Row::MoreMembers(gr, now));
        }
        self.rows.splice(i..i + 1, rows);
    }

    /// `g`: the elements by class, or as listed again.
    fn toggle_grouped(&mut self, ctx: &Ctx) -> Outcome {
        if self.ins.length.is_some() && ctx.snap.graph.edges(self.o).is_empty() {
            return Outcome::Refused(
                "`g` does nothing here: a primitive array's elements have no class".into(),
            );
        }
        if ctx.snap.graph.edges(self.o).is_empty() {
            return Outcome::Refused("`g` does nothing here: this object refers to none".into());
        }
        if self.groups.is_some() {
            self.groups = None;
        } else if ctx.snap.graph.edges(self.o).len() >= GROUP_LATER {
            self.pending_group = true;
            return Outcome::Consumed;
        } else {
            self.groups = Some(Self::groups_of(self.o, ctx));
        }
        self.show_elements();
        Outcome::Consumed
    }

    /// The fields' section drawn again (listed or grouped), its first row selected.
    fn show_elements(&mut self) {
        self.rows.truncate(self.head_rows);
        let rows = self.element_rows();
        self.rows.extend(rows);
        self.list.selected = (self.head_rows + 1).min(self.rows.len() - 1);
        // From the top again where the selected row shows there (the object, who holds
        // it, the section's title).
        self.list.offset = 0;
        self.list.offset = self.offset_for(self.width.get());
    }

    fn row_object(&self, i: usize) -> Option<ObjId> {
        match self.rows.get(i)? {
            Row::Field(k) => match self.fields[*k].value {
                Value::Object(t) => Some(t),
                _ => None,
            },
            Row::Referrer(r, _) | Row::Member(r, _) => Some(*r),
            Row::Dominator => self.dominator.0,
            _ => None,
        }
    }

    /// The text of a row that wraps (what the object is, who dominates it, what is not
    /// listed), or `None` for a row of one line.
    fn prose(&self, i: usize) -> Option<String> {
        Some(match &self.rows[i] {
            Row::Fact(k) => self.facts[*k].clone(),
            Row::Dominator => self.dominator.1.clone(),
            Row::MoreReferrers(n) => format!(
                "  … {} more referrers: Enter or r opens them all",
                thousands(*n as u64)
            ),
            Row::MoreElements => format!(
                "  … {} more {}: Enter shows the next {MEMBER_PAGE}{}",
                thousands(self.more),
                if self.ins.length.is_some() {
                    "elements"
                } else {
                    "fields"
                },
                if self.o_has_refs_hint() {
                    ", g groups them by class"
                } else {
                    ""
                }
            ),
            Row::MoreMembers(gr, shown) => format!(
                "      … {} more: Enter shows the next {MEMBER_PAGE}",
                thousands(gr.count.saturating_sub(*shown as u64))
            ),
            _ => return None,
        })
    }

    /// Whether the "… more" row says that `g` groups (an array of objects).
    fn o_has_refs_hint(&self) -> bool {
        self.fields
            .iter()
            .any(|f| matches!(f.value, Value::Object(_) | Value::Null))
            && self.ins.length.is_some()
    }

    /// The lines row `i` takes at `w` cells.
    fn height(&self, i: usize, w: usize) -> usize {
        match self.prose(i) {
            Some(t) => wrap(&sanitize(&t), w).len(),
            None => 1,
        }
    }

    /// The first row to draw in the last drawn height at `w` cells: the one kept, moved
    /// as little as needed for the selected row to show whole.
    fn offset_for(&self, w: usize) -> usize {
        let h = self.list.height.get().max(1);
        let sel = self.list.selected.min(self.rows.len().saturating_sub(1));
        if self.list.offset >= sel {
            return sel;
        }
        // The lowest first row from which the selected row still shows whole.
        let mut top = sel;
        let mut used = self.height(sel, w);
        while top > self.list.offset {
            let more = self.height(top - 1, w);
            if used + more > h {
                break;
            }
            used += more;
            top -= 1;
        }
        top.max(self.list.offset)
    }

    /// The widths of the fields' type and name columns: their widest (of the first
    /// thousand), at most 8 and 24.
    fn measure_columns(&self) -> (usize, usize) {
        let widest = |f: fn(&Field) -> &str, cap: usize| {
            self.fields
                .iter()
                .take(1000)
                .map(|x| width(&sanitize(f(x))))
                .max()
                .unwrap_or(0)
                .min(cap)
        };
        (widest(|x| &x.ty, 8), widest(|x| &x.name, 24))
    }

    /// A row of one line in parts, each sanitised: the ids kept whole, names cut in
    /// their middle.
    fn parts(&self, i: usize, ctx: &Ctx) -> Vec<Part> {
        let snap = ctx.snap;
        let clean = |t: &str| sanitize(t).into_owned();
        let object = |parts: &mut Vec<Part>, o: ObjId| {
            parts.push(Part::keep(clean(&snap.object_name(o))));
            parts.push(Part::shrink(format!(" {}", clean(snap.class_name(o))), 8));
        };
        let mut parts = Vec::new();
        match &self.rows[i] {
            Row::Section(s) => parts.push(Part::shrink(clean(s), 8)),
            Row::Field(k) => {
                let fld = &self.fields[*k];
                let st = if fld.is_static { "static " } else { "" };
                parts.push(Part::keep(format!("  {st}")));
                let (ty_w, name_w) = self.columns;
                parts.push(Part::shrink(
                    crate::ui::text::pad_to(&clean(&fld.ty), ty_w),
                    3,
                ));
                parts.push(Part::shrink(
                    format!(" {}", crate::ui::text::pad_to(&clean(&fld.name), name_w)),
                    5,
                ));
                parts.push(Part::keep(" "));
                match fld.value {
                    Value::Object(t) => {
                        object(&mut parts, t);
                        if let Some(l) = snap.label(t) {
                            parts.push(Part::shrink(format!(" {}", clean(&l)), 0));
                        }
                    }
                    ref v => parts.push(Part::shrink(clean(&value_text(snap, v)), 6)),
                }
            }
            Row::Referrer(r, e) => {
                parts.push(Part::keep("  "));
                object(&mut parts, *r);
                parts.push(Part::shrink(format!(" via {}", clean(e)), 8));
                if let Some(l) = snap.label(*r) {
                    parts.push(Part::shrink(format!(" {}", clean(&l)), 0));
                }
            }
            Row::Group(gr, open) => {
                parts.push(Part::keep(if *open { "  ▾ " } else { "  ▸ " }));
                parts.push(Part::keep(format!("{} × ", thousands(gr.count))));
                let class = snap
                    .graph
                    .classes
                    .get(gr.class as usize)
                    .map_or("?", |c| c.name.as_str());
                parts.push(Part::shrink(clean(class), 8));
                // The retained bytes, else the shallow (both in the line under the list).
                parts.push(Part::keep(match gr.retained {
                    Some(r) => format!(" · retained {}", human(r)),
                    None => format!(" · shallow {}", human(gr.shallow)),
                }));
            }
            Row::Member(t, e) => {
                parts.push(Part::keep("      "));
                parts.push(Part::shrink(format!("{} ", clean(e)), 4));
                object(&mut parts, *t);
                if let Some(l) = snap.label(*t) {
                    parts.push(Part::shrink(format!(" {}", clean(&l)), 0));
                }
            }
            _ => {}
        }
        parts
    }
}

/// A class row's sizes: shallow, and retained once known.
fn group_sizes(gr: &Group) -> String {
    match gr.retained {
        Some(r) => format!(" · shallow {} · retained {}", human(gr.shallow), human(r)),
        None => format!(" · shallow {}", human(gr.shallow)),
    }
}

impl Pane for InspectorPane {
    /// The row drawn at (`x`, `y`), each as tall as the lines it wraps to, is selected.
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        let a = self.list.area.get();
        if x < a.x || x >= a.x + a.width || y < a.y || y >= a.y + a.height {
            return false;
        }
        let w = (a.width as usize).max(1);
        let mut top = a.y as usize;
        for i in self.drawn_from.get()..self.rows.len() {
            let h = match self.rows[i] {
                Row::Section(_) => 1,
                _ => self.height(i, w),
            };
            if (y as usize) < top + h {
                self.list.selected = i;
                return true;
            }
            top += h;
        }
        false
    }

    fn title(&self, ctx: &Ctx) -> String {
        if self.pending_group || self.group_job.is_some() {
            return "working… grouping the elements by class (Esc cancels)".into();
        }
        format!(
            "Inspector — {} {}",
            ctx.snap.class_name(self.o),
            ctx.snap.object_name(self.o)
        )
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        let i = self.list.selected;
        let grouping = self.pending_group || self.group_job.is_some();
        let out = match Outcome::list_key(&mut self.list, tree_action_for(key), self.rows.len()) {
            Err(Outcome::Consumed) => Outcome::Consumed,
            Err(o) => return o,
            Ok(Action::Back) if grouping => {
                self.pending_group = false;
                self.group_job = None;
                return Outcome::Done("grouping cancelled".into());
            }
            Ok(Action::Group) if grouping => {
                return Outcome::Refused("already grouping by class… (Esc cancels)".into())
            }
            Ok(Action::Group) => return self.toggle_grouped(ctx),
            Ok(Action::Open) => match self.rows.get(i) {
                Some(Row::MoreElements) => {
                    self.next_page(i, ctx);
                    Outcome::Consumed
                }
                Some(Row::MoreMembers(..)) => {
                    self.next_members(i, ctx);
                    Outcome::Consumed
                }
                Some(Row::MoreReferrers(_)) => Outcome::Open(Request::Referrers(self.o)),
                Some(Row::Group(_, open)) => {
                    let open = !*open;
                    self.toggle_group(i, open, ctx);
                    Outcome::Consumed
                }
                _ => return Outcome::inspect(self.row_object(i)),
            },
            Ok(Action::Expand) if matches!(self.rows.get(i), Some(Row::Group(..))) => {
                if !self.toggle_group(i, true, ctx) {
                    return Outcome::Refused(
                        "this row is already expanded (← collapses it)".into(),
                    );
                }
                Outcome::Consumed
            }
            Ok(Action::Collapse) => {
                let group = matches!(self.rows.get(i), Some(Row::Group(_, true)));
                match self.rows.get(i) {
                    Some(Row::Group(..)) if group => {
                        self.toggle_group(i, false, ctx);
                    }
                    Some(Row::Member(..) | Row::MoreMembers(..)) => {
                        if let Some(p) = self.rows[..i]
                            .iter()
                            .rposition(|r| matches!(r, Row::Group(..)))
                        {
                            self.list.selected = p;
                        }
                    }
                    _ => return Outcome::Ignored,
                }
                Outcome::Consumed
            }
            Ok(_) => return Outcome::Ignored,
        };
        self.list.scroll(self.rows.len());
        self.list.offset = self.offset_for(self.width.get());
        out
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let inner = titled(f, area, &self.title(ctx));
        let w = (inner.width as usize).max(1);
        let h = inner.height as usize;
        self.width.set(w);
        self.list.height.set(h.max(1));
        let mut lines: Vec<Line> = Vec::with_capacity(h);
        let mut i = self.offset_for(w);
        self.drawn_from.set(i);
        self.list.area.set(inner);
        while lines.len() < h && i < self.rows.len() {
            let sel = i == self.list.selected;
            match (&self.rows[i], self.prose(i)) {
                (Row::Section(_), _) => {
                    let text = fit_marked(self.parts(i, ctx), w);
                    let style = if sel {
                        ctx.theme.row(true)
                    } else {
                        ctx.theme.header()
                    };
                    lines.push(Line::from(Span::styled(text, style)));
                }
                (_, Some(t)) => {
                    for l in wrap(&sanitize(&t), w) {
                        lines.push(Line::from(Span::styled(l, ctx.theme.row(sel))));
                    }
                }
                (_, None) => {
                    let text = fit_marked(self.parts(i, ctx), w);
                    lines.push(Line::from(Span::styled(text, ctx.theme.row(sel))));
                }
            }
            i += 1;
        }
        lines.truncate(h);
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn selected_object(&self) -> Option<ObjId> {
        Some(self.o)
    }

    /// The selected row whole: a field with the object it holds, a referrer with the
    /// reference's name, a line of prose as it is.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        let i = self.list.selected;
        let snap = ctx.snap;
        Some(match self.rows.get(i)? {
            Row::Field(k) => {
                let fld = &self.fields[*k];
                let st = if fld.is_static { "static " } else { "" };
                let v = match fld.value {
                    Value::Object(t) => object_line(ctx, t),
                    ref v => value_text(snap, v),
                };
                format!("{st}{} {} = {v}", fld.ty, fld.name)
            }
            Row::Referrer(r, e) => format!("{e} ← {}", object_line(ctx, *r)),
            Row::Member(t, e) => format!("{e} → {}", object_line(ctx, *t)),
            Row::Group(gr, _) => format!(
                "{} × {}{}",
                thousands(gr.count),
                snap.graph
                    .classes
                    .get(gr.class as usize)
                    .map_or("?", |c| c.name.as_str()),
                group_sizes(gr)
            ),
            Row::Section(s) => s.clone(),
            _ => self.prose(i)?.trim_start().to_string(),
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
            // At most 300 characters as shown (escapes counted), the cut marked.
            let shown = format!("{p:?}");
            let mut short: String = shown.chars().take(VALUE_CHARS).collect();
            if short.len() < shown.len() {
                short.push('…');
            }
            h.push(format!("value {short}"));
        }
        for p in &self.ins.problems {
            h.push(format!("problem: {p}"));
        }
        // The facts keep their number of lines (the rows point at them); the
        // dominator's row says what it is once the tree is there.
        self.facts = h;
        self.dominator = match ctx.dom {
            None => (None, "dominator: computing…".into()),
            Some(dom) => match dom.idom(o) {
                // Weakly reachable objects hang below the tree's root too: they are
                // said to be what they are, as the README and the CLI's `dominators`
                // call them.
                Some(d) => {
                    let weak = dom.is_weakly_reachable(o);
                    if d == VIRTUAL_ROOT && weak {
                        (
                            None,
                            "dominator none: weakly reachable (only weak or soft references \
                             lead to it)"
                                .into(),
                        )
                    } else if d == VIRTUAL_ROOT && g.roots_of(o).is_empty() {
                        (
                            None,
                            "dominator (the GC roots: held by several of them)".into(),
                        )
                    } else if d == VIRTUAL_ROOT {
                        (None, "dominator (the GC roots)".into())
                    } else if weak {
                        (
                            Some(d),
                            format!(
                                "dominator {} {} (weakly reachable)",
                                snap.object_name(d),
                                snap.class_name(d)
                            ),
                        )
                    } else {
                        (
                            Some(d),
                            format!("dominator {} {}", snap.object_name(d), snap.class_name(d)),
                        )
                    }
                }
                None => (None, "dominator none: unreachable".into()),
            },
        };
        // A grouping made before the tree has its retained sizes now.
        if self.groups.is_some() && !self.rows.is_empty() {
            self.groups = Some(Self::groups_of(o, ctx));
            self.rows.truncate(self.head_rows);
            let rows = self.element_rows();
            self.rows.extend(rows);
            self.list.scroll(self.rows.len());
        }
    }

    fn has_work(&self) -> bool {
        self.pending_group
    }

    fn work(&mut self, ctx: &Ctx) {
        if std::mem::take(&mut self.pending_group) {
            let o = self.o;
            self.group_job = Some(Job::start(ctx, move |ctx, _| Self::groups_of(o, ctx)));
        }
    }

    fn poll(&mut self, _ctx: &Ctx) -> bool {
        let Some(got) = self.group_job.as_ref().and_then(|j| j.poll()) else {
            return false;
        };
        self.group_job = None;
        if let Ok(groups) = got {
            self.groups = Some(groups);
            self.show_elements();
        }
        true
    }
}
