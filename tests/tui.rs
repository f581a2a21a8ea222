//! The TUI drawn into ratatui's `TestBackend` at 80×24, driven by the same event loop the
//! binary runs, with scripted keys.

mod common;

use std::collections::VecDeque;
use std::time::Duration;

use common::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::{run_loop, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn app() -> App {
    let p = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let snap = heaptui::open(&p, &heaptui::progress::Progress::new()).unwrap();
    App::with_snapshot(p, snap)
}

fn screen(t: &Terminal<TestBackend>) -> String {
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

/// Feeds `keys` to the loop, then one more draw, and returns the screen.
fn run(app: &mut App, t: &mut Terminal<TestBackend>, keys: &str) -> String {
    let mut q: VecDeque<Event> = keys
        .chars()
        .map(|c| {
            let code = match c {
                '\n' => KeyCode::Enter,
                '\u{1b}' => KeyCode::Esc,
                '\u{8}' => KeyCode::Backspace,
                c => KeyCode::Char(c),
            };
            Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
        })
        .collect();
    let n = q.len();
    let mut left = n + 1;
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
    t.draw(|f| app.draw(f)).unwrap();
    screen(t)
}

#[test]
fn histogram_at_80x24_filters_sorts_and_quits() {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut a = app();
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("Class histogram"), "{s}");
    assert!(s.contains("byte[]"), "{s}");
    assert!(s.contains("sorted by shallow"));
    assert!(s.contains("/ filter") && s.contains("q quit"), "hint line");
    assert!(s.contains("HPROF"), "status line");

    let s = run(&mut a, &mut t, "/fixture.Session");
    assert!(s.contains("dev.heaptui.fixture.Session"), "{s}");
    assert!(s.contains("1,237"), "Session count on screen");
    assert!(!s.contains("java.lang.String "), "filtered out:\n{s}");
    assert!(s.contains("filter: fixture.Session"));

    // Esc clears the filter; `s` cycles the sort to count.
    let s = run(&mut a, &mut t, "\u{1b}s");
    assert!(s.contains("sorted by count"), "{s}");
    assert!(s.contains("java.lang.String"), "{s}");

    // Moving down changes the selection shown in the status line.
    let before = run(&mut a, &mut t, "g");
    let after = run(&mut a, &mut t, "j");
    assert_ne!(before.lines().nth(22), after.lines().nth(22));

    let s = run(&mut a, &mut t, "?");
    assert!(s.contains("Keys") && s.contains("fuzzy filter"), "{s}");
    let s = run(&mut a, &mut t, "x");
    assert!(!s.contains("fuzzy filter"));

    let s = run(&mut a, &mut t, "i");
    assert!(s.contains("Summary") && s.contains("object layout"), "{s}");
    run(&mut a, &mut t, "\u{1b}");

    assert!(!a.quit);
    run(&mut a, &mut t, "q");
    assert!(a.quit);
}

#[test]
fn paging_walks_only_visible_rows_and_reaches_the_end() {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut a = app();
    // Rows start on the third screen line (title, then header).
    let first_row = |s: &str| s.lines().nth(2).unwrap_or("").to_string();
    let s = run(&mut a, &mut t, "G");
    // At the end the list has scrolled: the largest class (byte[]) is off screen.
    assert!(!first_row(&s).starts_with("byte[]"), "{s}");
    assert!(!s.lines().any(|l| l.starts_with("byte[] ")), "{s}");
    let s = run(&mut a, &mut t, "g");
    assert!(first_row(&s).starts_with("byte[]"), "{s}");
}

#[test]
fn no_color_draws_without_colours() {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut a = app();
    a.theme = heaptui::ui::theme::Theme { color: false };
    run(&mut a, &mut t, "");
    let buf = t.backend().buffer();
    for c in buf.content() {
        assert_eq!(c.fg, ratatui::style::Color::Reset);
        assert_eq!(c.bg, ratatui::style::Color::Reset);
    }
}

#[test]
fn retained_sizes_fill_the_histogram_and_sort_it() {
    let mut a = app();
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    // Filter to the blob holder: a 16-byte object that retains its 3 MB array.
    let s = run(&mut a, &mut t, "/BlobHolder\n");
    let line = s
        .lines()
        .find(|l| l.contains("fixture.BlobHolder"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(line.contains("3,000,032"), "{line}");
    assert!(!s.contains("computing"), "{s}");
    // s cycles shallow → count → name → retained.
    let s = run(&mut a, &mut t, "\u{1b}sss");
    assert!(s.contains("sorted by retained"), "{s}");
    let first = s.lines().nth(2).unwrap();
    assert!(
        first.contains("java.lang.Class"),
        "largest retained first: {s}"
    );
}
