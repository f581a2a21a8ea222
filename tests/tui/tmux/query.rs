//! Issue 41, item 4, in a real terminal: `:` opens the query line, `Enter` runs the query
//! on a thread of its own and shows its rows (the same as `heaptui query … --json`
//! prints), `Enter` on a row inspects its object and `Esc` comes back; a bad query shows
//! the engine's message; the history outlives the TUI (in the cache directory, never
//! with the cache off); a long query says "working…" with its seconds, `Esc` cancels it,
//! and the keys stay live meanwhile.

use super::*;

const FIXTURE: &str = "java/coops/heap-live-jvmgz.hprof.gz";

/// The instances of the fixture's chain, largest retained size first.
const CHAIN: &str = "SELECT id, retained, shallow FROM objects \
    WHERE class = 'dev.heaptui.fixture.ChainNode' ORDER BY retained DESC";

/// heaptui on the Java fixture at 100×30, `args` after the file, its cache directory
/// (where the query history is kept) `cache`; its index ready.
fn tui(name: &str, cache: &Path, args: &str) -> Option<Tmux> {
    let line = heaptui_line(
        &format!("HEAPTUI_CACHE_DIR={} ", cache.display()),
        &format!("{} {args}", fixture(FIXTURE).display()),
        false,
    );
    let t = Tmux::start(name, &line)?;
    t.tmux(&["resize-window", "-x", "100", "-y", "30"]);
    t.wait_for_index();
    Some(t)
}

/// `:`, `sql` typed, `Enter`.
fn query(t: &Tmux, sql: &str) {
    t.keys(&[":"]);
    t.wait_for(" SQL: ");
    t.keys(&["-l", sql]);
    t.keys(&["Enter"]);
}

/// The row count in a query pane's title (`Query — 1,234 rows in 0.1 s: …`).
fn rows_in_title(s: &str) -> Option<usize> {
    let rest = s.split("Query — ").nth(1)?;
    let n = rest.split(" row").next()?;
    n.replace(',', "").parse().ok()
}

#[test]
fn a_query_s_rows_open_their_objects_and_a_bad_one_says_why_in_a_real_terminal() {
    let truth = json_of(&heaptui(&["query", &fixture_arg(FIXTURE), CHAIN, "--json"]));
    let rows = truth["rows"].as_array().unwrap();
    assert!(rows.len() > 100, "{truth}");
    let first = rows[0][0].as_str().unwrap().to_string();
    let cache = tempfile::tempdir().unwrap();
    let Some(t) = tui("query", cache.path(), "") else {
        return;
    };
    query(&t, CHAIN);
    let s = t.wait_until("the query's rows", |s| {
        rows_in_title(s).is_some() && s.contains(" rows in ")
    });
    assert_eq!(rows_in_title(&s), Some(rows.len()), "{s}");
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines[1].starts_with("id "), "{s}");
    assert!(lines[2].starts_with(&format!("{first} ")), "{s}");
    // `Enter` on the first row: its object's inspector; `Esc`: the rows again.
    t.keys(&["Enter"]);
    t.wait_for(&format!(
        "Inspector — dev.heaptui.fixture.ChainNode {first}"
    ));
    t.keys(&["Escape"]);
    let s = t.wait_until_whole("the rows again", |s| s.contains(" rows in "));
    assert!(s.lines().nth(2).unwrap().starts_with(&first), "{s}");
    // A bad query: the engine's message, with its line and column.
    query(&t, "SELEC id FROM objects");
    let s = t.wait_until("the engine's message", |s| {
        squeezed(s).contains("Line:1,Column:1")
    });
    assert!(s.contains("Query — failed: SELEC id FROM objects"), "{s}");
    assert!(squeezed(&s).contains("ParserError"), "{s}");
    // `Esc` from the failed query: the rows of the one before.
    t.keys(&["Escape"]);
    t.wait_until_whole("the rows again", |s| s.contains(" rows in "));
    t.quit();
}

#[test]
fn the_query_history_outlives_the_tui_and_is_never_written_with_the_cache_off() {
    let cache = tempfile::tempdir().unwrap();
    let file = cache.path().join("query-history");
    let Some(t) = tui("history1", cache.path(), "") else {
        return;
    };
    query(&t, "SELECT count(*) AS n FROM classes");
    t.wait_for("Query — 1 row in ");
    t.quit();
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(kept, "SELECT count(*) AS n FROM classes\n");
    // A second run in the same cache directory: `↑` on the line brings it back.
    let Some(t) = tui("history2", cache.path(), "") else {
        return;
    };
    t.keys(&[":"]);
    t.wait_for(" SQL: ");
    t.keys(&["Up"]);
    t.wait_for(" SQL: SELECT count(*) AS n FROM classes▏");
    t.keys(&["Escape"]);
    t.wait_until_whole("the line closed", |s| !s.contains(" SQL: "));
    t.quit();
    // With the cache off: nothing read (`↑` finds no query), nothing written.
    let Some(t) = tui("history3", cache.path(), "--no-cache") else {
        return;
    };
    t.keys(&[":"]);
    t.wait_for(" SQL: ");
    t.keys(&["Up"]);
    t.wait_for("no query in the history yet");
    t.keys(&["-l", "SELECT 2"]);
    t.keys(&["Enter"]);
    t.wait_for("Query — 1 row in ");
    t.quit();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), kept);
}

#[test]
fn a_long_query_says_working_and_esc_cancels_it_with_the_keys_live() {
    let cache = tempfile::tempdir().unwrap();
    let Some(t) = tui("longquery", cache.path(), "") else {
        return;
    };
    // 36,412² pairs, about a minute in a debug build.
    query(
        &t,
        "SELECT count(*) FROM objects a CROSS JOIN objects b WHERE a.shallow > b.shallow",
    );
    t.wait_for("Query — working… ");
    // The seconds count up while it runs.
    t.wait_for("working… 1 s");
    // Other keys work meanwhile: the histogram, and back.
    t.keys(&["H"]);
    t.wait_until_whole("the histogram", |s| s.starts_with(" Class histogram"));
    t.keys(&["]"]);
    t.wait_for("Query — working… ");
    t.keys(&["Escape"]);
    let s = t.wait_for("Query — cancelled");
    assert!(s.contains("the query was cancelled"), "{s}");
    // The TUI answers: `?`, then `Esc` back to the histogram.
    t.keys(&["?"]);
    t.wait_for("Keys (");
    t.keys(&["Escape"]);
    t.wait_until_whole("the help closed", |s| !s.contains("Keys ("));
    t.keys(&["Escape"]);
    t.wait_until_whole("the histogram", |s| s.starts_with(" Class histogram"));
    t.quit();
}
