//! The TUI's diff view of two snapshots (`heaptui BASE TARGET`), drawn into ratatui's
//! `TestBackend` with scripted keys (the harness: `common/tui.rs`).

use crate::common;

use common::tui::*;
use common::*;
use heaptui::ui::app::App;

fn diff_app(base: &str, target: &str) -> App {
    let open =
        |f: &str| heaptui::open(&gunzipped(f), &heaptui::sys::progress::Progress::new()).unwrap();
    App::with_snapshots(open(base), open(target))
}

#[test]
fn diff_view_sorts_by_delta_opens_both_sides_and_comes_back() {
    // fixtures/java/growth: the program grew Cache.entries from 2,000 to 5,000 entries
    // between the two dumps (expected.json), so 3,000 CacheEntry objects more.
    let mut app = diff_app("java/growth/base.hprof.gz", "java/growth/target.hprof.gz");
    let mut t = terminal(100, 30);
    let s = run(&mut app, &mut t, "");
    assert!(
        s.contains("classes changed, sorted by Δ shallow size"),
        "{s}"
    );
    // The owner that grew, with its entries, below the table.
    assert!(s.contains("Owners that grew most"), "{s}");
    assert!(s.contains("(+3000 entries)"), "{s}");
    // s: Δ retained, s again: Δ count; byte[] (+3,001) first, then CacheEntry (+3,000).
    let s = run(&mut app, &mut t, "ss");
    assert!(s.contains("sorted by Δ count"), "{s}");
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("+3,00")).collect();
    assert!(rows[0].starts_with("byte[]"), "{s}");
    assert!(rows[1].contains("dev.heaptui.growth.CacheEntry"), "{s}");
    assert!(
        rows[1].contains("2,000") && rows[1].contains("5,000"),
        "{s}"
    );
    // Enter: both sides on the class, the target focused.
    let s = run(&mut app, &mut t, "gj\n");
    assert!(s.contains("BASE · java_growth_base.hprof"), "{s}");
    assert!(s.contains("TARGET ◆ · java_growth_target.hprof"), "{s}");
    assert!(s.contains("CacheEntry — 2,000 objects"), "{s}");
    assert!(s.contains("CacheEntry — 5,000 objects"), "{s}");
    // Into an object on the target side, then on the base side.
    let s = run(&mut app, &mut t, "\n");
    assert_eq!(
        s.matches("Inspector — dev.heaptui.growth.CacheEntry")
            .count(),
        1,
        "{s}"
    );
    assert!(
        s.contains("CacheEntry — 2,000 objects"),
        "base side untouched:\n{s}"
    );
    let s = run(&mut app, &mut t, "\tj\n");
    assert!(s.contains("BASE ◆"), "{s}");
    assert_eq!(
        s.matches("Inspector — dev.heaptui.growth.CacheEntry")
            .count(),
        2,
        "{s}"
    );
    // Back: the base side to its instances, then the table.
    let s = run(&mut app, &mut t, "\u{1b}");
    assert!(s.contains("CacheEntry — 2,000 objects"), "{s}");
    let s = run(&mut app, &mut t, "\u{1b}");
    assert!(s.contains("classes changed, sorted by Δ count"), "{s}");
    // n: every class, the unchanged ones too.
    let s = run(&mut app, &mut t, "n");
    assert!(
        s.contains("Diff — ") && !s.contains("classes changed"),
        "{s}"
    );
    let all = s.split("Diff — ").nth(1).unwrap();
    let (shown, total) = all.split_once(" of ").unwrap();
    assert_eq!(shown, total.split(' ').next().unwrap(), "{s}");
}

#[test]
fn diff_view_on_node_ids_lists_the_new_objects() {
    // fixtures/node: 400 HeaptuiLeak objects created between baseline and target
    // (expected.json); V8 node ids say which are new.
    let mut app = diff_app(
        "node/baseline.heapsnapshot.gz",
        "node/target.heapsnapshot.gz",
    );
    let mut t = terminal(120, 30);
    // Δ count order: find HeaptuiLeak's row.
    let s = run(&mut app, &mut t, "ss");
    assert!(s.contains("by node id:") && s.contains(" new, "), "{s}");
    let lines: Vec<&str> = s.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("Class")).unwrap();
    let pos = lines[header + 1..]
        .iter()
        .position(|l| l.starts_with("HeaptuiLeak"))
        .unwrap_or_else(|| panic!("{s}"));
    // The selection follows its class across a re-sort: go to the top first.
    let keys = "g".to_string() + &"j".repeat(pos) + "\n";
    let s = run(&mut app, &mut t, &keys);
    assert!(
        s.contains("New instances of HeaptuiLeak — 400 objects"),
        "{s}"
    );
    assert!(
        s.contains("No instance of HeaptuiLeak in this snapshot"),
        "{s}"
    );
    // P: the merged paths of the new ones, each path ending at one of them.
    let s = run(&mut app, &mut t, "P");
    let (title, held) = merged_title(&s);
    assert!(title.contains(" of 400 HeaptuiLeak new"), "{s}");
    assert!((1..=400).contains(&held), "{s}");
    let s = run(&mut app, &mut t, "\u{1b}");
    assert!(s.contains("New instances of HeaptuiLeak"), "{s}");
    // n: all instances, the new ones marked.
    let s = run(&mut app, &mut t, "n");
    assert!(s.contains("Instances of HeaptuiLeak — 400 objects"), "{s}");
    assert!(s.contains(" new "), "{s}");
}

#[test]
fn the_diff_at_160_columns_shows_base_target_and_the_focused_side_s_object() {
    let mut app = diff_app("java/growth/base.hprof.gz", "java/growth/target.hprof.gz");
    let mut t = terminal(160, 45);
    run(&mut app, &mut t, "");
    // Δ count: byte[] first, then CacheEntry (2,000 → 5,000).
    let s = run(&mut app, &mut t, "ssgj\n");
    assert!(s.contains("CacheEntry — 2,000 objects"), "{s}");
    assert!(s.contains("CacheEntry — 5,000 objects"), "{s}");
    // The third column inspects the target side's selected instance, and follows it
    // (the loop's tick reads the width the last frame had).
    app.tick();
    let s = run(&mut app, &mut t, "");
    assert!(s.contains("TARGET: the selected object"), "{s}");
    assert_eq!(
        s.matches("Inspector — dev.heaptui.growth.CacheEntry")
            .count(),
        1,
        "{s}"
    );
    let status = |s: &str| s.lines().rev().nth(1).unwrap_or("").to_string();
    let first = status(&s);
    run(&mut app, &mut t, "j");
    app.tick();
    let s = run(&mut app, &mut t, "");
    assert_ne!(status(&s), first);
    let id = status(&s).rsplit(' ').next().unwrap().to_string();
    assert!(
        s.lines()
            .any(|l| l.contains("Inspector — dev.heaptui.growth.CacheEntry") && l.contains(&id)),
        "the inspector follows the selection to {id}:\n{s}"
    );
    // Tab: the base side focused, its object inspected.
    run(&mut app, &mut t, "\t");
    app.tick();
    let s = run(&mut app, &mut t, "");
    assert!(s.contains("BASE: the selected object"), "{s}");
    // Narrower: two sides only, as before.
    let mut t = terminal(120, 40);
    run(&mut app, &mut t, "");
    app.tick();
    let s = run(&mut app, &mut t, "");
    assert!(!s.contains("the selected object"), "{s}");
}

/// Issue 26: at 80 columns the diff table cuts a long class name in its middle (its
/// package head and its class both stay), the owners their path in its middle (the
/// root's end and the owner's class both stay), and the selected row is whole in a line
/// under the table, as under the other lists.
#[test]
fn the_diff_table_cuts_names_in_the_middle_and_shows_the_selected_row_whole() {
    let mut app = diff_app("java/growth/base.hprof.gz", "java/growth/target.hprof.gz");
    // 64 columns: the number columns as wide as their figures leave the names 20 cells
    // (at 80 they are whole since issue 39).
    let mut t = terminal(64, 24);
    // Δ count: byte[] first, then CacheEntry.
    let s = run(&mut app, &mut t, "ssgj");
    let row = s
        .lines()
        .find(|l| l.starts_with("dev.") && l.contains("+3,000"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        row.starts_with("dev.heapt") && row.contains("…acheEntry "),
        "{row}\n{s}"
    );
    // At 80 columns, the line under the table has the row whole.
    let mut t = terminal(80, 24);
    let s = run(&mut app, &mut t, "");
    assert!(
        s.contains(
            "▸ dev.heaptui.growth.CacheEntry · count 2,000 → 5,000 (+3,000) · shallow +96,000"
        ),
        "{s}"
    );
    // The owner's root kind whole, its path cut in the middle, its entries whole.
    let owner = s
        .lines()
        .find(|l| l.contains("(+3000 entries)"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        owner.contains("[JNI global] jdk.")
            && owner.contains("…")
            && owner.contains("HashMap (+3000"),
        "{owner}\n{s}"
    );
}

#[test]
fn three_snapshots_without_ids_open_the_owners_that_grew_and_say_so() {
    // Issue 40, defect 11: `heaptui A B C` on three HPROF files (addresses move between
    // dumps: no ids for the three-snapshot view) silently showed C alone. It says why and
    // opens the owners that grew from BASELINE to FINAL (the diff view).
    let (base, target) = (
        gunzipped("java/growth/base.hprof.gz"),
        gunzipped("java/growth/target.hprof.gz"),
    );
    let paths = [base.as_path(), target.as_path(), target.as_path()];
    let mut app = heaptui::ui::app_for(&paths, None).unwrap();
    let mut t = terminal(120, 40);
    let start = std::time::Instant::now();
    let s = loop {
        let s = run(&mut app, &mut t, "");
        if s.contains("Owners that grew most") {
            break s;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no diff view:\n{s}"
        );
        arrival(&mut app);
    };
    let joined: String = s.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("HPROF snapshots keep no object ids between dumps"),
        "{s}"
    );
    assert!(s.contains("(+3000 entries)"), "{s}");
}
