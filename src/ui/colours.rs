//! How many colours the terminal has, and an output filter that writes the theme's
//! colours in the terminal's own words.
//!
//! crossterm writes every colour, the sixteen named ones included, as a 256-colour
//! sequence (`ESC[38;5;8m`, `ESC[48;5;4m`), which a terminal of 8 or 16 colours (`xterm`,
//! `linux`) shows wrongly or not at all. The theme ([`super::theme`]) uses only the
//! sixteen named colours; where the terminal has fewer than 256, [`SgrFilter`] rewrites
//! them to the ANSI forms (`ESC[90m`, `ESC[44m`) on their way to the terminal.
//!
//! The number of colours comes from, in order: `COLORTERM` (`truecolor` or `24bit`:
//! many), the terminal's terminfo entry (its `colors` number, read from the compiled
//! file as ncurses writes it: no crate, no `infocmp`), and without an entry the name in
//! `TERM` (`…256color`, `…direct`: many; `linux`: 8; anything else: 16). `TERM=dumb`
//! has no cursor addressing: the TUI refuses it (as `less` and `htop` do) and points at
//! the batch commands.

use std::io::{self, Write};
use std::path::PathBuf;

/// The colours a terminal has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// `TERM=dumb`: no screen to draw on.
    Dumb,
    /// The eight ANSI colours, the bright ones as foregrounds only (the Linux console).
    Eight,
    /// The sixteen ANSI colours.
    Sixteen,
    /// 256 or more: crossterm's sequences as they are.
    Many,
}

impl Depth {
    /// The depth of the terminal this process runs in.
    pub fn from_env() -> Depth {
        let var = |k: &str| std::env::var(k).ok();
        detect(
            var("TERM").as_deref(),
            var("COLORTERM").as_deref(),
            terminfo_colors,
        )
    }
}

/// The depth for `term` and `colorterm` (the variables' values), with `colors` the
/// terminfo entry's `colors` of a terminal name, where it has an entry.
pub fn detect(
    term: Option<&str>,
    colorterm: Option<&str>,
    colors: impl Fn(&str) -> Option<i32>,
) -> Depth {
    let term = term.unwrap_or("").trim();
    if term == "dumb" {
        return Depth::Dumb;
    }
    if matches!(colorterm.map(str::trim), Some("truecolor" | "24bit")) {
        return Depth::Many;
    }
    if term.is_empty() {
        return Depth::Sixteen;
    }
    match colors(term) {
        Some(n) if n >= 256 => Depth::Many,
        Some(n) if n >= 16 => Depth::Sixteen,
        Some(n) if n > 0 => Depth::Eight,
        // An entry without colours (`xterm-mono`): the theme's colours are not shown
        // as colours anyway; the ANSI forms are the harmless ones.
        Some(_) => Depth::Eight,
        None if ["256color", "direct", "truecolor"]
            .iter()
            .any(|k| term.contains(k)) =>
        {
            Depth::Many
        }
        None if term == "linux" => Depth::Eight,
        None => Depth::Sixteen,
    }
}

/// The directories ncurses looks for compiled terminfo entries in, in its order.
fn terminfo_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("TERMINFO") {
        dirs.push(PathBuf::from(d));
    }
    if let Some(h) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(h).join(".terminfo"));
    }
    let defaults = [
        "/etc/terminfo",
        "/lib/terminfo",
        "/usr/share/terminfo",
        "/usr/lib/terminfo",
    ];
    match std::env::var("TERMINFO_DIRS") {
        Ok(list) => {
            for d in list.split(':') {
                if d.is_empty() {
                    dirs.extend(defaults.iter().map(PathBuf::from));
                } else {
                    dirs.push(PathBuf::from(d));
                }
            }
        }
        Err(_) => dirs.extend(defaults.iter().map(PathBuf::from)),
    }
    dirs
}

/// The `colors` number of the terminfo entry for `term`, from the first compiled entry
/// found (`<dir>/x/xterm`, or `<dir>/78/xterm` as macOS names them); `None` without one.
pub fn terminfo_colors(term: &str) -> Option<i32> {
    let first = term.chars().next()?;
    if term.contains('/') || term.contains("..") || term.len() > 128 {
        return None;
    }
    for dir in terminfo_dirs() {
        for sub in [first.to_string(), format!("{:02x}", first as u32)] {
            if let Ok(bytes) = std::fs::read(dir.join(&sub).join(term)) {
                return colors_of_entry(&bytes);
            }
        }
    }
    None
}

/// The index of `colors` among terminfo's numbers (term(5)).
const COLORS: usize = 13;

/// `colors` from a compiled terminfo entry (term(5): the legacy format, magic 0432, with
/// 16-bit numbers, and ncurses 6's, magic 01036, with 32-bit ones); `None` when the
/// entry is malformed, -1 when it has no `colors`.
pub fn colors_of_entry(b: &[u8]) -> Option<i32> {
    let short = |at: usize| -> Option<i32> {
        let x = b.get(at..at + 2)?;
        Some(i16::from_le_bytes([x[0], x[1]]) as i32)
    };
    let wide = match short(0)? {
        0o432 => false,
        0o1036 => true,
        _ => return None,
    };
    let names = usize::try_from(short(2)?).ok()?;
    let bools = usize::try_from(short(4)?).ok()?;
    let numbers = usize::try_from(short(6)?).ok()?;
    if numbers <= COLORS {
        return Some(-1);
    }
    let mut at = 12 + names + bools;
    at += at % 2;
    if wide {
        let x = b.get(at + 4 * COLORS..at + 4 * COLORS + 4)?;
        Some(i32::from_le_bytes([x[0], x[1], x[2], x[3]]))
    } else {
        short(at + 2 * COLORS)
    }
}

/// Rewrites the 256-colour SGR sequences that crossterm writes into the ANSI forms a
/// terminal of `depth` understands (`38;5;N` → `3N`/`9N`, `48;5;N` → `4N`/`10N`; colours
/// beyond the sixteen and RGB ones → the default), passing every other byte through. A
/// sequence split between writes is kept until its end arrives.
pub struct SgrFilter<W: Write> {
    out: W,
    depth: Depth,
    /// The bytes of an escape sequence not ended yet.
    pending: Vec<u8>,
}

impl<W: Write> SgrFilter<W> {
    pub fn new(out: W, depth: Depth) -> Self {
        SgrFilter {
            out,
            depth,
            pending: Vec::new(),
        }
    }

    fn rewrite(&self, params: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(params);
        let p: Vec<&str> = text.split(';').collect();
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < p.len() {
            let base = match p[i] {
                "38" => Some(30),
                "48" => Some(40),
                _ => None,
            };
            match (base, p.get(i + 1).copied()) {
                (Some(base), Some("5")) => {
                    let n: u32 = p.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or(999);
                    out.push(self.ansi(base, n));
                    i += 3;
                }
                (Some(base), Some("2")) => {
                    out.push((base + 9).to_string());
                    i += 5;
                }
                _ => {
                    out.push(p[i].to_string());
                    i += 1;
                }
            }
        }
        out.join(";").into_bytes()
    }

    /// Colour `n` of the 256 as a foreground (`base` 30) or background (40) code.
    fn ansi(&self, base: u32, n: u32) -> String {
        match n {
            0..=7 => (base + n).to_string(),
            // Bright: 90–97 and 100–107; a Linux console has no bright backgrounds.
            8..=15 if base == 40 && self.depth == Depth::Eight => (base + n - 8).to_string(),
            8..=15 => (base + 60 + n - 8).to_string(),
            _ => (base + 9).to_string(),
        }
    }
}

impl<W: Write> Write for SgrFilter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.depth == Depth::Many {
            return self.out.write(buf);
        }
        let mut out = Vec::with_capacity(buf.len() + 8);
        for &c in buf {
            if self.pending.is_empty() {
                if c == 0x1b {
                    self.pending.push(c);
                } else {
                    out.push(c);
                }
                continue;
            }
            self.pending.push(c);
            let seq = &self.pending;
            let done = if seq.len() == 2 {
                // Only CSI sequences (`ESC [`) are looked into.
                c != b'['
            } else {
                (0x40..=0x7e).contains(&c) || seq.len() > 64
            };
            if done {
                if seq.len() > 2 && c == b'm' && seq[1] == b'[' {
                    let params = seq[2..seq.len() - 1].to_vec();
                    out.extend_from_slice(b"\x1b[");
                    out.extend(self.rewrite(&params));
                    out.push(b'm');
                } else {
                    out.extend_from_slice(seq);
                }
                self.pending.clear();
            }
        }
        self.out.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filtered(depth: Depth, chunks: &[&[u8]]) -> String {
        let mut f = SgrFilter::new(Vec::new(), depth);
        for c in chunks {
            f.write_all(c).unwrap();
        }
        String::from_utf8(f.out).unwrap()
    }

    #[test]
    fn named_colours_become_ansi_codes_where_the_terminal_has_sixteen() {
        let s = filtered(
            Depth::Sixteen,
            &[b"a\x1b[38;5;8mb\x1b[48;5;4m\x1b[38;5;3;48;5;8;1mc\x1b[2J"],
        );
        assert_eq!(s, "a\x1b[90mb\x1b[44m\x1b[33;100;1mc\x1b[2J");
        // Split anywhere, the same.
        let s = filtered(
            Depth::Sixteen,
            &[b"\x1b[38;", b"5;", b"9m", b"x\x1b", b"[48;5;1", b"5m"],
        );
        assert_eq!(s, "\x1b[91mx\x1b[107m");
        // A Linux console: no bright backgrounds.
        assert_eq!(
            filtered(Depth::Eight, &[b"\x1b[48;5;8m\x1b[38;5;8m"]),
            "\x1b[40m\x1b[90m"
        );
        // Beyond the sixteen, and RGB: the default colour.
        assert_eq!(
            filtered(Depth::Sixteen, &[b"\x1b[38;5;200m\x1b[48;2;1;2;3m"]),
            "\x1b[39m\x1b[49m"
        );
        // Many colours: untouched.
        assert_eq!(filtered(Depth::Many, &[b"\x1b[38;5;8m"]), "\x1b[38;5;8m");
    }

    #[test]
    fn the_depth_follows_colorterm_then_terminfo_then_the_name() {
        let none = |_: &str| None;
        assert_eq!(detect(Some("dumb"), None, none), Depth::Dumb);
        assert_eq!(detect(Some("xterm"), Some("truecolor"), none), Depth::Many);
        assert_eq!(detect(Some("xterm"), None, |_| Some(8)), Depth::Eight);
        assert_eq!(detect(Some("rxvt"), None, |_| Some(88)), Depth::Sixteen);
        assert_eq!(
            detect(Some("xterm-256color"), None, |_| Some(256)),
            Depth::Many
        );
        assert_eq!(detect(Some("xterm-256color"), None, none), Depth::Many);
        assert_eq!(detect(Some("linux"), None, none), Depth::Eight);
        assert_eq!(detect(Some("screen"), None, none), Depth::Sixteen);
        assert_eq!(detect(None, None, none), Depth::Sixteen);
    }

    /// The compiled entries of this machine, where it has them (`ncurses-base`): xterm
    /// and linux have 8 colours, xterm-256color 256, dumb none.
    #[test]
    fn terminfo_entries_are_read_for_their_colours() {
        for (term, want) in [
            ("xterm", 8),
            ("linux", 8),
            ("xterm-256color", 256),
            ("dumb", -1),
        ] {
            match terminfo_colors(term) {
                Some(n) => assert_eq!(n, want, "{term}"),
                None => eprintln!("no terminfo entry for {term} here"),
            }
        }
        assert_eq!(colors_of_entry(b"nonsense"), None);
        assert_eq!(colors_of_entry(&[]), None);
    }
}
