//! `heaptui query FILE SQL` and `heaptui export FILE --parquet DIR`: the rows of
//! [`crate::query::run_each`] as a table, CSV or the JSON document of `../shared/CLI.md`
//! (`{"columns": [...], "rows": [[...]]}`), printed as they come (so `| head` ends the
//! query early); the shipped queries (`--list`, `:name`); two snapshots as `base.` and
//! `target.` (`--base`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::query::{about, Input, Inputs, Strings, Tree, SHIPPED};
use crate::session::Session;
use crate::text::sanitize;

/// The shipped queries, one per line: the name and what it answers.
fn list() {
    let width = SHIPPED.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 1;
    for (name, sql) in SHIPPED {
        println!(":{name:<width$} {}", about(sql));
    }
}

/// The SQL a command line asks for: the text, a shipped query (`:name`) or a file.
fn sql_of(sql: Option<String>, query_file: Option<PathBuf>) -> Result<String> {
    match (sql, query_file) {
        (Some(q), _) => match q.strip_prefix(':') {
            Some(name) => crate::query::shipped(name)
                .map(str::to_string)
                .ok_or_else(|| {
                    let names: Vec<String> = SHIPPED.iter().map(|(n, _)| format!(":{n}")).collect();
                    Error::Usage(format!(
                        "no shipped query named :{name} (they are {}; `--list` says what each answers)",
                        names.join(", ")
                    ))
                }),
            None => Ok(q),
        },
        (None, Some(f)) => std::fs::read_to_string(&f)
            .map_err(|e| Error::Usage(format!("{}: {e}", f.display()))),
        (None, None) => Err(Error::Usage(
            "query needs SQL, :NAME (a shipped query: --list) or --file Q.sql".into(),
        )),
    }
}

/// A snapshot opened for a query: its tree built only if the query reads it.
fn input(file: &Path) -> Result<(Arc<Session>, Input)> {
    let s = Arc::new(super::open_for_cli(file)?);
    if let Some(at) = s.truncated {
        eprintln!(
            "heaptui: {}: cut short at byte {at}: the tables objects, classes, refs, roots, strings, suspects and waste hold only the objects before it",
            sanitize(&file.display().to_string())
        );
    }
    let for_tree = s.clone();
    let dom = Tree::when_asked(move || Some(Arc::new(super::dominators_for_cli(&for_tree))));
    let for_texts = s.clone();
    let texts = Strings::when_asked(move |stop| for_texts.texts(stop));
    let snap = s.snapshot().clone();
    Ok((s, Input { snap, dom, texts }))
}

/// Keeps a tree the query built in the cache entry, as the other commands do.
fn keep(s: &Session, i: &Input) {
    if let Some(d) = i.dom.built() {
        super::keep_tree(s, d);
    }
}

pub struct Output {
    pub json: bool,
    pub csv: bool,
}

pub fn run(
    file: &Path,
    sql: Option<String>,
    query_file: Option<PathBuf>,
    base: Option<PathBuf>,
    list_only: bool,
    out: Output,
) -> Result<()> {
    if list_only {
        list();
        return Ok(());
    }
    let sql = sql_of(sql, query_file)?;
    let based = match &base {
        Some(b) => Some(input(b)?),
        None => None,
    };
    let (session, target) = input(file)?;
    let inputs = Inputs {
        target,
        base: based.as_ref().map(|b| b.1.clone()),
    };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let mut printer = Printer::new(out);
    let columns = std::cell::RefCell::new(None);
    let r = crate::query::run_each(
        &inputs,
        &sql,
        &Arc::default(),
        |c| *columns.borrow_mut() = Some(c),
        |rows| {
            if let Some(c) = columns.borrow_mut().take() {
                printer.columns = c;
            }
            printer.rows(&mut w, rows).is_ok()
        },
    );
    if let Some(c) = columns.into_inner() {
        printer.columns = c;
    }
    let r = r.map_err(|e| Error::Usage(format!("query: {e}")));
    if r.is_ok() {
        let _ = printer.end(&mut w);
    }
    let _ = w.flush();
    drop(w);
    keep(&session, &inputs.target);
    if let Some((s, i)) = &based {
        keep(s, i);
    }
    r
}

/// Prints rows as they come: JSON and CSV row by row; a table's columns as wide as
/// their widest cell among the first rows (up to [`TABLE_ROWS`]), later rows in those
/// widths.
struct Printer {
    out: Output,
    columns: Vec<String>,
    /// Rows held back to size the table's columns.
    held: Vec<Vec<serde_json::Value>>,
    widths: Option<(Vec<usize>, Vec<bool>)>,
    count: u64,
}

/// Rows a table holds back to size its columns.
const TABLE_ROWS: usize = 1000;

fn cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => sanitize(s).into_owned(),
        other => sanitize(&other.to_string()).into_owned(),
    }
}

fn quote(s: String) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

impl Printer {
    fn new(out: Output) -> Printer {
        Printer {
            out,
            columns: Vec::new(),
            held: Vec::new(),
            widths: None,
            count: 0,
        }
    }

    fn head(&self, w: &mut impl Write) -> std::io::Result<()> {
        if self.out.json {
            write!(w, "{{\"columns\":")?;
            crate::text::write_json(&mut *w, &self.columns).map_err(std::io::Error::other)?;
            write!(w, ",\"rows\":[")
        } else if self.out.csv {
            let header: Vec<String> = self
                .columns
                .iter()
                .map(|c| quote(sanitize(c).into_owned()))
                .collect();
            writeln!(w, "{}", header.join(","))
        } else {
            Ok(())
        }
    }

    fn rows(
        &mut self,
        w: &mut impl Write,
        rows: Vec<Vec<serde_json::Value>>,
    ) -> std::io::Result<()> {
        if self.count == 0 && self.held.is_empty() && (self.out.json || self.out.csv) {
            self.head(w)?;
        }
        for r in rows {
            if self.out.json {
                if self.count > 0 {
                    write!(w, ",")?;
                }
                crate::text::write_json(&mut *w, &r).map_err(std::io::Error::other)?;
            } else if self.out.csv {
                let line: Vec<String> = r.iter().map(|v| quote(cell(v))).collect();
                writeln!(w, "{}", line.join(","))?;
            } else if self.widths.is_none() {
                self.held.push(r);
                if self.held.len() >= TABLE_ROWS {
                    self.flush_table(w)?;
                }
                continue;
            } else {
                self.table_row(w, &r.iter().map(cell).collect::<Vec<_>>())?;
            }
            self.count += 1;
        }
        Ok(())
    }

    /// Sizes the table's columns by the rows held back, and prints them.
    fn flush_table(&mut self, w: &mut impl Write) -> std::io::Result<()> {
        let heads: Vec<String> = self
            .columns
            .iter()
            .map(|c| sanitize(c).into_owned())
            .collect();
        let held = std::mem::take(&mut self.held);
        let cells: Vec<Vec<String>> = held.iter().map(|r| r.iter().map(cell).collect()).collect();
        let widths = (0..heads.len())
            .map(|c| {
                cells
                    .iter()
                    .map(|r| crate::text::width(&r[c]))
                    .chain([crate::text::width(&heads[c])])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let numeric = (0..heads.len())
            .map(|c| !held.is_empty() && held.iter().all(|r| r[c].is_number() || r[c].is_null()))
            .collect();
        self.widths = Some((widths, numeric));
        self.table_row(w, &heads)?;
        for r in &cells {
            self.table_row(w, r)?;
            self.count += 1;
        }
        Ok(())
    }

    fn table_row(&self, w: &mut impl Write, r: &[String]) -> std::io::Result<()> {
        let Some((widths, numeric)) = &self.widths else {
            return Ok(());
        };
        let line = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let width = widths.get(c).copied().unwrap_or(0);
                let pad = " ".repeat(width - crate::text::width(s).min(width));
                if numeric.get(c) == Some(&true) {
                    format!("{pad}{s}")
                } else {
                    format!("{s}{pad}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ");
        writeln!(w, "{}", line.trim_end())
    }

    fn end(&mut self, w: &mut impl Write) -> std::io::Result<()> {
        if self.out.json {
            if self.count == 0 {
                self.head(w)?;
            }
            writeln!(w, "]}}")
        } else if self.out.csv {
            if self.count == 0 {
                self.head(w)?;
            }
            Ok(())
        } else {
            if self.widths.is_none() {
                self.flush_table(w)?;
            }
            writeln!(w, "({} rows)", self.count)
        }
    }
}

/// `heaptui export FILE --parquet DIR`.
pub fn export(file: &Path, dir: &Path) -> Result<()> {
    let (session, input) = input(file)?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let written = crate::query::export::parquet(&input, &name, dir)
        .map_err(|e| Error::Usage(format!("export: {e}")))?;
    for (table, rows) in written {
        eprintln!(
            "heaptui: {} rows in {}",
            crate::text::thousands(rows),
            dir.join(format!("{table}.parquet")).display()
        );
    }
    keep(&session, &input);
    Ok(())
}
