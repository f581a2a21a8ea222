//! How side-by-side panes share the screen: where the split is and whether the focused
//! pane is zoomed, as the user set them with `<`, `>` and `z` (issue 39, friction 2).
//! The app keeps one [`Split`] for the whole session, so a split moved beside an
//! instance list is where it was beside the histogram, the suspects or the diff's
//! sides; each view starts from its own proportions and the user's moves shift them
//! all alike.
//!
//! Panes side by side always have a blank column between them (issue 39, bug 3: the
//! suspects' titles ran into the inspector's ids): [`columns`] keeps it out of both.

use ratatui::layout::Rect;

/// How far one `<` or `>` moves the split, in percent of the width.
pub const STEP: i16 = 5;

/// The narrowest and widest a left pane may be, in percent of the width.
const MIN: i16 = 20;
const MAX: i16 = 80;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Percentage points added to each view's own share for its left pane.
    pub shift: i16,
    /// The focused pane of a split takes the whole width (`z`).
    pub zoom: bool,
}

impl Split {
    /// The left pane's share of the width, in percent, for a view whose own is `base`.
    pub fn left(&self, base: u16) -> u16 {
        (base as i16 + self.shift).clamp(MIN, MAX) as u16
    }

    /// Moves the split by `by` points, as far as every view's left pane stays within
    /// bounds for the view on screen (`base`): whether it moved.
    pub fn nudge(&mut self, by: i16, base: u16) -> bool {
        let before = self.left(base);
        let shift = self.shift + by;
        let after = (base as i16 + shift).clamp(MIN, MAX) as u16;
        if after == before {
            return false;
        }
        self.shift = after as i16 - base as i16;
        true
    }
}

/// `area` in two columns side by side, the first `left` percent of it wide: one blank
/// column between them, which neither pane draws in.
pub fn columns(area: Rect, left: u16) -> [Rect; 2] {
    let room = area.width.saturating_sub(1);
    let first = ((room as u32 * left.min(100) as u32) / 100) as u16;
    [
        Rect::new(area.x, area.y, first, area.height),
        Rect::new(
            area.x.saturating_add(first + 1),
            area.y,
            room - first,
            area.height,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_leave_a_blank_column_between_panes() {
        let [a, b] = columns(Rect::new(0, 0, 121, 10), 55);
        assert_eq!((a.x, a.width), (0, 66));
        assert_eq!((b.x, b.width), (67, 54));
        let [a, b] = columns(Rect::new(3, 0, 1, 10), 50);
        assert_eq!((a.width, b.width), (0, 0));
    }

    #[test]
    fn the_split_stays_within_bounds() {
        let mut s = Split::default();
        assert_eq!(s.left(55), 55);
        assert!(s.nudge(STEP, 55));
        assert_eq!(s.left(55), 60);
        while s.nudge(STEP, 55) {}
        assert_eq!(s.left(55), 80);
        assert!(!s.nudge(STEP, 55));
        assert!(s.nudge(-STEP, 55));
        assert_eq!(s.left(55), 75);
    }
}
