//! The TUI test harness: the app on a fixture, scripted keys fed to the same event loop
//! the binary runs, and the screen read back from ratatui's `TestBackend`.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::{run_loop, App};
use heaptui::ui::events::QueueEvent;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::open_fixture;

/// The app on the JDK 17 fixture, back on the class histogram: it opens on the leak
/// suspects once the dominator tree is ready, and `Esc` goes back to the histogram.
pub fn app() -> App {
    app_of("java/coops/heap-live-jvmgz.hprof.gz")
}

/// The app on the fixture `rel`, back on the class histogram (as [`app`]).
pub fn app_of(rel: &str) -> App {
    let (p, snap) = open_fixture(rel);
    on_histogram(p, snap)
}

/// The app on `snap` (the file `p`), back on the class histogram (as [`app`]).
pub fn on_histogram(
    p: std::path::PathBuf,
    snap: impl Into<std::sync::Arc<heaptui::Snapshot>>,
) -> App {
    let mut a = App::with_snapshot(p, snap);
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    a
}

/// A `TestBackend` terminal of `w`×`h` cells.
pub fn terminal(w: u16, h: u16) -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(w, h)).unwrap()
}

/// [`app`] and a `w`×`h` terminal.
pub fn app_at(w: u16, h: u16) -> (App, Terminal<TestBackend>) {
    (app(), terminal(w, h))
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

/// Feeds `keys` to the run loop, one per turn, each once the panes' jobs (work on
/// threads of their own: merged paths, grouping, a filter) have ended and the loop has
/// taken their results, and stops once they are used up and nothing is left in the
/// app's queue.
///
/// The events come through the app's queue, as in the binary: what a test pushed into
/// it, and the arrivals the jobs push (a job pushes its arrival before it stops
/// counting as running, so once none runs every result has been announced there). The
/// next key waits for them: a filter's matches come before the `Enter` that opens the
/// first of them. The loop's timers (the rest of the selection, the progress of a load)
/// are not waited for: a test says when the selection has rested.
pub fn drive(app: &mut App, t: &mut Terminal<TestBackend>, keys: &str) {
    let mut q = events(keys);
    let jobs = app.jobs().clone();
    run_loop(t, app, |queue, _| {
        assert!(
            jobs.wait_idle(Duration::from_secs(60)),
            "a job still runs after a minute"
        );
        if let Some(ev) = queue.try_next() {
            return Ok(Some(ev));
        }
        Ok(q.pop_front().map(QueueEvent::Input))
    })
    .unwrap();
}

/// Waits for the panes' jobs to end (at most a minute), and takes their results.
pub fn settle(app: &mut App) {
    assert!(
        app.jobs().wait_idle(Duration::from_secs(60)),
        "a job still runs after a minute"
    );
    app.tick();
}

/// Waits (at most a minute) until something is handed over through the app's queue (a
/// job's result, a filter's matches so far), and takes it: whether the screen changed.
pub fn arrival(app: &mut App) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let wait = heaptui::ui::events::Wait::default();
    loop {
        match app.queue().next_until(&wait, Some(until)) {
            Some(QueueEvent::Arrived) => return app.tick(),
            Some(_) => {}
            None => panic!("nothing arrived in a minute"),
        }
    }
}

/// Feeds `keys` to the loop, then one more turn's drawing, and returns the screen.
pub fn run(app: &mut App, t: &mut Terminal<TestBackend>, keys: &str) -> String {
    drive(app, t, keys);
    // The loop's next turn: a frame, the work the last key asked for (a filter) and,
    // after work, another frame once its job has ended.
    t.draw(|f| app.draw(f)).unwrap();
    if app.work() {
        settle(app);
        t.draw(|f| app.draw(f)).unwrap();
    }
    screen(t)
}

/// The screen as a terminal shows it, one string per row: a cell that a wide character
/// before it covers is not shown (the TestBackend keeps whatever the cell held before,
/// as a terminal's memory of it, but the terminal draws the wide glyph over it).
pub fn drawn_rows(t: &Terminal<TestBackend>) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < buf.area.width {
                let s = buf[(x, y)].symbol();
                row.push_str(s);
                x += (s.width() as u16).max(1);
            }
            row.trim_end().to_string()
        })
        .collect()
}

/// Fails when a cell holds a grapheme cluster whose width to ratatui (`unicode-width`)
/// is not the width of its code points drawn one by one, which is how terminals that
/// know no emoji sequences draw it; then the terminal's cursor and ratatui's part ways
/// and cells of the last frame stay on the screen.
pub fn assert_cells_as_wide_as_drawn(t: &Terminal<TestBackend>, what: &str) {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let buf = t.backend().buffer();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let s = buf[(x, y)].symbol();
            let points: usize = s.chars().map(|c| c.width().unwrap_or(0)).sum();
            assert_eq!(
                s.width(),
                points,
                "{what}: cell ({x}, {y}) holds {} ({} cells to ratatui, {points} drawn \
                 code point by code point):\n{}",
                s.escape_unicode(),
                s.width(),
                drawn_rows(t).join("\n")
            );
        }
    }
}

/// Keys through every pane on `hostile::emoji_hprof`'s file, each with what its screen
/// must show: the leak suspects (where it opens), the histogram with the class's row
/// selected (the smallest shallow size: last), its instances, the inspector of `0x1000`,
/// of the string its field holds, and the dominator tree.
pub const EMOJI_STEPS: [(&str, &str); 6] = [
    ("", "Leak suspects"),
    ("\u{1b}G", "Class histogram"),
    ("\n", "Instances of"),
    ("\n", "Inspector"),
    ("\n", "Inspector — java.lang.String"),
    ("\u{1b}\u{1b}\u{1b}d", "Dominator tree"),
];

/// The merged paths' title on the screen `s`, and how many objects' paths it merged (its
/// first figure: `Merged paths from GC roots — 12 of 14 …`).
pub fn merged_title(s: &str) -> (&str, u64) {
    let title = super::line_with(s, "Merged paths from GC roots");
    let merged = title
        .split("— ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok());
    (
        title,
        merged.unwrap_or_else(|| panic!("no count in {title:?}:\n{s}")),
    )
}
