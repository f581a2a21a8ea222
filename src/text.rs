//! Sanitising untrusted text before it reaches a terminal.
//!
//! Class names, strings and file names come from the dump, which may come from anyone.
//! Escape sequences (CSI, OSC, DCS and two-byte ESC sequences) are removed whole, other
//! C0 and C1 control characters are dropped (tab and newlines become a space), and the
//! bidirectional overrides that can make text read differently from what it is are
//! removed; characters that draw nothing (zero-width space and joiners, BOM) are shown
//! as `\u{200b}`, so that a name cannot pass for another; at most two combining marks
//! are kept on one character. Everything else printable passes through unchanged and
//! unallocated.

use std::borrow::Cow;

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that draw nothing but make a name look like another (zero-width space
/// and joiners, word joiner, byte order mark, soft hyphen): shown as `\u{200b}`.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' | '\u{00AD}'
    )
}

fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_invisible(c)
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

/// Returns `s` with escape sequences and control characters removed.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_cleaning) && !too_many_marks(s) {
        return Cow::Borrowed(s);
    }
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
            c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c if needs_cleaning(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A JSON value as one line, with the characters that a terminal may act on escaped as
/// `\uXXXX` even where JSON allows them raw: C1 controls (U+0080..U+009F, which some
/// terminals take as CSI, OSC, ...), bidirectional overrides and isolates, and the line
/// and paragraph separators. serde_json already escapes the C0 controls. The text
/// decodes to the same string: `--json` output stays exact and is safe to print.
pub fn json_line(v: &serde_json::Value) -> String {
    use serde::Serialize;
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
                {
                    w.write_all(&fragment.as_bytes()[start..i])?;
                    write!(w, "\\u{:04x}", c as u32)?;
                    start = i + c.len_utf8();
                }
            }
            w.write_all(&fragment.as_bytes()[start..])
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Safe);
    if v.serialize(&mut ser).is_err() {
        return v.to_string();
    }
    String::from_utf8(out).unwrap_or_else(|_| v.to_string())
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

/// `s` shortened to `width` characters by cutting its middle (`java.util.conc…Node`),
/// for names whose both ends tell.
pub fn elide_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let keep = width - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
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

/// The parts joined into at most `width` characters: the shrinkable ones are cut in
/// their middle, the last listed first, each down to its minimum, before anything kept
/// whole is touched; only a row that cannot fit even so is cut at its end.
pub fn fit_parts(mut parts: Vec<Part>, width: usize) -> String {
    let len = |p: &[Part]| p.iter().map(|x| x.text.chars().count()).sum::<usize>();
    let mut over = len(&parts).saturating_sub(width);
    for p in parts.iter_mut().rev() {
        if over == 0 {
            break;
        }
        let Some(min) = p.min else { continue };
        let n = p.text.chars().count();
        let to = n.saturating_sub(over).max(min);
        if to < n {
            p.text = elide_middle(&p.text, to);
            over -= n - to;
        }
    }
    let joined: String = parts.iter().map(|p| p.text.as_str()).collect();
    joined.chars().take(width).collect()
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

#[cfg(test)]
mod fit_tests {
    use super::*;

    #[test]
    fn stacked_combining_marks_are_capped_per_character() {
        let zalgo = format!("a{}b\u{301}c", "\u{300}".repeat(300));
        let clean = sanitize(&zalgo);
        assert_eq!(clean, "a\u{300}\u{300}b\u{301}c");
        // Two marks on a letter (as Vietnamese has) pass through unallocated.
        let ok = "e\u{302}\u{301}";
        assert!(matches!(sanitize(ok), Cow::Borrowed(_)));
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
}
