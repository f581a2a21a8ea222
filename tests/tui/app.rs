//! The TUI drawn into ratatui's `TestBackend` at 80×24, driven by the same event loop the
//! binary runs, with scripted keys.

//! V8 snapshots in the TUI are in `tui_v8.rs`, the diff view in `tui_diff.rs`.

use crate::common;

use std::time::Duration;

use common::tui::*;
use common::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::{run_loop, App};
use heaptui::ui::events::QueueEvent;
use heaptui::ui::panes::Request;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The app at 100×30 on the instances of `java.lang.String` (9,719 of them).
fn string_instances() -> (App, Terminal<TestBackend>) {
    let (mut a, mut t) = app_at(100, 30);
    let s = run(&mut a, &mut t, "/java.lang.String\n\n");
    assert!(
        s.contains("Instances of java.lang.String — 9,719 objects"),
        "{s}"
    );
    (a, t)
}

/// [`string_instances`] filtered to "customer-30": 14 match.
fn filtered_strings() -> (App, Terminal<TestBackend>) {
    let (mut a, mut t) = string_instances();
    let s = run(&mut a, &mut t, "/customer-30\n");
    assert!(s.contains("14 match \"customer-30\""), "{s}");
    (a, t)
}

#[test]
fn histogram_at_80x24_filters_sorts_and_quits() {
    let (mut a, mut t) = app_at(80, 24);
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
    assert!(
        s.contains("Keys") && s.contains("filter: exact (=), prefix (^)"),
        "{s}"
    );
    let s = run(&mut a, &mut t, "x");
    assert!(!s.contains("filter: exact"));

    let s = run(&mut a, &mut t, "i");
    assert!(s.contains("Summary") && s.contains("object layout"), "{s}");
    run(&mut a, &mut t, "\u{1b}");

    assert!(!a.quit);
    run(&mut a, &mut t, "q");
    assert!(a.quit);
}

#[test]
fn paging_walks_only_visible_rows_and_reaches_the_end() {
    let (mut a, mut t) = app_at(80, 24);
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
    let (mut a, mut t) = app_at(80, 24);
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
    let (mut a, mut t) = app_at(80, 24);
    // Filter to the blob holder: a 16-byte object that retains its 3 MB array.
    let s = run(&mut a, &mut t, "/BlobHolder\n");
    let line = line_with(&s, "fixture.BlobHolder");
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

/// The leak hunt as a person walks it, at 80×24 and 200×50: histogram → filter to the
/// class → its instances → the inspector → paths from GC roots, and back with Esc.
#[test]
fn the_leak_hunt_walk_histogram_instances_inspector_paths_and_back() {
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let (mut a, mut t) = app_at(w, h);
        let s = run(&mut a, &mut t, "/fixture.BlobHolder\n");
        assert!(s.contains("dev.heaptui.fixture.BlobHolder"), "{s}");
        // Instances of the class, largest retained first.
        let s = run(&mut a, &mut t, "\n");
        assert!(
            s.contains("Instances of dev.heaptui.fixture.BlobHolder"),
            "{s}"
        );
        assert!(
            s.contains("2.9 MiB"),
            "the holder retains its 3 MB array:\n{s}"
        );
        // The inspector: sizes in human units and exact bytes, the blob field.
        let s = run(&mut a, &mut t, "\n");
        assert!(s.contains("Inspector"), "{s}");
        assert!(s.contains("retained 2.9 MiB (3000032 bytes)"), "{s}");
        assert!(s.contains("blob") && s.contains("byte[]"), "{s}");
        // Enter on the blob field inspects the array.
        let s = run(&mut a, &mut t, "\n");
        assert!(s.contains("Inspector — byte[]"), "{s}");
        assert!(s.contains("length 3000000"), "{s}");
        // Paths from GC roots to the array, through Main.BLOB and the holder.
        let s = run(&mut a, &mut t, "p");
        assert!(
            s.contains("Shortest paths to GC roots, merged: byte[]"),
            "{s}"
        );
        assert!(s.contains("blob ← dev.heaptui.fixture.BlobHolder"), "{s}");
        assert!(s.contains("static BLOB ← java.lang.Class"), "{s}");
        // Back, back, back, back: the histogram again, its filter kept.
        let s = run(&mut a, &mut t, "\u{1b}\u{1b}\u{1b}\u{1b}");
        assert!(s.contains("Class histogram"), "{s}");
        assert!(s.contains("filter \"fixture.Blob"), "{s}");
        // And forward again to the instances.
        let s = run(&mut a, &mut t, "]");
        assert!(
            s.contains("Instances of dev.heaptui.fixture.BlobHolder"),
            "{s}"
        );
    }
}

#[test]
fn the_dominator_tree_expands_and_collapses_and_marks_nothing_twice() {
    let (mut a, mut t) = app_at(120, 40);
    let s = run(&mut a, &mut t, "d");
    assert!(s.contains("Dominator tree — from the GC roots"), "{s}");
    assert!(s.contains("class dev.heaptui.fixture.Main"), "{s}");
    // The first row is the largest; expanding it shows its children with their share.
    let s = run(&mut a, &mut t, "l");
    assert!(s.contains("▾ java.lang.Class"), "{s}");
    // Main's children: the blob holder retains 2.9 MiB of it.
    let holder = line_with(&s, "dev.heaptui.fixture.BlobHolder");
    assert!(holder.starts_with("  ▸ static BLOB → "), "{holder}");
    assert!(holder.contains("2.9 MiB"), "{holder}");
    let s = run(&mut a, &mut t, "h");
    assert!(!s.contains("▾") && !s.contains("BlobHolder"), "{s}");
    // The referrer tree of an object opens from the selection.
    let s = run(&mut a, &mut t, "r");
    assert!(s.contains("Referrers of"), "{s}");
}

#[test]
fn instances_past_the_first_sorted_rows_stay_in_order() {
    // The pane sorts only its top rows when it opens; scrolling on must meet every other
    // instance, in order. byte[] has 11,044 instances in the fixture.
    use heaptui::ui::panes::instances::InstancesPane;
    use heaptui::ui::panes::{Ctx, Pane};
    let (_, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let dom = dominators_of(&snap);
    let theme = heaptui::ui::theme::Theme { color: false };
    let ctx = Ctx {
        snap: &snap,
        dom: Some(&dom),
        theme: &theme,
        shared: None,
    };
    let class = snap
        .graph
        .classes
        .iter()
        .position(|c| c.name == "byte[]")
        .unwrap() as u32;
    let mut pane = InstancesPane::new(class, &ctx);
    let j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
    let mut seen = Vec::new();
    loop {
        let o = pane.selected_object().unwrap();
        seen.push(o);
        let before = o;
        pane.handle(&j, &ctx);
        if pane.selected_object() == Some(before) {
            break;
        }
    }
    assert_eq!(seen.len(), 11_044);
    let mut unique = seen.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 11_044, "every instance once");
    let sizes: Vec<u64> = seen.iter().map(|&o| dom.retained(o).unwrap_or(0)).collect();
    assert!(
        sizes.windows(2).all(|w| w[0] >= w[1]),
        "largest retained first, all the way"
    );
}

#[test]
fn instances_filter_by_value_and_sort_by_size_or_address() {
    let (mut a, mut t) = string_instances();
    // Filter (fuzzy) on the strings' text: of the program's 311 names "customer-0" …
    // "customer-310", those with "customer-3" and a later "0" are 30, 130, 230,
    // 300 … 309 and 310: 14.
    let s = run(&mut a, &mut t, "/customer-30\n");
    assert!(s.contains("14 match \"customer-30\""), "{s}");
    assert!(
        s.contains("\"customer-305\"") && s.contains("\"customer-130\""),
        "{s}"
    );
    assert!(!s.contains("\"customer-29\""), "{s}");
    let s = run(&mut a, &mut t, "s");
    assert!(s.contains("by shallow size, 14 match"), "{s}");
    let s = run(&mut a, &mut t, "s");
    assert!(s.contains("by address, 14 match"), "{s}");
    // Esc clears the filter first, then goes back.
    let s = run(&mut a, &mut t, "\u{1b}");
    assert!(
        s.contains("9,719 objects, by address") && !s.contains("match"),
        "{s}"
    );
    let s = run(&mut a, &mut t, "\u{1b}");
    assert!(s.contains("Class histogram"), "{s}");
}

#[test]
fn threads_pane_frames_locals_and_the_path_that_ends_at_the_frame() {
    let (mut a, mut t) = app_at(120, 40);
    let s = run(&mut a, &mut t, "t");
    assert!(s.contains("Threads — 15"), "{s}");
    assert!(s.contains("\"fixture-waiter\" #14 WAITING"), "{s}");
    // The 14th thread row is fixture-waiter: expand it.
    let s = run(&mut a, &mut t, "jjjjjjjjjjjjjl");
    assert!(
        s.contains("at dev.heaptui.fixture.WaiterTask.holdLocalsAndWait"),
        "{s}"
    );
    let list_row = s
        .lines()
        .position(|l| l.contains("java.util.ArrayList"))
        .unwrap_or_else(|| panic!("{s}"));
    let sel_row = s
        .lines()
        .position(|l| l.contains("\"fixture-waiter\""))
        .unwrap();
    let down = "j".repeat(list_row - sel_row);
    let s = run(&mut a, &mut t, &format!("{down}p"));
    assert!(
        s.contains("Shortest paths to GC roots, merged: java.util.ArrayList"),
        "{s}"
    );
    assert!(
        s.contains("GC root: Java frame, thread \"fixture-waiter\""),
        "{s}"
    );
}

#[test]
fn the_mouse_wheel_moves_the_selection() {
    use crossterm::event::{MouseEvent, MouseEventKind};
    let (mut a, mut t) = app_at(80, 24);
    let before = run(&mut a, &mut t, "");
    let wheel = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 10,
            row: 5,
            modifiers: KeyModifiers::NONE,
        })
    };
    // Pushed into the app's queue, as the binary's input thread does, and taken by the
    // run loop.
    for _ in 0..2 {
        a.queue()
            .push(QueueEvent::Input(wheel(MouseEventKind::ScrollDown)));
    }
    drive(&mut a, &mut t, "");
    let after = run(&mut a, &mut t, "");
    // The status line names the selected class: the third row now.
    let status = |s: &str| s.lines().nth(22).unwrap().to_string();
    assert_ne!(status(&before), status(&after));
    assert!(status(&after).contains("java.lang.Object[]"), "{after}");
    let up = run(&mut a, &mut t, "kk");
    assert_eq!(status(&up), status(&before));
}

#[test]
fn the_help_scrolls_to_its_last_key_at_80x24() {
    let (mut app, mut t) = app_at(80, 24);
    let s = run(&mut app, &mut t, "?");
    assert!(s.contains("↑↓ scroll"), "{s}");
    assert!(
        !s.contains("q Ctrl-c"),
        "the last key is below the box:\n{s}"
    );
    // Down to the end (more presses than rows: the scroll stops at the last one).
    let s = run(&mut app, &mut t, &"j".repeat(60));
    assert!(s.contains("q Ctrl-c"), "{s}");
    assert!(s.contains("Keys (↑↓ scroll"), "still open:\n{s}");
    // One step up shows the row above the top again, without 40 presses to undo.
    let top = |s: &str| s.lines().nth(2).unwrap().to_string();
    let before = top(&s);
    let s = run(&mut app, &mut t, "k");
    assert_ne!(top(&s), before, "{s}");
    // Any other key closes it.
    let s = run(&mut app, &mut t, "x");
    assert!(!s.contains("Keys ("), "{s}");
}

#[test]
fn the_quick_histogram_is_browsed_while_the_index_is_built_and_handed_over() {
    let p = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let bytes = std::fs::read(&p).unwrap();
    let q =
        heaptui::format::hprof::quick_histogram(&bytes, &heaptui::sys::progress::Progress::new())
            .unwrap()
            .unwrap();
    let strings = q
        .rows
        .iter()
        .find(|r| r.name == "java.lang.String")
        .map(|r| r.count)
        .unwrap();
    let (mut app, tx) = App::with_quick_histogram(p.clone(), q);
    let mut t = terminal(80, 24);
    let s = run(&mut app, &mut t, "");
    assert!(s.contains("Class histogram"), "{s}");
    assert!(s.contains("Building the index"), "{s}");
    assert!(s.contains("indexing"), "{s}");
    // Filter to the strings, as on the real histogram.
    let s = run(&mut app, &mut t, "/java.lang.String\n");
    let line = s
        .lines()
        .find(|l| l.starts_with("= java.lang.String "))
        .unwrap_or_else(|| panic!("{s}"));
    let title = s.lines().next().unwrap().to_string();
    assert!(title.contains("Class histogram — "), "{title}");
    let shown = line.split_whitespace().nth(2).unwrap().replace(',', "");
    assert_eq!(shown.parse::<u64>().unwrap(), strings, "{line}");
    // What needs the index says so rather than doing nothing.
    let s = run(&mut app, &mut t, "\n");
    assert!(s.contains("the index is being built"), "{s}");
    // The index arrives: the same filter and selection, now on the real histogram.
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).unwrap();
    tx.send(Ok(heaptui::ui::app::Loaded::One(snap.into())))
        .unwrap();
    app.tick();
    let s = run(&mut app, &mut t, "");
    assert!(!s.contains("Building the index"), "{s}");
    // Same classes, sort and filter: the index agrees with the quick pass.
    assert_eq!(s.lines().next().unwrap(), title, "{s}");
    assert!(s.contains(line), "{s}");
    assert!(s.contains("objects"), "{s}");
    // And Enter now opens the instances.
    let s = run(&mut app, &mut t, "\n");
    assert!(s.contains("Instances"), "{s}");
}

/// A filter over the instances is announced before it runs: the frame after Enter says
/// what is being filtered, the run loop's work step applies it, and the next frame
/// shows the matches (with millions of instances the filter takes seconds, and the
/// screen must not sit unchanged meanwhile).
#[test]
fn an_instance_filter_is_announced_then_applied() {
    let (mut a, mut t) = string_instances();
    for c in "/customer-30".chars() {
        a.on_key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    a.on_key(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    assert!(
        s.contains("working… filtering 9,719 for \"customer-30\""),
        "{s}"
    );
    assert!(!s.contains("match"), "{s}");
    assert!(a.work(), "the filter is the pending work");
    let s = settled(&mut a, &mut t);
    assert!(s.contains("14 match \"customer-30\""), "{s}");
    assert!(!s.contains("filtering"), "{s}");
    assert!(!a.work(), "nothing left to do");

    // The run loop does that work itself, before it waits for the next key.
    drive(&mut a, &mut t, "\u{1b}/customer-31\nj");
    assert!(!a.work(), "the loop applied the filter");
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    // Fuzzy: "customer-" with a 3 and a later 1: 31, 131, 231, 301 and 310.
    assert!(s.contains("5 match \"customer-31\""), "{s}");
}

/// Sorting a filtered instance list re-applies the filter after a frame that announces
/// it; that frame draws the list whole, not the old matches (they index rows the sort
/// replaced: drawing them went out of bounds).
#[test]
fn sorting_a_filtered_list_draws_the_announcing_frame() {
    let (mut a, mut t) = filtered_strings();
    for key in ['s', 'n', 's', 's'] {
        a.on_key(&KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE));
        t.draw(|f| a.draw(f)).unwrap();
        let s = screen(&t);
        if a.work() {
            assert!(s.contains("filtering 9,719 for \"customer-30\""), "{s}");
            settle(&mut a);
            t.draw(|f| a.draw(f)).unwrap();
        }
        let s = screen(&t);
        assert!(s.contains("14 match \"customer-30\""), "after {key}: {s}");
    }
}

/// The TUI on the Java leak fixture, as it opens: on the leak suspects.
fn leak_app() -> App {
    let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    App::with_snapshot(p, snap)
}

/// At 80 columns every suspect's row keeps its size, its share, the start of its class,
/// and its `holds N` whole, on the leak fixtures of the other runtimes too (Go's and
/// MoarVM's long holders ran over the row's end and cut the member's count).
#[test]
fn every_runtime_s_suspect_rows_keep_their_parts_at_80_columns() {
    for rel in [
        "go/leak/heap.dump.gz",
        "moarvm/leak/leak.mvmheap.gz",
        "node/leak/leak.heapsnapshot.gz",
        "dart/leak/leak.dartheap.gz",
    ] {
        let (p, snap) = open_fixture(rel);
        let d = dominators_of(&snap);
        let report = heaptui::suspects::find(&snap, &d, 5);
        let format = snap.format;
        let mut a = App::with_snapshot(p, snap);
        let mut term = terminal(80, 24);
        let s = run(&mut a, &mut term, "");
        let rows: Vec<&str> = s.lines().skip(1).take(report.suspects.len()).collect();
        assert_eq!(rows.len(), report.suspects.len(), "{rel}: {s}");
        for (row, x) in rows.iter().zip(&report.suspects) {
            let title = heaptui::suspects::brief(format, &x.title);
            let class: String = title.chars().take(8).collect();
            assert!(row.contains(&class), "{rel}: {row} / {title}");
            assert!(
                row.contains(&format!("{:.0}%", x.share * 100.0)),
                "{rel}: {row}"
            );
            if let Some(i) = title.find(" holds ") {
                let count = title[i..].split(' ').take(3).collect::<Vec<_>>().join(" ");
                assert!(row.contains(&format!("{count} ")), "{rel}: {row} / {title}");
            }
        }
    }
}

#[test]
fn it_opens_on_the_suspects_whose_rows_fit_80_columns_and_lead_to_the_object() {
    let t = fixture_json("java/leak/truth.json");
    let mut term = terminal(80, 24);
    let mut a = leak_app();
    let s = run(&mut a, &mut term, "");
    assert!(s.contains("Leak suspects — 5 of"), "{s}");
    // Each row whole at 80 columns: size, share and the title in short names.
    let rows: Vec<&str> = s.lines().skip(1).take(5).collect();
    let want = [
        (
            "46%",
            "ArrayList in static Catalog.INDEXES holds 1,000 Index",
        ),
        (
            "39%",
            "HashMap in static SessionCache.SESSIONS holds 12,000 Session",
        ),
        ("6%", "byte[] in thread-local of thread \"worker-2\""),
        (
            "3%",
            "ArrayList in field listeners of EventBus holds 3,000 Listener",
        ),
        (
            "2%",
            "ArrayList in static StatusLog.DUPLICATES holds 10,000 String",
        ),
    ];
    for (row, (share, title)) in rows.iter().zip(want) {
        assert!(
            row.contains(share) && row.trim_end().ends_with(title),
            "{row}"
        );
        assert!(row.contains("MiB") || row.contains("KiB"), "{row}");
    }
    // The second: the map of SessionCache.SESSIONS, with the truth's retained size.
    let retained = t["plants"]["session_cache"]["retained_bytes"]
        .as_u64()
        .unwrap();
    let s = run(&mut a, &mut term, "j");
    assert!(s.contains("held by static SESSIONS of SessionCache"), "{s}");
    assert!(
        s.contains(&format!("{:.1} MiB", retained as f64 / 1048576.0)),
        "{s}"
    );
    // Enter inspects it; `p` shows its paths; `!` comes back to the suspects.
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains("Inspector — java.util.HashMap"), "{s}");
    let s = run(&mut a, &mut term, "p");
    assert!(s.contains("Shortest paths"), "{s}");
    assert!(s.contains("SESSIONS"), "{s}");
    let s = run(&mut a, &mut term, "!");
    assert!(s.contains("Leak suspects — 5 of"), "{s}");
    // `r` and `d` on the selected suspect: its referrers (the class object whose static
    // holds it) and the tree below it (its table first).
    let s = run(&mut a, &mut term, "r");
    assert!(
        s.contains("Referrers of java.util.HashMap 0xf0345c68"),
        "{s}"
    );
    assert!(s.contains("static SESSIONS"), "{s}");
    let s = run(&mut a, &mut term, "!d");
    assert!(
        s.contains("Dominator tree — below java.util.HashMap 0xf0345c68"),
        "{s}"
    );
    assert!(s.contains("java.util.HashMap$Node[]"), "{s}");
    let s = run(&mut a, &mut term, "!");
    assert!(s.contains("Leak suspects — 5 of"), "{s}");
    // `W`: the waste findings, the sparse maps first (16,380,000 bytes: 15.6 MiB).
    let s = run(&mut a, &mut term, "W");
    assert!(s.contains("Waste — "), "{s}");
    let first = s.lines().nth(1).unwrap();
    assert!(
        first.contains("15.6 MiB wasted") && first.contains("1000 sparse HashMap"),
        "{s}"
    );
    // Esc goes back to the histogram, under the suspects.
    let s = run(&mut a, &mut term, "\u{1b}");
    assert!(s.contains("Class histogram"), "{s}");
}

#[test]
fn h_goes_to_the_histogram_and_no_key_goes_unanswered() {
    let (mut a, mut term) = app_at(80, 24);
    let s = run(&mut a, &mut term, "t");
    assert!(s.contains("Threads"), "{s}");
    // A key the threads pane does not take says so in the status line. (`/`, which it
    // has no filter for, takes an object id: issue 39, friction 3; Esc gives up.)
    let s = run(&mut a, &mut term, "/");
    assert!(s.contains("go to object:"), "{s}");
    let s = run(&mut a, &mut term, "\u{1b}Z");
    assert!(s.contains("`Z` is not a key of heaptui"), "{s}");
    // H: the histogram from anywhere; ] walks forward again to where the user was.
    let s = run(&mut a, &mut term, "dH");
    assert!(s.contains("Class histogram"), "{s}");
    let s = run(&mut a, &mut term, "]");
    assert!(s.contains("Threads"), "{s}");
    let s = run(&mut a, &mut term, "]");
    assert!(s.contains("Dominator tree"), "{s}");
}

/// Issue 26: a key that a pane takes but that has nothing to act on says so in the status
/// line: `y` on a class row or a thread row (no object selected), `←`/`→` on a thread
/// already collapsed/expanded, `Enter` on the inspector's header rows, `]` with nothing
/// to go forward to, `H` on the histogram, `→`/`←` in the paths (drawn whole).
#[test]
fn keys_with_nothing_to_act_on_say_so() {
    let (mut a, mut term) = app_at(100, 30);
    let status = |s: &str| s.lines().nth(28).unwrap_or("").to_string();
    let s = run(&mut a, &mut term, "y");
    assert!(
        status(&s).contains("`y` does nothing here: no object is selected"),
        "{s}"
    );
    assert!(a.clipboard.lock().unwrap().is_empty());
    // `]` brings back the suspects the app opened on (`Esc` left them); then nothing.
    let s = run(&mut a, &mut term, "]");
    assert!(s.contains("Leak suspects"), "{s}");
    let s = run(&mut a, &mut term, "]");
    assert!(status(&s).contains("no pane to go forward to"), "{s}");
    let s = run(&mut a, &mut term, "H");
    assert!(
        s.contains("Class histogram") && !status(&s).contains("does nothing"),
        "{s}"
    );
    let s = run(&mut a, &mut term, "H");
    assert!(status(&s).contains("this is the class histogram"), "{s}");
    // The threads pane opens on its first thread's row: no object there either.
    let s = run(&mut a, &mut term, "ty");
    assert!(s.contains("Threads"), "{s}");
    assert!(
        status(&s).contains("`y` does nothing here: no object is selected"),
        "{s}"
    );
    // `←` on a thread that is not expanded, `→` twice on one.
    let s = run(&mut a, &mut term, "h");
    assert!(
        status(&s).contains("this thread is already collapsed"),
        "{s}"
    );
    let s = run(&mut a, &mut term, "ll");
    assert!(
        status(&s).contains("this thread is already expanded"),
        "{s}"
    );
    // A string's inspector: the first rows are its header, which opens nothing.
    let s = run(&mut a, &mut term, "\u{1b}/java.lang.String\n\n\n");
    assert!(s.contains("Inspector — java.lang.String"), "{s}");
    // (`g` groups the inspector's references by class: up to the first row with `k`.)
    let s = run(&mut a, &mut term, &format!("{}\n", "k".repeat(20)));
    assert!(s.contains("Inspector — java.lang.String"), "{s}");
    assert!(status(&s).contains("this row opens nothing"), "{s}");
    // The paths are drawn whole: `l` and `h` have nothing to expand or collapse.
    let s = run(&mut a, &mut term, "p");
    assert!(s.contains("Shortest paths"), "{s}");
    for k in ["l", "h"] {
        let s = run(&mut a, &mut term, k);
        assert!(
            status(&s).contains(&format!(
                "`{k}` does nothing here: the paths are drawn whole"
            )),
            "{s}"
        );
    }
    // A copy still copies.
    let s = run(&mut a, &mut term, "\u{1b}\u{1b}y");
    assert!(status(&s).contains("copied 0x"), "{s}");
    assert_eq!(a.clipboard.lock().unwrap().len(), 1);
}

#[test]
fn w_follows_weak_references_and_garbage_is_called_unreachable() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let d = dominators_of(&snap);
    let n = snap.graph.len() as u32;
    let weak = (0..n)
        .find(|&o| d.is_weakly_reachable(o))
        .expect("a weakly reachable object");
    let garbage = (0..n).find(|&o| {
        d.idom(o).is_none() && heaptui::heap::paths::to_roots(&snap.graph, o, 1, true).is_empty()
    });
    let (weak_name, garbage_name) = (snap.object_name(weak), garbage.map(|o| snap.object_name(o)));
    let f = p.to_str().unwrap();
    // The CLI: a hint for the weakly held, "unreachable" for garbage.
    let out = heaptui(&["path", f, &weak_name]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("only weak or soft references reach it (try --include-weak)"),
        "{text}"
    );
    let g = garbage_name.expect("the live dump still holds unreachable objects");
    let out = heaptui(&["path", f, &g]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("unreachable (garbage in this dump)"),
        "{text}"
    );
    // The TUI: the object's inspector (as `Enter` on its row opens it), `p`, then `w`.
    let (mut a, mut term) = app_on(p.clone(), snap, Request::Inspect(weak), 120);
    let s = run(&mut a, &mut term, "p");
    assert!(
        s.contains("held only by weak or soft references (w follows them)"),
        "{s}"
    );
    let s = run(&mut a, &mut term, "w");
    assert!(s.contains("weak references too"), "{s}");
    assert!(s.contains("GC root"), "{s}");
}

/// The Java leak fixture, its dominator tree and the sessions map's table (the
/// accumulation point of the `SESSIONS` suspect).
fn sessions_table() -> (
    std::path::PathBuf,
    heaptui::Session,
    heaptui::heap::dominators::Dominators,
    u32,
) {
    let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    let d = dominators_of(&snap);
    let r = heaptui::suspects::find(&snap, &d, 5);
    let table = r
        .suspects
        .iter()
        .find(|s| s.holder.contains("SESSIONS"))
        .and_then(|s| s.accumulation)
        .unwrap()
        .0;
    (p, snap, d, table)
}

/// Opens the pane `req` asks for on top of the app's view, as a key would.
fn open(a: &mut App, req: Request) {
    if let heaptui::ui::app::Screen::Ready(r) = &mut a.screen {
        let theme = heaptui::ui::theme::Theme { color: false };
        r.open(req, &theme);
    }
}

/// The app on `snap` (as it opens) in a `w`×30 terminal, the pane `req` asks for open.
fn app_on(
    p: std::path::PathBuf,
    snap: heaptui::Session,
    req: Request,
    w: u16,
) -> (App, Terminal<TestBackend>) {
    let mut a = App::with_snapshot(p, snap);
    open(&mut a, req);
    (a, terminal(w, 30))
}

/// The screen once the app has drawn its view and the pane `req` asks for is opened
/// on top of it.
fn shown(a: &mut App, term: &mut Terminal<TestBackend>, req: Request) -> String {
    run(a, term, "");
    open(a, req);
    run(a, term, "")
}

#[test]
fn a_tree_node_with_many_children_pages_through_them() {
    // The sessions map's table: 12,000 entries below it in the dominator tree.
    let (p, snap, d, table) = sessions_table();
    // (7,321 of the 12,000 nodes: the others hang in the bins' chains.)
    let kids = d.children(table);
    let n = kids.len();
    assert!(n > 1000, "{n}");
    let fmt = with_commas;
    let rest: u64 = kids[500..].iter().map(|&k| d.retained(k).unwrap()).sum();
    let (mut a, mut term) = app_on(p, snap, Request::Dominators(Some(table)), 120);
    // The node and its first 500 children; then the row that stands for the rest.
    let s = run(&mut a, &mut term, "G");
    let want = format!(
        "… {} more ({}): Enter shows the next 500",
        fmt(n - 500),
        heaptui::ui::panes::human(rest)
    );
    assert!(s.contains(&want), "want {want}:\n{s}");
    let s = run(&mut a, &mut term, "\nG");
    assert!(s.contains(&format!("… {} more (", fmt(n - 1000))), "{s}");
}

#[test]
fn g_groups_a_tree_node_s_children_by_class() {
    let (p, snap, d, table) = sessions_table();
    // The children of the table by class, counted from the dominator tree's lists.
    let mut by_class: std::collections::BTreeMap<String, (usize, u64)> = Default::default();
    for &k in d.children(table) {
        let e = by_class.entry(snap.class_name(k).to_string()).or_default();
        e.0 += 1;
        e.1 += d.retained(k).unwrap();
    }
    let (top_class, &(count, bytes)) = by_class.iter().max_by_key(|x| (x.1 .1, x.1 .0)).unwrap();
    assert!(count > 1000, "{count}");
    let (mut a, mut term) = app_on(p, snap, Request::Dominators(Some(table)), 120);
    // The node shows its first 500 children and a row for the rest; `g` on that row
    // groups the node: one row per class, count and retained bytes.
    let s = run(&mut a, &mut term, "G");
    assert!(s.contains(" more ("), "{s}");
    let s = run(&mut a, &mut term, "g");
    let row = line_with(&s, &format!("{} × {top_class}", with_commas(count)));
    assert!(
        row.contains(&heaptui::ui::panes::human(bytes)),
        "{row}\n{s}"
    );
    assert!(!s.contains(" more ("), "{s}");
    // The class row expands to its instances, paged as before.
    let s = run(&mut a, &mut term, "jl");
    assert!(
        s.contains(&format!("▾ {} × {top_class}", with_commas(count))),
        "{s}"
    );
    let instances = s
        .lines()
        .filter(|l| l.contains(&format!("▸ {top_class} 0x")))
        .count();
    assert!(instances > 20, "{s}");
    // `g` again (here on the class row) ungroups the node.
    let s = run(&mut a, &mut term, "g");
    assert!(
        !s.contains(" × ") && s.contains(&format!("▸ {top_class} 0x")),
        "{s}"
    );
}

/// The children of `o` in the referrer tree (`outgoing` false) or the outgoing tree,
/// each counted once, by class name; from the graph's own lists.
fn children_by_class(
    snap: &heaptui::Snapshot,
    o: u32,
    outgoing: bool,
) -> std::collections::BTreeMap<String, usize> {
    let g = &snap.graph;
    let kids: std::collections::HashSet<u32> = if outgoing {
        g.edges(o).map(|e| g.out_targets[e]).collect()
    } else {
        g.referrers(o).iter().copied().collect()
    };
    let mut by: std::collections::BTreeMap<String, usize> = Default::default();
    for k in kids {
        *by.entry(snap.class_name(k).to_string()).or_default() += 1;
    }
    by
}

/// Issue 26: `g` groups a node's children by class in the referrer tree and in the
/// outgoing-reference tree too, not only in the dominator tree: on the JDK 17 fixture,
/// the object with the most referrers (or references) of a few classes shows one
/// `N × class` row per class, counted as the graph's lists count them; `g` again shows
/// the objects.
#[test]
fn g_groups_by_class_in_the_referrer_and_outgoing_trees() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let n = snap.graph.len() as u32;
    // The object with the most children of 2 to 12 classes, in each tree.
    let pick = |outgoing: bool| {
        (0..n)
            .filter_map(|o| {
                let by = children_by_class(&snap, o, outgoing);
                (2..=12)
                    .contains(&by.len())
                    .then(|| (by.values().sum::<usize>(), o))
            })
            .max()
            .unwrap()
            .1
    };
    let (referred, holder) = (pick(false), pick(true));
    let wants = [
        (
            children_by_class(&snap, referred, false),
            Request::Referrers(referred),
        ),
        (
            children_by_class(&snap, holder, true),
            Request::Outgoing(holder),
        ),
    ];
    let mut a = on_histogram(p, snap);
    let mut term = terminal(160, 40);
    for (by, req) in wants {
        let s = shown(&mut a, &mut term, req);
        assert!(!s.contains(" × "), "{s}");
        let s = run(&mut a, &mut term, "g");
        for (class, count) in &by {
            let row = format!("▸ {} × {class} ", with_commas(*count));
            assert!(s.contains(&row), "{req:?}: no row {row:?}:\n{s}");
        }
        assert_eq!(s.matches(" × ").count(), by.len(), "{req:?}:\n{s}");
        // A class row expands to its instances; `g` again ungroups.
        let s = run(&mut a, &mut term, "jl");
        assert!(
            s.lines().any(|l| l.contains("▾ ") && l.contains(" × ")),
            "{req:?}:\n{s}"
        );
        let s = run(&mut a, &mut term, "g");
        assert!(!s.contains(" × "), "{req:?}:\n{s}");
        run(&mut a, &mut term, "\u{1b}");
    }
}

#[test]
fn p_merges_the_paths_of_a_class_s_instances() {
    let t = fixture_json("java/leak/truth.json");
    let sessions = t["plants"]["session_cache"]["count"].as_u64().unwrap();
    let mut a = leak_app();
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    let mut term = terminal(160, 40);
    let s = run(&mut a, &mut term, "/com.example.Session\n");
    assert!(s.contains("= com.example.Session"), "{s}");
    let s = run(&mut a, &mut term, "P");
    // All 12,000 sessions (issue 39, friction 1: not the first 10,000), all through the
    // one map; the entries in the table's slots one row, those in its bins' chains
    // (`next`) another, and the sessions below them: 12,000 in all.
    let all = with_commas(sessions as usize);
    assert!(
        s.contains(&format!(
            "Merged paths from GC roots — {all} of {all} com.example.Session"
        )),
        "{s}"
    );
    let map_row = line_with(&s, "static SESSIONS → java.util.HashMap");
    assert!(map_row.contains(&format!("{all} objects")), "{map_row}");
    let entries = line_with(&s, "[*] → java.util.HashMap$Node (");
    assert!(entries.contains(" objects)"), "{s}");
    let held: u64 = s
        .lines()
        .filter(|l| l.contains("value → com.example.Session"))
        .map(|l| {
            let n = l.split(" (").nth(1).unwrap().split(' ').next().unwrap();
            n.replace(',', "").parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(held, sessions, "{s}");
    // Enter inspects the row's object.
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains("Inspector — "), "{s}");
}

#[test]
fn s_opens_a_sort_menu_that_takes_the_column_s_letter() {
    let (mut a, mut term) = app_at(80, 24);
    let s = run(&mut a, &mut term, "S");
    assert!(
        s.contains("sort by: r retained  c count  s shallow  n name"),
        "{s}"
    );
    let s = run(&mut a, &mut term, "c");
    assert!(s.contains("sorted by count"), "{s}");
    let s = run(&mut a, &mut term, "Sr");
    assert!(s.contains("sorted by retained"), "{s}");
    // Another key leaves the sort as it was; `s` still cycles.
    let s = run(&mut a, &mut term, "Sx");
    assert!(s.contains("sorted by retained"), "{s}");
    let s = run(&mut a, &mut term, "s");
    assert!(s.contains("sorted by shallow"), "{s}");
}

#[test]
fn wide_screens_show_the_selected_instance_s_inspector_beside_the_list() {
    let (mut a, mut term) = app_at(160, 40);
    let s = run(&mut a, &mut term, "/fixture.Session\n\n");
    let first = s.lines().nth(2).unwrap().to_string();
    // The list on the left, the first instance's inspector on the right, focus marked.
    assert!(
        s.contains("Instances of dev.heaptui.fixture.Session"),
        "{s}"
    );
    let title = s.lines().next().unwrap();
    assert!(title.starts_with('▶'), "{s}");
    let right = title
        .find("Inspector — dev.heaptui.fixture.Session")
        .expect(&s);
    assert!(right > 80, "{s}");
    let addr = |line: &str| {
        line.split_whitespace()
            .find(|w| w.starts_with("0x"))
            .map(String::from)
    };
    let a0 = addr(&first).unwrap();
    assert!(
        title.contains(&a0),
        "the inspector follows the selection:\n{s}"
    );
    // Down: the inspector follows.
    let s = run(&mut a, &mut term, "j");
    let second = addr(s.lines().nth(3).unwrap()).unwrap();
    assert!(s.lines().next().unwrap().contains(&second), "{s}");
    // Tab: the keys go to the inspector (its side marked); Esc gives them back.
    let s = run(&mut a, &mut term, "\t");
    let title = s.lines().next().unwrap();
    assert!(
        !title.starts_with('▶') && title.chars().filter(|&c| c == '▶').count() == 1,
        "{s}"
    );
    let s = run(&mut a, &mut term, "\u{1b}");
    assert!(s.lines().next().unwrap().starts_with('▶'), "{s}");
    // At 80 columns, one pane as before.
    let mut narrow = terminal(80, 24);
    let _ = run(&mut a, &mut narrow, "");
    let s = run(&mut a, &mut narrow, "k");
    assert!(!s.contains("Inspector — "), "{s}");
}

/// The app's one-snapshot screen.
fn ready(a: &mut App) -> &mut heaptui::ui::app::Ready {
    match &mut a.screen {
        heaptui::ui::app::Screen::Ready(r) => r,
        _ => panic!("not ready"),
    }
}

/// Issue 26: from 120 columns the class histogram has the merged shortest paths from
/// the GC roots of its selected class beside it (what `P` opens), built once the
/// selection has rested, not on every key of a fast scroll; `Tab` gives it the keys,
/// `Esc` or `Tab` gives them back. On the Java leak fixture: 12,000 sessions
/// (truth.json), all merged, all through the one map.
#[test]
fn wide_histogram_shows_the_selected_class_s_merged_paths_once_it_rests() {
    let t = fixture_json("java/leak/truth.json");
    let sessions = t["plants"]["session_cache"]["count"].as_u64().unwrap();
    let all = with_commas(sessions as usize);
    let want = format!("Merged paths from GC roots — {all} of {all} com.example.Session");
    let mut a = leak_app();
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    // A selection that never rests on its own: the test says when it has.
    a.set_detail_rest(Duration::from_secs(3600));
    let mut term = terminal(160, 45);
    let s = run(
        &mut a,
        &mut term,
        "/com.example.Session
",
    );
    assert!(s.contains("= com.example.Session"), "{s}");
    assert_eq!(ready(&mut a).class_builds, 0, "built before resting:\n{s}");
    assert!(!s.contains(&want), "{s}");
    assert!(
        s.contains("paths of com.example.Session once the selection rests…"),
        "{s}"
    );
    // Rested: the app's tick builds it (announced, then built by the loop's work).
    a.set_detail_rest(Duration::ZERO);
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert_eq!(ready(&mut a).class_builds, 1);
    let title = s.lines().next().unwrap();
    assert!(title.starts_with('▶'), "the list has the keys:\n{s}");
    let right = title.find(&want).expect(&s);
    assert!(right > 80, "beside the histogram:\n{s}");
    assert!(title.contains("Class histogram"), "{s}");
    // The one map, its names cut in the middle to fit beside the list, its figures in
    // short there (the line under the list has them in words once it is focused).
    let map_row = line_with(&s, "static ");
    assert!(
        map_row.contains("→ java")
            && (map_row.contains(&format!("{all} objects"))
                || map_row.contains(&format!("{all} obj "))),
        "{map_row}"
    );
    assert!(!s.contains("once the selection rests"), "{s}");
    // Tab: the keys go to the paths (their side marked); `j` moves there, not in the
    // histogram; Esc gives them back, and so does Tab.
    let s = run(&mut a, &mut term, "\t");
    let title = s.lines().next().unwrap();
    assert!(
        !title.starts_with('▶') && title.chars().filter(|&c| c == '▶').count() == 1,
        "{s}"
    );
    let before = ready(&mut a).top().selected_class();
    let s2 = run(&mut a, &mut term, "j");
    assert_eq!(ready(&mut a).top().selected_class(), before, "{s2}");
    assert!(s2.contains(&want), "{s2}");
    let s = run(&mut a, &mut term, "\u{1b}");
    assert!(s.lines().next().unwrap().starts_with('▶'), "{s}");
    assert!(
        s.contains(&want),
        "Esc leaves the histogram and its paths:\n{s}"
    );
    run(&mut a, &mut term, "\t");
    let s = run(&mut a, &mut term, "\t");
    assert!(s.lines().next().unwrap().starts_with('▶'), "{s}");
    assert_eq!(ready(&mut a).class_builds, 1, "nothing rebuilt");
}

/// A fast scroll through the histogram (keys far quicker than the rest interval, the
/// loop's tick between them) builds no class's merged paths per key: the last class's
/// only, once the selection rests; meanwhile the first class's stay, marked stale.
/// Before the first key (a reopen showing the histogram, then its retained sizes) no
/// class's merged paths are searched for: on the 3 GB dump the search over its largest
/// class held the tree back by 1.2 s. The first key starts them.
#[test]
fn the_wide_histogram_builds_no_paths_before_the_first_key() {
    let mut a = leak_app();
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    // As a reopen finds it: the histogram on top, no key pressed yet.
    ready(&mut a).touched = false;
    let mut term = terminal(160, 45);
    run(&mut a, &mut term, "");
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert!(s.contains("Class histogram"), "{s}");
    assert_eq!(ready(&mut a).class_builds, 0, "{s}");
    assert!(!s.contains("Merged paths from GC roots"), "{s}");
    run(&mut a, &mut term, "j");
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert_eq!(ready(&mut a).class_builds, 1, "{s}");
    assert!(s.contains("Merged paths from GC roots"), "{s}");
}

#[test]
fn a_fast_scroll_of_the_wide_histogram_builds_the_paths_once() {
    let mut a = leak_app();
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    let mut term = terminal(160, 45);
    // The first class's paths, built at once (a test's selection has always rested).
    run(&mut a, &mut term, "");
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert_eq!(ready(&mut a).class_builds, 1, "{s}");
    let first = ready(&mut a).top().selected_class().unwrap();
    a.set_detail_rest(Duration::from_secs(3600));
    // Twenty `j`s, each through the run loop (tick, draw, work, key).
    run(&mut a, &mut term, &"j".repeat(20));
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert_eq!(ready(&mut a).class_builds, 1, "a build per key:\n{s}");
    let now = ready(&mut a).top().selected_class().unwrap();
    assert_ne!(now, first);
    assert_eq!(ready(&mut a).waiting, Some(now));
    assert!(s.contains("  stale below · paths of "), "{s}");
    assert!(s.contains(" once the selection rests…"), "{s}");
    // Rested: the last class's paths, one build more.
    a.set_detail_rest(Duration::ZERO);
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert_eq!(ready(&mut a).class_builds, 2, "{s}");
    assert_eq!(
        ready(&mut a).detail.as_ref().map(|(k, _)| *k),
        Some(heaptui::ui::app::Detail::Class(now))
    );
    assert!(!s.contains("once the selection rests"), "{s}");
    // Below 120 columns, nothing beside the histogram.
    let mut narrow = terminal(100, 30);
    run(&mut a, &mut narrow, "");
    a.tick();
    let s = run(&mut a, &mut narrow, "");
    assert!(!s.contains("Merged paths from GC roots"), "{s}");
}

#[test]
fn instances_without_a_label_show_and_match_their_first_fields() {
    let (mut a, mut term) = app_at(100, 30);
    let s = run(&mut a, &mut term, "/fixture.Session\n\n");
    // The Value column: each session's id, its first primitive field.
    assert!(s.lines().skip(2).take(5).all(|l| l.contains("id=1")), "{s}");
    let s = run(&mut a, &mut term, "/id=100005\n");
    let rows: Vec<&str> = s.lines().skip(2).filter(|l| l.contains(" 0x")).collect();
    assert!(!rows.is_empty() && rows.len() < 50, "{s}");
    // The value (`user="user-5" id=100005`) holds the pattern: a substring match,
    // marked.
    assert!(
        rows[0].starts_with("+ 0x") && rows[0].contains("id=100005"),
        "{s}"
    );
}

/// Issue 26: an instance list's `/` is the histogram's matcher (exact, prefix,
/// substring, then fuzzy, each row marked) over the id and the value, and a field that
/// refers to a string counts as a value by its text: on the Java leak fixture, each
/// `com.example.Session`'s `id` is a `String` ("sess-00042"), and `/sess-00042` finds that
/// session, marked `+` (in its value `… id="sess-00042"`); `/sess-0004` lists the ten
/// substring matches before the fuzzy ones; the id itself is an exact match, `=`.
#[test]
fn an_instance_filter_ranks_by_the_one_matcher_and_matches_a_string_field_s_text() {
    let mut a = leak_app();
    let mut term = terminal(110, 40);
    let s = run(&mut a, &mut term, "\u{1b}/com.example.Session\n\n");
    assert!(s.contains("Instances of com.example.Session"), "{s}");
    // The Value column: the first primitive field and the id's text (in the dump's
    // field order).
    let first = s.lines().nth(2).unwrap();
    assert!(
        first.contains("id=\"sess-") && first.contains("createdAt=17000000"),
        "{s}"
    );
    let s = run(&mut a, &mut term, "/sess-00042\n");
    assert!(s.contains("1 match \"sess-00042\""), "{s}");
    let row = s.lines().nth(2).unwrap();
    assert!(
        row.starts_with("+ 0x") && row.contains("id=\"sess-00042\""),
        "{s}"
    );
    // A shorter pattern: the ten sessions whose id holds it first (`+`), then the fuzzy
    // matches (`~`: "sess-00104" has "0", "0", "0", "4" in order after "sess-").
    let s = run(&mut a, &mut term, "/\u{1b}/sess-0004\n");
    let rows: Vec<&str> = s
        .lines()
        .skip(2)
        .filter(|l| l.get(1..4) == Some(" 0x"))
        .collect();
    let marks: Vec<char> = rows.iter().map(|l| l.chars().next().unwrap()).collect();
    assert!(marks[..10].iter().all(|&m| m == '+'), "{s}");
    assert!(
        rows[..10].iter().all(|l| l.contains("id=\"sess-0004")),
        "{s}"
    );
    assert!(
        marks.len() > 10 && marks[10..].iter().all(|&m| m == '~'),
        "{s}"
    );
    // The id exactly: its inspector (issue 39, friction 3: a list's `/` takes an object
    // id and `Enter` jumps to it).
    let id = rows[0].split_whitespace().nth(1).unwrap().to_string();
    let s = run(&mut a, &mut term, &format!("/\u{1b}/{id}\n"));
    assert!(
        s.contains(&format!("Inspector — com.example.Session {id}")),
        "{s}"
    );
}

#[test]
fn the_inspector_calls_a_weakly_reachable_object_so() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let d = dominators_of(&snap);
    // An object only weak or soft references lead to (the JDK keeps some in caches).
    let o = (0..snap.graph.len() as u32)
        .find(|&o| {
            d.is_weakly_reachable(o) && d.idom(o) == Some(heaptui::heap::dominators::VIRTUAL_ROOT)
        })
        .expect("a weakly reachable object");
    let name = snap.object_name(o);
    let mut a = on_histogram(p, snap);
    let mut term = terminal(120, 30);
    let s = shown(&mut a, &mut term, Request::Inspect(o));
    assert!(s.contains(&name), "{s}");
    assert!(s.contains("dominator none: weakly reachable"), "{s}");
    assert!(!s.contains("dominator (the GC roots)"), "{s}");
}

#[test]
fn classes_with_unreachable_instances_are_marked_with_a_footnote() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let g = &snap.graph;
    let d = dominators_of(&snap);
    // A class whose retained size is below its shallow size: some of its instances no
    // GC root reaches.
    let retained = d.class_retained(g);
    let rows = heaptui::heap::histogram::by_class(g);
    let row = rows
        .iter()
        .filter(|r| retained[r.class.unwrap() as usize] < r.shallow)
        .max_by_key(|r| r.shallow)
        .expect("a class retaining less than its shallow size");
    let c = row.class.unwrap();
    let n = (0..g.len() as u32)
        .filter(|&o| g.class_of.get(o as usize) == c && d.retained(o).is_none())
        .count();
    assert!(n > 0);
    let name = row.name.clone();
    let mut a = on_histogram(p, snap);
    let mut term = terminal(140, 30);
    let s = run(&mut a, &mut term, &format!("/{name}\n"));
    let line = s
        .lines()
        .find(|l| l.starts_with(&format!("= {name} ")))
        .unwrap_or_else(|| panic!("{s}"));
    // The retained column (from 120 columns the class's merged paths follow it).
    let retained = line[2 + name.len()..]
        .split_whitespace()
        .nth(2)
        .unwrap_or("");
    assert!(retained.ends_with('†'), "{line}\n{s}");
    assert!(
        s.contains(&format!(
            "† {} of {} {name} unreachable, not retained by anything",
            with_commas(n),
            with_commas(row.count as usize)
        )),
        "{s}"
    );
}

#[test]
fn the_help_wraps_under_its_own_column() {
    for (w, h) in [(80, 24), (60, 20), (200, 50)] {
        let (mut a, mut t) = app_at(w, h);
        let s = run(&mut a, &mut t, "?");
        let keys: std::collections::HashSet<&str> = heaptui::ui::keys::KEYMAP
            .iter()
            .flat_map(|b| b.keys.iter().copied())
            .chain(["Space"])
            .collect();
        let mut inside = 0;
        for l in s.lines() {
            let parts: Vec<&str> = l.split('│').collect();
            if parts.len() < 3 {
                continue;
            }
            inside += 1;
            let inner = parts[1];
            // A line starts with a key, or with the blank key column of a wrapped help.
            let first = inner.split(' ').next().unwrap_or("");
            assert!(
                first.is_empty() || keys.contains(first),
                "{w}x{h}: {inner:?} starts under the keys:\n{s}"
            );
        }
        assert!(inside > 5, "{s}");
    }
}

#[test]
fn narrow_rows_keep_ids_and_root_kinds_and_the_selected_row_is_shown_whole() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let g = &snap.graph;
    // An object with one of the longest shortest paths from a root that fit on the
    // screen: the deepest rows.
    let d = dominators_of(&snap);
    let o = (0..g.len() as u32)
        .filter(|&o| d.retained(o).is_some())
        .step_by(97)
        .map(|o| {
            let n = heaptui::heap::paths::to_roots(g, o, 1, false)
                .first()
                .map_or(0, |p| p.len());
            (n, o)
        })
        .filter(|&(n, _)| n <= 20)
        .max()
        .unwrap()
        .1;
    let path = heaptui::heap::paths::to_roots(g, o, 1, false).remove(0);
    let names: Vec<String> = path.iter().map(|&x| snap.object_name(x)).collect();
    let class = snap.class_name(o).to_string();
    let mut a = on_histogram(p, snap);
    for w in [80u16, 120] {
        let mut term = terminal(w, 30);
        let s = shown(&mut a, &mut term, Request::Paths(o));
        // Every object of the path is on screen with its whole id, and the root row
        // names its root kind whole.
        for n in &names {
            assert!(
                s.lines()
                    .any(|l| l.contains(&format!(" {n} ")) || l.ends_with(&format!(" {n}"))),
                "{w} columns: {n} cut or missing:\n{s}"
            );
        }
        assert!(
            s.lines()
                .any(|l| l.contains("[GC root: ") && l.contains("]")),
            "{s}"
        );
        // The line under the list: the selected object whole.
        assert!(
            s.lines()
                .any(|l| l.starts_with(&format!("▸ {class} {}", names.last().unwrap()))),
            "{s}"
        );
        run(&mut a, &mut term, "\u{1b}");
    }
}

/// Issue 26: at 80 columns the histogram cuts a long class name in its middle, as the
/// trees do (the package's head and the class both stay), after the filter's mark; the
/// line under the list has the name whole.
#[test]
fn the_histogram_cuts_long_names_in_the_middle() {
    let (mut a, mut term) = app_at(80, 24);
    let long = "java.util.concurrent.ConcurrentHashMap$Node";
    let s = run(&mut a, &mut term, "/ConcurrentHashMap$Node\n");
    let row = s
        .lines()
        .find(|l| l.starts_with("+ java.util.conc"))
        .unwrap_or_else(|| panic!("{s}"));
    let name = row.split("  ").next().unwrap();
    assert!(
        name.contains('…') && (name.ends_with("HashMap$Node") || name.ends_with("HashMap$Node[]")),
        "{row}\n{s}"
    );
    assert!(
        s.lines().any(|l| l.starts_with(&format!("▸ {long}"))),
        "{s}"
    );
}

#[test]
fn the_referrer_tree_and_the_paths_word_a_reference_alike() {
    // A session, held by its map entry's `value` field.
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let g = &snap.graph;
    let o = (0..g.len() as u32)
        .find(|&o| snap.class_name(o) == "dev.heaptui.fixture.Session")
        .unwrap();
    let mut a = on_histogram(p, snap);
    let mut term = terminal(120, 30);
    let mut rows = Vec::new();
    for req in [Request::Referrers(o), Request::Paths(o)] {
        let s = shown(&mut a, &mut term, req);
        let row = line_with(&s, "java.util.HashMap$Node 0x").to_string();
        rows.push(row);
        run(&mut a, &mut term, "\u{1b}");
    }
    for r in &rows {
        assert!(r.contains("value ← java.util.HashMap$Node 0x"), "{rows:?}");
    }
}

/// Issue 26: the inspector shows a double in its shortest round-trip form, as the CLI
/// does: `Double.MAX_VALUE`, the JDK's constant in the dump, as 1.7976931348623157e308,
/// not 309 digits.
#[test]
fn the_inspector_shows_floats_in_their_shortest_form() {
    let (mut a, mut t) = app_at(120, 40);
    let s = run(&mut a, &mut t, "/java.lang.Class\n\n");
    assert!(s.contains("Instances of java.lang.Class"), "{s}");
    let s = run(&mut a, &mut t, "/class java.lang.Double\n\n");
    assert!(s.contains("Inspector"), "{s}");
    assert!(
        s.contains("MAX_VALUE") && s.contains("1.7976931348623157e308"),
        "{s}"
    );
    assert!(s.contains("5e-324"), "{s}");
    assert!(!s.contains("17976931348623157000"), "{s}");
}

/// Issue 26: the summary overlay counts the threads `jstack` lists (15 Java threads in
/// `fixtures/java/coops/threads.txt`), as the threads pane does, not the dump's 10
/// ROOT THREAD OBJECT records.
#[test]
fn the_summary_overlay_counts_every_java_thread() {
    let (mut a, mut t) = app_at(120, 40);
    let s = run(&mut a, &mut t, "i");
    // The overlay's line `│threads               15   …│`.
    let after = s
        .lines()
        .find_map(|l| l.split_once("│threads "))
        .unwrap_or_else(|| panic!("{s}"))
        .1;
    assert_eq!(after.split_whitespace().next(), Some("15"), "{after}");
}

/// The summary overlay scrolls down to its last line at any width: its lines wrap at
/// spaces (a path after "read from" goes to the next row whole), and the rows it can
/// scroll through are counted as they wrap, not as their characters fill rows (counted
/// so, a long cache path in a deep checkout left the last lines out of reach).
#[test]
fn the_summary_overlay_scrolls_to_its_last_line_however_its_lines_wrap() {
    let (_, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let lines = heaptui::present::summary_lines_for(&snap);
    let last = lines.last().unwrap().1.split_whitespace().last().unwrap();
    for w in [34, 40, 47, 53, 60, 80] {
        let (mut a, mut t) = app_at(w, 24);
        let s = run(&mut a, &mut t, "i");
        assert!(s.contains("Summary"), "{w} columns:\n{s}");
        let s = run(&mut a, &mut t, &"j".repeat(200));
        assert!(s.contains(last), "{w} columns, {last:?} out of reach:\n{s}");
    }
}

/// The summary says where the dominator tree came from (read from the index cache's
/// entry), also when it was first drawn before the tree came: its lines, once walked,
/// are kept, and the tree's line was one of them only when the loading thread wrote
/// them after the tree; `i` pressed as the tree came (a loaded machine, in tmux) left it
/// out for good.
#[test]
fn the_summary_names_the_tree_s_origin_even_when_drawn_before_the_tree() {
    let (mut a, mut t) = app_at(100, 40);
    let s = run(&mut a, &mut t, "i");
    assert!(s.contains("object layout"), "{s}");
    assert!(
        !s.contains("dominator tree"),
        "a computed tree says nothing:\n{s}"
    );
    run(&mut a, &mut t, "\u{1b}");
    // The tree then comes, read from an entry.
    let r = ready(&mut a);
    let mut d =
        heaptui::heap::dominators::compute(&r.snap.graph, &heaptui::sys::progress::Progress::new());
    d.origin = heaptui::heap::dominators::Origin::Read("/cache/index/0123.tree".into());
    r.dom = Some(std::sync::Arc::new(d));
    let s = run(&mut a, &mut t, "i");
    let line = s
        .lines()
        .find(|l| l.contains("dominator tree"))
        .unwrap_or_else(|| panic!("no line of the tree:\n{s}"));
    assert!(line.contains("read from /cache/index/0123.tree"), "{s}");
}

/// Issue 26: the key table (README.md's then, docs/tui.md's since issue 38) names every
/// key `src/ui/keys.rs` binds, and no other (it lacked `Ctrl-u` and `Ctrl-d`): the keys in
/// backquotes in the table's first column, spelled as the page spells them (`↑`, `PgDn`,
/// `Space`), against the keymap.
#[test]
fn the_readme_key_table_names_exactly_the_keymap_s_keys() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tui.md")).unwrap();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| keys | what |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(table.len() > 10, "{table:?}");
    let spelled = |k: &str| -> String {
        match k {
            "↑" => "Up",
            "↓" => "Down",
            "←" => "Left",
            "→" => "Right",
            "PgUp" => "PageUp",
            "PgDn" => "PageDown",
            "Space" => " ",
            k => k,
        }
        .to_string()
    };
    let mut in_readme = std::collections::BTreeSet::new();
    for row in &table {
        let first = row.split('|').nth(1).unwrap();
        // `a`/`b`, `c`: the backquoted words.
        for (i, part) in first.split('`').enumerate() {
            if i % 2 == 1 {
                in_readme.insert(spelled(part));
            }
        }
    }
    let in_keymap: std::collections::BTreeSet<String> = heaptui::ui::keys::KEYMAP
        .iter()
        .flat_map(|b| b.keys.iter().map(|k| k.to_string()))
        .collect();
    let missing: Vec<&String> = in_keymap.difference(&in_readme).collect();
    let extra: Vec<&String> = in_readme.difference(&in_keymap).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "docs/tui.md's key table lacks {missing:?} and names {extra:?}, which keys.rs does not bind"
    );
}

fn key(c: char) -> KeyEvent {
    let code = match c {
        '\n' => KeyCode::Enter,
        '\u{1b}' => KeyCode::Esc,
        c => KeyCode::Char(c),
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Presses `keys`, draws the frame that announces their work and starts it (a job,
/// held back by the delay the test set): that frame's screen.
fn start_job(a: &mut App, t: &mut Terminal<TestBackend>, keys: &str) -> String {
    for c in keys.chars() {
        a.on_key(&key(c));
    }
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(t);
    assert!(a.work(), "work announced:\n{s}");
    assert_eq!(
        a.jobs().running(),
        1,
        "started on a thread of its own:\n{s}"
    );
    s
}

/// [`start_job`], then `Esc` before it ends: the screen once its thread has ended.
fn cancel_job(a: &mut App, t: &mut Terminal<TestBackend>, keys: &str) -> String {
    start_job(a, t, keys);
    a.on_key(&key('\u{1b}'));
    settled(a, t)
}

/// How long the tests that press keys while a job runs hold each job back before it
/// starts: the keys and frames between its start and the checks that it still runs take
/// milliseconds, but a test thread on a loaded machine (two busy CPU loops beside the
/// suite on two cores) can wait its turn for much longer than the 300–500 ms once used.
const HELD_MS: u64 = 2000;

/// The pause after each thousand values of a filter that the tests watch while it runs
/// (9,719 values: about a second in all), long enough that a test thread waiting its
/// turn on a loaded machine still finds it running (30 ms, 0.3 s in all, was short).
const FILTER_PAUSE: Duration = Duration::from_millis(100);

/// The app at 100×30 with each job held back `ms` before it starts (still running
/// when the next key comes).
fn slow_jobs(ms: u64) -> (App, Terminal<TestBackend>) {
    let (a, t) = app_at(100, 30);
    a.jobs().set_delay(Duration::from_millis(ms));
    (a, t)
}

/// The screen once the jobs running have ended and their results are in.
fn settled(a: &mut App, t: &mut Terminal<TestBackend>) -> String {
    settle(a);
    t.draw(|f| a.draw(f)).unwrap();
    screen(t)
}

/// Issue 26: `P` (the merged paths of a class) runs on a thread of its own. The frame
/// after the key says "working…"; keys are handled while the search runs (each job
/// held back half a second here, so that it is still running); its result replaces
/// the pane when it comes.
#[test]
fn merged_paths_run_off_the_ui_thread_with_the_keys_live() {
    let (mut a, mut t) = slow_jobs(HELD_MS);
    let s = start_job(&mut a, &mut t, "P");
    assert!(s.contains("working… finding the paths of byte[]"), "{s}");
    t.draw(|f| a.draw(f)).unwrap();
    assert!(screen(&t).contains("working…"), "{}", screen(&t));
    // Keys while it runs: the help opens and closes, the pane stays.
    a.on_key(&key('?'));
    assert!(a.help, "`?` handled while the job runs");
    t.draw(|f| a.draw(f)).unwrap();
    a.on_key(&key('?'));
    assert!(!a.help);
    assert_eq!(a.jobs().running(), 1, "the keys did not wait for the job");
    let s = settled(&mut a, &mut t);
    assert!(
        s.contains(" of 11,044 byte[]") && merged_title(&s).1 > 10_000,
        "{s}"
    );
    assert!(!s.contains("working…"), "{s}");
}

/// `Esc` while the merged paths are searched for closes the pane and drops the job: its
/// result, when the thread ends, goes nowhere.
#[test]
fn esc_cancels_merged_paths_being_searched_for() {
    let (mut a, mut t) = slow_jobs(HELD_MS);
    let s = cancel_job(&mut a, &mut t, "P");
    assert!(s.contains("Class histogram"), "{s}");
    assert!(!s.contains("Merged paths"), "{s}");
    assert_eq!(ready(&mut a).stack.len(), 1, "{s}");
}

/// The instance filter runs on a thread of its own: the list moves while it runs, and
/// the matches replace it when they come; `Esc` during it cancels it.
#[test]
fn an_instance_filter_runs_off_the_ui_thread_and_esc_cancels_it() {
    let (mut a, mut t) = string_instances();
    a.jobs().set_delay(Duration::from_millis(HELD_MS));
    start_job(&mut a, &mut t, "/customer-30\n");
    let before = ready(&mut a).top().selected_object();
    a.on_key(&key('j'));
    assert_ne!(
        ready(&mut a).top().selected_object(),
        before,
        "`j` moves in the list while the filter runs"
    );
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    assert!(s.contains("working… filtering 9,719"), "{s}");
    let s = settled(&mut a, &mut t);
    assert!(s.contains("14 match \"customer-30\""), "{s}");
    // Again, and Esc before it ends: the whole list, no matches coming.
    let s = cancel_job(&mut a, &mut t, "/customer-31\n");
    assert!(s.contains("filter cancelled"), "{s}");
    assert!(!s.contains("match"), "{s}");
    assert!(s.contains("9,719 objects"), "{s}");
}

/// Issue 26: a class's merged paths are kept: asked for again (`P` after `Esc`, or the
/// histogram's detail pane back on the class), they are shown at once, with no search.
#[test]
fn a_class_s_merged_paths_are_kept_for_the_next_ask() {
    let (mut a, mut t) = app_at(100, 30);
    let s = run(&mut a, &mut t, "P");
    let first = line_with(&s, "Merged paths from GC roots").to_string();
    assert!(!first.contains("working"), "{s}");
    run(&mut a, &mut t, "\u{1b}");
    let ended = a.jobs().ended();
    a.on_key(&key('P'));
    t.draw(|f| a.draw(f)).unwrap();
    assert!(a.work(), "the pane's work is asked for");
    assert_eq!(a.jobs().running(), 0, "no search started");
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    assert_eq!(line_with(&s, "Merged paths from GC roots"), first, "{s}");
    assert_eq!(a.jobs().ended(), ended, "no job ran");
    // Another class is searched for.
    let s = run(&mut a, &mut t, "\u{1b}jP");
    assert_ne!(line_with(&s, "Merged paths from GC roots"), first, "{s}");
    assert!(a.jobs().ended() > ended);
}

/// Issue 39, friction 1: below the sessions map's table, the entries of one class held
/// by one reference name are one row that says how many objects it stands for
/// (`[*] → java.util.HashMap$Node (1,237 objects)`), the sessions below them another,
/// and every session is counted (`expected.json`). `Enter` opens the row to its objects,
/// a page of 500 at a time, with a row for the rest that `Enter` pages on; `Enter` on an
/// object inspects it; `g` closes the row again.
#[test]
fn merged_rows_group_one_class_by_one_name_and_open_to_their_objects() {
    let t = fixture_json("java/expected.json");
    let sessions = t["instances"]["dev.heaptui.fixture.Session"]
        .as_u64()
        .unwrap();
    let (mut a, mut term) = app_at(120, 60);
    let s = run(&mut a, &mut term, "/dev.heaptui.fixture.Session\nP");
    let (_, merged) = merged_title(&s);
    assert_eq!(merged, sessions, "{s}");
    let objects = |l: &str| -> u64 {
        let n = l.split(" (").nth(1).unwrap().split(' ').next().unwrap();
        n.replace(',', "").parse().unwrap()
    };
    // The sessions, by the entries that hold them: all of them.
    let held: u64 = s
        .lines()
        .filter(|l| l.contains("value → dev.heaptui.fixture.Session ("))
        .map(objects)
        .sum();
    assert_eq!(held, sessions, "{s}");
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("[*] → java.util.HashMap$Node ("))
        .expect(&s);
    let entries = objects(lines[at]);
    assert!(entries > 500, "{s}");
    // The title is line 0: the row is `at - 1` rows down.
    let s = run(&mut a, &mut term, &format!("{}\n", "j".repeat(at - 1)));
    let lines: Vec<&str> = s.lines().collect();
    assert!(
        lines[at + 1]
            .trim_start()
            .starts_with("· java.util.HashMap$Node 0x"),
        "{s}"
    );
    let rest = |n: u64| {
        format!(
            "… {} more objects: Enter shows the next 500",
            with_commas(n as usize)
        )
    };
    // The page's 500, then the row of the rest: `Enter` there lists 500 more.
    let s = run(&mut a, &mut term, &"j".repeat(501));
    assert!(s.contains(&rest(entries - 500)), "{s}");
    assert_eq!(ready(&mut a).top().selected_object(), None);
    let s = run(&mut a, &mut term, "\n");
    // The selection on the first of the next 500; the rest after them.
    assert!(s.contains("· java.util.HashMap$Node 0x"), "{s}");
    let s = run(&mut a, &mut term, &"j".repeat(500));
    if entries > 1000 {
        assert!(s.contains(&rest(entries - 1000)), "{s}");
    } else {
        assert!(!s.contains("more objects: Enter"), "{s}");
    }
    // `Enter` on one of them inspects it.
    let s = run(&mut a, &mut term, "k\n");
    assert!(s.contains("Inspector — java.util.HashMap$Node"), "{s}");
    let s = run(&mut a, &mut term, "\u{1b}");
    assert!(s.contains("Merged paths from GC roots"), "{s}");
    // `g` on one of them closes the row, and the selection is back on it: `Enter`
    // opens it again.
    let s = run(&mut a, &mut term, "g");
    assert!(!s.contains("· java.util.HashMap$Node 0x"), "{s}");
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains("· java.util.HashMap$Node 0x"), "{s}");
}

/// Until the loading thread has built the depths from the roots (after the suspects),
/// or where memory was short for them, `P` searches from the roots: the same instances
/// counted and merged as with the depths.
#[test]
fn merged_paths_without_the_depths_are_searched_for() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    // Depths too far to read a path from: the pane must search.
    let n = snap.graph.len();
    snap.graph
        .depths
        .set(vec![heaptui::heap::depth::FAR; n])
        .unwrap();
    let mut searched = on_histogram(p, snap);
    let mut with_depths = app();
    for keys in ["P", "\u{1b}jjjP"] {
        let mut t = terminal(100, 30);
        let s = run(&mut searched, &mut t, keys);
        let (title, merged) = merged_title(&s);
        let title = title.to_string();
        let mut t = terminal(100, 30);
        let d = run(&mut with_depths, &mut t, keys);
        let (with, all) = merged_title(&d);
        // The same instances counted; the search merges the 10,000 nearest the roots
        // (and says so), the depths every one.
        let of = |t: &str| {
            let n = t.split(" of ").nth(1).unwrap().split(' ').next().unwrap();
            n.to_string()
        };
        assert_eq!(of(&title), of(with), "{s}\n{d}");
        let instances: u64 = of(with).replace(',', "").parse().unwrap();
        assert!(all <= instances && all > instances * 9 / 10, "{d}");
        assert_eq!(merged, all.min(10_000), "{s}");
        assert_eq!(
            title.contains("(the nearest the roots)"),
            instances > 10_000,
            "{s}"
        );
        assert!(merged > 100, "{s}");
    }
}

/// A filter started before the list has all its rows matches them in object order (its
/// first matches do not wait for millions of rows to be sorted) and ends with the rows
/// and order of the same filter over the whole sorted list, whose first rows in object
/// order it reads first; cleared while it runs, the list is back in its own order.
#[test]
fn a_filter_before_the_rows_are_sorted_ends_as_one_after() {
    // "java" also matches among the first rows in object order, which a filter reads
    // before the others and whose matches it must then place among the sorted rows.
    for filter in ["Method java/", "java"] {
        // All rows first (`G` sorts them all), then the filter.
        let (mut a, mut t) = string_instances();
        run(&mut a, &mut t, "Gg");
        let after = run(&mut a, &mut t, &format!("/{filter}\n"));
        assert!(after.contains(&format!(" match \"{filter}\"")), "{after}");
        // The filter first, a thousand values at a time.
        let (mut a, mut t) = string_instances();
        a.jobs().set_filter_step(1000, FILTER_PAUSE);
        let s = start_job(&mut a, &mut t, &format!("/{filter}\n"));
        assert!(s.contains("working…"), "{s}");
        assert_eq!(settled(&mut a, &mut t), after);
    }
    // Cleared while it runs: the list as it was.
    let (mut a, mut t) = string_instances();
    let whole = run(&mut a, &mut t, "");
    a.jobs().set_filter_step(1000, FILTER_PAUSE);
    start_job(&mut a, &mut t, "/Method java/\n");
    // Its first matches, while it runs.
    arrival(&mut a);
    let s = run(&mut a, &mut t, "/\u{1b}");
    // The rows by their ids (a wide character's neighbour cell may keep a letter of the
    // frame before in a TestBackend).
    let ids = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("0x"))
            .map(|l| l.split(' ').next().unwrap_or("").to_string())
            .collect()
    };
    assert!(ids(&whole).len() > 20, "{whole}");
    assert_eq!(ids(&s), ids(&whole), "{s}");
}

/// Issue 26: a long instance filter shows the matches it has found so far, and how far
/// it has read, before it ends (on the 50 M-object dump the whole of one takes seconds);
/// a row the user moves to among them stays selected as more come; and the matches it
/// ends with are those the same filter finds in one go.
#[test]
fn a_running_instance_filter_shows_its_matches_so_far() {
    let matched = |s: &str| -> usize {
        let t = line_with(s, "Instances of java.lang.String");
        let n = t
            .split(", ")
            .find(|p| p.contains(" match \"customer-3\""))
            .expect(t);
        n.split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .expect(t)
    };
    // In one go: the count to compare with, and the best match.
    let (mut a, mut t) = string_instances();
    let whole = matched(&run(&mut a, &mut t, "/customer-3\n"));
    assert!(whole > 10, "{whole}");
    let best = ready(&mut a).top().selected_object();
    // A thousand values at a time, apart: left alone, it ends on the best match.
    let (mut a, mut t) = string_instances();
    a.jobs().set_filter_step(1000, FILTER_PAUSE);
    start_job(&mut a, &mut t, "/customer-3\n");
    let s = settled(&mut a, &mut t);
    assert_eq!(matched(&s), whole, "{s}");
    assert_eq!(ready(&mut a).top().selected_object(), best, "{s}");
    // Again, and a move among the matches so far.
    let (mut a, mut t) = string_instances();
    a.jobs().set_filter_step(1000, FILTER_PAUSE);
    start_job(&mut a, &mut t, "/customer-3\n");
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let s = loop {
        if arrival(&mut a) {
            t.draw(|f| a.draw(f)).unwrap();
            let s = screen(&t);
            if s.contains("match so far") {
                break s;
            }
        }
        assert!(
            a.jobs().running() > 0 && std::time::Instant::now() < until,
            "the filter ended without showing its matches so far:\n{}",
            screen(&t)
        );
    };
    assert!(s.contains("working… \"customer-3\": "), "{s}");
    assert!(s.contains(" of 9,719 read, "), "{s}");
    let rows: Vec<&str> = s.lines().skip(2).filter(|l| l.contains(" 0x")).collect();
    // Substring matches first (`+`), fuzzy ones after them.
    assert!(
        rows.first()
            .is_some_and(|r| r.starts_with("+ ") && r.contains("\"customer-3")),
        "{s}"
    );
    a.on_key(&key('j'));
    let picked = ready(&mut a).top().selected_object();
    assert!(picked.is_some());
    let s = settled(&mut a, &mut t);
    assert!(!s.contains("so far") && !s.contains("working…"), "{s}");
    assert_eq!(matched(&s), whole, "{s}");
    assert_eq!(
        ready(&mut a).top().selected_object(),
        picked,
        "the row moved to stays selected:\n{s}"
    );
}

/// Issue 26: `P` on a filtered instance list merges the paths of its matches only, not
/// of the whole class.
#[test]
fn merged_paths_of_a_filtered_instance_list_are_of_its_matches() {
    let (mut a, mut t) = filtered_strings();
    let s = run(&mut a, &mut t, "P");
    let (title, merged) = merged_title(&s);
    assert!(
        title.contains("of 14 java.lang.String matching \"customer-30\""),
        "{s}"
    );
    assert!(!s.contains("9,719"), "{s}");
    // Every path ends at one of the matches: at most 14 of them merged.
    assert!((1..=14).contains(&merged), "{title}");
}

/// Issue 26: the three-snapshot view on the Node fixtures at 160×45: `Enter` on a leak
/// cluster opens its objects with the selected one's inspector beside them, following
/// the selection.
#[test]
fn a_leak_cluster_s_objects_have_the_inspector_beside_them() {
    let ids = node_leak_ids();
    let p = gunzipped("node/final.heapsnapshot.gz");
    let mut a = on_histogram(p, open_node("final"));
    if let heaptui::ui::app::Screen::Ready(r) = &mut a.screen {
        r.leaks = Some((std::sync::Arc::new(ids), Default::default()));
    }
    open(&mut a, Request::Leaks);
    let mut t = terminal(160, 45);
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("HeaptuiLeak"), "{s}");
    // The second cluster: the 250 `HeaptuiLeak` objects.
    let s = run(&mut a, &mut t, "j\n");
    let title = s.lines().next().unwrap();
    assert!(
        title.contains("Leaked instances of HeaptuiLeak — 250 objects"),
        "{s}"
    );
    let inspector = title.find("Inspector — ").expect(&s);
    assert!(inspector > 60, "beside the list:\n{s}");
    let name = |a: &mut App| {
        let r = ready(a);
        let o = r.top().selected_object().expect("a selected object");
        r.snap.object_name(o)
    };
    let first = name(&mut a);
    assert!(title[inspector..].contains(&first), "{first}:\n{s}");
    // The inspector follows the selection.
    let s = run(&mut a, &mut t, "j");
    let second = name(&mut a);
    assert_ne!(first, second, "{s}");
    let title = s.lines().next().unwrap();
    assert!(title[inspector..].contains(&second), "{second}:\n{s}");
    // `P` merges the paths of the cluster's objects (the program's 250 leaked
    // HeaptuiLeak objects, expected.json), each path ending at one of them.
    let s = run(&mut a, &mut t, "P");
    let (title, held) = merged_title(&s);
    assert!(title.contains(" of 250 HeaptuiLeak leaked"), "{s}");
    assert!((1..=250).contains(&held), "{s}");
}

/// Issue 26: the histogram's title beside a detail pane (120 and 140 columns) is
/// shortened to fit, not cut at its end: the counts, the sort and the filter stay.
#[test]
fn the_histogram_title_fits_beside_the_detail_pane() {
    for w in [120u16, 140] {
        let (mut a, mut t) = app_at(w, 30);
        let s = run(&mut a, &mut t, "/java.util.HashMap\n");
        let title = s.lines().next().unwrap();
        // The list's title ends where its border's line begins.
        let left = title.split('─').next().unwrap();
        assert!(
            left.contains("303") && left.contains("by shallow"),
            "{w}: {s}"
        );
        assert!(left.contains("\"java.util.HashMap\""), "{w}: {s}");
        assert!(left.contains("istogram"), "{w}: {s}");
    }
}

/// Issue 26: `g` on a node of 100,000 children or more groups them on a thread of its
/// own: "working…" first, keys live meanwhile, the class rows in place when they come;
/// `Esc` during it cancels it. The node: the class object of 150,000 instances, which
/// each refer to it (`<class>`), in the referrer tree.
#[test]
fn grouping_many_children_runs_off_the_ui_thread_and_esc_cancels_it() {
    let f = scratch().join("many-children.hprof");
    std::fs::write(&f, common::hostile::hprof_instances(150_000)).unwrap();
    let snap = heaptui::open(&f, &heaptui::sys::progress::Progress::new()).unwrap();
    let class_obj = (0..snap.graph.len() as u32)
        .find(|&o| snap.graph.referrers(o).len() >= 150_000)
        .expect("the class object");
    let mut a = on_histogram(f, snap);
    open(&mut a, Request::Referrers(class_obj));
    let mut t = terminal(100, 30);
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("<class> ← "), "{s}");
    a.jobs().set_delay(Duration::from_millis(HELD_MS));
    let s = start_job(&mut a, &mut t, "g");
    assert!(s.contains("working… grouping the children by class"), "{s}");
    // `j` while it runs: the selection moves from the class object to its first
    // referrer.
    a.on_key(&key('j'));
    assert_ne!(ready(&mut a).top().selected_object(), Some(class_obj));
    assert_eq!(a.jobs().running(), 1, "the key did not wait for the job");
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("▸ 150,000 × <class 0x100>"), "{s}");
    assert!(!s.contains("working…"), "{s}");
    // Ungrouped at once; grouped again, and Esc before it ends.
    let s = run(&mut a, &mut t, "g");
    assert!(s.contains("<class> ← ") && !s.contains(" × "), "{s}");
    let s = cancel_job(&mut a, &mut t, "g");
    assert!(s.contains("grouping cancelled"), "{s}");
    assert!(!s.contains(" × "), "{s}");
    assert!(s.contains("Referrers of"), "{s}");
}

// Issue 38: the loop sleeps on one queue of events and draws only when something
// changed. Each test below runs the loop on the app's real queue and records why it
// woke; the loop before it woke every 10 to 100 ms to poll its receivers and redrew on
// a timer, so every one of them failed there (more wakes, more frames).

/// Why the loop woke, in a word.
fn woke_for(ev: &Option<QueueEvent>) -> &'static str {
    match ev {
        Some(QueueEvent::Input(_)) => "input",
        Some(QueueEvent::Arrived) => "arrived",
        Some(QueueEvent::Tick) => "tick",
        Some(QueueEvent::Rest) => "rest",
        Some(_) => "other",
        None => "deadline",
    }
}

/// The loop on `a`'s queue until `stop` says so after a wake (or a minute has passed):
/// why it woke each time.
fn run_woken(
    a: &mut App,
    t: &mut Terminal<TestBackend>,
    mut stop: impl FnMut(&[&str]) -> bool,
) -> Vec<&'static str> {
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let mut woke = Vec::new();
    run_loop(t, a, |queue, wait| {
        if stop(&woke) {
            return Ok(None);
        }
        let ev = queue.next_until(wait, Some(until));
        woke.push(woke_for(&ev));
        Ok(ev)
    })
    .unwrap();
    woke
}

/// Nothing loading, no job, no key: the first frame, then no frame and no wake until
/// the test's deadline (the loop before drew 6 frames more in the 600 ms, and asked its
/// event source as often).
#[test]
fn an_idle_app_draws_no_frame_and_does_not_wake() {
    let (mut a, mut t) = app_at(80, 24);
    assert_eq!(
        a.wait(),
        heaptui::ui::events::Wait::default(),
        "nothing to wait for"
    );
    let until = std::time::Instant::now() + Duration::from_millis(600);
    let mut asked = 0;
    run_loop(&mut t, &mut a, |queue, wait| {
        asked += 1;
        Ok(queue.next_until(wait, Some(until)))
    })
    .unwrap();
    assert!(std::time::Instant::now() >= until);
    assert_eq!(asked, 1, "the loop woke for nothing");
    assert_eq!(
        t.get_frame().count(),
        1,
        "frames drawn with nothing changed"
    );
}

/// A job's result wakes the loop and is drawn without a key (the merged paths of a
/// class, held back 300 ms): the loop wakes twice, for the key and for the result, and
/// draws the result (the loop before looked for it every 10 ms).
#[test]
fn a_job_s_result_wakes_the_loop_and_is_drawn_without_a_key() {
    let (mut a, mut t) = slow_jobs(300);
    a.queue().push(QueueEvent::Input(Event::Key(key('P'))));
    let woke = run_woken(&mut a, &mut t, |woke| woke.last() == Some(&"arrived"));
    assert_eq!(woke, ["input", "arrived"]);
    let s = screen(&t);
    assert!(
        s.contains(" of 11,044 byte[]") && merged_title(&s).1 > 10_000,
        "{s}"
    );
    assert!(!s.contains("working…"), "{s}");
    // The first frame, the key's (announcing the work), the one after the work started,
    // and the result's.
    assert_eq!(t.get_frame().count(), 4);
}

/// The histogram's selection rests: the rest timer wakes the loop, which builds the
/// class's merged paths beside it, and their result wakes it again; nothing else does.
#[test]
fn the_rest_of_the_selection_wakes_the_loop_for_the_merged_paths() {
    let mut a = leak_app();
    a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    let mut t = terminal(160, 45);
    // The first class's paths, built at once (a test's selection has always rested).
    run(&mut a, &mut t, "");
    a.tick();
    run(&mut a, &mut t, "");
    let before = ready(&mut a).class_builds;
    assert_eq!(before, 1);
    while a.queue().try_next().is_some() {}
    a.set_detail_rest(Duration::from_millis(150));
    a.queue().push(QueueEvent::Input(Event::Key(key('j'))));
    let woke = run_woken(&mut a, &mut t, |woke| woke.last() == Some(&"arrived"));
    assert_eq!(woke, ["input", "rest", "arrived"]);
    assert_eq!(ready(&mut a).class_builds, before + 1);
    let s = screen(&t);
    let (title, _) = merged_title(&s);
    assert!(!title.contains("working…"), "{s}");
    assert!(!s.contains("once the selection rests"), "{s}");
}

/// While the index is built, the ticker has the progress drawn again every tenth of a
/// second, with no other event.
#[test]
fn a_loading_app_draws_its_progress_on_the_ticker() {
    let p = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let bytes = std::fs::read(&p).unwrap();
    let q =
        heaptui::format::hprof::quick_histogram(&bytes, &heaptui::sys::progress::Progress::new())
            .unwrap()
            .unwrap();
    let (mut a, _tx) = App::with_quick_histogram(p, q);
    assert!(a.wait().ticking);
    let mut t = terminal(80, 24);
    let woke = run_woken(&mut a, &mut t, |woke| woke.len() == 3);
    assert_eq!(woke, ["tick", "tick", "tick"]);
    assert_eq!(t.get_frame().count(), 4, "the first frame and one per tick");
    assert!(screen(&t).contains("Building the index"), "{}", screen(&t));
}

/// Issue 39, bug 5: the waste pane names a sparse collection held through another
/// collection's backing array by that collection and its holder, as the suspects do
/// (`fixtures/java/holders/stdout.txt`: 500 maps in `static holdout.SparseIndex.MAPS`).
#[test]
fn waste_names_the_collection_a_sparse_collection_is_in() {
    let truth = std::fs::read_to_string(common::fixture("java/holders/stdout.txt")).unwrap();
    let count = truth
        .lines()
        .find_map(|l| l.strip_prefix("maps count "))
        .unwrap();
    let mut a = common::tui::app_of("java/holders/heap-live.hprof.gz");
    let mut term = common::tui::terminal(160, 45);
    let s = run(&mut a, &mut term, "W");
    assert!(s.contains("Waste — "), "{s}");
    let line = s
        .lines()
        .find(|l| l.contains(&format!("{count} sparse HashMap")))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains("sparse HashMap in ArrayList in static SparseIndex.MAPS"),
        "{line}"
    );
}

/// Issue 39, friction 3: a list's `/` takes an object id as the tool prints it and
/// `Enter` opens its inspector: in the histogram and in a class's instances, on the Node
/// leak fixture, with the node id the program asked V8 for (`truth.json`: the first
/// `Session`); an id that is no object says so.
#[test]
fn slash_takes_an_object_id_and_opens_its_inspector() {
    let t = common::fixture_json("node/leak/truth.json");
    let first = &t["ids"]["firstSession"];
    let id = format!("@{}", first["id"].as_u64().unwrap());
    let class = first["name"].as_str().unwrap();
    let mut a = common::tui::app_of("node/leak/leak.heapsnapshot.gz");
    let mut term = common::tui::terminal(120, 40);
    let s = run(&mut a, &mut term, &format!("/{id}"));
    assert!(s.contains(&format!("Enter opens object {id}")), "{s}");
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains(&format!("Inspector — {class}")), "{s}");
    assert!(s.contains(&id), "{s}");
    // From a class's instances too (the histogram's first row's).
    let s = run(&mut a, &mut term, "\u{1b}\n");
    assert!(s.contains("Instances of"), "{s}");
    let s = run(&mut a, &mut term, &format!("/{id}\n"));
    assert!(s.contains(&format!("Inspector — {class}")), "{s}");
    // No such object: said in the status line.
    let s = run(&mut a, &mut term, "\u{1b}/@4000000000\n");
    assert!(s.contains("no object @4000000000 in this snapshot"), "{s}");
}

/// Issue 39, bug 9: a class name one letter off in the histogram's filter gets a "did
/// you mean": the class meant first, marked `?` (by edit distance, as the CLI's
/// `--class`), where no better than a fuzzy match is found: every class the leak fixture's
/// program declares that the JVM's histogram lists, its simple name with the last two
/// letters swapped.
#[test]
fn the_histogram_filter_says_which_class_a_typo_meant() {
    let jvm: Vec<String> = common::parse_jcmd_histogram(
        &std::fs::read_to_string(common::fixture("java/leak/histo-live-after.txt")).unwrap(),
    )
    .into_iter()
    .map(|(name, _, _)| name)
    .filter(|n| n.starts_with("com.example.") && !n.contains('$'))
    .collect();
    assert!(jvm.len() >= 4, "{jvm:?}");
    let mut a = leak_app();
    let mut term = terminal(140, 30);
    run(&mut a, &mut term, "\u{1b}");
    for full in &jvm {
        let short = full.rsplit('.').next().unwrap();
        let mut c: Vec<char> = short.chars().collect();
        let n = c.len();
        c.swap(n - 1, n - 2);
        let typo: String = c.into_iter().collect();
        // The class meant, first, marked `?` (did you mean).
        let s = run(&mut a, &mut term, &format!("/{typo}"));
        let first = s.lines().nth(2).unwrap_or("");
        assert!(
            first.starts_with("? ") && first.contains(full.as_str()),
            "{typo}: {s}"
        );
        run(&mut a, &mut term, "\u{1b}");
    }
}

/// Issue 39, friction 3: `/` in a list without a filter of its own (the leak suspects,
/// the dominator tree) takes an object id and `Enter` opens its inspector; what is no
/// id, or no object, is said.
#[test]
fn slash_in_a_list_without_a_filter_goes_to_an_object() {
    let t = common::fixture_json("node/leak/truth.json");
    let first = &t["ids"]["firstSession"];
    let id = format!("@{}", first["id"].as_u64().unwrap());
    let class = first["name"].as_str().unwrap();
    let mut a = common::tui::app_of("node/leak/leak.heapsnapshot.gz");
    let mut term = common::tui::terminal(120, 40);
    for pane in ["!", "d"] {
        let s = run(&mut a, &mut term, &format!("H{pane}/{id}"));
        assert!(s.contains(&format!("go to object: {id}")), "{pane}: {s}");
        let s = run(&mut a, &mut term, "\n");
        assert!(
            s.contains(&format!("Inspector — {class} {id}")),
            "{pane}: {s}"
        );
    }
    let s = run(&mut a, &mut term, "Hd/Session\n");
    assert!(s.contains("takes an object id"), "{s}");
    let s = run(&mut a, &mut term, "/@4000000000\n");
    assert!(s.contains("no object @4000000000 in this snapshot"), "{s}");
}

/// The links of the Java fixture's linked list, as its program wrote them
/// (`expected.json`).
fn chain_length() -> u64 {
    fixture_json("java/expected.json")["roots_and_structures"]["chain"]["length"]
        .as_u64()
        .unwrap()
}

/// Bug 8 of issue 39: the paths pane (`p`) of the last node of the fixture's linked list
/// (503 nodes from `static Main.CHAIN_ROOT`, `expected.json`) folds the run of `next`
/// into one row but for its ends, with how many it leaves out, and names the head's
/// holder; it does not list 500 rows.
#[test]
fn the_paths_pane_folds_a_linked_list() {
    let length = chain_length();
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let g = &snap.graph;
    let chain = |o: u32| snap.class_name(o) == "dev.heaptui.fixture.ChainNode";
    let tail = (0..g.len() as u32)
        .find(|&o| chain(o) && !g.edges(o).any(|e| chain(g.out_targets[e])))
        .unwrap();
    let mut a = on_histogram(p, snap);
    let mut term = terminal(120, 40);
    let s = shown(&mut a, &mut term, Request::Paths(tail));
    // The tail, five links, the fold, five links, the head: the links of the list less
    // the 10 shown, and the head, which CHAIN_ROOT holds.
    let folded = format!(
        "… {} more dev.heaptui.fixture.ChainNode via next …",
        with_commas(length as usize - 1 - 10)
    );
    assert!(s.contains(&folded), "{folded}:\n{s}");
    assert!(s.contains("static CHAIN_ROOT"), "{s}");
    assert!(s.contains("GC root"), "{s}");
}

/// Issue 39, bug 8 in the merged paths: `P` on the fixture's linked list (503 nodes from
/// `static Main.CHAIN_ROOT`, `expected.json`) counts every node and folds the run of
/// `next` rows but for its ends, as the paths pane does.
#[test]
fn merged_paths_fold_a_linked_list() {
    let length = chain_length();
    let (mut a, mut term) = app_at(120, 40);
    let s = run(&mut a, &mut term, "/dev.heaptui.fixture.ChainNode\nP");
    let all = with_commas(length as usize);
    assert!(
        s.contains(&format!("— {all} of {all} dev.heaptui.fixture.ChainNode")),
        "{s}"
    );
    assert!(
        s.contains("static CHAIN_ROOT → dev.heaptui.fixture.ChainNode"),
        "{s}"
    );
    // The head's 502 links: 5 shown, the fold, 5 shown.
    let folded = format!(
        "… {} more dev.heaptui.fixture.ChainNode via next …",
        with_commas(length as usize - 1 - 10)
    );
    assert!(s.contains(&folded), "{folded}\n{s}");
    assert_eq!(
        s.matches("next → dev.heaptui.fixture.ChainNode").count(),
        10,
        "{s}"
    );
}
