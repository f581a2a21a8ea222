//! Sanitising untrusted text before it reaches a terminal, and measuring it as the
//! terminal draws it.
//!
//! Class names, strings and file names come from the dump, which may come from anyone.
//! Escape sequences (CSI, OSC, DCS and two-byte ESC sequences) are removed whole, other
//! C0 and C1 control characters are dropped (tab and newlines become a space), and the
//! bidirectional overrides that can make text read differently from what it is are
//! removed; characters that draw nothing (Unicode's default-ignorable code points: the
//! zero-width space and joiners, BOM, soft hyphen, variation selectors, tag characters,
//! Hangul fillers, ...) are shown as `\u{200b}`, so that a name cannot pass for another;
//! at most two combining marks are kept on one character. Everything else printable
//! passes through unchanged and unallocated.
//!
//! **Widths.** ratatui measures each grapheme cluster with `unicode-width` and moves on
//! by that many cells; a terminal moves its cursor by what it draws. Where the two differ
//! the screen is wrong: cells left over from the last frame, text shifted, the end of a
//! row cut. They differ on emoji sequences, whose width depends on the terminal: a ZWJ
//! sequence (👨‍👩‍👧) is 2 cells to `unicode-width` and to tmux 3.3, 6 to terminals that draw
//! code point by code point (VTE, xterm); a skin-tone modifier after an emoji (👍🏽) is 2
//! to `unicode-width`, 4 to tmux; VS16 (❤️) makes a one-cell character 2 to
//! `unicode-width`, 1 to tmux. So [`sanitize`] breaks such sequences into parts every
//! terminal draws alike, the width of each code point added up: the joiners and
//! selectors are shown escaped (they draw nothing), and so are the skin-tone modifiers
//! (`👍\u{1f3fd}`); any other cluster whose width is not the sum of its code points' keeps
//! its first character and shows the rest escaped. Flags (two regional indicators) are
//! 2 cells both ways and pass. Then [`width`] (what ratatui's buffer advances by) is what
//! the terminal draws, and the fitting functions below measure with it, not by counting
//! `char`s (a CJK or emoji name is twice as wide as it is long).

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that draw nothing but make a name look like another or change how its
/// neighbours are drawn: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties)
/// less the bidi controls, which are dropped, plus the Mongolian vowel separator. Among
/// them the zero-width space and joiners, word joiner, invisible operators, byte order
/// mark, soft hyphen, combining grapheme joiner, variation selectors (VS16 asks for an
/// emoji's two-cell form), tag characters (subdivision flags) and the Hangul fillers
/// (U+3164 is no cell to `unicode-width`, two to tmux). Shown as `\u{200b}`.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2065}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// The emoji skin-tone modifiers: two cells alone, but after an emoji two cells to
/// `unicode-width` and four to tmux. Shown as `\u{1f3fd}`.
fn is_emoji_modifier(c: char) -> bool {
    matches!(c, '\u{1F3FB}'..='\u{1F3FF}')
}

fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_invisible(c) || is_emoji_modifier(c)
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// Combining marks kept on one character; more are dropped (hundreds stacked on a
/// letter draw over the lines around it, "Zalgo" text).
const MARKS_PER_CHAR: usize = 2;

/// The combining diacritical mark blocks (Unicode's Mn characters that stack).
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{0483}'..='\u{0489}'
            | '\u{0591}'..='\u{05BD}'
            | '\u{0610}'..='\u{061A}'
            | '\u{064B}'..='\u{065F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

/// Whether `s` stacks more than [`MARKS_PER_CHAR`] combining marks on a character.
fn too_many_marks(s: &str) -> bool {
    let mut run = 0;
    for c in s.chars() {
        if is_combining(c) {
            run += 1;
            if run > MARKS_PER_CHAR {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// The cells a grapheme cluster takes when each of its code points is drawn on its own
/// (how terminals that know no emoji sequences draw it).
fn code_point_width(g: &str) -> usize {
    g.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Whether every grapheme cluster of `s` is as wide to ratatui as its code points.
fn widths_agree(s: &str) -> bool {
    s.is_ascii() || s.graphemes(true).all(|g| g.width() == code_point_width(g))
}

/// `s` with the clusters whose width is not their code points' split: the first
/// character kept, the rest escaped.
fn split_disagreeing(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for g in s.graphemes(true) {
        if g.width() == code_point_width(g) {
            out.push_str(g);
            continue;
        }
        let mut cs = g.chars();
        out.extend(cs.next());
        for c in cs {
            push_escaped(&mut out, c);
        }
    }
    out
}

/// `1234567` → `1,234,567`: counts and sizes as the TUI and the text reports write them.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The cells `s` takes on the screen: what ratatui's buffer advances by for it (each
/// grapheme cluster's `unicode-width`, clusters holding a control character skipped).
/// Equal to what a terminal draws for text that [`sanitize`] has passed.
pub fn width(s: &str) -> usize {
    if s.is_ascii() {
        return s.bytes().filter(|b| !b.is_ascii_control()).count();
    }
    s.graphemes(true)
        .filter(|g| !g.contains(char::is_control))
        .map(|g| g.width())
        .sum()
}

/// The longest start of `s` that is at most `cells` wide, cut between grapheme
/// clusters (a wide character that would straddle the limit is left out).
pub fn take_width(s: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true) {
        used += width(g);
        if used > cells {
            return &s[..i];
        }
    }
    s
}

/// `s` followed by spaces up to `cells` wide ([`width`]): `{:<N}` counts `char`s, so a
/// column after a wide or escaped name would not line up.
pub fn pad_to(s: &str, cells: usize) -> String {
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(' ', cells.saturating_sub(width(s))));
    out
}

/// The longest end of `s` that is at most `cells` wide, cut between grapheme clusters.
pub fn take_width_from_end(s: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true).rev() {
        used += width(g);
        if used > cells {
            return &s[i + g.len()..];
        }
    }
    s
}

/// Returns `s` with escape sequences and control characters removed, what draws
/// nothing escaped, combining marks capped, and emoji sequences split into parts every
/// terminal draws at the width [`width`] gives (the module's doc).
pub fn sanitize(s: &str) -> Cow<'_, str> {
    let clean = if !s.chars().any(needs_cleaning) && !too_many_marks(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(clean_chars(s))
    };
    if widths_agree(&clean) {
        clean
    } else {
        Cow::Owned(split_disagreeing(&clean))
    }
}

/// [`sanitize`]'s work on each character.
fn clean_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    let mut marks = 0;
    while let Some(c) = it.next() {
        if is_combining(c) {
            marks += 1;
            if marks <= MARKS_PER_CHAR {
                out.push(c);
            }
            continue;
        }
        marks = 0;
        match c {
            '\u{1b}' => match it.peek() {
                // CSI: parameters and intermediates up to a final byte 0x40..=0x7e.
                Some('[') => {
                    it.next();
                    for d in it.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            break;
                        }
                    }
                }
                // OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \).
                Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
                    it.next();
                    while let Some(d) = it.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' {
                            if it.peek() == Some(&'\\') {
                                it.next();
                            }
                            break;
                        }
                    }
                }
                Some(_) => {
                    it.next();
                }
                None => {}
            },
            // C1 CSI and OSC introducers.
            '\u{9b}' => {
                for d in it.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&d) {
                        break;
                    }
                }
            }
            '\t' | '\n' | '\r' => out.push(' '),
            c if is_invisible(c) || is_emoji_modifier(c) => push_escaped(&mut out, c),
            c if needs_cleaning(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// A JSON value as one line, with the characters that a terminal may act on escaped as
/// `\uXXXX` even where JSON allows them raw: C1 controls (U+0080..U+009F, which some
/// terminals take as CSI, OSC, ...), bidirectional overrides and isolates, the line
/// and paragraph separators, what draws nothing (as [`sanitize`] shows it: zero-width
/// characters, variation selectors, tags) and the skin-tone modifiers (whose width
/// depends on the terminal); those beyond U+FFFF as a surrogate pair. serde_json already
/// escapes the C0 controls. The text decodes to the same string: `--json` output stays
/// exact and is safe to print.
pub fn json_line<T: serde::Serialize + ?Sized>(v: &T) -> String {
    let mut out = Vec::new();
    if write_json(&mut out, v).is_err() {
        return serde_json::to_string(v).unwrap_or_default();
    }
    String::from_utf8(out).unwrap_or_else(|_| serde_json::to_string(v).unwrap_or_default())
}

/// Writes `v` as JSON to `w` as [`json_line`] does (no newline), as it is serialised:
/// a document of millions of values is never held whole.
pub fn write_json<W: std::io::Write, T: serde::Serialize + ?Sized>(
    w: W,
    v: &T,
) -> serde_json::Result<()> {
    struct Safe;
    impl serde_json::ser::Formatter for Safe {
        fn write_string_fragment<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            fragment: &str,
        ) -> std::io::Result<()> {
            let mut start = 0;
            for (i, c) in fragment.char_indices() {
                if matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
                    || is_bidi_control(c)
                    || is_invisible(c)
                    || is_emoji_modifier(c)
                {
                    w.write_all(&fragment.as_bytes()[start..i])?;
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        write!(w, "\\u{unit:04x}")?;
                    }
                    start = i + c.len_utf8();
                }
            }
            w.write_all(&fragment.as_bytes()[start..])
        }
    }
    let mut ser = serde_json::Serializer::with_formatter(w, Safe);
    v.serialize(&mut ser)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escape_sequences_and_controls() {
        assert_eq!(sanitize("java.lang.String"), "java.lang.String");
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m"), "ared");
        assert_eq!(sanitize("x\u{1b}]52;c;ZXZpbA==\u{7}y"), "xy");
        assert_eq!(sanitize("x\u{1b}]0;title\u{1b}\\y"), "xy");
        assert_eq!(sanitize("bell\u{7}\u{0}nul"), "bellnul");
        assert_eq!(sanitize("a\tb\nc"), "a b c");
        assert_eq!(sanitize("\u{9b}2Jz"), "z");
        assert_eq!(sanitize("abc\u{202E}fed"), "abcfed");
        assert_eq!(sanitize("日本€"), "日本€");
        assert_eq!(sanitize("trailing\u{1b}"), "trailing");
        // Issue 28, defect 15: what draws nothing is shown, so a name cannot pass for
        // another; DEL is dropped.
        assert_eq!(sanitize("Ses\u{200b}sion"), "Ses\\u{200b}sion");
        assert_eq!(sanitize("\u{feff}A\u{200d}B"), "\\u{feff}A\\u{200d}B");
        assert_eq!(sanitize("a\u{7f}b"), "ab");
    }

    #[test]
    fn json_line_escapes_what_a_terminal_acts_on_and_decodes_to_the_same_text() {
        let text = "a\u{1b}[31m\u{9b}2J\u{85}\u{202e}b\u{2066}c\u{2028}d é😀";
        let line = json_line(&serde_json::json!({ "k": text }));
        assert_eq!(
            line,
            r#"{"k":"a\u001b[31m\u009b2J\u0085\u202eb\u2066c\u2028d é😀"}"#
        );
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["k"], text);
        // DEL and the invisible characters are escaped too, and decode the same.
        let text = "a\u{7f}b\u{200b}c\u{feff}";
        let line = json_line(&serde_json::json!({ "k": text }));
        assert_eq!(line, r#"{"k":"a\u007fb\u200bc\ufeff"}"#);
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["k"], text);
    }
}

/// `s` shortened to `cells` wide by cutting its middle (`java.util.conc…Node`), for
/// names whose both ends tell. Measured as drawn ([`width`]); a wide character that
/// would straddle a cut is left out, so the result may be a cell narrower.
pub fn elide_middle(s: &str, cells: usize) -> String {
    if width(s) <= cells {
        return s.to_string();
    }
    if cells == 0 {
        return String::new();
    }
    let keep = cells - 1;
    let head = keep.div_ceil(2);
    let mut out = take_width(s, head).to_string();
    let tail = keep - width(&out);
    out.push('…');
    out.push_str(take_width_from_end(s, tail));
    out
}

/// One part of a row for [`fit_parts`]: its text, and how far it may shrink (`None`: it
/// is kept whole, as an id, a size or a root kind are).
pub struct Part {
    pub text: String,
    pub min: Option<usize>,
}

impl Part {
    pub fn keep(text: impl Into<String>) -> Part {
        Part {
            text: text.into(),
            min: None,
        }
    }
    pub fn shrink(text: impl Into<String>, min: usize) -> Part {
        Part {
            text: text.into(),
            min: Some(min),
        }
    }
}

/// The parts joined into at most `cells` wide ([`width`]): the shrinkable ones are cut
/// in their middle, the last listed first, each down to its minimum; where that is not
/// enough, down to `…` and then to nothing, the first listed first (the indent and the
/// reference's name go before the class), before anything kept whole (an id, a root
/// kind, a count) is touched. Only a row narrower than its kept parts is cut at its end.
pub fn fit_parts(mut parts: Vec<Part>, cells: usize) -> String {
    let mut over = parts
        .iter()
        .map(|x| width(&x.text))
        .sum::<usize>()
        .saturating_sub(cells);
    // Each shrinkable part down to its minimum, then to one cell (`…`), then to none.
    for floor in [None, Some(1), Some(0)] {
        let order: Vec<usize> = match floor {
            None => (0..parts.len()).rev().collect(),
            Some(_) => (0..parts.len()).collect(),
        };
        for i in order {
            let p = &mut parts[i];
            if over == 0 {
                break;
            }
            let Some(min) = p.min else { continue };
            let n = width(&p.text);
            let to = n.saturating_sub(over).max(floor.unwrap_or(min).min(min));
            if to < n && p.text.bytes().all(|b| b == b' ') {
                // An indent gives way as spaces, not as `…`.
                p.text.truncate(to);
                over = over.saturating_sub(n - to);
            } else if to < n {
                p.text = elide_middle(&p.text, to);
                over = over.saturating_sub(n - width(&p.text));
            }
        }
    }
    let joined: String = parts.iter().map(|p| p.text.as_str()).collect();
    take_width(&joined, cells).to_string()
}

/// `text` (sanitised) in rows of at most `cells` wide ([`width`]), broken at spaces; a
/// word wider than a row is broken where the row ends.
pub fn wrap_cells(text: &str, cells: usize) -> Vec<String> {
    let cells = cells.max(1);
    // A leading indent (a list under a heading) is kept, on every row of the text.
    let body = text.trim_start_matches(' ');
    let indent = " ".repeat((text.len() - body.len()).min(cells / 2));
    let mut out: Vec<String> = Vec::new();
    let mut row = indent.clone();
    let mut fresh = true;
    for word in body.split(' ') {
        let (rw, ww) = (width(&row), width(word));
        if !fresh && rw + 1 + ww > cells {
            out.push(std::mem::replace(&mut row, indent.clone()));
            fresh = true;
        }
        if !fresh {
            row.push(' ');
        }
        row.push_str(word);
        fresh = false;
        while width(&row) > cells {
            let head = take_width(&row, cells).to_string();
            if head.len() <= indent.len() {
                break;
            }
            row = format!("{indent}{}", &row[head.len()..]);
            out.push(head);
        }
    }
    if !fresh || out.is_empty() {
        out.push(row);
    }
    out
}

/// [`wrap_cells`] in at most `rows` rows: where the text needs more, its last row shown
/// ends with `…`, so that nothing is lost without a mark.
pub fn wrap_rows(text: &str, cells: usize, rows: usize) -> Vec<String> {
    let mut out = wrap_cells(text, cells);
    if out.len() > rows.max(1) {
        out.truncate(rows.max(1));
        if let Some(last) = out.last_mut() {
            *last = format!("{}…", take_width(last, cells.max(1) - 1));
        }
    }
    out
}

/// `s` at most `cells` wide ([`width`]), its end cut and marked with `…` when it does
/// not fit: a row cut so says it is (the whole text goes in the line under the list).
pub fn cut_marked(s: &str, cells: usize) -> String {
    if width(s) <= cells {
        return s.to_string();
    }
    if cells == 0 {
        return String::new();
    }
    let mut out = take_width(s, cells - 1).to_string();
    out.push('…');
    out
}

/// `s` in rows at most `cells` wide ([`width`]): broken at spaces, a word wider than a
/// row broken between grapheme clusters; nothing is dropped but the spaces a row ends
/// at. Pre-wrapped rows let a pane size itself by the rows it draws (a paragraph that
/// wraps by itself takes more rows than its lines, and its last lines were lost).
pub fn wrap(s: &str, cells: usize) -> Vec<String> {
    let cells = cells.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for (k, word) in s.split(' ').enumerate() {
        let w = width(word);
        if k > 0 {
            // A word wider than a row is broken where it stands.
            if used + 1 + w <= cells || (w > cells && used + 2 <= cells) {
                line.push(' ');
                used += 1;
            } else if used > 0 || !line.is_empty() {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
        }
        for g in word.graphemes(true) {
            let gw = width(g);
            if used + gw > cells && used > 0 {
                let row = std::mem::take(&mut line);
                out.push(row.trim_end_matches(' ').to_string());
                used = 0;
            }
            line.push_str(g);
            used += gw;
        }
    }
    out.push(line);
    out
}

/// Bytes in a human unit (B, KiB, MiB, GiB), as lists show them.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// `parts` in at most `cells`: names cut in their middle first, then, if what is kept
/// whole does not fit either, the end cut with a mark.
pub fn fit_marked(parts: Vec<Part>, cells: usize) -> String {
    let least: usize = parts
        .iter()
        .map(|p| match p.min {
            None => width(&p.text),
            Some(m) => width(&p.text).min(m),
        })
        .sum();
    if least <= cells {
        return fit_parts(parts, cells);
    }
    cut_marked(&fit_parts(parts, least), cells)
}

#[cfg(test)]
mod fit_tests;
