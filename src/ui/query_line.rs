//! The query line that `:` opens (issue 41): SQL typed and edited in place, `Tab`
//! completing the word before the cursor from the names of the schema, `↑`/`↓` walking
//! the history, `Enter` running it, `Esc` closing the line. What runs a query and shows
//! its rows is `crate::ui::panes::query`; this is the line and its history alone.
//!
//! The history is kept in the user's cache directory (`query-history`): one query a line
//! (a newline in one written `\n`, a backslash `\\`), newest last, at most
//! [`HISTORY_MAX`], a query run again moved to the end. It is read again each time the
//! line opens and before each write, so two heaptui running at once lose neither's
//! queries. With the cache off (`--no-cache`, `HEAPTUI_NO_CACHE=1`) it is neither read
//! nor written: the queries of the session are kept in memory only.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// How many queries the history keeps.
pub const HISTORY_MAX: usize = 500;

/// The history file's name in the cache directory.
pub const HISTORY_FILE: &str = "query-history";

/// The longest history file read (a larger one is someone else's: ignored).
const HISTORY_BYTES: u64 = 8 << 20;

/// The names `Tab` completes from.
#[derive(Clone, Copy, Debug, Default)]
pub struct Names<'a> {
    /// The tables with their columns.
    pub tables: &'a [(&'a str, &'a [&'a str])],
    pub functions: &'a [&'a str],
    /// The schemas, with two snapshots open (`base`, `target`): each holds the tables
    /// but those of `two_only`. None with one.
    pub schemas: &'a [&'a str],
    /// The tables there only with two snapshots (`diff`), and then outside the schemas.
    pub two_only: &'a [&'a str],
}

/// The queries run before, oldest first, and the file they are kept in (none: in memory).
#[derive(Debug, Default)]
pub struct History {
    file: Option<PathBuf>,
    entries: Vec<String>,
    read: bool,
}

impl History {
    /// The history in the cache directory, or in memory only when the cache is off.
    pub fn in_cache() -> History {
        let file = crate::session::cache_enabled()
            .then(crate::sys::files::cache_dir)
            .flatten()
            .map(|d| d.join(HISTORY_FILE));
        History::at(file)
    }

    /// The history kept in `file` (`None`: in memory only).
    pub fn at(file: Option<PathBuf>) -> History {
        History {
            file,
            entries: Vec::new(),
            read: false,
        }
    }

    /// The queries, oldest first (read from the file the first time).
    pub fn entries(&mut self) -> &[String] {
        if !self.read {
            self.reload();
        }
        &self.entries
    }

    /// Reads the file again (another heaptui may have added to it); a file that cannot be
    /// read leaves the queries as they are.
    pub fn reload(&mut self) {
        self.read = true;
        if let Some(read) = self.file.as_deref().and_then(read_history) {
            self.entries = read;
        }
    }

    /// Adds `query` as the newest (moved there if it was already in), drops the oldest
    /// past [`HISTORY_MAX`], and writes the file; `Err` says why it could not be written.
    pub fn add(&mut self, query: &str) -> Result<(), String> {
        self.reload();
        self.entries.retain(|q| q != query);
        self.entries.push(query.to_string());
        let over = self.entries.len().saturating_sub(HISTORY_MAX);
        self.entries.drain(..over);
        let Some(file) = &self.file else {
            return Ok(());
        };
        write_history(file, &self.entries).map_err(|e| {
            format!(
                "the query history was not written to {}: {e}",
                file.display()
            )
        })
    }
}

/// The queries of a history file, or `None` when there is none to read.
fn read_history(file: &Path) -> Option<Vec<String>> {
    use std::io::Read;
    if let Some(dir) = file.parent() {
        crate::sys::files::trusted_dir(dir).ok()?;
    }
    let f = std::fs::File::open(file).ok()?;
    let mut bytes = Vec::new();
    f.take(HISTORY_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<String> = text
        .lines()
        .map(unescape)
        .filter(|q| !q.trim().is_empty())
        .collect();
    let over = out.len().saturating_sub(HISTORY_MAX);
    out.drain(..over);
    Some(out)
}

fn write_history(file: &Path, entries: &[String]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        crate::sys::files::private_dir(dir)?;
    }
    let mut text = String::new();
    for q in entries {
        text.push_str(&escape(q));
        text.push('\n');
    }
    crate::sys::files::write_private(file, text.as_bytes())
}

/// A query as one line of the history file.
pub fn escape(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for c in query.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// A line of the history file as the query it holds.
pub fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut it = line.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// What a key did to the line.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    /// The line changed, or the key did nothing worth a word.
    Done,
    /// `Enter`: run this query (the line is done with).
    Run(String),
    /// `Esc`: close the line.
    Close,
    /// A word for the user (nothing to complete, no older query).
    Say(String),
    /// Not the line's key (`Ctrl-c`: the app quits).
    Ignored,
}

/// The line: its text, the cursor, and where `↑`/`↓` and `Tab` are.
#[derive(Debug, Default)]
pub struct QueryLine {
    chars: Vec<char>,
    /// The cursor, as an index into `chars`.
    cursor: usize,
    /// The history entry shown (`↑`/`↓`), counted from the newest (0), and the text
    /// typed before the walk began, which `↓` past the newest brings back.
    walk: Option<usize>,
    draft: Vec<char>,
    completing: Option<Completing>,
}

/// `Tab`'s candidates for the word that begins at `start`, and which one is in the line
/// (`None`: their common beginning).
#[derive(Debug)]
struct Completing {
    start: usize,
    candidates: Vec<String>,
    at: Option<usize>,
}

impl QueryLine {
    pub fn new() -> QueryLine {
        QueryLine::default()
    }

    /// A line holding `text`, the cursor at its end.
    pub fn with_text(text: &str) -> QueryLine {
        let chars: Vec<char> = text.chars().collect();
        QueryLine {
            cursor: chars.len(),
            chars,
            ..QueryLine::default()
        }
    }

    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// `Tab`'s candidates while a word is being completed, and the one in the line.
    pub fn candidates(&self) -> Option<(&[String], Option<usize>)> {
        self.completing
            .as_ref()
            .map(|c| (c.candidates.as_slice(), c.at))
    }

    /// Handles a key; `history` is oldest first, `names` what `Tab` completes from.
    pub fn key(&mut self, key: &KeyEvent, history: &[String], names: Names) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code != KeyCode::Tab {
            self.completing = None;
        }
        if !matches!(key.code, KeyCode::Up | KeyCode::Down) {
            self.walk = None;
        }
        let n = self.chars.len();
        match key.code {
            KeyCode::Char('c') if ctrl => return Edit::Ignored,
            KeyCode::Enter => {
                let text = self.text();
                let sql = text.trim();
                return if sql.is_empty() {
                    Edit::Close
                } else {
                    Edit::Run(sql.to_string())
                };
            }
            KeyCode::Esc => return Edit::Close,
            KeyCode::Tab => return self.complete(names),
            KeyCode::Up => return self.older(history),
            KeyCode::Down => return self.newer(history),
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(n),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = n,
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = n,
            // Ctrl-u: everything before the cursor goes (readline's).
            KeyCode::Char('u') if ctrl => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
            }
            // Ctrl-w: the word before the cursor goes.
            KeyCode::Char('w') if ctrl => {
                let mut start = self.cursor;
                while start > 0 && self.chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && self.chars[start - 1] != ' ' {
                    start -= 1;
                }
                self.chars.drain(start..self.cursor);
                self.cursor = start;
            }
            KeyCode::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
            }
            KeyCode::Delete if self.cursor < n => {
                self.chars.remove(self.cursor);
            }
            KeyCode::Backspace | KeyCode::Delete => {}
            KeyCode::Char(c) if !ctrl => {
                self.chars.insert(self.cursor, c);
                self.cursor += 1;
            }
            _ => return Edit::Ignored,
        }
        Edit::Done
    }

    /// `↑`: the query before the one shown.
    fn older(&mut self, history: &[String]) -> Edit {
        let next = self.walk.map_or(0, |w| w + 1);
        let Some(q) = history.len().checked_sub(next + 1).map(|i| &history[i]) else {
            return Edit::Say(if history.is_empty() {
                "no query in the history yet".into()
            } else {
                "the oldest query of the history".into()
            });
        };
        if self.walk.is_none() {
            self.draft = std::mem::take(&mut self.chars);
        }
        self.walk = Some(next);
        self.set(q.chars().collect());
        Edit::Done
    }

    /// `↓`: the query after the one shown, and past the newest the text typed before.
    fn newer(&mut self, history: &[String]) -> Edit {
        match self.walk {
            None => Edit::Done,
            Some(0) => {
                self.walk = None;
                let draft = std::mem::take(&mut self.draft);
                self.set(draft);
                Edit::Done
            }
            Some(w) => {
                self.walk = Some(w - 1);
                let q = &history[history.len().saturating_sub(w)];
                self.set(q.chars().collect());
                Edit::Done
            }
        }
    }

    fn set(&mut self, chars: Vec<char>) {
        self.chars = chars;
        self.cursor = self.chars.len();
    }

    /// `Tab`: the word before the cursor completed, to the one name it can be, or to the
    /// names' common beginning; `Tab` again puts each in turn.
    fn complete(&mut self, names: Names) -> Edit {
        if let Some(c) = self.completing.as_mut() {
            let at = c.at.map_or(0, |a| (a + 1) % c.candidates.len());
            c.at = Some(at);
            let (start, word) = (c.start, c.candidates[at].clone());
            self.replace_word(start, &word);
            return Edit::Done;
        }
        let start = word_start(&self.chars, self.cursor);
        let prefix: String = self.chars[start..self.cursor].iter().collect();
        let before: String = self.chars[..start].iter().collect();
        let candidates = candidates(&before, &self.text(), &prefix, names);
        match candidates.len() {
            0 => Edit::Say(format!(
                "no table, column or function begins with \"{}\"",
                crate::text::sanitize(&prefix)
            )),
            1 => {
                self.replace_word(start, &candidates[0]);
                Edit::Done
            }
            _ => {
                let common = common_prefix(&candidates);
                let longer = common.chars().count() > prefix.chars().count();
                let at = (!longer).then_some(0);
                let word = if longer {
                    common
                } else {
                    candidates[0].clone()
                };
                self.replace_word(start, &word);
                self.completing = Some(Completing {
                    start,
                    candidates,
                    at,
                });
                Edit::Done
            }
        }
    }

    /// The word from `start` to its end puts `word` in its place, the cursor after it.
    fn replace_word(&mut self, start: usize, word: &str) {
        let mut end = self.cursor.max(start);
        while end < self.chars.len() && is_word(self.chars[end]) {
            end += 1;
        }
        let w: Vec<char> = word.chars().collect();
        let len = w.len();
        self.chars.splice(start..end, w);
        self.cursor = start + len;
    }

    /// The line as drawn in `cells` cells: the text with `▏` at the cursor, a window of
    /// it around the cursor when it is longer (`…` where it is cut). Not sanitised.
    pub fn view(&self, cells: usize) -> String {
        let room = cells.saturating_sub(1).max(1);
        let n = self.chars.len();
        let (mut from, mut to) = (0, n);
        if n > room {
            // The cursor two thirds of the way in, or the text's end at the right.
            from = self.cursor.saturating_sub(room * 2 / 3).min(n - room);
            to = from + room;
        }
        let mut out = String::new();
        for (i, c) in self.chars[from..to].iter().enumerate() {
            let i = from + i;
            if i == self.cursor {
                out.push('▏');
            }
            let cut = (i == from && from > 0) || (i + 1 == to && to < n);
            out.push(if cut { '…' } else { *c });
        }
        if self.cursor == to {
            out.push('▏');
        }
        out
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the word that ends at `cursor` begins.
fn word_start(chars: &[char], cursor: usize) -> usize {
    let mut start = cursor;
    while start > 0 && is_word(chars[start - 1]) {
        start -= 1;
    }
    start
}

/// The names that begin with `prefix` (in any case), best first: the tables, the
/// schemas (`base.`, `target.`), the columns of the tables `line` names, the other
/// columns, the functions; after `FROM` or `JOIN` (the text `before` the word ends with
/// one), the tables, the schemas and the functions only (`fields('Class')` is a table);
/// after a schema's `base.`, its tables.
pub fn candidates(before: &str, line: &str, prefix: &str, names: Names) -> Vec<String> {
    let p = prefix.to_lowercase();
    let two = !names.schemas.is_empty();
    // With one snapshot, the tables of two are not there.
    let tables: Vec<&(&str, &[&str])> = names
        .tables
        .iter()
        .filter(|(t, _)| two || !names.two_only.contains(t))
        .collect();
    let keep = |all: Vec<String>| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in all {
            if n.to_lowercase().starts_with(&p) && !out.contains(&n) {
                out.push(n);
            }
        }
        out
    };
    let low = before.to_lowercase();
    let in_schema = names.schemas.iter().any(|s| {
        low.strip_suffix('.')
            .and_then(|b| b.strip_suffix(&s.to_lowercase()))
            .is_some_and(|b| !b.ends_with(is_word))
    });
    if in_schema {
        let all = tables
            .iter()
            .filter(|(t, _)| !names.two_only.contains(t))
            .map(|(t, _)| t.to_string())
            .collect();
        return keep(all);
    }
    let words: Vec<String> = line
        .split(|c: char| !is_word(c))
        .map(|w| w.to_lowercase())
        .collect();
    let named = |t: &str| words.iter().any(|w| w == t);
    let last = low.split_whitespace().last().unwrap_or("");
    let table_only = last == "from" || last == "join";
    let mut all: Vec<String> = tables.iter().map(|(t, _)| t.to_string()).collect();
    all.extend(names.schemas.iter().map(|s| format!("{s}.")));
    if !table_only {
        for (_, cols) in tables.iter().filter(|(t, _)| named(t)) {
            all.extend(cols.iter().map(|c| c.to_string()));
        }
        for (_, cols) in &tables {
            all.extend(cols.iter().map(|c| c.to_string()));
        }
    }
    all.extend(names.functions.iter().map(|f| f.to_string()));
    keep(all)
}

/// The longest beginning all of `names` share.
fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut len = first.chars().count();
    for n in &names[1..] {
        len = len.min(
            first
                .chars()
                .zip(n.chars())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    first.chars().take(len).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &[(&str, &[&str])] = &[
        ("objects", &["id", "class", "shallow", "retained", "id_num"]),
        ("classes", &["name", "count"]),
        ("roots", &["id", "kind"]),
        ("diff", &["class", "delta_count"]),
    ];
    const NAMES: Names = Names {
        tables: TABLES,
        functions: &["class_of", "count_it", "is_it"],
        schemas: &[],
        two_only: &["diff"],
    };

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(line: &mut QueryLine, s: &str) {
        for c in s.chars() {
            line.key(&key(KeyCode::Char(c)), &[], NAMES);
        }
    }

    #[test]
    fn history_lines_keep_newlines_and_backslashes() {
        for q in ["SELECT 1", "SELECT '\\n'\nFROM x\r", "a\\", "\\\\n"] {
            assert_eq!(unescape(&escape(q)), q);
            assert!(!escape(q).contains('\n'), "{q:?}");
        }
    }

    #[test]
    fn tab_completes_tables_then_the_named_tables_columns_then_functions() {
        // A table first, and after FROM only tables (`object` is a column of threads).
        let mut l = QueryLine::new();
        typed(&mut l, "SELECT * FROM obj");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT * FROM objects");
        let mut l = QueryLine::with_text("SELECT i");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT id");
        assert_eq!(l.candidates().unwrap().0, ["id", "id_num", "is_it"]);
        // The columns of the table named in the line before the others: `c` is
        // `classes` (a table), `class`, `count` (of classes, named), `class_of`.
        let mut l = QueryLine::with_text("SELECT c FROM classes");
        l.cursor = "SELECT c".len();
        l.key(&key(KeyCode::Tab), &[], NAMES);
        let (c, at) = l.candidates().unwrap();
        assert_eq!(c, ["classes", "count", "class", "class_of", "count_it"]);
        assert_eq!(at, Some(0));
        assert_eq!(l.text(), "SELECT classes FROM classes");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT count FROM classes");
        assert_eq!(l.cursor, "SELECT count".len());
        // After FROM: a table (or a table function).
        let mut l = QueryLine::with_text("SELECT * FROM c");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(
            l.candidates().unwrap().0,
            ["classes", "class_of", "count_it"]
        );
        // A common beginning longer than the word: to it, then each in turn.
        let mut l = QueryLine::with_text("SELECT id_");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT id_num");
        let mut l = QueryLine::with_text("SELECT cla");
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT class");
        assert_eq!(l.candidates().unwrap().1, None);
        l.key(&key(KeyCode::Tab), &[], NAMES);
        assert_eq!(l.text(), "SELECT classes");
        // Nothing to complete: said.
        let mut l = QueryLine::with_text("SELECT zz");
        let e = l.key(&key(KeyCode::Tab), &[], NAMES);
        assert!(matches!(e, Edit::Say(m) if m.contains("\"zz\"")));
    }

    #[test]
    fn with_two_snapshots_tab_completes_the_schemas_their_tables_and_diff() {
        let two = Names {
            schemas: &["base", "target"],
            ..NAMES
        };
        // One snapshot: no `diff`, its columns neither, no schema.
        let mut l = QueryLine::with_text("SELECT * FROM d");
        assert!(matches!(
            l.key(&key(KeyCode::Tab), &[], NAMES),
            Edit::Say(_)
        ));
        let mut l = QueryLine::with_text("SELECT delta");
        assert!(matches!(
            l.key(&key(KeyCode::Tab), &[], NAMES),
            Edit::Say(_)
        ));
        let mut l = QueryLine::with_text("SELECT * FROM ba");
        assert!(matches!(
            l.key(&key(KeyCode::Tab), &[], NAMES),
            Edit::Say(_)
        ));
        // Two: `diff` and its columns, the schemas with their dot, then a schema's
        // tables (not `diff`, which is outside them).
        let mut l = QueryLine::with_text("SELECT * FROM d");
        l.key(&key(KeyCode::Tab), &[], two);
        assert_eq!(l.text(), "SELECT * FROM diff");
        let mut l = QueryLine::with_text("SELECT delta");
        l.key(&key(KeyCode::Tab), &[], two);
        assert_eq!(l.text(), "SELECT delta_count");
        let mut l = QueryLine::with_text("SELECT * FROM ba");
        l.key(&key(KeyCode::Tab), &[], two);
        assert_eq!(l.text(), "SELECT * FROM base.");
        typed(&mut l, "o");
        l.key(&key(KeyCode::Tab), &[], two);
        assert_eq!(l.text(), "SELECT * FROM base.objects");
        let mut l = QueryLine::with_text("SELECT count(*) FROM Target.");
        l.key(&key(KeyCode::Tab), &[], two);
        assert_eq!(l.candidates().unwrap().0, ["objects", "classes", "roots"]);
        let mut l = QueryLine::with_text("SELECT * FROM base.d");
        assert!(matches!(l.key(&key(KeyCode::Tab), &[], two), Edit::Say(_)));
        // After FROM: the tables, then the schemas.
        let mut l = QueryLine::with_text("SELECT * FROM ");
        l.key(&key(KeyCode::Tab), &[], two);
        let (c, _) = l.candidates().unwrap();
        assert_eq!(
            &c[..6],
            ["objects", "classes", "roots", "diff", "base.", "target."]
        );
    }

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_the_draft() {
        let h: Vec<String> = vec!["SELECT 1".into(), "SELECT 2".into()];
        let mut l = QueryLine::with_text("SEL");
        l.key(&key(KeyCode::Up), &h, NAMES);
        assert_eq!(l.text(), "SELECT 2");
        l.key(&key(KeyCode::Up), &h, NAMES);
        assert_eq!(l.text(), "SELECT 1");
        assert!(matches!(l.key(&key(KeyCode::Up), &h, NAMES), Edit::Say(_)));
        assert_eq!(l.text(), "SELECT 1");
        l.key(&key(KeyCode::Down), &h, NAMES);
        assert_eq!(l.text(), "SELECT 2");
        l.key(&key(KeyCode::Down), &h, NAMES);
        assert_eq!(l.text(), "SEL");
        assert_eq!(
            l.key(&key(KeyCode::Enter), &h, NAMES),
            Edit::Run("SEL".into())
        );
    }

    #[test]
    fn editing_moves_the_cursor_and_the_view_keeps_it_in_sight() {
        let mut l = QueryLine::new();
        typed(&mut l, "SELECT 1");
        l.key(&key(KeyCode::Home), &[], NAMES);
        l.key(&key(KeyCode::Delete), &[], NAMES);
        typed(&mut l, "s");
        assert_eq!(l.text(), "sELECT 1");
        assert_eq!(l.view(40), "s▏ELECT 1");
        l.key(&key(KeyCode::End), &[], NAMES);
        l.key(&key(KeyCode::Backspace), &[], NAMES);
        assert_eq!(l.view(40), "sELECT ▏");
        let long = QueryLine::with_text(&"x".repeat(100));
        let v = long.view(20);
        assert_eq!(v.chars().count(), 20, "{v}");
        assert!(v.starts_with('…') && v.ends_with('▏'), "{v}");
        assert_eq!(l.key(&key(KeyCode::Esc), &[], NAMES), Edit::Close);
    }

    #[test]
    fn the_history_keeps_500_moves_a_repeat_to_the_end_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache").join(HISTORY_FILE);
        let mut h = History::at(Some(file.clone()));
        for i in 0..510 {
            h.add(&format!("SELECT {i}")).unwrap();
        }
        h.add("SELECT 100\nFROM x").unwrap();
        h.add("SELECT 300").unwrap();
        let mut again = History::at(Some(file.clone()));
        let e = again.entries();
        assert_eq!(e.len(), HISTORY_MAX);
        assert_eq!(e[0], "SELECT 11");
        assert_eq!(e[HISTORY_MAX - 2], "SELECT 100\nFROM x");
        assert_eq!(e[HISTORY_MAX - 1], "SELECT 300");
        assert_eq!(e.iter().filter(|q| *q == "SELECT 300").count(), 1);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), HISTORY_MAX);
        assert!(text.contains("SELECT 100\\nFROM x\n"), "{text}");
        // In memory only: no file.
        let mut m = History::at(None);
        m.add("SELECT 1").unwrap();
        assert_eq!(m.entries(), ["SELECT 1"]);
    }
}
