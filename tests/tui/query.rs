//! Issue 41, item 4: `:` and the query pane, in-process. The pane's drawing over a
//! `TestBackend` (headers, rows, numbers right-aligned, a dump's control characters
//! stripped), and, with SQL built in, the line's history and a query's rows against the
//! engine's own answer, `Enter` on a row to its object, an error, a cancel. The real
//! binary under tmux is `tmux::query`.

use crate::common;

use common::tui::*;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::App;
use heaptui::ui::panes::query::QueryPane;
use heaptui::ui::panes::{Ctx, Pane};
use serde_json::json;

/// The app at `w`×`h` on the Java fixture, its query history in `file` (never the
/// user's).
fn query_app(
    w: u16,
    h: u16,
    file: Option<std::path::PathBuf>,
) -> (App, ratatui::Terminal<ratatui::backend::TestBackend>) {
    let (mut a, t) = app_at(w, h);
    a.set_query_history(file);
    (a, t)
}

/// The column (0-based) where `word` ends on the screen line `line`.
fn end_of(line: &str, word: &str) -> usize {
    let at = line
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {line:?}"));
    line[..at].chars().count() + word.chars().count()
}

/// The pane draws the columns as headers and the rows below them: numbers (and their
/// header) right-aligned, text left-aligned, every cell sanitised (a bell and an escape
/// sequence from the dump are not drawn); the row whose cell names an object is that
/// object's, the others are no object's.
#[test]
fn the_query_pane_draws_headers_rows_numbers_right_aligned_and_clean_cells() {
    let (_, session) = open_fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let snap = session.snapshot().clone();
    let first = snap.object_name(0);
    let rows = vec![
        vec![
            json!(first),
            json!("a\u{7}b\u{1b}[31mc"),
            json!(7),
            json!(null),
        ],
        vec![
            json!("not an id"),
            json!("plain"),
            json!(1234567),
            json!(true),
        ],
    ];
    let columns = ["id", "text", "count", "flag"].map(String::from).to_vec();
    let mut pane = QueryPane::answered("SELECT …", columns, rows, &snap);
    let theme = heaptui::ui::theme::Theme { color: false };
    let ctx = Ctx {
        snap: &snap,
        dom: None,
        theme: &theme,
        shared: None,
    };
    let mut t = terminal(60, 8);
    t.draw(|f| pane.draw(f, f.area(), &ctx)).unwrap();
    let s = screen(&t);
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines[0].contains("Query — 2 rows"), "{s}");
    let (header, one, two) = (lines[1], lines[2], lines[3]);
    assert!(header.starts_with("id "), "{s}");
    // The numbers' column: its header and both numbers end in the same cell.
    let right = end_of(header, "count");
    assert_eq!(end_of(one, " 7"), right, "{s}");
    assert_eq!(end_of(two, "1234567"), right, "{s}");
    // Text starts where its header does.
    let text_at = end_of(header, "text") - 4;
    assert_eq!(end_of(one, "abc") - 3, text_at, "{s}");
    assert_eq!(end_of(two, "plain") - 5, text_at, "{s}");
    assert!(one.starts_with(&first), "{s}");
    assert!(two.contains("true"), "{s}");
    assert!(
        !s.contains('\u{7}') && !s.contains('\u{1b}') && !s.contains("[31m"),
        "{s:?}"
    );
    // The first row is its object's; the second names none.
    assert_eq!(pane.selected_object(), snap.find_object(&first));
    assert!(pane.selected_object().is_some());
    let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
    pane.handle(&down, &ctx);
    assert_eq!(pane.selected_object(), None);
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    let out = pane.handle(&enter, &ctx);
    assert!(
        format!("{out:?}").contains("no cell of this row names an object"),
        "{out:?}"
    );
    // The row whole under the list: each column's name and value.
    let line = pane.selected_line(&ctx).unwrap();
    assert_eq!(
        line,
        "id not an id · text plain · count 1234567 · flag true"
    );
}

/// Without SQL built in, `:` says so.
#[cfg(not(feature = "sql"))]
#[test]
fn colon_says_this_heaptui_has_no_sql() {
    let (mut a, mut t) = query_app(100, 30, None);
    let s = run(&mut a, &mut t, ":");
    assert!(s.contains("this heaptui was built without SQL"), "{s}");
}

#[cfg(feature = "sql")]
mod with_sql {
    use super::*;
    use heaptui::ui::app::{Ready, Screen};

    fn ready(a: &mut App) -> &mut Ready {
        match &mut a.screen {
            Screen::Ready(r) => r,
            _ => panic!("not ready"),
        }
    }

    /// The screen once `keys` (a query typed on the line and `Enter`) has run it and
    /// its answer has come.
    fn answered(
        a: &mut App,
        t: &mut ratatui::Terminal<ratatui::backend::TestBackend>,
        keys: &str,
    ) -> String {
        run(a, t, keys);
        settle(a);
        run(a, t, "")
    }

    const CHAIN: &str = "SELECT id, retained, shallow FROM objects \
        WHERE class = 'dev.heaptui.fixture.ChainNode' ORDER BY retained DESC";

    fn up() -> KeyEvent {
        KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)
    }

    /// `:`, the query and `Enter`: the pane's rows are the engine's (count, first id,
    /// the numbers right-aligned under their header); `Enter` on the first opens its
    /// inspector, `Esc` comes back to the rows, `Esc` again to the histogram.
    #[test]
    fn a_query_s_rows_are_the_engine_s_and_enter_inspects_a_row_s_object() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut t) = query_app(100, 30, Some(dir.path().join("query-history")));
        let truth = {
            let r = ready(&mut a);
            heaptui::query::run(r.snap.clone(), r.dom.clone(), CHAIN).unwrap()
        };
        assert!(truth.rows.len() > 100, "{truth:?}");
        let first = truth.rows[0][0].as_str().unwrap().to_string();
        let s = run(&mut a, &mut t, ":");
        assert!(s.contains(" SQL: ▏") && s.contains("Tab complete"), "{s}");
        let s = answered(&mut a, &mut t, &format!("{CHAIN}\n"));
        let title = format!("Query — {} rows in ", with_commas(truth.rows.len()));
        assert!(s.contains(&title), "{s}");
        let lines: Vec<&str> = s.lines().collect();
        assert!(lines[1].starts_with("id "), "{s}");
        assert!(lines[2].starts_with(&first), "{s}");
        let retained = truth.rows[0][1].to_string();
        assert_eq!(
            end_of(lines[2], &retained),
            end_of(lines[1], "retained"),
            "{s}"
        );
        // The row whole under the list, its object in the status line.
        assert!(
            s.contains(&format!("▸ id {first} · retained {retained}")),
            "{s}"
        );
        let s = run(&mut a, &mut t, "\n");
        assert!(
            s.contains(&format!(
                "Inspector — dev.heaptui.fixture.ChainNode {first}"
            )),
            "{s}"
        );
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains(&title), "{s}");
        // `p` on the row: its paths, as on an instance.
        let s = run(&mut a, &mut t, "p");
        assert!(
            s.contains(&format!("dev.heaptui.fixture.ChainNode {first}")),
            "{s}"
        );
        assert!(s.contains("Shortest paths"), "{s}");
        let s = run(&mut a, &mut t, "\u{1b}\u{1b}");
        assert!(s.contains("Class histogram"), "{s}");
        // The query is in the history file.
        let kept = std::fs::read_to_string(dir.path().join("query-history")).unwrap();
        assert_eq!(kept, format!("{CHAIN}\n"));
    }

    /// `:NAME` on the line runs a shipped query, as `heaptui query FILE :NAME` does: its
    /// rows are the engine's for the file's SQL; a name not shipped says which are.
    #[test]
    fn a_shipped_query_runs_by_its_name() {
        let (mut a, mut t) = query_app(160, 40, None);
        let truth = {
            let r = ready(&mut a);
            let sql = heaptui::query::shipped("largest-objects").unwrap();
            heaptui::query::run(r.snap.clone(), r.dom.clone(), sql).unwrap()
        };
        assert_eq!(truth.rows.len(), 20);
        let s = answered(&mut a, &mut t, "::largest-objects\n");
        assert!(s.contains("Query — 20 rows in "), "{s}");
        let first = truth.rows[0][0].as_str().unwrap();
        assert!(s.lines().nth(2).unwrap().starts_with(first), "{s}");
        let s = answered(&mut a, &mut t, "\u{1b}::no-such\n");
        let squeezed: String = s.split_whitespace().collect();
        assert!(squeezed.contains("noshippedquery:no-such"), "{s}");
        assert!(squeezed.contains(":top-retained"), "{s}");
    }

    /// From 120 columns the selected row's object is inspected beside the rows, as an
    /// instance's is; a row that names none has the width to itself.
    #[test]
    fn a_wide_screen_inspects_the_selected_row_s_object_beside_the_rows() {
        let (mut a, mut t) = query_app(160, 40, None);
        let sql = "SELECT id, class FROM objects \
            WHERE class = 'dev.heaptui.fixture.ChainNode' ORDER BY id LIMIT 2";
        let s = answered(&mut a, &mut t, &format!(":{sql}\n"));
        assert!(s.contains("Query — 2 rows in "), "{s}");
        let id = s
            .lines()
            .nth(2)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        assert!(
            s.contains(&format!("Inspector — dev.heaptui.fixture.ChainNode {id}")),
            "{s}"
        );
        let s = answered(&mut a, &mut t, ":SELECT 'no object' AS what\n");
        assert!(
            s.contains("Query — 1 row in ") && !s.contains("Inspector — "),
            "{s}"
        );
    }

    /// `Tab` completes a table's name, and a column of the table the line names; a
    /// double click on a row leaves the line as it is (its `Enter` is not the line's).
    #[test]
    fn tab_completes_the_schema_s_names_on_the_line() {
        let (mut a, mut t) = query_app(100, 30, None);
        let s = run(&mut a, &mut t, ":SELECT reta\t FROM obje\t");
        assert!(s.contains(" SQL: SELECT retained FROM objects▏"), "{s}");
        a.on_click(3, 4);
        a.on_click(3, 4);
        let s = run(&mut a, &mut t, "");
        assert!(s.contains(" SQL: SELECT retained FROM objects▏"), "{s}");
        assert!(s.contains("Class histogram"), "{s}");
    }

    /// An error is the engine's message, naming the line and the column; the line's `↑`
    /// brings the query back (history in memory only here).
    #[test]
    fn a_bad_query_shows_the_engine_s_message_and_up_brings_it_back() {
        let (mut a, mut t) = query_app(100, 30, None);
        let s = answered(&mut a, &mut t, ":SELEC 1\n");
        assert!(s.contains("Query — failed: SELEC 1"), "{s}");
        let flat: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(flat.contains("Line:1,Column:1"), "{s}");
        run(&mut a, &mut t, ":");
        a.on_key(&up());
        let s = run(&mut a, &mut t, "");
        assert!(s.contains(" SQL: SELEC 1▏"), "{s}");
    }

    /// A second app with the same history file recalls the first one's query with `↑`.
    #[test]
    fn the_history_is_read_by_the_next_app() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("query-history");
        let (mut a, mut t) = query_app(100, 30, Some(file.clone()));
        let s = answered(&mut a, &mut t, ":SELECT count(*) FROM classes\n");
        assert!(s.contains("Query — 1 row in "), "{s}");
        let (mut b, mut t) = query_app(100, 30, Some(file));
        run(&mut b, &mut t, ":");
        b.on_key(&up());
        let s = run(&mut b, &mut t, "");
        assert!(s.contains(" SQL: SELECT count(*) FROM classes▏"), "{s}");
    }

    /// A query held back (the jobs' delay) says "working…"; `Esc` cancels it, and the
    /// pane says so; `Esc` again goes back.
    #[test]
    fn esc_cancels_a_running_query() {
        let (mut a, mut t) = query_app(100, 30, None);
        a.jobs().set_delay(std::time::Duration::from_millis(2000));
        for k in events(":SELECT count(*) FROM objects\n") {
            if let crossterm::event::Event::Key(k) = k {
                a.on_key(&k);
            }
        }
        t.draw(|f| a.draw(f)).unwrap();
        let s = screen(&t);
        assert!(s.contains("Query — working… 0 s (Esc cancels)"), "{s}");
        assert_eq!(a.jobs().running(), 1, "{s}");
        a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        settle(&mut a);
        t.draw(|f| a.draw(f)).unwrap();
        let s = screen(&t);
        assert!(
            s.contains("Query — cancelled") && s.contains("the query was cancelled"),
            "{s}"
        );
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains("Class histogram"), "{s}");
    }

    /// The diff view of the Java growth pair (`heaptui BASE TARGET`), its query history
    /// in memory only.
    fn diff_query_app(w: u16, h: u16) -> (App, ratatui::Terminal<ratatui::backend::TestBackend>) {
        let open = |f: &str| {
            heaptui::open(&gunzipped(f), &heaptui::sys::progress::Progress::new()).unwrap()
        };
        let mut a = App::with_snapshots(
            open("java/growth/base.hprof.gz"),
            open("java/growth/target.hprof.gz"),
        );
        a.set_query_history(None);
        (a, terminal(w, h))
    }

    /// The diff view's two snapshots, as `heaptui query TARGET --base BASE` reads them.
    fn both(a: &App) -> heaptui::query::Inputs {
        let Screen::Diff(v) = &a.screen else {
            panic!("not the diff view")
        };
        let input = |r: &Ready| {
            heaptui::query::Input::new(r.snap.clone(), heaptui::query::Tree::ready(r.dom.clone()))
        };
        heaptui::query::Inputs {
            target: input(&v.target),
            base: Some(input(&v.base)),
        }
    }

    const GROWN: &str = "SELECT class, base_count, target_count, delta_count FROM diff \
        WHERE class = 'dev.heaptui.growth.CacheEntry'";

    /// Issue 41's gap: in the diff view `:` runs the query over both snapshots, as
    /// `heaptui query TARGET --base BASE` does: `diff` has the class's 2,000 → 5,000
    /// entries, `base.objects` and `target.objects` each snapshot's objects and the
    /// unqualified `objects` the target's. From the table the answer has the whole
    /// width (the target side alone); its rows name target objects, which `Enter`
    /// inspects; `Esc` goes back to the answer, then to the table.
    #[test]
    fn in_the_diff_view_a_query_reads_both_snapshots() {
        let (mut a, mut t) = diff_query_app(100, 30);
        let s = run(&mut a, &mut t, "");
        assert!(s.contains("classes changed"), "{s}");
        let s = run(&mut a, &mut t, ":");
        assert!(s.contains(" SQL: ▏") && s.contains("Tab complete"), "{s}");
        let s = answered(&mut a, &mut t, &format!("{GROWN}\n"));
        assert!(s.contains("Query of base and target — 1 row in "), "{s}");
        let row = line_with(&s, "dev.heaptui.growth.CacheEntry");
        let figures: Vec<&str> = row.split_whitespace().skip(1).collect();
        assert_eq!(figures, ["2000", "5000", "3000"], "{s}");
        // Alone: the target side's header, no base side beside it.
        assert!(s.contains("TARGET ◆") && !s.contains("BASE"), "{s}");
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains("classes changed"), "{s}");

        // Each snapshot's objects, and the unqualified names the target's.
        let counts = "SELECT (SELECT count(*) FROM base.objects) AS b, \
            (SELECT count(*) FROM target.objects) AS t, (SELECT count(*) FROM objects) AS o";
        let truth = heaptui::query::run_until(&both(&a), counts, &Default::default()).unwrap();
        let (Screen::Diff(v), _) = (&a.screen, ()) else {
            panic!("not the diff view")
        };
        let (nb, nt) = (v.base.snap.graph.len(), v.target.snap.graph.len());
        assert_eq!(truth.rows[0], [json!(nb), json!(nt), json!(nt)]);
        assert_ne!(nb, nt);
        let s = answered(&mut a, &mut t, &format!(":{counts}\n"));
        let row = s.lines().nth(3).unwrap();
        let got: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(got, [nb.to_string(), nt.to_string(), nt.to_string()], "{s}");

        // A row's object, looked up in the target: Enter inspects it there.
        let entries = "SELECT id, shallow FROM target.objects \
            WHERE class = 'dev.heaptui.growth.CacheEntry' ORDER BY id LIMIT 3";
        let truth = heaptui::query::run_until(&both(&a), entries, &Default::default()).unwrap();
        let first = truth.rows[0][0].as_str().unwrap().to_string();
        let s = answered(&mut a, &mut t, &format!("\u{1b}:{entries}\n"));
        assert!(s.contains("Query of base and target — 3 rows in "), "{s}");
        assert!(s.lines().nth(3).unwrap().starts_with(&first), "{s}");
        let s = run(&mut a, &mut t, "\n");
        assert!(
            s.contains(&format!(
                "Inspector — dev.heaptui.growth.CacheEntry {first}"
            )),
            "{s}"
        );
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains("Query of base and target — 3 rows"), "{s}");
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains("classes changed"), "{s}");
    }

    /// On a side (both shown, a class's instances), `:` puts the answer on that side:
    /// the base's, whose objects its rows name; `Tab` from a query alone brings the base
    /// side back beside it.
    #[test]
    fn on_a_side_the_answer_is_that_side_s() {
        let (mut a, mut t) = diff_query_app(120, 30);
        run(&mut a, &mut t, "");
        let base_one = "SELECT id FROM base.objects \
            WHERE class = 'dev.heaptui.growth.CacheEntry' ORDER BY id LIMIT 1";
        let truth = heaptui::query::run_until(&both(&a), base_one, &Default::default()).unwrap();
        let id = truth.rows[0][0].as_str().unwrap().to_string();
        // Enter on the first class: both sides, the target focused; Tab: the base.
        let s = run(&mut a, &mut t, "\n\t");
        assert!(s.contains("BASE ◆"), "{s}");
        let s = answered(&mut a, &mut t, &format!(":{base_one}\n"));
        assert!(s.contains("BASE ◆") && s.contains("TARGET"), "{s}");
        assert!(s.contains("Query of base and target — 1 row"), "{s}");
        let s = run(&mut a, &mut t, "\n");
        assert!(
            s.contains(&format!("Inspector — dev.heaptui.growth.CacheEntry {id}")),
            "{s}"
        );
        // From the table, alone; Tab: the base side beside it, with the keys.
        run(&mut a, &mut t, "\u{1b}\u{1b}\u{1b}");
        let s = answered(&mut a, &mut t, &format!(":{GROWN}\n"));
        assert!(!s.contains("BASE"), "{s}");
        let s = run(&mut a, &mut t, "\t");
        assert!(s.contains("BASE ◆") && s.contains("TARGET ·"), "{s}");
        assert!(s.contains("Query of base and target"), "{s}");
    }

    /// In the diff view too, `Esc` cancels a running query (its pane then says so, the
    /// target side's only pane), and `Esc` again goes back to the table.
    #[test]
    fn in_the_diff_view_esc_cancels_a_running_query_then_goes_back() {
        let (mut a, mut t) = diff_query_app(100, 30);
        run(&mut a, &mut t, "");
        a.jobs().set_delay(std::time::Duration::from_millis(2000));
        for k in events(&format!(":{GROWN}\n")) {
            if let crossterm::event::Event::Key(k) = k {
                a.on_key(&k);
            }
        }
        assert_eq!(a.jobs().running(), 1);
        a.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        settle(&mut a);
        t.draw(|f| a.draw(f)).unwrap();
        let s = screen(&t);
        assert!(s.contains("Query of base and target — cancelled"), "{s}");
        let s = run(&mut a, &mut t, "\u{1b}");
        assert!(s.contains("classes changed"), "{s}");
    }

    /// `Tab` on the diff view's line completes the schemas `base.` and `target.`, their
    /// tables, and `diff`, which a view of one snapshot does not offer.
    #[test]
    fn in_the_diff_view_tab_completes_base_target_and_diff() {
        let (mut a, mut t) = diff_query_app(100, 30);
        run(&mut a, &mut t, "");
        for (keys, line) in [
            (":SELECT * FROM ba\t", "SELECT * FROM base."),
            (
                "obj\t JOIN tar\t",
                "SELECT * FROM base.objects JOIN target.",
            ),
            (
                "cla\t JOIN di\t",
                "SELECT * FROM base.objects JOIN target.classes JOIN diff",
            ),
        ] {
            let s = run(&mut a, &mut t, keys);
            assert!(s.contains(&format!(" SQL: {line}▏")), "{s}");
        }
        // Elsewhere a column too: `target_count` of `diff` beside the schema.
        let s = run(&mut a, &mut t, " WHERE tar\t");
        assert!(s.contains("Tab: target. target_count"), "{s}");
        // One snapshot: no diff, no schema.
        let (mut one, mut t) = query_app(100, 30, None);
        for word in ["di", "ba"] {
            let s = run(&mut one, &mut t, &format!(":SELECT * FROM {word}\t"));
            let nothing = format!("no table, column or function begins with \"{word}\"");
            assert!(s.contains(&nothing), "{s}");
            run(&mut one, &mut t, "\u{1b}");
        }
    }
}
