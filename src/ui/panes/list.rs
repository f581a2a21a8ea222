//! The selection and scrolling of a virtual list: only the visible rows are ever drawn,
//! so a list of ten million rows costs what a list of twenty does.

use std::cell::Cell;

use ratatui::layout::Rect;

use crate::ui::keys::Action;

#[derive(Debug, Default)]
pub struct ListState {
    pub selected: usize,
    pub offset: usize,
    /// Rows that fit, as last drawn (the one thing drawing records, with `area`).
    pub height: Cell<usize>,
    /// Where the rows were last drawn, for a mouse click ([`ListState::click`]); empty
    /// until a pane draws with [`ListState::visible_in`].
    pub area: Cell<Rect>,
}

impl ListState {
    pub fn new() -> Self {
        ListState {
            height: Cell::new(20),
            ..Default::default()
        }
    }

    /// Moves the selection for a movement action over `len` rows; false for any other
    /// action.
    pub fn apply(&mut self, action: Action, len: usize) -> bool {
        let page = self.height.get().max(1);
        let last = len.saturating_sub(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(page),
            Action::PageDown => self.selected = (self.selected + page).min(last),
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = last,
            _ => return false,
        }
        self.scroll(len);
        true
    }

    /// Keeps the selection in range and visible.
    pub fn scroll(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        let h = self.height.get().max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
        self.offset = self.offset.min(len.saturating_sub(1));
    }

    /// The rows to draw in `height` rows: records the height and returns the range,
    /// which holds the selection even where the pane is shorter than when it moved (the
    /// line under the list wraps over more rows for a longer row, the terminal shrank).
    pub fn visible(&self, height: usize, len: usize) -> std::ops::Range<usize> {
        self.height.set(height.max(1));
        let mut start = self.offset.min(len);
        if self.selected >= start + height.max(1) {
            start = self.selected + 1 - height.max(1);
        }
        start..(start + height).min(len)
    }

    /// The rows to draw in `rows`, one a line from its top: records where they are (for
    /// a click) and returns the range.
    pub fn visible_in(&self, rows: Rect, len: usize) -> std::ops::Range<usize> {
        self.area.set(rows);
        self.visible(rows.height as usize, len)
    }

    /// A click at the screen cell (`x`, `y`): the row drawn there, if it is one of the
    /// `len` rows, is selected. Whether it was.
    pub fn click(&mut self, x: u16, y: u16, len: usize) -> bool {
        let Some(i) = row_at(self.area.get(), self.offset, x, y) else {
            return false;
        };
        if i >= len {
            return false;
        }
        self.selected = i;
        self.scroll(len);
        true
    }
}

/// The row under the cell (`x`, `y`) of a list drawn in `rows` from row `offset` on, one
/// a line.
pub fn row_at(rows: Rect, offset: usize, x: u16, y: u16) -> Option<usize> {
    let inside = x >= rows.x && x < rows.right() && y >= rows.y && y < rows.bottom();
    inside.then(|| offset + (y - rows.y) as usize)
}

#[cfg(test)]
mod tests {
    use super::ListState;

    #[test]
    fn a_shorter_pane_still_shows_the_selection() {
        let mut l = ListState::new();
        l.height.set(30);
        l.selected = 29;
        l.scroll(100);
        assert_eq!(l.visible(30, 100), 0..30);
        // Five rows fewer (the line under the list took them): the selection in view.
        assert_eq!(l.visible(25, 100), 5..30);
        assert_eq!(l.visible(25, 20), 5..20);
    }
}
