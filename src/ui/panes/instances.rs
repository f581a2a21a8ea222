//! The instances of one class, largest retained size first (largest shallow size until
//! the dominator tree is ready): the step from "what is big" to "which one". `s` sorts by
//! retained size, shallow size or address; `/` filters on the id and the value (a string's
//! text, a class object's class, a boxed number, else the first fields, a string field's
//! text included) by the one matcher (`crate::heap::matcher`): exact, prefix and
//! substring matches first, then fuzzy ones, each row marked.

use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell as TCell, Row as TRow, Table};
use ratatui::Frame;

use super::list::ListState;
use super::{human, Ctx, Outcome, Pane, Request};
use crate::heap::matcher::Kind;
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::{action_for, Action};
use crate::ui::panes::histogram::{elide_left, thousands};
use crate::ui::panes::job::Job;
use crate::ui::text::{sanitize, width};
use std::sync::atomic::Ordering;

mod filter;
mod rows;
use filter::{in_list_order, match_head, matches, Filtered, SoFar, HEAD_ROWS};
use rows::{collect, first, gather, Spec};

pub struct InstancesPane {
    class: ClassId,
    /// How many instances the class has.
    len: usize,
    /// (sort key, object), in order: the key is `u64::MAX - size`, so ascending is
    /// largest first. Only the top rows until the list scrolls near their end; then all.
    objs: Arc<Vec<(u64, ObjId)>>,
    full: bool,
    by_retained: bool,
    sort_by: SortBy,
    filter: String,
    /// The filter a `/` replaced (every `/` starts a new one): shown in the prompt and
    /// brought back by `↑`.
    recall: String,
    editing: bool,
    /// With a filter: the positions in `objs` that match, in order (the best kind of
    /// match first), and how each matched.
    shown: Option<Vec<u32>>,
    /// The rows that a running filter's matches so far point into when they come before
    /// the list is in order (in object order: the first filter of millions of rows does
    /// not wait for their sort); `None`: `objs`.
    match_objs: Option<Arc<Vec<(u64, ObjId)>>>,
    kinds: Vec<Kind>,
    /// A filter asked for and not yet applied: it is started by [`Pane::work`], after a
    /// frame has said so, on a thread of its own (it decodes every instance's label:
    /// seconds for millions), and its matches replace the list when they come.
    filter_pending: bool,
    filter_job: Option<Job<Filtered>>,
    /// What the running filter has found so far, shown before it ends.
    so_far: Option<Arc<SoFar>>,
    list: ListState,
    /// In a diff's side-by-side view, where ids survive: the objects that are new (on
    /// the target side) or gone (on the base side), what to call them, and whether the
    /// list shows only them (`n` toggles).
    changed: Option<(Arc<Vec<bool>>, &'static str)>,
    only_changed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortBy {
    Retained,
    Shallow,
    Address,
}

/// How many rows are put in order when the pane opens.
const FIRST_ROWS: usize = 2048;

impl InstancesPane {
    pub fn new(class: ClassId, ctx: &Ctx) -> Self {
        Self::with_changed(class, ctx, None)
    }

    /// The instances of `class`, only those marked in `changed` (called by its word:
    /// "new", "gone") while `n` does not show them all.
    pub fn with_changed(
        class: ClassId,
        ctx: &Ctx,
        changed: Option<(Arc<Vec<bool>>, &'static str)>,
    ) -> Self {
        let mut p = InstancesPane {
            class,
            len: 0,
            objs: Default::default(),
            full: false,
            by_retained: false,
            sort_by: SortBy::Retained,
            filter: String::new(),
            recall: String::new(),
            editing: false,
            shown: None,
            match_objs: None,
            kinds: Vec::new(),
            filter_pending: false,
            filter_job: None,
            so_far: None,
            list: ListState::new(),
            only_changed: changed.is_some(),
            changed,
        };
        p.sort(ctx);
        p
    }

    /// What [`collect`] needs of the pane: its class, order and which instances.
    fn spec(&self) -> Spec {
        Spec {
            class: self.class,
            sort_by: self.sort_by,
            only: match &self.changed {
                Some((m, _)) if self.only_changed => Some(m.clone()),
                _ => None,
            },
        }
    }

    fn sort(&mut self, ctx: &Ctx) {
        self.by_retained = ctx.dom.is_some() && self.sort_by == SortBy::Retained;
        let (len, top) = collect(&self.spec(), ctx, FIRST_ROWS);
        self.len = len;
        self.full = top.len() == len;
        self.objs = Arc::new(top);
    }

    /// All rows, once the selection comes near the end of the top ones (or a filter
    /// needs them).
    fn ensure_rows(&mut self, ctx: &Ctx, all: bool) {
        let page = self.list.height.get().max(1);
        if !self.full && (all || self.list.selected + 2 * page >= self.objs.len()) {
            let (_, rows) = collect(&self.spec(), ctx, usize::MAX);
            self.objs = Arc::new(rows);
            self.full = true;
        }
    }

    /// The rows the matches point into.
    fn matched(&self) -> &Arc<Vec<(u64, ObjId)>> {
        self.match_objs.as_ref().unwrap_or(&self.objs)
    }

    fn rows_len(&self) -> usize {
        match &self.shown {
            Some(s) => s.len(),
            None => self.len,
        }
    }

    fn row(&self, i: usize) -> Option<ObjId> {
        match &self.shown {
            Some(s) => s
                .get(i)
                .and_then(|&k| self.matched().get(k as usize))
                .map(|x| x.1),
            None => self.objs.get(i).map(|x| x.1),
        }
    }

    /// Applies the filter: clears it at once when it is empty, else starts it in
    /// [`Pane::work`].
    fn request_filter(&mut self) {
        if self.filter.is_empty() {
            self.clear_filter();
        } else {
            // Until it is applied the list is shown whole: the old matches may point
            // into rows a new sort has replaced.
            self.filter_pending = true;
            self.filter_job = None;
            self.so_far = None;
            self.shown = None;
            self.match_objs = None;
            self.list.selected = 0;
        }
    }

    /// Starts the filter asked for on a thread of its own: all the rows, in order, then
    /// the matches among them.
    fn start_filter(&mut self, ctx: &Ctx) {
        self.filter_pending = false;
        let spec = self.spec();
        let objs = self.full.then(|| self.objs.clone());
        let filter = self.filter.clone();
        let (step, pause) = ctx
            .shared
            .map_or((0, Default::default()), |s| s.jobs.filter_step());
        let notify = ctx
            .shared
            .map(|s| s.jobs.notifier().clone())
            .unwrap_or_default();
        let so_far = Arc::new(SoFar {
            step,
            pause,
            notify,
            ..SoFar::default()
        });
        self.so_far = Some(so_far.clone());
        self.filter_job = Some(Job::start(ctx, move |ctx, cancel| {
            // The first rows in object order, matched at once: their matches are on
            // screen before the rest are gathered and put in object order.
            let n = if step > 0 { step } else { HEAD_ROWS };
            let rows = first(&spec, ctx, n, objs.as_deref().map(|o| o.as_slice()));
            let head = match_head(rows, &filter, ctx, cancel, &so_far);
            // Without all the rows yet: gathered in object order, matched in it, and put
            // in order after (about 100 ms for 5.5 M sessions that the matches so far
            // need not wait for).
            let (objs, ordered) = match objs {
                Some(o) => (o, true),
                None => (Arc::new(gather(&spec, ctx, usize::MAX).1), false),
            };
            let (kinds, shown) = matches(&objs, ordered, &filter, ctx, cancel, &so_far, head);
            if !ordered {
                return in_list_order(&objs, kinds, shown, filter);
            }
            Filtered {
                objs,
                ordered: true,
                filter,
                kinds,
                shown,
            }
        }));
    }

    /// Clears the filter: the whole list again, any running filter dropped.
    fn clear_filter(&mut self) {
        self.filter.clear();
        self.filter_pending = false;
        self.filter_job = None;
        self.so_far = None;
        self.match_objs = None;
        self.shown = None;
        self.kinds.clear();
        self.list.selected = 0;
        self.list.scroll(self.rows_len());
    }

    /// A filter's matches (so far, or all of them) in place of the list's rows.
    fn show(&mut self, f: Filtered) {
        let keep = self.moved_to();
        if f.ordered {
            self.objs = f.objs;
            self.full = true;
            self.match_objs = None;
        } else {
            self.match_objs = Some(f.objs);
        }
        self.kinds = f.kinds;
        self.shown = Some(f.shown);
        self.reselect(keep);
    }

    /// The match a user moved to among a running filter's matches so far (`None` while
    /// the first, the best so far, is selected: the best stays selected as more come).
    fn moved_to(&self) -> Option<ObjId> {
        (self.shown.is_some() && self.list.selected > 0)
            .then(|| self.selected_object())
            .flatten()
    }

    /// Selects `o` in the (filtered) list if it is there, else the first row: the row a
    /// user moved to among a running filter's first matches stays selected as more come.
    fn reselect(&mut self, o: Option<ObjId>) {
        let at = o.and_then(|o| (0..self.rows_len()).find(|&i| self.row(i) == Some(o)));
        self.list.selected = at.unwrap_or(0);
        self.list.scroll(self.rows_len());
    }

    /// The title, with the sort (`, by …`) or without it for a narrow pane: what a
    /// filter matched, or is matching, stays either way.
    fn heading(&self, ctx: &Ctx, with_sort: bool) -> String {
        let which = match &self.changed {
            Some((_, word)) if self.only_changed => {
                let mut w = word.to_string();
                w[..1].make_ascii_uppercase();
                format!("{w} instances")
            }
            _ => "Instances".to_string(),
        };
        let sort = match self.sort_by {
            SortBy::Address => "address",
            SortBy::Retained if self.by_retained => "retained size",
            _ => "shallow size",
        };
        format!(
            "{which} of {} — {} objects{}{}",
            ctx.snap.graph.classes[self.class as usize].name,
            thousands(self.len as u64),
            if with_sort {
                format!(", by {sort}")
            } else {
                String::new()
            },
            match &self.shown {
                _ if self.filter_pending || self.filter_job.is_some() => {
                    let done = self
                        .so_far
                        .as_ref()
                        .map_or(0, |f| f.done.load(Ordering::Relaxed));
                    match &self.shown {
                        _ if done == 0 => format!(
                            ", working… filtering {} for \"{}\" (Esc cancels)",
                            thousands(self.len as u64),
                            self.filter
                        ),
                        Some(s) => format!(
                            ", working… \"{}\": {} of {} read, {} match so far (Esc cancels)",
                            self.filter,
                            thousands(done as u64),
                            thousands(self.len as u64),
                            thousands(s.len() as u64)
                        ),
                        None => format!(
                            ", working… \"{}\": {} of {} read (Esc cancels)",
                            self.filter,
                            thousands(done as u64),
                            thousands(self.len as u64)
                        ),
                    }
                }
                Some(s) => format!(", {} match \"{}\"", thousands(s.len() as u64), self.filter),
                None => String::new(),
            }
        )
    }
}

impl Pane for InstancesPane {
    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) -> bool {
        if self.editing || !self.list.click(x, y, self.rows_len()) {
            return false;
        }
        if self.shown.is_none() {
            self.ensure_rows(ctx, false);
        }
        true
    }

    fn title(&self, ctx: &Ctx) -> String {
        self.heading(ctx, true)
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        use crossterm::event::{KeyCode, KeyModifiers};
        if self.editing {
            // An object id typed into the filter (`/0x7f…`): its inspector.
            if let Some(out) = super::filter_goto(key, &self.filter, ctx) {
                self.editing = false;
                self.clear_filter();
                return out;
            }
            match key.code {
                KeyCode::Enter => {
                    self.editing = false;
                    self.request_filter();
                }
                KeyCode::Esc => {
                    self.editing = false;
                    self.clear_filter();
                }
                KeyCode::Backspace => {
                    self.filter.pop();
                }
                KeyCode::Up if self.filter.is_empty() && !self.recall.is_empty() => {
                    self.filter = self.recall.clone();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    self.filter.push(c)
                }
                _ => return Outcome::Ignored,
            }
            return Outcome::Consumed;
        }
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        if self.list.apply(a, self.rows_len()) {
            if self.shown.is_none() {
                self.ensure_rows(ctx, false);
            }
            return Outcome::Consumed;
        }
        match (a, self.selected_object()) {
            (Action::Open, Some(o)) => Outcome::Open(Request::Inspect(o)),
            (Action::Sort, _) => {
                self.sort_by = match self.sort_by {
                    SortBy::Retained => SortBy::Shallow,
                    SortBy::Shallow => SortBy::Address,
                    SortBy::Address => SortBy::Retained,
                };
                self.sort(ctx);
                self.request_filter();
                Outcome::Consumed
            }
            (Action::Filter, _) => {
                // A new filter: the whole list until it is applied, the old one kept
                // for `↑`, the selected object still selected.
                self.editing = true;
                if !self.filter.is_empty() {
                    let keep = self.selected_object();
                    let old = std::mem::take(&mut self.filter);
                    self.clear_filter();
                    self.recall = old;
                    self.reselect(keep);
                }
                Outcome::Consumed
            }
            (Action::Changed, _) if self.changed.is_some() => {
                self.only_changed = !self.only_changed;
                self.list.selected = 0;
                self.sort(ctx);
                self.request_filter();
                Outcome::Consumed
            }
            (Action::Back, _) if self.filter_pending || self.filter_job.is_some() => {
                self.clear_filter();
                Outcome::Done("filter cancelled".into())
            }
            (Action::Back, _) if self.shown.is_some() => {
                self.clear_filter();
                Outcome::Consumed
            }
            _ => Outcome::Ignored,
        }
    }

    fn has_work(&self) -> bool {
        self.filter_pending
    }

    fn work(&mut self, ctx: &Ctx) {
        self.start_filter(ctx);
    }

    fn poll(&mut self, _ctx: &Ctx) -> bool {
        let Some(got) = self.filter_job.as_ref().and_then(|j| j.poll()) else {
            // Still running: the matches it has found so far, if it has published more,
            // else whether the count it has read moved.
            let Some(latest) = self.so_far.as_ref().and_then(|f| f.take()) else {
                return self.so_far.as_ref().is_some_and(|f| f.moved());
            };
            self.show(latest);
            return true;
        };
        self.filter_job = None;
        self.so_far = None;
        // A filter asked for since is not this one's: its own job follows.
        if let Ok(f) = got.map_err(|_| ()).and_then(|f| {
            if f.filter == self.filter && !self.filter_pending {
                Ok(f)
            } else {
                Err(())
            }
        }) {
            self.show(f);
        }
        true
    }

    /// A filtered list merges its matches; a list of a diff's new objects or of a leak
    /// cluster's, those objects.
    fn merge_only(&self, ctx: &Ctx) -> Option<(Arc<Vec<bool>>, String)> {
        match (&self.shown, &self.changed) {
            (Some(shown), _) => {
                let mut mask = vec![false; ctx.snap.graph.len()];
                for &k in shown {
                    if let Some(&(_, o)) = self.matched().get(k as usize) {
                        mask[o as usize] = true;
                    }
                }
                Some((Arc::new(mask), format!("matching \"{}\"", self.filter)))
            }
            (None, Some((m, word))) if self.only_changed => Some((m.clone(), word.to_string())),
            _ => None,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let g = &ctx.snap.graph;
        // A narrow pane (one side of a diff) keeps the end of the class name.
        let mut title = sanitize(&self.heading(ctx, true)).into_owned();
        let room = area.width.saturating_sub(4) as usize;
        if width(&title) > room {
            title = sanitize(&self.heading(ctx, false)).into_owned();
        }
        let len = width(&title);
        if len > room {
            let class = sanitize(&g.classes[self.class as usize].name).into_owned();
            let keep = width(&class).saturating_sub(len - room).max(8);
            title = title.replacen(&class, &elide_left(&class, keep), 1);
        }
        let block = Block::default()
            .borders(Borders::TOP)
            .title(format!(" {title} "));
        // The rows under the title and the header.
        let rows_area = Rect {
            y: area.y + 2.min(area.height),
            height: area.height.saturating_sub(2),
            ..area
        };
        let range = self.list.visible_in(rows_area, self.rows_len());
        // The columns as wide as what they show on screen (the header's word at least):
        // an id or a size is never cut, the value gives way.
        let (mut obj_w, mut shallow_w, mut retained_w) = (6, 7, 8);
        let rows: Vec<TRow> = range
            .clone()
            .map(|i| {
                let Some(o) = self.row(i) else {
                    return TRow::new(Vec::<TCell>::new());
                };
                let retained = ctx
                    .dom
                    .map(|d| d.retained(o).map(human).unwrap_or_else(|| "-".into()))
                    .unwrap_or_else(|| "…".into());
                let style = ctx.theme.row(i == self.list.selected);
                let mark = match &self.changed {
                    Some((m, word)) if !self.only_changed && m.get(o as usize) == Some(&true) => {
                        format!(" {word}")
                    }
                    _ => String::new(),
                };
                // With a filter, how the row matched: = exact, ^ prefix, + substring,
                // ~ fuzzy (as in the histogram).
                let how = match self.kinds.get(i) {
                    Some(k) if self.shown.is_some() => format!("{} ", k.mark()),
                    _ => String::new(),
                };
                let object =
                    sanitize(&format!("{how}{}{mark}", ctx.snap.object_name(o))).into_owned();
                let shallow = human(g.shallow_size(o));
                obj_w = obj_w.max(width(&object));
                shallow_w = shallow_w.max(width(&shallow));
                retained_w = retained_w.max(width(&retained));
                TRow::new(vec![
                    TCell::from(object),
                    TCell::from(Line::from(shallow).right_aligned()),
                    TCell::from(Line::from(retained).right_aligned()),
                    TCell::from(sanitize(&ctx.snap.value_words(o)).into_owned()),
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
        // A narrow pane (a side of the diff view) gives the ids their room and drops
        // the value column.
        let (obj_w, shallow_w, retained_w) = (obj_w as u16, shallow_w as u16, retained_w as u16);
        // A narrow pane (a side of the diff view) gives the ids and sizes the room they
        // take and the value what is left; a wide one keeps the columns it always had.
        let widths = if area.width < 60 {
            [
                Constraint::Length(obj_w),
                Constraint::Length(shallow_w),
                Constraint::Length(retained_w),
                Constraint::Fill(1),
            ]
        } else {
            [
                Constraint::Length(obj_w.max(20)),
                Constraint::Length(shallow_w.max(11)),
                Constraint::Length(retained_w.max(11)),
                Constraint::Min(10),
            ]
        };
        let table = Table::new(rows, widths).header(header).block(block);
        f.render_widget(table, area);
    }

    fn selected_object(&self) -> Option<ObjId> {
        self.row(self.list.selected)
    }

    fn selected_class(&self) -> Option<ClassId> {
        Some(self.class)
    }

    fn wants_detail(&self) -> bool {
        true
    }

    fn is_editing(&self) -> bool {
        self.editing
    }

    fn editing_hint(&self) -> Option<String> {
        self.editing.then(|| {
            format!(
                "filter: {}▏  Enter apply  Esc clear{}",
                sanitize(&self.filter),
                super::histogram::recall_hint(&self.filter, &self.recall)
            )
        })
    }

    fn hints(&self) -> &'static [Action] {
        if self.changed.is_some() {
            return &[
                Action::Down,
                Action::Open,
                Action::Back,
                Action::Changed,
                Action::Side,
                Action::Paths,
                Action::Help,
            ];
        }
        &[
            Action::Down,
            Action::Open,
            Action::Back,
            Action::Sort,
            Action::Filter,
            Action::Paths,
            Action::Referrers,
            Action::Help,
            Action::Quit,
        ]
    }

    /// Sorted by retained size now, and any filter run again on its own thread (over
    /// millions of rows it takes seconds: it was run here, on the UI's).
    fn dominators_ready(&mut self, ctx: &Ctx) {
        self.sort(ctx);
        self.request_filter();
    }
}
