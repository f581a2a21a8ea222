//! The answer to a query typed on the `:` line (issue 41, `crate::ui::query_line`): the
//! columns as headers and the rows below, a list like the others (the movement keys,
//! `→`/`←` over columns that do not all fit). The query runs on a thread of its own
//! ([`crate::ui::panes::job`]) over the snapshot and its dominator tree once built (in
//! the diff view over both snapshots, as `base.` and `target.` with `diff`: [`Partner`]),
//! and the pane says "working…" with the seconds it has taken, `Esc` cancels it (the
//! engine's stop flag is set), and every other key stays live. A row whose cell names an
//! object of the pane's snapshot (`0x…`, `@N`, `#N`: the first such cell) is that
//! object's row: `Enter` inspects it, and `p`, `r`, `d` work on it as on an instance. An
//! error is the engine's message, which names the line and the column.
//!
//! Every cell is text from the dump, sanitised before it is drawn; numbers are right-
//! aligned. At most [`MAX_ROWS`] rows are kept (the title says when more came).

use std::cell::Cell;
use std::time::{Duration, Instant};

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell as TCell, Paragraph, Row as TRow, Table, Wrap};
use ratatui::Frame;
use serde_json::Value;

use super::job::Job;
use super::list::ListState;
use super::{Ctx, Outcome, Pane, Request};
use crate::format::Snapshot;
use crate::heap::ObjId;
use crate::ui::keys::{action_for, key_name, Action};
use crate::ui::text::{cut_marked, sanitize, thousands, width};

/// The most rows a pane keeps: more end the query (`LIMIT` and `OFFSET` page further).
pub const MAX_ROWS: usize = 100_000;

/// The widest a column is drawn (a longer cell is cut, marked `…`; the line under the
/// list has the row whole).
const MAX_WIDTH: usize = 48;

/// Whether this heaptui was built with SQL (the cargo feature `sql`).
pub const AVAILABLE: bool = cfg!(feature = "sql");

/// What `:` says in a heaptui built without SQL.
pub const WITHOUT_SQL: &str =
    "this heaptui was built without SQL (the cargo feature `sql`): `:` has no engine to ask";

/// What a cancelled query says (the engine's word for it).
#[cfg(feature = "sql")]
pub const CANCELLED: &str = crate::query::CANCELLED;
#[cfg(not(feature = "sql"))]
pub const CANCELLED: &str = "the query was cancelled";

/// The names the query line completes: the tables with their columns, the functions;
/// with `two` snapshots (the diff view), the schemas `base` and `target` and the table
/// `diff`, as `heaptui query --base` has them.
#[cfg(feature = "sql")]
pub fn names(two: bool) -> crate::ui::query_line::Names<'static> {
    crate::ui::query_line::Names {
        tables: crate::query::TABLES,
        functions: crate::query::FUNCTIONS,
        schemas: if two { &["base", "target"] } else { &[] },
        two_only: &["diff"],
    }
}
#[cfg(not(feature = "sql"))]
pub fn names(_two: bool) -> crate::ui::query_line::Names<'static> {
    crate::ui::query_line::Names::default()
}

/// The diff view's other snapshot, which a query typed on one of its sides reads too
/// (`base.` and `target.`, `diff`: as `heaptui query TARGET --base BASE`).
#[derive(Clone)]
pub struct Partner {
    pub snap: std::sync::Arc<Snapshot>,
    pub dom: Option<std::sync::Arc<crate::heap::dominators::Dominators>>,
    /// The other snapshot is the base (the query's own is the target).
    pub is_base: bool,
}

/// A query's rows, and the object each names.
#[derive(Debug, Default)]
pub struct Answer {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// Each row's object: the first of its cells that names one of the snapshot.
    pub objects: Vec<Option<ObjId>>,
    /// More rows came than [`MAX_ROWS`]: the query was ended there.
    pub cut: bool,
    pub took: Duration,
}

// Without SQL no query runs.
#[cfg_attr(not(feature = "sql"), allow(dead_code))]
enum State {
    Running {
        job: Job<Result<Answer, String>>,
        since: Instant,
    },
    Done(Answer),
    Failed(String),
    Cancelled,
}

pub struct QueryPane {
    sql: String,
    /// It reads two snapshots (the diff view's).
    two: bool,
    state: State,
    list: ListState,
    /// The first column drawn (`→`/`←` move it), and how many fitted when last drawn.
    first_col: usize,
    shown_cols: Cell<usize>,
}

impl QueryPane {
    fn with(sql: String, state: State) -> QueryPane {
        QueryPane {
            sql,
            two: false,
            state,
            list: ListState::new(),
            first_col: 0,
            shown_cols: Cell::new(0),
        }
    }

    /// Runs `sql` on a thread of its own over the snapshot `ctx` shares and its
    /// dominator tree, if built, and over the `partner` snapshot of the diff view, if
    /// any: each row's object is looked up in the snapshot of `ctx`.
    #[cfg(feature = "sql")]
    pub fn start(sql: String, ctx: &Ctx, partner: Option<&Partner>) -> QueryPane {
        use crate::query::{Input, Inputs, Tree};
        let Some(shared) = ctx.shared else {
            return Self::with(sql, State::Failed("no snapshot to query here".into()));
        };
        let own = Input::new(shared.snap.clone(), Tree::ready(shared.dom.cloned()));
        let inputs = match partner {
            None => Inputs {
                target: own,
                base: None,
            },
            Some(p) => {
                let other = Input::new(p.snap.clone(), Tree::ready(p.dom.clone()));
                let (target, base) = if p.is_base {
                    (own, other)
                } else {
                    (other, own)
                };
                Inputs {
                    target,
                    base: Some(base),
                }
            }
        };
        let snap = shared.snap.clone();
        // `:NAME` runs a shipped query, as on the command line.
        let q = match sql.trim().strip_prefix(':') {
            Some(name) => match crate::query::shipped(name) {
                Some(q) => q.to_string(),
                None => {
                    let names: Vec<String> = crate::query::SHIPPED
                        .iter()
                        .map(|(n, _)| format!(":{n}"))
                        .collect();
                    let why = format!("no shipped query :{name} (they are {})", names.join(", "));
                    return Self::with(sql, State::Failed(why));
                }
            },
            None => sql.clone(),
        };
        let job = Job::spawn(shared.jobs, move |stop| run(&inputs, &snap, &q, stop));
        let since = Instant::now();
        let mut pane = Self::with(sql, State::Running { job, since });
        pane.two = partner.is_some();
        pane
    }

    /// Without SQL: says so.
    #[cfg(not(feature = "sql"))]
    pub fn start(sql: String, _ctx: &Ctx, _partner: Option<&Partner>) -> QueryPane {
        Self::with(sql, State::Failed(WITHOUT_SQL.into()))
    }

    /// The pane of an answer already there (tests): the objects its rows name found in
    /// `snap`.
    pub fn answered(
        sql: &str,
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
        snap: &Snapshot,
    ) -> Self {
        let objects = objects_of(snap, &rows, &Default::default());
        let answer = Answer {
            columns,
            rows,
            objects,
            ..Answer::default()
        };
        Self::with(sql.to_string(), State::Done(answer))
    }

    /// The SQL this pane answers.
    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// The query on one line, for a title.
    fn one_line(&self) -> String {
        self.sql.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The title: what the query came to (`more` after it), then the query.
    fn heading(&self, more: &str) -> String {
        let what = match &self.state {
            State::Running { since, .. } => {
                format!("working… {} s (Esc cancels)", since.elapsed().as_secs())
            }
            State::Done(a) => {
                let n = a.rows.len();
                let rows = format!(
                    "{} row{}",
                    thousands(n as u64),
                    if n == 1 { "" } else { "s" }
                );
                if a.cut {
                    format!("the first {rows} (more not kept: LIMIT and OFFSET page)")
                } else {
                    format!("{rows} in {:.1} s", a.took.as_secs_f64())
                }
            }
            State::Failed(_) => "failed".into(),
            State::Cancelled => "cancelled".into(),
        };
        let over = if self.two { " of base and target" } else { "" };
        format!("Query{over} — {what}{more}: {}", self.one_line())
    }

    fn answer(&self) -> Option<&Answer> {
        match &self.state {
            State::Done(a) => Some(a),
            _ => None,
        }
    }

    fn rows_len(&self) -> usize {
        self.answer().map_or(0, |a| a.rows.len())
    }

    /// The columns drawn from `first_col` in `cells`: their widths, as wide as their
    /// header and the cells of the rows `range` (at most [`MAX_WIDTH`]), as many as fit.
    fn widths(&self, a: &Answer, range: std::ops::Range<usize>, cells: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut used = 0;
        for c in self.first_col..a.columns.len() {
            let w = range
                .clone()
                .filter_map(|r| a.rows[r].get(c))
                .map(|v| width(&cell(v)))
                .fold(width(&sanitize(&a.columns[c])), usize::max)
                .clamp(1, MAX_WIDTH);
            let need = w + usize::from(!out.is_empty());
            if !out.is_empty() && used + need > cells {
                break;
            }
            used += need;
            out.push(w.min(cells.max(1)));
        }
        out
    }

    fn draw_table(&self, f: &mut Frame, area: Rect, ctx: &Ctx, a: &Answer) {
        let rows_area = Rect {
            y: area.y + 2.min(area.height),
            height: area.height.saturating_sub(2),
            ..area
        };
        let range = self.list.visible_in(rows_area, a.rows.len());
        let widths = self.widths(a, range.clone(), area.width as usize);
        self.shown_cols.set(widths.len());
        let cols = self.first_col..self.first_col + widths.len();
        let more = if widths.len() < a.columns.len() {
            format!(
                " · columns {}–{} of {} (→←)",
                cols.start + 1,
                cols.end,
                a.columns.len()
            )
        } else {
            String::new()
        };
        let inner = super::titled(f, area, &self.heading(&more));
        if a.rows.is_empty() {
            let p = Paragraph::new("(no rows)").style(ctx.theme.dim());
            f.render_widget(
                p,
                Rect {
                    y: inner.y + 1.min(inner.height),
                    ..inner
                },
            );
        }
        // A column whose cells on screen are numbers has its header right-aligned too.
        let numeric: Vec<bool> = cols
            .clone()
            .map(|c| {
                range
                    .clone()
                    .any(|r| matches!(a.rows[r].get(c), Some(Value::Number(_))))
            })
            .collect();
        let header = TRow::new(
            cols.clone()
                .zip(&widths)
                .zip(&numeric)
                .map(|((c, w), num)| {
                    let h = cut_marked(&sanitize(&a.columns[c]), *w);
                    TCell::from(if *num {
                        Line::from(h).right_aligned()
                    } else {
                        Line::from(h)
                    })
                }),
        )
        .style(ctx.theme.header());
        let rows: Vec<TRow> = range
            .map(|r| {
                let cells = cols.clone().zip(&widths).map(|(c, w)| {
                    let v = a.rows[r].get(c).unwrap_or(&Value::Null);
                    let text = cut_marked(&cell(v), *w);
                    TCell::from(match v {
                        Value::Number(_) => Line::from(text).right_aligned(),
                        _ => Line::from(text),
                    })
                });
                TRow::new(cells).style(ctx.theme.row(r == self.list.selected))
            })
            .collect();
        let constraints = widths.iter().map(|w| Constraint::Length(*w as u16));
        f.render_widget(Table::new(rows, constraints).header(header), inner);
    }

    /// A pane with no rows to show: what it says, wrapped.
    fn draw_words(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let inner = super::titled(f, area, &self.heading(""));
        let (text, style) = match &self.state {
            State::Running { since, .. } => (
                format!(
                    "working… {} s\n\nEsc cancels the query; the other keys work meanwhile \
                     (H, !, t, …; ] comes back here).",
                    since.elapsed().as_secs()
                ),
                ctx.theme.dim(),
            ),
            State::Failed(m) => (
                format!("{m}\n\n: and ↑ bring the query back to edit it."),
                ctx.theme.warn(),
            ),
            State::Cancelled => (
                format!("{CANCELLED}.\n\n: and ↑ bring it back to run it again."),
                ctx.theme.dim(),
            ),
            State::Done(_) => return,
        };
        let p = Paragraph::new(sanitize_lines(&text))
            .style(style)
            .wrap(Wrap { trim: false });
        f.render_widget(p, inner);
    }
}

/// `text` sanitised line by line (the line breaks kept).
fn sanitize_lines(text: &str) -> String {
    text.split('\n')
        .map(|l| sanitize(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A cell as drawn: NULL empty (as `heaptui query` prints it), text sanitised.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => sanitize(s).into_owned(),
        other => sanitize(&other.to_string()).into_owned(),
    }
}

/// Each row's object: the first cell that is an object's id as the tool prints it and
/// names one of `snap` (`None` past a set `stop`).
pub fn objects_of(
    snap: &Snapshot,
    rows: &[Vec<Value>],
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Option<ObjId>> {
    use std::sync::atomic::Ordering;
    rows.iter()
        .map(|r| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            r.iter().find_map(|v| match v {
                Value::String(s) => {
                    crate::ui::goto::object_id(s).and_then(|id| snap.find_object(id))
                }
                _ => None,
            })
        })
        .collect()
}

/// Runs `sql` (on a job's thread): at most [`MAX_ROWS`] rows, and their objects.
#[cfg(feature = "sql")]
fn run(
    inputs: &crate::query::Inputs,
    snap: &Snapshot,
    sql: &str,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<Answer, String> {
    let since = Instant::now();
    let (mut columns, mut rows, mut cut) = (Vec::new(), Vec::new(), false);
    crate::query::run_each(
        inputs,
        sql,
        stop,
        |c| columns = c,
        |batch| {
            let room = MAX_ROWS - rows.len();
            cut = batch.len() > room;
            rows.extend(batch.into_iter().take(room));
            !cut
        },
    )?;
    let objects = objects_of(snap, &rows, stop);
    Ok(Answer {
        columns,
        rows,
        objects,
        cut,
        took: since.elapsed(),
    })
}

impl Pane for QueryPane {
    fn title(&self, _ctx: &Ctx) -> String {
        self.heading("")
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        let action = action_for(key);
        if let State::Running { .. } = self.state {
            if action == Some(Action::Back) {
                // Dropping the job sets the engine's stop flag.
                self.state = State::Cancelled;
                return Outcome::Done(CANCELLED.into());
            }
            return Outcome::Ignored;
        }
        let len = self.rows_len();
        if self.answer().is_none() {
            return Outcome::Ignored;
        }
        let a = match Outcome::list_key(&mut self.list, action, len) {
            Ok(a) => a,
            Err(o) => return o,
        };
        let columns = self.answer().map_or(0, |a| a.columns.len());
        match a {
            Action::Expand if self.first_col + self.shown_cols.get() < columns => {
                self.first_col += 1;
                Outcome::Consumed
            }
            Action::Collapse if self.first_col > 0 => {
                self.first_col -= 1;
                Outcome::Consumed
            }
            Action::Expand | Action::Collapse => Outcome::Refused(format!(
                "`{}` does nothing here: every column is shown that way",
                key_name(key)
            )),
            Action::Open => match self.selected_object() {
                Some(o) => Outcome::Open(Request::Inspect(o)),
                None if len == 0 => Outcome::Refused("`Enter` does nothing here: no rows".into()),
                None => Outcome::Refused(
                    "`Enter` does nothing here: no cell of this row names an object of the \
                     snapshot (an id as the tool prints it: 0x…, @N, #N)"
                        .into(),
                ),
            },
            _ => Outcome::Ignored,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        match self.answer() {
            Some(a) => self.draw_table(f, area, ctx, a),
            None => self.draw_words(f, area, ctx),
        }
    }

    fn selected_object(&self) -> Option<ObjId> {
        self.answer()?
            .objects
            .get(self.list.selected)
            .copied()
            .flatten()
    }

    /// The selected row whole: each column's name and value.
    fn selected_line(&self, _ctx: &Ctx) -> Option<String> {
        let a = self.answer()?;
        let row = a.rows.get(self.list.selected)?;
        let parts: Vec<String> = a
            .columns
            .iter()
            .zip(row)
            .map(|(c, v)| match v {
                Value::Null => format!("{} NULL", sanitize(c)),
                v => format!("{} {}", sanitize(c), cell(v)),
            })
            .collect();
        Some(parts.join(" · "))
    }

    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        let len = self.rows_len();
        self.answer().is_some() && self.list.click(x, y, len)
    }

    fn poll(&mut self, _ctx: &Ctx) -> bool {
        let State::Running { job, .. } = &self.state else {
            return false;
        };
        let Some(got) = job.poll() else {
            return false;
        };
        self.state = match got {
            Ok(Ok(a)) => State::Done(a),
            Ok(Err(e)) if e == CANCELLED || e.ends_with(CANCELLED) => State::Cancelled,
            Ok(Err(e)) => State::Failed(e),
            Err(()) => State::Failed("the query's thread ended without an answer".into()),
        };
        self.list = ListState::new();
        true
    }

    /// On a wide screen, a row's object is inspected beside the rows, as an instance's.
    fn wants_detail(&self) -> bool {
        true
    }

    fn ticking(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }

    fn hints(&self) -> &'static [Action] {
        &super::OBJECT_HINTS
    }
}
