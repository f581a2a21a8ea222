//! `:` on one snapshot's view (issue 41): the query line opened, its keys, and its
//! query run in a pane of its own on top of the stack (`crate::ui::panes::query`), which
//! `Esc` leaves for the pane it came from. The line is drawn on the status line, its
//! keys (or what a key said) on the hint line. On a side of the diff view the query
//! reads the other side's snapshot too ([`Ready::partner`]; `crate::ui::app::diff`).

use super::*;
use crate::ui::panes::query::{names, QueryPane, AVAILABLE, WITHOUT_SQL};
use crate::ui::query_line::{Edit, History, QueryLine};

/// What a key on the query line came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKey {
    /// Not the line's (`Ctrl-c`), or no line is open.
    NotMine,
    /// The line took it.
    Used,
    /// `Enter`: the query runs, its pane on top of the stack.
    Ran,
}

impl Ready {
    /// `:`: the query line, empty (`↑` brings back the last query).
    pub(super) fn open_query_line(&mut self, message: &mut Option<String>) {
        if !AVAILABLE {
            *message = Some(WITHOUT_SQL.into());
            return;
        }
        self.history.reload();
        self.query_line = Some(QueryLine::new());
    }

    /// A key while the query line is open: [`LineKey::NotMine`] for the keys that are
    /// the app's (`Ctrl-c` quits).
    pub(super) fn query_key(
        &mut self,
        key: &KeyEvent,
        theme: &Theme,
        message: &mut Option<String>,
    ) -> LineKey {
        let Some(line) = self.query_line.as_mut() else {
            return LineKey::NotMine;
        };
        match line.key(key, self.history.entries(), names(self.partner.is_some())) {
            Edit::Done => {}
            Edit::Ignored => return LineKey::NotMine,
            Edit::Say(m) => *message = Some(m),
            Edit::Close => self.query_line = None,
            Edit::Run(sql) => {
                self.query_line = None;
                if let Err(e) = self.history.add(&sql) {
                    *message = Some(e);
                }
                let pane = QueryPane::start(sql, &self.ctx(theme), self.partner.as_ref());
                self.stack.push(Box::new(pane));
                self.forward.clear();
                return LineKey::Ran;
            }
        }
        LineKey::Used
    }

    /// The status line while the query line is open: the line, `cells` wide.
    pub(super) fn query_status(&self, cells: usize) -> Option<String> {
        let line = self.query_line.as_ref()?;
        let prompt = " SQL: ";
        let text = line.view(cells.saturating_sub(prompt.chars().count() + 1));
        Some(format!("{prompt}{}", sanitize(&text)))
    }

    /// The hint line while the query line is open: `Tab`'s candidates, or the keys.
    pub(super) fn query_hint(&self) -> Option<String> {
        let line = self.query_line.as_ref()?;
        Some(match line.candidates() {
            Some((names, at)) => {
                let names: Vec<String> = names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| match at {
                        Some(a) if a == i => format!("[{n}]"),
                        _ => n.clone(),
                    })
                    .collect();
                format!("Tab: {}", names.join(" "))
            }
            None => "Enter run  Tab complete  ↑↓ history  ←→ move  Esc close".into(),
        })
    }
}

impl App {
    /// Keeps the query history in `file` (`None`: in memory only) from now on (tests,
    /// which must not write the user's).
    pub fn set_query_history(&mut self, file: Option<PathBuf>) {
        match &mut self.screen {
            Screen::Ready(r) => r.history = History::at(file),
            Screen::Diff(v) => {
                v.base.history = History::at(file.clone());
                v.target.history = History::at(file);
            }
            _ => {}
        }
    }

    /// Whether the loop's ticker runs: something loads, or the pane on screen counts
    /// seconds (a running query).
    pub(super) fn ticking(&self) -> bool {
        if self.rx.is_some() || self.early_rx.is_some() || self.dom_rx.is_some() {
            return true;
        }
        match &self.screen {
            Screen::Ready(r) => r.top().ticking(),
            Screen::Diff(v) => v.sides.is_some_and(|s| v.side(s).top().ticking()),
            _ => false,
        }
    }
}
