//! `<`, `>` and `z`: the split between panes side by side moved, the focused pane
//! zoomed.

use super::{ready, split, App, Screen, WIDE};
use crate::ui::keys::{key_name, Action};
use crossterm::event::KeyEvent;

impl App {
    /// The left pane's own share of the width (percent) where panes are side by side on
    /// screen: the list beside its detail, or the diff's two sides; `None` where one
    /// pane has the width (a narrow screen, a tree).
    pub(super) fn split_shown(&self) -> Option<u16> {
        match &self.screen {
            Screen::Ready(r) if r.beside() => Some(ready::LIST_SHARE),
            Screen::Diff(v) if v.sides.is_some() => Some(v.left_share(self.width.get())),
            _ => None,
        }
    }

    /// Whether the pane on screen takes every key (a filter being typed).
    pub(super) fn editing(&self) -> bool {
        match &self.screen {
            Screen::Ready(r) => r.top().is_editing() || r.query_line.is_some(),
            Screen::Diff(v) => v.editing_hint().is_some() || v.query_line_open().is_some(),
            _ => false,
        }
    }

    /// `<`, `>`, `z`: the split moved, the focused pane zoomed or not.
    pub(super) fn split_key(&mut self, a: Action, key: &KeyEvent) {
        let Some(base) = self.split_shown() else {
            self.message = Some(format!(
                "`{}` does nothing here: nothing beside this pane (from {WIDE} columns, a \
                 list has its detail beside it)",
                key_name(key)
            ));
            return;
        };
        if a == Action::Zoom {
            self.split.zoom = !self.split.zoom;
            if self.split.zoom {
                self.message = Some(
                    "the focused pane has the whole width: z or Esc gives the other one back"
                        .into(),
                );
            }
            return;
        }
        let by = if a == Action::SplitLeft {
            -split::STEP
        } else {
            split::STEP
        };
        // A zoomed pane gives the other one back first: the split is seen to move.
        self.split.zoom = false;
        self.message = Some(if self.split.nudge(by, base) {
            format!(
                "the left pane has {}% of the width (< > move the split, z zooms)",
                self.split.left(base)
            )
        } else {
            format!(
                "`{}` does nothing here: the split is as far {} as it goes",
                key_name(key),
                if by < 0 { "left" } else { "right" }
            )
        });
    }
}
