//! Issue 39's keys and clicks: `q` closes an overlay, menu or picker (it quits only
//! outside one), every `/` starts a new filter, a click selects the row under it and a
//! double click opens it, `#` on a file of one snapshot, the diff's owners as a list, and
//! the empty side of a diff saying so on every format.

use crate::common;

use std::collections::VecDeque;
use std::time::Duration;

use common::tui::*;
use common::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent};
use crossterm::event::{MouseEventKind, MouseEventKind::Down};
use heaptui::ui::app::{run_loop, App};
use heaptui::ui::events::QueueEvent;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn diff_app(base: &str, target: &str) -> App {
    let open =
        |f: &str| heaptui::open(&gunzipped(f), &heaptui::sys::progress::Progress::new()).unwrap();
    App::with_snapshots(open(base), open(target))
}

/// The java growth pair (fixtures/java/growth: Cache.entries, a static HashMap, grows
/// from 2,000 to 5,000 entries between the dumps, per expected.json).
fn growth() -> App {
    diff_app("java/growth/base.hprof.gz", "java/growth/target.hprof.gz")
}

/// The node pair (fixtures/node: 400 HeaptuiLeak pushed into globalThis.heaptuiLeaks
/// between baseline and target, per expected.json).
fn node_pair() -> App {
    diff_app(
        "node/baseline.heapsnapshot.gz",
        "node/target.heapsnapshot.gz",
    )
}

/// A left click at (`x`, `y`).
fn click(x: u16, y: u16) -> Event {
    Event::Mouse(MouseEvent {
        kind: Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    })
}

/// The screen's row that contains `what` (its first), and the column it starts at.
fn at(s: &str, what: &str) -> (u16, u16) {
    s.lines()
        .enumerate()
        .find_map(|(y, l)| {
            l.find(what)
                .map(|i| (l[..i].chars().count() as u16, y as u16))
        })
        .unwrap_or_else(|| panic!("{what:?} is not on the screen:\n{s}"))
}

/// Feeds `events` to the run loop as [`drive`] does keys, then draws once more. Two
/// clicks on one cell in one call are a double click however long the machine takes
/// between them; clicks in different calls are not.
fn run_events(app: &mut App, t: &mut Terminal<TestBackend>, events: Vec<Event>) -> String {
    app.set_double_click(Duration::from_secs(600));
    // A click of an earlier call is forgotten: a click elsewhere, on no row.
    app.on_click(u16::MAX, u16::MAX);
    let mut q: VecDeque<Event> = events.into();
    let jobs = app.jobs().clone();
    run_loop(t, app, |queue, _| {
        assert!(jobs.wait_idle(Duration::from_secs(60)), "a job still runs");
        if let Some(ev) = queue.try_next() {
            return Ok(Some(ev));
        }
        Ok(q.pop_front().map(QueueEvent::Input))
    })
    .unwrap();
    run(app, t, "")
}

/// The line under the list: the selected row whole (its first screen line).
fn under(s: &str) -> String {
    s.lines()
        .rfind(|l| l.starts_with("▸ "))
        .unwrap_or_else(|| panic!("no line under the list:\n{s}"))
        .to_string()
}

/// The line under the list with the screen line after it (where a long one wraps).
fn under2(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.starts_with("▸ "))
        .unwrap_or_else(|| panic!("no line under the list:\n{s}"));
    let mut lines = lines.into_iter().skip(at);
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no line under the list:\n{s}"));
    format!("{first}{}", lines.next().unwrap_or(""))
}

/// Bug 2: `q` in the help or the summary closed heaptui although the overlay says other
/// keys close it; `q` (and `Esc`) close an overlay, a menu or a picker, and quit only
/// outside them.
#[test]
fn q_closes_the_overlays_and_menus_and_quits_only_outside_them() {
    let (mut a, mut t) = app_at(80, 24);
    for overlay in ["?", "i"] {
        let s = run(&mut a, &mut t, overlay);
        let title = if overlay == "?" {
            "Keys ("
        } else {
            "Summary ("
        };
        assert!(s.contains(title), "{s}");
        let s = run(&mut a, &mut t, "q");
        assert!(!a.quit, "`q` in the overlay {overlay} quit heaptui");
        assert!(!s.contains(title), "`q` closes the overlay:\n{s}");
        assert!(s.contains("Class histogram"), "{s}");
        run(&mut a, &mut t, overlay);
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(!a.quit && !s.contains(title), "`Esc` closes it:\n{s}");
        assert!(s.contains("Class histogram"), "Esc went no further:\n{s}");
    }
    // The sort menu: `q` closes it, the sort as it was.
    let s = run(&mut a, &mut t, "S");
    assert!(s.contains("sort by: "), "{s}");
    let s = run(&mut a, &mut t, "q");
    assert!(!a.quit && !s.contains("sort by: "), "{s}");
    assert!(s.contains("sorted by shallow"), "{s}");
    // The filter prompt: `q` is a letter of the filter.
    let s = run(&mut a, &mut t, "/q");
    assert!(!a.quit && s.contains("filter: q▏"), "{s}");
    run(&mut a, &mut t, "\u{1b}");
    assert!(!a.quit);
    // Outside them, `q` quits.
    run(&mut a, &mut t, "q");
    assert!(a.quit);
}

/// Bug 2 on the snapshot picker of a MoarVM file (fixtures/moarvm/app-v3: five
/// snapshots, expected.json) and in the diff view's help.
#[test]
fn q_closes_the_snapshot_picker_and_the_diff_s_help() {
    let mut a = app_of("moarvm/app-v3.mvmheap.gz");
    let mut t = terminal(80, 24);
    let s = run(&mut a, &mut t, "#");
    assert!(s.contains("Snapshots in this file — 5"), "{s}");
    let s = run(&mut a, &mut t, "q");
    assert!(!a.quit, "`q` in the snapshot picker quit heaptui");
    assert!(
        s.contains("Class histogram") && !s.contains("Snapshots in this file"),
        "{s}"
    );
    run(&mut a, &mut t, "q");
    assert!(a.quit);

    let mut a = growth();
    let s = run(&mut a, &mut t, "?");
    assert!(s.contains("Keys ("), "{s}");
    let s = run(&mut a, &mut t, "q");
    assert!(!a.quit && !s.contains("Keys ("), "{s}");
    assert!(s.contains("classes changed"), "{s}");
    run(&mut a, &mut t, "q");
    assert!(a.quit);
}

/// Bug 9: `/` after `H` went on with the old filter's text; every `/` starts a new
/// filter (the old one shown in the prompt, `↑` brings it back).
#[test]
fn every_slash_starts_a_new_filter() {
    let (mut a, mut t) = app_at(100, 30);
    let s = run(&mut a, &mut t, "/fixture.Session\n\n");
    assert!(
        s.contains("Instances of dev.heaptui.fixture.Session"),
        "{s}"
    );
    let s = run(&mut a, &mut t, "H/");
    assert!(s.contains("filter: ▏"), "the prompt starts empty:\n{s}");
    assert!(
        s.contains("↑ \"fixture.Session\""),
        "the old one, shown:\n{s}"
    );
    let s = run(&mut a, &mut t, "Order");
    assert!(s.contains("filter: Order▏"), "{s}");
    assert!(s.contains("dev.heaptui.fixture.Order"), "{s}");
    assert!(!s.contains("fixture.SessionOrder"), "{s}");
    // ↑ brings the old text back.
    let s = run(&mut a, &mut t, "\u{8}\u{8}\u{8}\u{8}\u{8}");
    assert!(s.contains("filter: ▏"), "{s}");
    a.on_key(&KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
    let s = run(&mut a, &mut t, "\n");
    assert!(s.contains("filter \"fixture.Session\""), "{s}");
    // The instances' filter too: the prompt starts empty.
    let s = run(&mut a, &mut t, "\n/100617\n");
    assert!(s.contains("match \"100617\""), "{s}");
    let s = run(&mut a, &mut t, "/");
    assert!(s.contains("filter: ▏"), "{s}");
}

/// Bug 9: `#` on a file of one snapshot (V8, HPROF) opened a picker of one: it says so.
#[test]
fn hash_on_a_file_of_one_snapshot_says_so() {
    for f in ["node/target.heapsnapshot.gz", "java/growth/base.hprof.gz"] {
        let mut a = app_of(f);
        let mut t = terminal(100, 30);
        let s = run(&mut a, &mut t, "#");
        assert!(!s.contains("Snapshots in this file"), "{f}:\n{s}");
        assert!(s.contains("one snapshot in this file"), "{f}:\n{s}");
        assert!(s.contains("Class histogram"), "{f}:\n{s}");
    }
}

/// Bug 9: a click selects the row under it in a list or a tree; a double click opens it
/// (as `Enter`); the wheel moves the selection, as before.
#[test]
fn a_click_selects_the_row_under_it_and_a_double_click_opens_it() {
    let (mut a, mut t) = app_at(100, 30);
    let s = run(&mut a, &mut t, "");
    assert!(under(&s).starts_with("▸ byte[]"), "{s}");
    let (x, y) = at(&s, "java.lang.String ");
    let s = run_events(&mut a, &mut t, vec![click(x + 2, y)]);
    assert!(under(&s).starts_with("▸ java.lang.String ·"), "{s}");
    assert!(
        s.contains("Class histogram"),
        "one click opens nothing:\n{s}"
    );
    // A click below the last row selects nothing else.
    let s = run_events(&mut a, &mut t, vec![click(3, 0)]);
    assert!(under(&s).starts_with("▸ java.lang.String ·"), "{s}");
    // A double click on another row opens it.
    let (x, y) = at(&s, "java.lang.Object[] ");
    let s = run_events(&mut a, &mut t, vec![click(x, y), click(x, y)]);
    assert!(s.contains("Instances of java.lang.Object[]"), "{s}");
    // The instances: the third row, then a double click into its inspector.
    let rows: Vec<&str> = s.lines().filter(|l| l.starts_with("0x")).collect();
    let third = rows[2]
        .split_whitespace()
        .find(|w| w.starts_with("0x"))
        .unwrap();
    let (x, y) = at(&s, third);
    let s = run_events(&mut a, &mut t, vec![click(x, y)]);
    assert!(under(&s).contains(third), "{third}:\n{s}");
    let s = run_events(&mut a, &mut t, vec![click(x, y), click(x, y)]);
    assert!(s.contains("Inspector — java.lang.Object[]"), "{s}");
    assert!(s.contains(third), "{s}");
    // A tree: the dominator tree from the top, a click on its third row.
    let s = run(&mut a, &mut t, "H\u{1b}d");
    assert!(s.contains("Dominator tree"), "{s}");
    let first = under(&s);
    let header = s
        .lines()
        .position(|l| l.contains("Dominator tree"))
        .unwrap();
    let s = run_events(&mut a, &mut t, vec![click(10, header as u16 + 3)]);
    assert_ne!(under(&s), first, "{s}");
    // The wheel still moves it.
    let wheel = Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: 10,
        row: 5,
        modifiers: KeyModifiers::NONE,
    });
    let s = run_events(&mut a, &mut t, vec![wheel.clone(), wheel]);
    assert_eq!(under(&s), first, "{s}");
}

/// A click in the detail pane beside the list (160 columns) moves the keys there, and
/// one in the list moves them back.
#[test]
fn a_click_in_the_detail_pane_focuses_it() {
    let (mut a, mut t) = app_at(160, 45);
    let s = run(&mut a, &mut t, "/fixture.Session\n\n");
    assert!(
        s.contains("Instances of dev.heaptui.fixture.Session"),
        "{s}"
    );
    a.tick();
    let s = run(&mut a, &mut t, "");
    let (x, y) = at(&s, "Inspector — dev.heaptui.fixture.Session");
    // The focused pane is marked ▶ at its title's left end: the list first.
    let mark = |s: &str| s.lines().next().unwrap().chars().position(|c| c == '▶');
    assert_eq!(mark(&s), Some(0), "{s}");
    // A click on the inspector's line of the session's field `user` (a row of its list).
    let (ux, uy) = s
        .lines()
        .enumerate()
        .find_map(|(uy, l)| {
            let right: String = l.chars().skip(x as usize).collect();
            let i = right.find(" user ")?;
            Some((x + right[..i].chars().count() as u16 + 1, uy as u16))
        })
        .unwrap_or_else(|| panic!("no field user in the inspector:\n{s}"));
    assert!(uy > y, "{s}");
    let s = run_events(&mut a, &mut t, vec![click(ux, uy)]);
    assert!(
        mark(&s).is_some_and(|m| m > 0),
        "the detail pane focused:\n{s}"
    );
    // One on the list's first row gives the keys back to it.
    let s = run_events(&mut a, &mut t, vec![click(4, 2)]);
    assert_eq!(mark(&s), Some(0), "{s}");
}

/// Bug 9: the empty side of a diff said nothing on a Java pair where a V8 pair says "No
/// instance of … in this snapshot": the same words on every format. An HPROF file lists
/// every loaded class, instances or not: the base here (the growth program's target) has
/// classes loaded that the JDK 17 fixture instantiates and it does not.
#[test]
fn an_empty_side_of_a_java_diff_says_so() {
    let base = "java/growth/target.hprof.gz";
    let (_, b) = open_fixture(base);
    let g = &b.graph;
    let counted: std::collections::HashSet<String> = heaptui::heap::histogram::by_class(g)
        .into_iter()
        .filter(|r| r.count > 0)
        .map(|r| r.name)
        .collect();
    let loaded_only: std::collections::HashSet<String> = g
        .classes
        .iter()
        .map(|c| c.name.clone())
        .filter(|n| !counted.contains(n))
        .collect();
    let mut a = diff_app(base, "java/coops/heap-live-jvmgz.hprof.gz");
    let mut t = terminal(120, 40);
    // Every class, in Δ count order; down to one loaded in the base without instances.
    let mut s = run(&mut a, &mut t, "nssg");
    let class = |s: &str| {
        under(s)
            .trim_start_matches("▸ ")
            .split(" · ")
            .next()
            .unwrap()
            .to_string()
    };
    let mut tries = 0;
    while !(under(&s).contains(" · count 0 → ") && loaded_only.contains(&class(&s))) {
        tries += 1;
        assert!(
            tries < 3000,
            "no class loaded without instances in the base:\n{s}"
        );
        s = run(&mut a, &mut t, "j");
    }
    let class = class(&s);
    let s = run(&mut a, &mut t, "\n");
    assert!(s.contains("TARGET ◆"), "{s}");
    // The message wraps in its side's half.
    let words: String = s
        .lines()
        .map(|l| l.chars().take(60).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(&format!("No instance of {class}")) && words.contains("in this snapshot"),
        "{class}:\n{s}"
    );
}

/// Friction 4: the diff's owners that grew most are a list: `Tab` focuses it, `Enter`
/// opens the owner on both sides, `p` its paths, `d` its subtree (Java growth pair).
#[test]
fn the_diff_s_owners_are_a_list_on_a_java_pair() {
    let mut a = growth();
    let mut t = terminal(120, 40);
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("Owners that grew most"), "{s}");
    let s = run(&mut a, &mut t, "\t");
    assert!(!s.contains("does nothing"), "{s}");
    // The line under the list says the focused owner whole.
    let line = under2(&s);
    assert!(line.starts_with("▸ [JNI global] "), "{s}");
    assert!(line.contains("(+3000 entries)"), "{s}");
    assert!(line.contains("growth.Cache → static"), "{line}\n{s}");
    assert!(line.contains("entries java.util.HashMap"), "{line}");
    // Enter: the map on both sides, 2,000 then 5,000 entries (expected.json).
    let s = run(&mut a, &mut t, "\n");
    assert!(s.contains("BASE") && s.contains("TARGET ◆"), "{s}");
    assert_eq!(s.matches("Inspector — java.util.HashMap").count(), 2, "{s}");
    assert!(
        s.lines().any(|l| l.contains("size") && l.contains("2000")),
        "{s}"
    );
    assert!(
        s.lines().any(|l| l.contains("size") && l.contains("5000")),
        "{s}"
    );
    // Back to the table, the owners still focused: p, its paths on both sides.
    let s = run(&mut a, &mut t, "\u{1b}");
    assert!(s.contains("classes changed"), "{s}");
    assert!(under2(&s).contains("(+3000 entries)"), "{s}");
    let s = run(&mut a, &mut t, "p");
    assert_eq!(
        s.matches("Shortest paths to GC roots, merged: java.util.HashMap")
            .count(),
        2,
        "{s}"
    );
    // Each side's path reaches a GC root (the class loader's JNI global).
    assert_eq!(s.matches("[GC").count(), 2, "{s}");
    // d: its subtree in the dominator tree of each side.
    let s = run(&mut a, &mut t, "\u{1b}d");
    assert_eq!(s.matches("Dominator tree").count(), 2, "{s}");
    assert!(s.contains("java.util.HashMap"), "{s}");
    // Tab from the owners back to the classes.
    let s = run(&mut a, &mut t, "\u{1b}\t");
    assert!(under(&s).contains(" · count "), "{s}");
}

/// Friction 4 on a V8 pair: the owner that grew is the array heaptuiLeaks, which held no
/// HeaptuiLeak in the baseline and 400 in the target (expected.json).
#[test]
fn the_diff_s_owners_are_a_list_on_a_v8_pair() {
    let mut a = node_pair();
    let mut t = terminal(120, 40);
    let s = run(&mut a, &mut t, "\t");
    assert!(!s.contains("does nothing"), "{s}");
    let mut s = s;
    let mut tries = 0;
    while !under(&s).contains("heaptuiLeaks") {
        tries += 1;
        assert!(tries < 20, "no owner heaptuiLeaks:\n{s}");
        s = run(&mut a, &mut t, "j");
    }
    // The baseline has no heaptuiLeaks yet (program.js makes it in the leak action):
    // that side says so; the target's shows the array's paths, its subtree, the array.
    let nothing = "Nothing at this path in this snapshot";
    let s = run(&mut a, &mut t, "p");
    assert!(s.contains(nothing), "{s}");
    assert!(
        s.contains("Shortest paths to GC roots, merged: Array"),
        "{s}"
    );
    assert!(s.contains("heaptuiLeaks"), "{s}");
    let s = run(&mut a, &mut t, "\u{1b}d");
    assert!(s.contains(nothing) && s.contains("Dominator tree"), "{s}");
    let s = run(&mut a, &mut t, "\u{1b}\n");
    assert!(
        s.contains(nothing) && s.contains("Inspector — Array"),
        "{s}"
    );
    // The array holds the 400 leaks (expected.json: leaks.created).
    assert!(s.contains("400"), "{s}");
}

/// A click in the diff's owners focuses them and selects the owner clicked; a double
/// click opens it on both sides.
#[test]
fn a_click_in_the_diff_s_owners_selects_and_opens() {
    let mut a = growth();
    let mut t = terminal(120, 40);
    let s = run(&mut a, &mut t, "");
    let (x, y) = at(&s, "(+3000 entries)");
    let s = run_events(&mut a, &mut t, vec![click(x, y)]);
    assert!(under2(&s).contains("(+3000 entries)"), "{s}");
    let s = run_events(&mut a, &mut t, vec![click(x, y), click(x, y)]);
    assert_eq!(s.matches("Inspector — java.util.HashMap").count(), 2, "{s}");
    // A click on a side moves the keys to it.
    let (x, y) = at(&s, "loadFactor");
    assert!(x < 60, "the base side's first:\n{s}");
    let s = run_events(&mut a, &mut t, vec![click(x, y)]);
    assert!(s.contains("BASE ◆"), "{s}");
}
