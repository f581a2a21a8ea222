//! Tests of the width, fitting and wrapping helpers of [`super`].

use super::*;

#[test]
fn wrap_breaks_at_spaces_and_keeps_every_character() {
    let s = "dominator none: weakly reachable (only weak or soft references lead to it)";
    let rows = wrap(s, 30);
    assert!(rows.iter().all(|r| width(r) <= 30), "{rows:?}");
    assert_eq!(rows.join(" "), s);
    assert_eq!(rows[0], "dominator none: weakly");
    // A word wider than a row is broken; wide characters are counted as two.
    let rows = wrap("ab 漢字漢字漢字", 4);
    assert_eq!(rows, ["ab", "漢字", "漢字", "漢字"]);
    let rows = wrap("value \"0123456789\"", 8);
    assert_eq!(rows, ["value \"0", "12345678", "9\""]);
    assert_eq!(wrap("", 10), [""]);
    assert_eq!(cut_marked("0xf1c01678 java.lang.Class", 12), "0xf1c01678 …");
    assert_eq!(cut_marked("short", 12), "short");
}

#[test]
fn stacked_combining_marks_are_capped_per_character() {
    let zalgo = format!("a{}b\u{301}c", "\u{300}".repeat(300));
    let clean = sanitize(&zalgo);
    assert_eq!(clean, "a\u{300}\u{300}b\u{301}c");
    // Two marks on a letter (as Vietnamese has) pass through unallocated.
    let ok = "e\u{302}\u{301}";
    assert!(matches!(sanitize(ok), Cow::Borrowed(_)));
}

/// Emoji sequences as `sanitize` leaves them, and the cells they take.
#[test]
fn emoji_sequences_are_split_into_what_every_terminal_draws_alike() {
    for (raw, clean, cells) in [
        // ZWJ sequence: 2 cells to unicode-width and tmux, 6 to VTE and xterm.
        (
            "👨\u{200d}👩\u{200d}👧",
            "👨\\u{200d}👩\\u{200d}👧",
            2 + 8 + 2 + 8 + 2,
        ),
        // Skin tone: 2 to unicode-width, 4 to tmux.
        ("👍🏽", "👍\\u{1f3fd}", 2 + 9),
        ("🏽", "\\u{1f3fd}", 9),
        // VS16: 2 to unicode-width, 1 to tmux; VS15 the other way round.
        ("❤\u{fe0f}", "❤\\u{fe0f}", 1 + 8),
        ("⌚\u{fe0e}", "⌚\\u{fe0e}", 2 + 8),
        // Keycap: the enclosing mark stays on the escape's last character.
        ("#\u{fe0f}\u{20e3}", "#\\u{fe0f}\u{20e3}", 1 + 8),
        // Subdivision flag: tag characters draw nothing.
        (
            "🏴\u{e0067}\u{e0062}\u{e007f}",
            "🏴\\u{e0067}\\u{e0062}\\u{e007f}",
            2 + 27,
        ),
        // Hangul filler: no cell to unicode-width, two to tmux.
        ("a\u{3164}b", "a\\u{3164}b", 10),
    ] {
        let got = sanitize(raw);
        assert_eq!(got, clean, "{}", raw.escape_unicode());
        assert_eq!(width(&got), cells, "{got}");
        assert!(widths_agree(&got), "{got}");
    }
    // Flags, CJK, accents and Hangul syllables from jamo are the same width both
    // ways and pass unallocated.
    for ok in [
        "🇺🇸",
        "🇺🇸🇬",
        "日本",
        "e\u{301}",
        "\u{1100}\u{1161}\u{11a8}",
        "Ünïcödé",
    ] {
        assert!(matches!(sanitize(ok), Cow::Borrowed(_)), "{ok}");
    }
    // The net under the classes above: a cluster whose width is not its code
    // points' keeps its first character, the rest escaped.
    assert_eq!(split_disagreeing("x👍🏽y"), "x👍\\u{1f3fd}y");
    assert_eq!(split_disagreeing("❤\u{fe0f}"), "❤\\u{fe0f}");
    assert!(!widths_agree("👍🏽") && widths_agree("👍\\u{1f3fd}"));
    assert_eq!(width("🇺🇸"), 2);
    assert_eq!(width("日本"), 4);
    assert_eq!(width("a\u{1b}b"), 2);
}

/// Whatever the text, every grapheme cluster `sanitize` leaves is as wide as its
/// code points drawn one by one: ratatui (which measures clusters) and the terminal
/// (tmux, VTE, xterm, which draw code points) agree on every cell.
#[test]
fn sanitized_clusters_are_as_wide_as_their_code_points() {
    use proptest::prelude::*;
    const ALPHABET: &[char] = &[
        'a',
        'Z',
        ' ',
        '日',
        'ｱ',
        '👨',
        '👩',
        '👍',
        '❤',
        '☺',
        '#',
        '⌚',
        '\u{200d}',
        '\u{200c}',
        '\u{fe0f}',
        '\u{fe0e}',
        '\u{1f3fb}',
        '\u{1f3ff}',
        '\u{1f1fa}',
        '\u{1f1f8}',
        '\u{20e3}',
        '\u{301}',
        '\u{e0067}',
        '\u{e007f}',
        '\u{1100}',
        '\u{1161}',
        '\u{11a8}',
        '\u{3164}',
        '\u{0644}',
        '\u{0627}',
        '\u{0600}',
        '\u{0e33}',
        '\u{0903}',
        '\u{17d2}',
        '\u{1780}',
        '\u{2d7f}',
        '\u{2d30}',
        '\u{a8e0}',
        '\u{1b44}',
        '\u{1f3f4}',
        '\u{1f9d1}',
        '\u{1f384}',
        '\u{00ad}',
        '\u{0001}',
        '\u{1b}',
        '[',
        'm',
    ];
    let text = prop::collection::vec(prop::sample::select(ALPHABET), 0..24)
        .prop_map(|v| v.into_iter().collect::<String>());
    proptest!(ProptestConfig::with_cases(4000), |(s in text)| {
        let clean = sanitize(&s);
        for g in clean.graphemes(true) {
            prop_assert_eq!(
                g.width(),
                code_point_width(g),
                "{} in {}", g.escape_unicode(), s.escape_unicode()
            );
        }
        prop_assert_eq!(width(&clean), code_point_width(&clean));
    });
}

#[test]
fn wide_names_are_fitted_by_the_cells_they_take() {
    let name = "日本語のクラス名前空間の中のクラス";
    assert_eq!(width(name), 34);
    let cut = elide_middle(name, 15);
    assert!(width(&cut) <= 15 && width(&cut) >= 14, "{cut}");
    assert!(cut.starts_with("日本語") && cut.ends_with("ラス"), "{cut}");
    assert_eq!(take_width("日本", 3), "日");
    assert_eq!(take_width_from_end("日本", 3), "本");
    // The id is kept whole and the row is no wider than asked, although the name
    // has fewer characters than cells.
    let row = fit_parts(
        vec![
            Part::keep("  "),
            Part::shrink(
                sanitize("👨\u{200d}👩\u{200d}👧家族👍🏽クラス").into_owned(),
                8,
            ),
            Part::keep(" 0x100000"),
        ],
        30,
    );
    assert!(width(&row) <= 30, "{row} {}", width(&row));
    assert!(row.ends_with(" 0x100000"), "{row}");
    assert!(row.contains('…'), "{row}");
}

#[test]
fn ids_and_root_kinds_are_kept_and_names_cut_in_the_middle() {
    let row = |w| {
        fit_parts(
            vec![
                Part::keep("  · "),
                Part::shrink("elementData ← ", 4),
                Part::shrink("java.util.concurrent.ConcurrentHashMap$Node", 8),
                Part::keep(" 0x100000"),
                Part::shrink(" \"some label\"", 0),
                Part::keep("  [GC root: sticky class]"),
            ],
            w,
        )
    };
    let wide = row(200);
    assert!(wide.contains("ConcurrentHashMap$Node 0x100000 \"some label\""));
    let narrow = row(70);
    assert_eq!(narrow.chars().count(), 70, "{narrow}");
    assert!(narrow.contains(" 0x100000"), "{narrow}");
    assert!(narrow.ends_with("  [GC root: sticky class]"), "{narrow}");
    assert!(narrow.contains('…'), "{narrow}");
    assert!(narrow.contains("java.util"), "{narrow}");
    assert!(narrow.contains("Node"), "{narrow}");
    assert_eq!(elide_middle("abcdefghij", 5), "ab…ij");
}

#[test]
fn wrapped_rows_keep_their_words_and_indent_and_mark_what_is_left_out() {
    assert_eq!(wrap_cells("ab cd ef", 5), ["ab cd", "ef"]);
    assert_eq!(wrap_cells("  1000 × Index", 8), ["  1000 ×", "  Index"]);
    assert_eq!(wrap_cells("abcdefgh", 3), ["abc", "def", "gh"]);
    assert_eq!(wrap_cells("", 3), [""]);
    assert_eq!(wrap_rows("ab cd ef gh", 5, 1), ["ab c…"]);
    assert_eq!(wrap_rows("ab cd ef gh ij", 5, 2), ["ab cd", "ef g…"]);
    assert_eq!(wrap_rows("ab cd", 5, 2), ["ab cd"]);
}

#[test]
fn past_their_minimum_the_names_give_way_before_an_id_is_cut() {
    // Issue 39, bug 4: `[JNI global] jdk.…der 0` in a merged-paths row at 120
    // columns: the kept parts and the names' minimums did not fit, and the row was
    // cut at its end, through the id.
    let row = |w| {
        fit_parts(
            vec![
                Part::shrink("    ", 2),
                Part::keep("[JNI global] "),
                Part::shrink("path → ", 4),
                Part::shrink("jdk.internal.loader.ClassLoaders$AppClassLoader", 8),
                Part::keep(" 0xe0f00000"),
            ],
            w,
        )
    };
    for w in 24..=40 {
        let r = row(w);
        assert!(
            r.ends_with("[JNI global] ") || r.contains("[JNI global] "),
            "{w}: {r}"
        );
        assert!(r.ends_with(" 0xe0f00000"), "{w}: {r:?}");
        assert!(width(&r) <= w, "{w}: {r:?}");
    }
    // The class is the last to go: the indent and the reference give way first, the
    // indent as spaces.
    assert!(row(32).contains("jdk"), "{}", row(32));
    assert!(row(32).starts_with(" [JNI"), "{}", row(32));
    // Only a row narrower than its kept parts is cut at its end.
    assert_eq!(row(10), "[JNI globa");
}
