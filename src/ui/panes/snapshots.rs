//! The snapshots of a file that holds several (MoarVM): each with its label (GC sequence
//! number, time, totals) and size, the open one marked. `Enter` opens the selected one
//! (as `FILE#N` would), replacing the view.

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::histogram::thousands;
use super::list::ListState;
use super::{Ctx, Outcome, Pane, Request};
use crate::ui::keys::{action_for, Action};
use crate::ui::text::sanitize;

pub struct SnapshotsPane {
    list: ListState,
}

impl SnapshotsPane {
    pub fn new(ctx: &Ctx) -> Self {
        let mut list = ListState::new();
        list.selected = ctx
            .snap
            .snapshots
            .iter()
            .position(|s| s.index == ctx.snap.snapshot_index)
            .unwrap_or(0);
        SnapshotsPane { list }
    }
}

impl Pane for SnapshotsPane {
    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) -> bool {
        self.list.click(x, y, ctx.snap.snapshots.len())
    }

    fn title(&self, ctx: &Ctx) -> String {
        format!(
            "Snapshots in this file — {} (Enter opens one)",
            ctx.snap.snapshots.len()
        )
    }

    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome {
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        let n = ctx.snap.snapshots.len();
        if self.list.apply(a, n) {
            return Outcome::Consumed;
        }
        match (a, ctx.snap.snapshots.get(self.list.selected)) {
            (Action::Open, Some(s)) if s.index != ctx.snap.snapshot_index => {
                Outcome::Open(Request::Snapshot(s.index))
            }
            (Action::Open, Some(_)) => Outcome::Refused("this snapshot is the one open".into()),
            _ => Outcome::Ignored,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let snaps = &ctx.snap.snapshots;
        // The rows under the title.
        let rows_area = Rect {
            y: area.y + 1.min(area.height),
            height: area.height.saturating_sub(1),
            ..area
        };
        let range = self.list.visible_in(rows_area, snaps.len());
        let lines: Vec<Line> = range
            .map(|i| {
                // Cut where it does not fit, marked; the line under the list has it whole.
                let text = crate::ui::text::cut_marked(&row_text(ctx, i), area.width as usize);
                Line::styled(text, ctx.theme.row(i == self.list.selected))
            })
            .collect();
        f.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::TOP)
                    .title(format!(" {} ", self.title(ctx))),
            ),
            area,
        );
    }

    fn is_picker(&self) -> bool {
        true
    }

    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        (self.list.selected < ctx.snap.snapshots.len())
            .then(|| row_text(ctx, self.list.selected).trim_start().to_string())
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::Down,
            Action::Open,
            Action::Back,
            Action::Help,
            Action::Quit,
        ]
    }
}

/// Snapshot `i`'s row: `▶` on the one open, its number, its objects, its label.
fn row_text(ctx: &Ctx, i: usize) -> String {
    let s = &ctx.snap.snapshots[i];
    let open = if s.index == ctx.snap.snapshot_index {
        "▶"
    } else {
        " "
    };
    format!(
        "{open} #{:<3} {:>12} objects  {}",
        s.index,
        thousands(s.objects),
        sanitize(&s.label)
    )
}
