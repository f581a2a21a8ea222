//! The object inspector (issue 39): no line lost where the detail pane is narrow (bug
//! 1), big arrays paged and grouped by class (friction 5), who holds the object above
//! its fields (friction 6); and the other panes' detail lines, wrapped, not lost.

use crate::common;

use common::tui::*;
use common::*;
use heaptui::ui::app::App;
use heaptui::ui::panes::Request;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The three sizes the snapshots are taken at.
const SIZES: [(u16, u16); 3] = [(120, 40), (80, 24), (160, 45)];

/// The Java leak fixture as the TUI opens it: on the leak suspects.
fn leak_app() -> App {
    let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    App::with_snapshot(p, snap)
}

/// Opens the pane `req` asks for on top of the app's view, as a key would.
fn open(a: &mut App, req: Request) {
    if let heaptui::ui::app::Screen::Ready(r) = &mut a.screen {
        let theme = heaptui::ui::theme::Theme { color: false };
        r.open(req, &theme);
    }
}

/// The screen once the pane `req` asks for is opened on top of the app's view.
fn shown(a: &mut App, term: &mut Terminal<TestBackend>, req: Request) -> String {
    run(a, term, "");
    open(a, req);
    run(a, term, "")
}

/// The part of each row from column `x` on, trimmed: one side of a split screen.
fn column_from(s: &str, x: usize) -> String {
    s.lines()
        .map(|l| l.chars().skip(x).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The inspector's rows, from its title's column to the right end (the whole screen
/// when it fills it), joined into one text with single spaces: a line wrapped over
/// several rows reads whole.
fn inspector_text(s: &str) -> String {
    let title = line_with(s, "Inspector — ");
    let x = title[..title.find("Inspector — ").unwrap()].chars().count();
    // The title's " " and the border before it: the pane starts a little left of it.
    let x = if x < 5 { 0 } else { x.saturating_sub(4) };
    let side = column_from(s, x);
    side.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bug 1: the suspects screen's inspector keeps its dominator line at every size (at
/// 120 columns the wrapped retained line pushed it out), and `W` then `j` to a string
/// finding keeps its value line; at 80 columns `Enter` opens the inspector.
#[test]
fn the_inspector_beside_the_suspects_loses_no_line_at_any_size() {
    let t = fixture_json("java/leak/truth.json");
    let text = t["plants"]["duplicate_strings"]["text"].as_str().unwrap();
    let (_, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    let d = dominators_of(&snap);
    let r = heaptui::suspects::find(&snap, &d, 5);
    let top = r.suspects[0].object;
    let dom = d.idom(top).unwrap();
    let want_dom = format!(
        "dominator {} {}",
        snap.object_name(dom),
        snap.class_name(dom)
    );
    assert_eq!(snap.class_name(dom), "java.lang.Class");
    for (w, h) in SIZES {
        let mut a = leak_app();
        let mut term = terminal(w, h);
        let keys = if w < 120 { "\n" } else { "" };
        let s = run(&mut a, &mut term, keys);
        let ins = inspector_text(&s);
        assert!(ins.contains(&want_dom), "{w}x{h}: {want_dom:?} in\n{s}");
        assert!(ins.contains("retained 15.8 MiB"), "{w}x{h}:\n{s}");
        // The waste findings: the strings' row, its example's value.
        let s = run(&mut a, &mut term, if w < 120 { "\u{1b}Wj" } else { "Wj" });
        assert!(s.contains("equal strings"), "{w}x{h}:\n{s}");
        let s = if w < 120 {
            run(&mut a, &mut term, "\n")
        } else {
            s
        };
        let ins = inspector_text(&s);
        assert!(
            ins.contains(&format!("value {text:?}")),
            "{w}x{h}: the value line in\n{s}"
        );
        // `W j j j`: the first char[] finding's example, a value of 8192 NULs.
        let keys = if w < 120 { "\u{1b}jj\n" } else { "jj" };
        let s = run(&mut a, &mut term, keys);
        let ins = inspector_text(&s);
        assert!(ins.contains("length 8192"), "{w}x{h}:\n{s}");
        assert!(
            ins.contains("value \"\\0\\0"),
            "{w}x{h}: the value line in\n{s}"
        );
        assert!(ins.contains("dominator 0x"), "{w}x{h}:\n{s}");
    }
}

/// Bug 1, the other lines that were cut: a weakly reachable object's dominator line
/// and an unreachable one's retained size are whole (wrapped) in a narrow inspector.
#[test]
fn long_inspector_lines_wrap_whole_in_a_narrow_pane() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let d = dominators_of(&snap);
    let n = snap.graph.len() as u32;
    let weak = (0..n)
        .find(|&o| {
            d.is_weakly_reachable(o) && d.idom(o) == Some(heaptui::heap::dominators::VIRTUAL_ROOT)
        })
        .expect("a weakly reachable object");
    let garbage = (0..n)
        .find(|&o| d.retained(o).is_none())
        .expect("an unreachable object");
    let mut a = on_histogram(p, snap);
    for w in [40u16, 54, 66] {
        let mut term = terminal(w, 24);
        let s = shown(&mut a, &mut term, Request::Inspect(weak));
        let ins = inspector_text(&s);
        assert!(
            ins.contains(
                "dominator none: weakly reachable (only weak or soft references lead to it)"
            ),
            "{w}:\n{s}"
        );
        let s = shown(&mut a, &mut term, Request::Inspect(garbage));
        let ins = inspector_text(&s);
        assert!(
            ins.contains("retained - (no GC root reaches it)"),
            "{w}:\n{s}"
        );
    }
}

/// The `Object[]` behind `EventBus.listeners`: an `ArrayList` of `count` listeners with
/// room for `list_capacity` (truth.json), found by its length and its holder's class.
fn listeners_array(snap: &heaptui::Snapshot) -> u32 {
    let t = fixture_json("java/leak/truth.json");
    let cap = t["plants"]["listeners"]["list_capacity"].as_u64().unwrap();
    (0..snap.graph.len() as u32)
        .find(|&o| {
            snap.class_name(o) == "java.lang.Object[]"
                && snap.inspect(o).length == Some(cap)
                && snap
                    .graph
                    .referrers(o)
                    .iter()
                    .any(|&r| snap.class_name(r) == "java.util.ArrayList")
        })
        .expect("the listeners' Object[]")
}

/// Friction 5: a big array's elements are paged as the trees page (`Enter` on the
/// "… N more" row shows the next page, down to the last element), and `g` groups an
/// object array's elements by class, a class row opening to its members.
#[test]
fn a_big_array_pages_to_its_last_element_and_groups_by_class() {
    let t = fixture_json("java/leak/truth.json");
    let l = &t["plants"]["listeners"];
    let (cap, count) = (
        l["list_capacity"].as_u64().unwrap(),
        l["count"].as_u64().unwrap(),
    );
    let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    let arr = listeners_array(&snap);
    let mut a = on_histogram(p, snap);
    let mut term = terminal(120, 40);
    let s = shown(&mut a, &mut term, Request::Inspect(arr));
    let last = format!("[{}]", cap - 1);
    assert!(!s.contains(&last), "{s}");
    let mut pages = 0;
    let s = loop {
        // The last row is the "… N more" row while one is left: `Enter` there shows
        // the next page.
        let s = run(&mut a, &mut term, "G");
        if !line_with(&s, "▸ ").contains("more elements") {
            break s;
        }
        pages += 1;
        assert!(pages < 100, "no end after 100 pages:\n{s}");
        let s = run(&mut a, &mut term, "\n");
        assert!(!s.contains("does nothing here"), "{s}");
    };
    assert!(pages > 1, "{s}");
    assert!(line_with(&s, "▸ ").contains(&last), "{s}");
    // `g`: the elements by class, then `Enter` on the class row: its members.
    let s = run(&mut a, &mut term, "g");
    let class_row = format!("{} × com.example.Listener", with_commas(count as usize));
    let row = line_with(&s, &class_row);
    assert!(row.contains("KiB"), "{row}");
    assert!(!s.contains(&last), "grouped: no element rows\n{s}");
    // The class row is the first below the section: select it and open it.
    let mut s = s;
    for _ in 0..40 {
        if selected_row(&a).is_some_and(|r| r.contains(&class_row)) {
            break;
        }
        s = run(&mut a, &mut term, "j");
    }
    assert!(
        selected_row(&a).is_some_and(|r| r.contains(&class_row)),
        "{s}"
    );
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains("▾ "), "{s}");
    assert!(s.contains("[0] "), "{s}");
    assert!(
        line_with(&s, "[0] ").contains("com.example.Listener"),
        "{s}"
    );
    // `g` again: the elements as listed.
    let s = run(&mut a, &mut term, "g");
    assert!(!s.contains(&class_row), "{s}");
    assert!(s.contains("[0] "), "{s}");
}

/// The selected row of the app's top pane, as the line under the list shows it.
fn selected_row(a: &App) -> Option<String> {
    match &a.screen {
        heaptui::ui::app::Screen::Ready(r) => {
            let theme = heaptui::ui::theme::Theme { color: false };
            r.top().selected_line(&r.ctx(&theme))
        }
        _ => None,
    }
}

/// Friction 6: who holds the object comes before its fields, folded: the big array's
/// referrer and dominator are on the first screen at 80×24 (they came after its 100
/// elements), and an object with many referrers lists three, then how many more, with
/// `Enter` on that row opening them all.
#[test]
fn referrers_and_the_dominator_come_before_the_fields_folded() {
    let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    let d = dominators_of(&snap);
    let arr = listeners_array(&snap);
    let list = snap.graph.referrers(arr)[0];
    let want_ref = format!(
        "{} java.util.ArrayList via elementData",
        snap.object_name(list)
    );
    let want_dom = format!("dominator {}", snap.object_name(d.idom(arr).unwrap()));
    // The most referred-to object (a class object), with its referrers counted as the
    // inspector counts them: once each.
    let n = snap.graph.len() as u32;
    let popular = (0..n)
        .max_by_key(|&o| {
            let mut r = snap.graph.referrers(o).to_vec();
            r.dedup();
            r.len()
        })
        .unwrap();
    let mut refs = snap.graph.referrers(popular).to_vec();
    refs.dedup();
    assert!(refs.len() > 10);
    let mut a = on_histogram(p, snap);
    let mut term = terminal(80, 24);
    let s = shown(&mut a, &mut term, Request::Inspect(arr));
    assert!(s.contains(&want_ref), "{s}");
    assert!(s.contains(&want_dom), "{s}");
    let fields = s.lines().position(|l| l.starts_with("fields")).expect(&s);
    let held = s.lines().position(|l| l.contains(&want_ref)).unwrap();
    assert!(held < fields, "{s}");
    let s = shown(&mut a, &mut term, Request::Inspect(popular));
    let more = format!("… {} more referrers", with_commas(refs.len() - 3));
    assert!(s.contains(&more), "{s}");
    let shown_refs = s.lines().filter(|l| l.contains(" via ")).count();
    assert_eq!(shown_refs, 3, "{s}");
    // Up from the first field to the "… more" row, then `Enter`: all of them.
    let mut s = s;
    for _ in 0..10 {
        if selected_row(&a).is_some_and(|r| r.contains(&more)) {
            break;
        }
        s = run(&mut a, &mut term, "k");
    }
    assert!(selected_row(&a).is_some_and(|r| r.contains(&more)), "{s}");
    let s = run(&mut a, &mut term, "\n");
    assert!(s.contains("Referrers of "), "{s}");
}

/// Bug 1 in the suspects pane: the detail under the list wraps its lines and is sized
/// by the rows they take; at 120 columns (the list's half of the split) the suspect's
/// object (`· 0x… ArrayList`) was cut off its line, and the waste finding's line of
/// the sparse maps lost its end.
#[test]
fn the_suspect_and_waste_details_wrap_their_lines_whole() {
    let (_, snap) = open_fixture("java/leak/heap-live.hprof.gz");
    let d = dominators_of(&snap);
    let r = heaptui::suspects::find(&snap, &d, 5);
    let top = &r.suspects[0];
    let want = format!("{} ArrayList", snap.object_name(top.object));
    // The sparse maps' finding ends with their entries and slots (truth.json).
    let t = fixture_json("java/leak/truth.json");
    let m = &t["plants"]["sparse_maps"];
    let count = m["count"].as_u64().unwrap();
    let slots = format!(
        "{} entries in {} slots",
        count * m["size"].as_u64().unwrap(),
        count * m["table_length"].as_u64().unwrap()
    );
    for (w, h) in SIZES {
        let mut a = leak_app();
        let mut term = terminal(w, h);
        let s = run(&mut a, &mut term, "");
        let left = list_side(&s, w);
        let joined = left.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            joined.contains(&format!("of 34.2 MiB) · {want}")),
            "{w}x{h}: {want:?} in\n{left}"
        );
        assert!(
            joined.contains("path: JNI global → <defined class> → static INDEXES"),
            "{w}x{h}:\n{left}"
        );
        // (`j k`: the inspector beside the list follows the selection once it moves.)
        let s = run(&mut a, &mut term, "Wjk");
        let left = list_side(&s, w);
        let detail = left.split("────\n").last().unwrap();
        let joined = detail.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(joined.contains(&slots), "{w}x{h}: {slots:?} in\n{left}");
    }
}

/// The list's side of the screen `s`, `w` wide: up to the inspector's title from 120
/// columns, where the inspector is beside the list; the whole screen below.
fn list_side(s: &str, w: u16) -> String {
    if w < 120 {
        return s.to_string();
    }
    let title = line_with(s, "Inspector — ");
    let x = title[..title.find("Inspector — ").unwrap()].chars().count() - 2;
    s.lines()
        .map(|l| l.chars().take(x).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Bug 1 in the threads pane: a thread's or a frame's row cut at the pane's width says
/// so (`…`), and the line under the list shows it whole (it showed nothing for them).
#[test]
fn threads_rows_cut_with_a_mark_and_shown_whole_under_the_list() {
    let (mut a, mut term) = app_at(40, 24);
    let s = run(&mut a, &mut term, "t");
    assert!(s.contains("Threads"), "{s}");
    // Cut with a mark: the names give way (in their middle), the figures stay.
    let first = s.lines().nth(1).unwrap().trim_end();
    assert!(first.contains('…'), "{s}");
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("frames,") && joined.contains("locals"),
        "{s}"
    );
    // A frame's row: `l` expands the thread, `j` goes to its first frame.
    let s = run(&mut a, &mut term, "lj");
    let row = s
        .lines()
        .find(|l| l.trim_start().starts_with("at "))
        .expect(&s);
    let at = row.trim();
    let text = at.trim_end_matches('…');
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains(text) && joined.contains(')'), "{s}");
}

/// Friction 5 in every format: the pages `inspect_from` lists follow one another, each
/// element once, up to the count the first page gave (its listed ones and the rest),
/// on the widest object of each leak fixture (a V8, Dart or MoarVM node listed 200 or
/// 256 references at most, a Go object 128 words).
#[test]
fn every_format_pages_an_object_s_elements_to_the_end() {
    for rel in [
        "node/leak/leak.heapsnapshot.gz",
        "dart/leak/leak.dartheap.gz",
        "moarvm/leak/leak.mvmheap.gz",
        "go/leak/heap.dump.gz",
        "java/leak/heap-live.hprof.gz",
    ] {
        let (_, snap) = open_fixture(rel);
        let g = &snap.graph;
        let widest = (0..g.len() as u32)
            .max_by_key(|&o| {
                if rel.starts_with("go") {
                    g.shallow_size(o)
                } else {
                    g.edges(o).len() as u64
                }
            })
            .unwrap();
        let first = snap.inspect(widest);
        assert!(first.more_elements > 0, "{rel}: {first:?}");
        let total = first.fields.len() as u64 + first.more_elements;
        let mut names: Vec<String> = first.fields.iter().map(|f| f.name.clone()).collect();
        let (mut from, mut more) = (first.next_from, first.more_elements);
        while more > 0 {
            let page = snap.inspect_from(widest, from);
            assert!(!page.fields.is_empty(), "{rel}: an empty page at {from}");
            names.extend(page.fields.iter().map(|f| f.name.clone()));
            assert!(page.next_from > from, "{rel}");
            (from, more) = (page.next_from, page.more_elements);
        }
        assert_eq!(names.len() as u64, total, "{rel}");
        if rel.starts_with("java") || rel.starts_with("go") {
            // Array indices and word offsets name each element once.
            let mut sorted = names.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len(), "{rel}");
        }
    }
}

/// An HPROF file (8-byte ids) with an `Object[]` of `n` instances of one class, held by
/// a JNI global: the array at 0x50.
fn big_array_hprof(n: usize) -> Vec<u8> {
    let mut h = common::hostile::Hprof::new(8);
    h.heap.reserve(n * 33 + 128);
    h.class_dump(0x100, 0, &[]);
    h.class_dump(0x200, 0, &[]);
    let ids: Vec<u64> = (0..n as u64).map(|i| 0x10000 + 16 * i).collect();
    for &i in &ids {
        h.instance(i, 0x100, &[]);
    }
    let mut r = vec![0x22];
    r.extend(h.idb(0x50));
    r.extend_from_slice(&0u32.to_be_bytes());
    r.extend_from_slice(&(n as u32).to_be_bytes());
    r.extend(h.idb(0x200));
    for &i in &ids {
        r.extend(h.idb(i));
    }
    h.heap.extend(r);
    h.jni_global(0x50);
    h.finish()
}

/// Friction 5 on an array of 150,000 objects: `g` groups its elements on a thread of
/// its own (as a tree's `g` on as many children): "working…" first, the class row when
/// it comes; `Esc` while it runs cancels it.
#[test]
fn grouping_a_big_array_runs_off_the_ui_thread_and_esc_cancels_it() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let key = |c: char| {
        let code = if c == '\u{1b}' {
            KeyCode::Esc
        } else {
            KeyCode::Char(c)
        };
        KeyEvent::new(code, KeyModifiers::NONE)
    };
    let f = scratch().join("big-array.hprof");
    std::fs::write(&f, big_array_hprof(150_000)).unwrap();
    let snap = heaptui::open(&f, &heaptui::sys::progress::Progress::new()).unwrap();
    let arr = snap.find_object("0x50").expect("the array");
    let mut a = on_histogram(f, snap);
    let mut t = terminal(100, 30);
    let s = shown(&mut a, &mut t, Request::Inspect(arr));
    assert!(s.contains("fields (150,000)"), "{s}");
    a.jobs().set_delay(std::time::Duration::from_millis(2000));
    a.on_key(&key('g'));
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    assert!(s.contains("working… grouping the elements by class"), "{s}");
    assert!(a.work(), "{s}");
    assert_eq!(a.jobs().running(), 1, "on a thread of its own:\n{s}");
    settle(&mut a);
    let s = run(&mut a, &mut t, "");
    assert!(s.contains("150,000 × <class 0x100>"), "{s}");
    assert!(!s.contains("working…"), "{s}");
    // Listed again at once; grouped again, and `Esc` before it ends.
    let s = run(&mut a, &mut t, "g");
    assert!(s.contains("[0] ") && !s.contains(" × "), "{s}");
    a.on_key(&key('g'));
    t.draw(|f| a.draw(f)).unwrap();
    assert!(a.work());
    a.on_key(&key('\u{1b}'));
    settle(&mut a);
    t.draw(|f| a.draw(f)).unwrap();
    let s = screen(&t);
    assert!(s.contains("grouping cancelled"), "{s}");
    assert!(s.contains("Inspector — ") && !s.contains(" × "), "{s}");
}

/// Bug 1 in the histogram: its footnote on the unreachable instances wraps under the
/// table at 80 columns (its end, "(garbage in this dump)", was cut off).
#[test]
fn the_histogram_footnote_wraps_whole_at_80_columns() {
    let (p, snap) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let d = dominators_of(&snap);
    // The first class of the histogram (most shallow bytes: byte[]) and its instances
    // no GC root reaches.
    let byte = snap
        .graph
        .classes
        .iter()
        .position(|c| c.name == "byte[]")
        .unwrap() as u32;
    let n = (0..snap.graph.len() as u32)
        .filter(|&o| snap.graph.class_of.get(o as usize) == byte && d.retained(o).is_none())
        .count();
    assert!(n > 0);
    let mut a = on_histogram(p, snap);
    let mut term = terminal(80, 24);
    let s = run(&mut a, &mut term, "");
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(&format!("† {} of ", with_commas(n)))
            && joined
                .contains("byte[] unreachable, not retained by anything (garbage in this dump)"),
        "{s}"
    );
}

/// Bug 1 in the snapshots pane (`#`, MoarVM, a file of five snapshots): a snapshot's row
/// cut at 80 columns says so (`…`), and the line under the list shows it whole.
#[test]
fn snapshot_rows_cut_with_a_mark_and_shown_whole_under_the_list() {
    let (_, snap) = open_fixture("moarvm/app-v3.mvmheap.gz");
    let label = snap
        .snapshots
        .iter()
        .find(|s| s.index == snap.snapshot_index)
        .map(|s| s.label.clone())
        .unwrap();
    let mut a = app_of("moarvm/app-v3.mvmheap.gz");
    let mut term = terminal(80, 24);
    let s = run(&mut a, &mut term, "#");
    assert!(s.contains("Snapshots"), "{s}");
    // The snapshot open (the last of the file's five) is the one selected.
    let row = s.lines().find(|l| l.starts_with('▶')).expect(&s).trim_end();
    assert!(label.len() > 60, "{label}");
    assert!(row.ends_with('…'), "{s}");
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains(&label), "{label:?} in\n{s}");
}

/// Bug 1 in the waste list: a finding's row wider than the pane (beside the inspector at
/// 120 columns) was cut at the pane's edge without a mark; it ends with `…`, and the
/// line under the list has it whole.
#[test]
fn waste_rows_cut_with_a_mark() {
    let (mut a, mut term) = app_at(120, 40);
    run(&mut a, &mut term, "!W");
    // The next turns: the findings, then the inspector beside them.
    a.tick();
    run(&mut a, &mut term, "");
    a.tick();
    let s = run(&mut a, &mut term, "");
    assert!(s.contains("Waste — "), "{s}");
    let list = list_side(&s, 120);
    let sparse = list
        .lines()
        .find(|l| l.contains(" sparse ") && l.trim_end().chars().count() >= 60)
        .unwrap_or_else(|| panic!("no long sparse row:\n{list}"));
    assert!(sparse.trim_end().ends_with('…'), "{sparse:?}\n{s}");
}

/// An object one array holds at ten places (the leak fixture's `String[]` 0xf07246e0
/// holds one string at `[2]` to `[11]`): the outgoing tree's one row for it names every
/// place, and so do the referrer tree and the inspector's referrers of the string (each
/// named by the first place before).
#[test]
fn a_target_held_at_several_places_is_one_row_naming_them_all() {
    let (p, session) = open_fixture("java/leak/heap-live.hprof.gz");
    let snap = session.snapshot().clone();
    let array = snap.find_object("0xf07246e0").unwrap();
    let held = snap.find_object("0xfff00010").unwrap();
    let all = "[2], [3], [4], [5], [6], [7], [8], [9], [10], [11]";
    let mut a = on_histogram(p, snap);
    let mut t = terminal(160, 40);
    let s = shown(&mut a, &mut t, Request::Outgoing(array));
    assert!(s.contains(&format!("{all} ")), "{s}");
    let s = shown(&mut a, &mut t, Request::Referrers(held));
    let row = line_with(&s, "0xf07246e0");
    assert!(row.contains(all), "{s}");
    // The inspector lists its first three referrers: another array that holds it
    // twice, and a URL whose two fields hold it.
    let s = shown(&mut a, &mut t, Request::Inspect(held));
    assert!(
        s.contains("0xf0318a20 java.lang.String[] via [11], [12]"),
        "{s}"
    );
    assert!(s.contains("java.net.URL via authority, host"), "{s}");
}
