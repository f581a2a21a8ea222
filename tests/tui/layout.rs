//! Issue 39's layout: a blank column between side-by-side panes (bug 3), ids never cut
//! and the line under the list describing the focused pane's row whole (bug 4, friction
//! 2), `<` `>` moving the split and `z` zooming the focused pane (friction 2), and the
//! diff's signed cells whole at 80 columns (bug 9), on the real fixtures at 80×24,
//! 120×40 and 160×45.

use crate::common;

use common::tui::*;
use common::*;
use heaptui::ui::app::{App, Screen};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The screen's cells, row by row (one symbol per cell).
fn grid(t: &Terminal<TestBackend>) -> Vec<Vec<String>> {
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect()
        })
        .collect()
}

fn text(row: &[String]) -> String {
    row.concat()
}

/// The column (in cells) where `what` first begins on row `y`.
fn x_of(g: &[Vec<String>], y: usize, what: &str) -> Option<usize> {
    let row = &g[y];
    (0..row.len()).find(|&x| text(&row[x..]).starts_with(what))
}

/// The rows the panes take: above the line under the list (`▸ …`, which may wrap), the
/// status line and the hint line.
fn pane_rows(g: &[Vec<String>]) -> usize {
    let h = g.len() - 2;
    (0..h)
        .rev()
        .find(|&y| text(&g[y]).starts_with("▸ "))
        .unwrap_or(h)
}

/// The line under the list, its wrapped rows joined.
fn line_under(g: &[Vec<String>]) -> String {
    let end = g.len() - 2;
    let from = pane_rows(g);
    assert!(from < end, "no line under the list:\n{}", rows_of(g));
    (from..end)
        .map(|y| text(&g[y]).trim_end().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn rows_of(g: &[Vec<String>]) -> String {
    g.iter().map(|r| text(r)).collect::<Vec<_>>().join("\n")
}

/// Whether a column just left of `x` is blank on every row of the panes (the gap
/// between a pane and the one that begins at `x`, where its title's first word is).
fn gap_before(g: &[Vec<String>], x: usize) -> bool {
    let rows = pane_rows(g);
    (x.saturating_sub(3)..x.saturating_sub(1)).any(|c| (0..rows).all(|y| g[y][c] == " "))
}

fn shown(app: &mut App, keys: &str, w: u16, h: u16) -> (Terminal<TestBackend>, Vec<Vec<String>>) {
    let mut t = terminal(w, h);
    run(app, &mut t, keys);
    // What the last frame's width asked for (the detail beside the list), drawn.
    app.tick();
    t.draw(|f| app.draw(f)).unwrap();
    if app.work() {
        settle(app);
        t.draw(|f| app.draw(f)).unwrap();
    }
    let g = grid(&t);
    (t, g)
}

fn leak_app() -> App {
    app_of("java/leak/heap-live.hprof.gz")
}

fn growth_diff() -> App {
    let open =
        |f: &str| heaptui::open(&gunzipped(f), &heaptui::sys::progress::Progress::new()).unwrap();
    App::with_snapshots(
        open("java/growth/base.hprof.gz"),
        open("java/growth/target.hprof.gz"),
    )
}

/// Bug 3: `holds 30,000 Cache…port0xe0f00000 java.util.HashMap` — the suspects ran into
/// the inspector. Every pair of side-by-side panes has a blank column between them: the
/// suspects and the inspector, an instance list and the inspector, the histogram and the
/// merged paths, the diff's two sides and the third column.
#[test]
fn side_by_side_panes_have_a_blank_column_between_them() {
    type Case = (
        &'static str,
        fn() -> App,
        &'static str,
        &'static [&'static str],
    );
    let cases: &[Case] = &[
        ("suspects", leak_app, "!", &["Inspector"]),
        (
            "instances",
            leak_app,
            "/com.example.Session\n\n",
            &["Inspector"],
        ),
        ("histogram", leak_app, "j", &["Merged paths"]),
        ("diff sides", growth_diff, "ssgj\n", &["TARGET ◆"]),
    ];
    for (w, h) in [(120u16, 40u16), (160, 45)] {
        for &(what, app, keys, titles) in cases {
            let mut a = app();
            let (_, g) = shown(&mut a, keys, w, h);
            for title in titles {
                let x = x_of(&g, 0, title)
                    .unwrap_or_else(|| panic!("{what} {w}x{h}: no {title}:\n{}", rows_of(&g)));
                assert!(
                    gap_before(&g, x),
                    "{what} at {w}x{h}: no blank column before {title}:\n{}",
                    rows_of(&g)
                );
            }
        }
    }
    // The diff's third column at 160: the focused side's inspector.
    let mut a = growth_diff();
    let (_, g) = shown(&mut a, "ssgj\n", 160, 45);
    let x = x_of(&g, 0, "TARGET: the selected object").expect("the third column");
    assert!(gap_before(&g, x), "{}", rows_of(&g));
}

/// The objects named on the rows of the pane whose title begins at `x` on row 0: each
/// row's id, which must name an object of the snapshot whole.
fn ids_in_pane(app: &App, g: &[Vec<String>], x: usize) -> Vec<String> {
    let Screen::Ready(r) = &app.screen else {
        panic!("one snapshot")
    };
    ids_in(&r.snap, g, x, 1)
}

/// [`ids_in_pane`] on `snap`, from row `top` down.
fn ids_in(snap: &heaptui::Snapshot, g: &[Vec<String>], x: usize, top: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for y in top..pane_rows(g) {
        let row = text(&g[y][x.saturating_sub(1)..]);
        if row.trim().is_empty() {
            continue;
        }
        // A merged-paths row of several objects of one class names no id: its count,
        // whole, stands for them (issue 39, friction 1).
        if row.contains(" objects)") {
            let count = row.split(" objects)").next().unwrap_or("");
            let digits = count.rsplit('(').next().unwrap_or("");
            assert!(
                !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == ','),
                "row {y}: a group's count cut in {row:?}:\n{}",
                rows_of(g)
            );
            ids.push(String::new());
            continue;
        }
        let found: Vec<&str> = row
            .split(' ')
            .filter(|w| (w.starts_with("0x") && w.len() > 2) || (w.starts_with('@') && w.len() > 1))
            .collect();
        let whole = found.iter().find(|w| {
            snap.find_object(w)
                .is_some_and(|o| snap.object_name(o) == **w)
        });
        assert!(
            whole.is_some(),
            "row {y}: no whole id in {row:?}:\n{}",
            rows_of(g)
        );
        ids.push(whole.unwrap().to_string());
    }
    ids
}

/// Bug 4: `[JNI global] jdk.…der 0` and `‹d… java…ass 0xe2fa6b` in the merged paths
/// beside the histogram at 120–130 columns: the names give way, never the id, on the
/// Java leak fixture (`HashMap$Node[]`, second by shallow size) and on the Chromium
/// page (its first class).
#[test]
fn merged_paths_rows_keep_their_ids_whole_beside_the_histogram() {
    for (fixture, keys) in [
        ("java/leak/heap-live.hprof.gz", "j"),
        ("chromium/detached.heapsnapshot.gz", "jk"),
    ] {
        for (w, h) in [(120u16, 40u16), (130, 40), (160, 45)] {
            let mut a = app_of(fixture);
            let (_, g) = shown(&mut a, keys, w, h);
            let x = x_of(&g, 0, "Merged paths")
                .unwrap_or_else(|| panic!("{fixture} {w}x{h}:\n{}", rows_of(&g)));
            let ids = ids_in_pane(&a, &g, x);
            assert!(ids.len() > 5, "{fixture} {w}x{h}:\n{}", rows_of(&g));
        }
    }
}

/// Bug 4, in every tree: a tree on a side of the diff at 80 columns (40 cells) keeps
/// each row's id whole; its names, its reference and its indent give way, and it shows
/// the retained size alone (the line under it has them all).
#[test]
fn trees_on_a_narrow_side_keep_their_ids_whole() {
    for keys in ["r", "o", "d", "p"] {
        for (w, h) in [(80u16, 24u16), (120, 40)] {
            let mut a = growth_diff();
            let (_, g) = shown(&mut a, &format!("ssgj\n{keys}"), w, h);
            let Screen::Diff(v) = &a.screen else { panic!() };
            let x = x_of(&g, 0, "TARGET ◆").unwrap();
            let ids = ids_in(&v.target.snap, &g, x, 2);
            assert!(!ids.is_empty(), "{keys} {w}x{h}:\n{}", rows_of(&g));
        }
    }
}

/// Bug 4: after `Tab` into the merged paths, the line under the list still described
/// the histogram's row. It describes the focused pane's selected row, whole.
#[test]
fn the_line_under_the_list_describes_the_focused_pane_s_row() {
    for (w, h) in [(120u16, 40u16), (160, 45)] {
        focused_line_at(w, h);
    }
}

fn focused_line_at(w: u16, h: u16) {
    let mut a = leak_app();
    let (_, g) = shown(&mut a, "j", w, h);
    assert!(
        line_under(&g).starts_with("▸ java.util.HashMap$Node[] · 1,333 objects"),
        "{}",
        rows_of(&g)
    );
    let x = x_of(&g, 0, "Merged paths").unwrap();
    let ids = ids_in_pane(&a, &g, x);
    for (k, keys) in ["\t", "j", "j"].iter().enumerate() {
        let (_, g) = shown(&mut a, keys, w, h);
        let line = line_under(&g);
        // A row of several objects names their class and count, not an id.
        let want = if ids[k].is_empty() {
            " objects) ".to_string()
        } else {
            format!(" {} ", ids[k])
        };
        assert!(
            line.contains(&want),
            "after {k} moves, {:?}: {line}\n{}",
            ids[k],
            rows_of(&g)
        );
        assert!(line.contains(" objects"), "{line}");
    }
    // The object keys act on the focused pane's row too: `p`, the paths of the third.
    let (_, g) = shown(&mut a, "p", w, h);
    let title = text(&g[0]);
    assert!(
        title.contains("Shortest paths") && title.contains(&ids[2]),
        "{}",
        rows_of(&g)
    );
    // Back: the histogram has the keys again, and the line is its row's.
    let (_, g) = shown(&mut a, "\u{1b}", w, h);
    assert!(
        line_under(&g).starts_with("▸ java.util.HashMap$Node[]"),
        "{}",
        rows_of(&g)
    );
}

/// The diff's sides had no line under them: the focused side's selected row, whole.
#[test]
fn the_diff_s_sides_have_the_focused_side_s_row_under_them() {
    for (w, h) in [(80u16, 24u16), (120, 40), (160, 45)] {
        let mut a = growth_diff();
        let (_, g) = shown(&mut a, "ssgj\n", w, h);
        let line = line_under(&g);
        assert!(
            line.contains("dev.heaptui.growth.CacheEntry 0x"),
            "{w}x{h}: {line}\n{}",
            rows_of(&g)
        );
        // The base's second row: `Tab`, then down one on that side.
        let (_, g) = shown(&mut a, "\tj", w, h);
        let x = x_of(&g, 0, "BASE").unwrap();
        let base_second = text(&g[4][x.saturating_sub(1)..])
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        assert!(base_second.starts_with("0x"), "{}", rows_of(&g));
        assert!(line_under(&g).contains(&base_second), "{}", rows_of(&g));
    }
}

/// Friction 2: the suspects' rows cut their titles (`static R…e.CACHE`); the line
/// under the list has the selected suspect's title whole (wrapped), not only its object.
#[test]
fn the_line_under_the_suspects_has_the_suspect_whole() {
    for (w, h) in [(80u16, 24u16), (120, 40), (160, 45)] {
        let mut a = leak_app();
        let (_, g) = shown(&mut a, "!j", w, h);
        let Screen::Ready(r) = &a.screen else {
            panic!()
        };
        let title = r.suspects.as_ref().unwrap().suspects[1].title.clone();
        assert!(title.contains("SessionCache.SESSIONS"), "{title}");
        let line = line_under(&g);
        assert!(line.contains(&title), "{w}x{h}: {title:?} in {line:?}");
    }
}

/// Friction 2: every pane's selected row is whole under the list: a thread's frame.
#[test]
fn the_line_under_the_threads_has_the_frame_whole() {
    let mut a = leak_app();
    let (_, g) = shown(&mut a, "t\nj", 80, 24);
    let line = line_under(&g);
    assert!(line.starts_with("▸ at "), "{line}\n{}", rows_of(&g));
    assert!(line.contains(".java:") || line.contains("("), "{line}");
}

/// Friction 2: `>` widens the list and `<` the detail beside it, in every split, for the
/// rest of the session; `z` gives the focused pane the whole width, and `z` or `Esc`
/// gives the other one back.
#[test]
fn the_split_moves_with_angle_brackets_and_z_zooms_the_focused_pane() {
    let mut a = leak_app();
    let keys = "/com.example.Session\n\n";
    let (_, g) = shown(&mut a, keys, 120, 40);
    let x0 = x_of(&g, 0, "Inspector").expect("split");
    let (_, g) = shown(&mut a, ">", 120, 40);
    let x1 = x_of(&g, 0, "Inspector").expect("split");
    assert!(x1 > x0, "{x0} → {x1}\n{}", rows_of(&g));
    let (_, g) = shown(&mut a, "<<", 120, 40);
    let x2 = x_of(&g, 0, "Inspector").expect("split");
    assert!(x2 < x0, "{x0} → {x2}\n{}", rows_of(&g));
    // Kept while browsing: into the inspector and back, and beside the histogram.
    let (_, g) = shown(&mut a, "\n\u{1b}", 120, 40);
    assert_eq!(x_of(&g, 0, "Inspector"), Some(x2), "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "\u{1b}\u{1b}j", 120, 40);
    assert_eq!(x_of(&g, 0, "Merged paths"), Some(x2), "{}", rows_of(&g));
    // `z`: the list alone, as wide as the screen; `z` again, the split back.
    let (_, g) = shown(&mut a, "]", 120, 40);
    assert!(x_of(&g, 0, "Inspector").is_some(), "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "z", 120, 40);
    assert!(x_of(&g, 0, "Inspector").is_none(), "{}", rows_of(&g));
    assert!(
        text(&g[0]).starts_with(" Instances of com.example.Session"),
        "{}",
        rows_of(&g)
    );
    assert!(text(&g[0]).ends_with('─'), "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "z", 120, 40);
    assert_eq!(x_of(&g, 0, "Inspector"), Some(x2), "{}", rows_of(&g));
    // `Tab` `z`: the inspector alone; `Esc` gives the split back and stays on the list.
    let (_, g) = shown(&mut a, "\tz", 120, 40);
    assert!(text(&g[0]).starts_with(" Inspector"), "{}", rows_of(&g));
    assert!(x_of(&g, 0, "Instances").is_none(), "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "\u{1b}", 120, 40);
    assert_eq!(x_of(&g, 0, "Inspector"), Some(x2), "{}", rows_of(&g));
    assert!(x_of(&g, 0, "Instances of com.example.Session").is_some());
}

/// `z` on the diff's sides: the focused side alone; `<` `>` move the split between them.
#[test]
fn z_zooms_a_side_of_the_diff_and_the_split_moves() {
    let mut a = growth_diff();
    let (_, g) = shown(&mut a, "ssgj\n", 120, 40);
    let x0 = x_of(&g, 0, "TARGET").unwrap();
    let (_, g) = shown(&mut a, ">", 120, 40);
    assert!(x_of(&g, 0, "TARGET").unwrap() > x0, "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "z", 120, 40);
    assert!(text(&g[0]).starts_with(" TARGET"), "{}", rows_of(&g));
    assert!(x_of(&g, 0, "BASE").is_none(), "{}", rows_of(&g));
    let (_, g) = shown(&mut a, "\u{1b}", 120, 40);
    assert!(x_of(&g, 0, "BASE").is_some(), "{}", rows_of(&g));
    assert!(x_of(&g, 0, "TARGET").unwrap() > x0, "{}", rows_of(&g));
}

/// Where nothing is beside the list (80 columns), `<` `>` and `z` say so.
#[test]
fn without_a_split_the_new_keys_say_why_they_do_nothing() {
    let mut a = leak_app();
    for k in ["<", ">", "z"] {
        let (_, g) = shown(&mut a, k, 80, 24);
        let status = text(&g[22]);
        assert!(status.contains("nothing beside"), "{k}: {status}");
    }
}

/// Bug 9: the 80-column diff dropped the `+` of wide cells (`52.7 KiB` beside
/// `+5.5 KiB`) on the Node pair, whose New and Gone columns leave the others less room.
/// Every signed figure keeps its sign, at every size; the class name gives way.
#[test]
fn the_diff_s_signed_cells_keep_their_sign_at_every_width() {
    let open = |n: &str| open_node(n);
    let (a, b) = (open("baseline"), open("target"));
    let (da, db) = (dominators_of(&a), dominators_of(&b));
    let (ids, _) = heaptui::diff::identity_checked(&a, &b);
    let deltas = heaptui::diff::class_deltas(&a, &b, Some((&da, &db)), ids.as_ref());
    let signed = |v: i64| match v.signum() {
        1 => format!("+{}", heaptui::text::human(v as u64)),
        -1 => format!("-{}", heaptui::text::human(v.unsigned_abs())),
        _ => "0".into(),
    };
    for (w, h) in [(64u16, 24u16), (80, 24), (120, 40), (160, 45)] {
        let mut app = App::with_snapshots(open("baseline"), open("target"));
        let (_, g) = shown(&mut app, "", w, h);
        let mut checked = 0;
        for cells in &g[2..pane_rows(&g)] {
            let row = text(cells);
            let Some(d) = deltas
                .iter()
                .find(|d| row.starts_with(&format!("{} ", d.class)))
            else {
                continue;
            };
            for v in [d.delta_shallow(), d.delta_retained()] {
                let cell = format!(" {}", signed(v));
                assert!(row.contains(&cell), "{w}x{h}: {cell:?} in {row:?}");
            }
            checked += 1;
        }
        assert!(checked >= 5, "{w}x{h}:\n{}", rows_of(&g));
        // The headers whole too.
        assert!(text(&g[1]).contains("Δ Shallow"), "{}", rows_of(&g));
        assert!(text(&g[1]).contains("Δ Retained"), "{}", rows_of(&g));
    }
}

/// Friction 2, the inspector: the line under it described the inspected object whatever
/// row was selected; it has the selected field with the object it holds, or the
/// selected referrer with the reference's name.
#[test]
fn the_line_under_the_inspector_describes_its_selected_row() {
    let mut a = leak_app();
    let (_, g) = shown(&mut a, "/com.example.Session\n\n\n", 80, 24);
    let line = line_under(&g);
    assert!(
        line.starts_with("▸ object payload = byte[] 0x"),
        "{line}\n{}",
        rows_of(&g)
    );
    let (_, g) = shown(&mut a, "j", 80, 24);
    assert!(line_under(&g).starts_with("▸ long createdAt = "));
    // Up past the fields' title: the referrer above them (who holds it comes first).
    let (_, g) = shown(&mut a, "kkk", 80, 24);
    let line = line_under(&g);
    assert!(
        line.contains(" via ") || line.contains(" ← "),
        "{line}\n{}",
        rows_of(&g)
    );
}

/// Bug 4, the status line: a long file name pushed the selected object's id off its end
/// at 80 columns; the name gives way (in its middle), the id stays whole.
#[test]
fn the_status_line_keeps_the_selected_id_whole() {
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        let (p, snap) = open_fixture("java/leak/heap-live.hprof.gz");
        let long = p.with_file_name(
            "heap-dump-of-the-production-order-service-taken-after-the-incident-of-november.hprof",
        );
        let mut a = on_histogram(long, snap);
        let (_, g) = shown(&mut a, "!j", w, h);
        let Screen::Ready(r) = &a.screen else {
            panic!()
        };
        let o = r.suspects.as_ref().unwrap().suspects[1].object;
        let id = r.snap.object_name(o);
        let status = text(&g[g.len() - 2]);
        assert!(
            status.trim_end().ends_with(&format!(" {id}")),
            "{w}x{h}: {id} in {status:?}"
        );
        assert!(status.contains("heap-dump-o"), "{status}");
    }
}
