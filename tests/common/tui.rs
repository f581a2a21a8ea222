//! The TUI test harness: the app on a fixture, scripted keys fed to the same event loop
//! the binary runs, and the screen read back from ratatui's `TestBackend`.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::{run_loop, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::gunzipped;

/// The app on the JDK 17 fixture, back on the class histogram: it opens on the leak
/// suspects once the dominator tree is ready, and `Esc` goes back to the histogram.
pub fn app() -> App {
    let p = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let snap = heaptui::open(&p, &heaptui::progress::Progress::new()).unwrap();
    let mut a = App::with_snapshot(p, snap);
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    a
}

pub fn screen(t: &Terminal<TestBackend>) -> String {
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The key events of `keys` ('\n' Enter, '\u{1b}' Esc, '\u{8}' Backspace, '\t' Tab).
pub fn events(keys: &str) -> VecDeque<Event> {
    keys.chars()
        .map(|c| {
            let code = match c {
                '\n' => KeyCode::Enter,
                '\u{1b}' => KeyCode::Esc,
                '\u{8}' => KeyCode::Backspace,
                '\t' => KeyCode::Tab,
                c => KeyCode::Char(c),
            };
            Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
        })
        .collect()
}

/// Feeds `keys` to the run loop, one per turn, and stops when they are used up.
pub fn drive(app: &mut App, t: &mut Terminal<TestBackend>, keys: &str) {
    let mut q = events(keys);
    let mut left = q.len() + 1;
    run_loop(
        t,
        app,
        |_: Duration| Ok(q.pop_front()),
        || {
            left = left.saturating_sub(1);
            left == 0
        },
    )
    .unwrap();
}

/// Feeds `keys` to the loop, then one more turn's drawing, and returns the screen.
pub fn run(app: &mut App, t: &mut Terminal<TestBackend>, keys: &str) -> String {
    drive(app, t, keys);
    // The loop's next turn: a frame, the work the last key asked for (a filter) and,
    // after work, another frame.
    t.draw(|f| app.draw(f)).unwrap();
    if app.work() {
        t.draw(|f| app.draw(f)).unwrap();
    }
    screen(t)
}
