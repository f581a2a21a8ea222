//! The mouse: the wheel moves the selection as the arrow keys do, a left click selects
//! the row under it in whatever list or tree it falls in (and gives that pane the keys),
//! and a second click on the same cell soon after opens the row, as `Enter`. Each pane
//! records where it drew its rows ([`crate::ui::panes::list::ListState::visible_in`]);
//! only the panes on screen are asked.

use super::*;
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

/// How soon a second click on the same cell makes a double click (Windows' default; GTK
/// waits 400 ms).
pub const DOUBLE_CLICK: Duration = Duration::from_millis(500);

impl App {
    /// A mouse event: whether the screen wants drawing. The wheel moves the selection as
    /// the arrow keys do; a left click is [`App::on_click`]; the mouse's other moves
    /// change nothing.
    pub fn on_mouse(&mut self, m: &MouseEvent) -> bool {
        let code = match m.kind {
            MouseEventKind::ScrollDown => KeyCode::Down,
            MouseEventKind::ScrollUp => KeyCode::Up,
            MouseEventKind::Down(MouseButton::Left) => {
                self.on_click(m.column, m.row);
                return true;
            }
            _ => return false,
        };
        self.on_key(&KeyEvent::new(code, KeyModifiers::NONE));
        true
    }

    /// How soon a second click on the same cell makes a double click ([`DOUBLE_CLICK`];
    /// tests make it long, for a loaded machine).
    pub fn set_double_click(&mut self, within: Duration) {
        self.double_click = within;
    }

    /// A left click at the screen cell (`x`, `y`): the row under it, in the list or tree
    /// it falls in, is selected (and that pane gets the keys); a second click on the same
    /// cell within [`DOUBLE_CLICK`] opens it, as `Enter`. A click closes an overlay.
    pub fn on_click(&mut self, x: u16, y: u16) {
        self.busy = true;
        self.message = None;
        if self.help || self.summary {
            self.help = false;
            self.summary = false;
            self.overlay_scroll = 0;
            return;
        }
        let now = Instant::now();
        let double = self.last_click.take().is_some_and(|(at, lx, ly)| {
            (lx, ly) == (x, y) && now.saturating_duration_since(at) <= self.double_click
        });
        let theme = self.theme;
        let hit = match &mut self.screen {
            Screen::Ready(r) => r.click(x, y, &theme, true),
            Screen::Diff(d) => d.click(x, y, &theme),
            Screen::Loading => self.early.as_mut().is_some_and(|h| h.click(x, y)),
            Screen::Failed(_) => false,
        };
        if hit && double {
            self.on_key(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        } else if hit {
            self.last_click = Some((now, x, y));
        }
    }
}
