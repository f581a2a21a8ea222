//! `:` in the diff view (issue 41): the query line, and its query run over both
//! snapshots as `heaptui query TARGET --base BASE` runs it (`base.TABLE`, `target.TABLE`
//! and `diff`; the unqualified names are the target's; `Tab` completes them all).
//!
//! The line and its history are a side's ([`Ready::query_key`]): the focused side's, or
//! the target's from the table. Its answer opens on that side, a pane like any other
//! there, whose snapshot a row's object is looked up in (`Enter`, `p`, `r`, `d`). From
//! the table the target side shows it alone, the whole width (a query's rows want it):
//! `Esc` from it goes back to the table, `Tab`, `z`, `<` or `>` bring the base side
//! beside it.

use crossterm::event::KeyEvent;

use super::{DiffView, Side};
use crate::ui::app::{LineKey, Ready};
use crate::ui::keys::Action;
use crate::ui::panes::query::Partner;
use crate::ui::theme::Theme;

impl DiffView {
    /// Gives each side the other's snapshot and tree, which its queries read too: when
    /// the view opens, and again when the trees come.
    pub(super) fn pair_sides(&mut self) {
        let partner = |r: &Ready, is_base| Partner {
            snap: r.snap.clone(),
            dom: r.dom.clone(),
            is_base,
        };
        self.base.partner = Some(partner(&self.target, false));
        self.target.partner = Some(partner(&self.base, true));
    }

    /// The side whose query line `:` opens: the focused one, or the target from the
    /// table.
    fn line_side(&self) -> Side {
        self.sides.unwrap_or(Side::Target)
    }

    /// The side whose query line is open, if one is (its status and hint lines).
    pub fn query_line_open(&self) -> Option<&Ready> {
        let r = self.side(self.line_side());
        r.query_line.is_some().then_some(r)
    }

    /// `:` on the table: the target side's query line.
    pub(super) fn open_query_line(&mut self, message: &mut Option<String>) {
        self.side_mut(self.line_side()).open_query_line(message);
    }

    /// A key while a query line is open (`None` when none is): whether it was the
    /// line's. A query run from the table is the target side's only pane, shown alone.
    pub(super) fn query_key(
        &mut self,
        key: &KeyEvent,
        theme: &Theme,
        message: &mut Option<String>,
    ) -> Option<bool> {
        let r = self.side_mut(self.line_side());
        r.query_line.as_ref()?;
        let got = r.query_key(key, theme, message);
        if got == LineKey::Ran && self.sides.is_none() {
            let r = self.side_mut(Side::Target);
            let pane = r.stack.pop().expect("the query's pane, just pushed");
            r.stack = vec![pane];
            self.sides = Some(Side::Target);
            self.alone = true;
        }
        Some(got != LineKey::NotMine)
    }

    /// The keys that end the target side's being alone: `Tab` (then the base side has
    /// the keys), `z`, `<` and `>` give the base side back; `Esc` from the side's first
    /// pane goes back to the table. Whether the key is used up (`z`).
    pub(super) fn alone_key(&mut self, action: Option<Action>) -> bool {
        if !self.alone {
            return false;
        }
        match action {
            Some(Action::Zoom) => {
                self.alone = false;
                true
            }
            Some(Action::Side | Action::SplitLeft | Action::SplitRight) => {
                self.alone = false;
                false
            }
            _ => false,
        }
    }
}
