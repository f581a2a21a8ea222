//! Issue 28, defect 15: emoji sequences (ZWJ, flags, skin tones, VS16, keycaps, tags),
//! zero-width characters and CJK in names and strings, drawn at the width terminals draw
//! them (`heaptui::text`): every cell of the TestBackend holds a grapheme cluster as
//! wide as its code points drawn one by one, ids are whole, and the CLI shows the
//! characters that draw nothing and the skin-tone modifiers escaped. The same screens
//! in a real terminal are in `tui_tmux.rs` (`emoji_sequences_leave_no_stale_cells`).

use crate::common;

use common::hostile::*;
use common::tui::*;
use common::*;
use heaptui::ui::app::App;

/// The file, written once for all the tests (which run at once).
fn emoji_file() -> std::path::PathBuf {
    static FILE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let p = scratch().join("emoji.hprof");
        std::fs::write(&p, emoji_hprof()).unwrap();
        p
    })
    .clone()
}

fn emoji_app() -> App {
    let p = emoji_file();
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).unwrap();
    App::with_snapshot(p, snap)
}

/// Characters that must not reach a cell: they draw nothing (ZWJ, VS16, tags, ZWSP) or
/// draw at a width the terminal decides (a skin tone after an emoji).
fn raw_sequence_part(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{200d}' | '\u{fe0f}' | '\u{1f3fb}'..='\u{1f3ff}' | '\u{e0000}'..='\u{e007f}')
}

#[test]
fn emoji_sequences_draw_at_the_width_ratatui_measures_in_every_pane() {
    for (w, h) in [(80, 24), (100, 24), (160, 45)] {
        let mut t = terminal(w, h);
        let mut a = emoji_app();
        for (keys, expect) in EMOJI_STEPS {
            let s = run(&mut a, &mut t, keys);
            let what = format!("{w}x{h} after {keys:?}");
            assert!(s.contains(expect), "{what}: {expect:?}\n{s}");
            assert_cells_as_wide_as_drawn(&t, &what);
            assert!(!s.chars().any(raw_sequence_part), "{what}:\n{s}");
            // The joiners are shown, escaped, and the emoji around them kept.
            assert!(
                s.contains("👨\\u{200d}") || s.contains("👨 \\u{200d}"),
                "{what}:\n{s}"
            );
        }
        // The dominator tree's row: the name gives way, the id and figures stay.
        let rows = drawn_rows(&t);
        let row = rows
            .iter()
            .find(|r| r.contains("Fam"))
            .unwrap_or_else(|| panic!("{rows:#?}"));
        assert!(row.contains(" 0x1000 "), "{w}x{h}: {row}");
        assert!(row.ends_with("100.0%"), "{w}x{h}: {row}");
    }
}

#[test]
fn the_histogram_row_of_a_wide_name_keeps_its_columns() {
    let mut t = terminal(100, 24);
    let mut a = emoji_app();
    run(&mut a, &mut t, "\u{1b}G");
    let buf = t.backend().buffer().clone();
    // The header's "Count" and the row's count end in the same column: the name was
    // cut by the cells it takes, not by its characters.
    let col_of = |y: u16, what: &str| -> u16 {
        (0..buf.area.width)
            .find(|&x| buf[(x, y)].symbol() == what)
            .unwrap_or_else(|| panic!("{what:?} in row {y}:\n{}", screen(&t)))
    };
    let header = (0..buf.area.height)
        .find(|&y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .starts_with("Class ")
        })
        .unwrap();
    // The class's row: its name cut in the middle (issue 26), its head and end kept.
    let rows = drawn_rows(&t);
    let row = (0..buf.area.height)
        .find(|&y| {
            let r = &rows[y as usize];
            r.starts_with("com.x.Fam") && r.contains('…')
        })
        .unwrap_or_else(|| panic!("the class's row, cut in its middle:\n{}", screen(&t)));
    let count_end = col_of(header, "t"); // "Count" ends with 't'
    assert_eq!(buf[(count_end, row)].symbol(), "1", "{}", screen(&t));
    assert!(
        drawn_rows(&t)[row as usize].ends_with("End           1              16             152")
    );
}

#[test]
fn the_cli_shows_the_sequences_escaped_and_json_decodes_to_the_exact_text() {
    let p = emoji_file();
    let f = p.to_str().unwrap();
    let class = EMOJI_CLASS.replace('/', ".");
    for args in [
        &["histogram", f][..],
        &["dominators", f],
        &["inspect", f, "0x1000"],
        &["inspect", f, "0x2000"],
        &["path", f, "0x3000"],
        &["suspects", f],
        &["summary", f],
    ] {
        let out = heaptui(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.chars().any(raw_sequence_part), "{args:?}:\n{text}");
        if args[0] != "summary" && args[0] != "path" {
            assert!(
                text.contains("👨\\u{200d}👩\\u{200d}👧"),
                "{args:?}:\n{text}"
            );
        }
    }
    let t = String::from_utf8(heaptui(&["histogram", f]).stdout).unwrap();
    assert!(
        t.contains("Skin👍\\u{1f3fd}Heart❤\\u{fe0f}Key#\\u{fe0f}\u{20e3}Eng🏴\\u{e0067}"),
        "{t}"
    );
    assert!(t.contains("Zw\\u{200b}sp日本End"), "{t}");
    let t = String::from_utf8(heaptui(&["inspect", f, "0x2000"]).stdout).unwrap();
    assert!(t.contains("Skin👍\\u{1f3ff}Heart"), "{t}");

    // JSON: the same characters as \u escapes (a surrogate pair beyond U+FFFF), and the
    // document decodes to the exact names and text.
    let out = heaptui(&["histogram", f, "--json"]);
    let raw = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(!raw.chars().any(raw_sequence_part), "{raw}");
    assert!(
        raw.contains("\\u200d") && raw.contains("\\ud83c\\udffd"),
        "{raw}"
    );
    assert!(
        raw.contains("\\udb40\\udc67") && raw.contains("\\ufe0f"),
        "{raw}"
    );
    let v = json_of(&out);
    assert!(histogram_classes(&v).contains(&class.as_str()), "{v}");
    let v = inspect_json(f, "0x2000");
    assert_eq!(v["preview"], EMOJI_TEXT, "{v}");
}
