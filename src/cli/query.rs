//! `heaptui query FILE SQL`: the answer of [`crate::query::run`] as a table, CSV or the
//! JSON document of `../shared/CLI.md` (`{"columns": [...], "rows": [[...]]}`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::text::sanitize;

pub fn run(
    file: &std::path::Path,
    sql: Option<String>,
    query_file: Option<PathBuf>,
    json: bool,
    csv: bool,
) -> Result<()> {
    let sql = match (sql, query_file) {
        (Some(q), _) => q,
        (None, Some(f)) => std::fs::read_to_string(&f)
            .map_err(|e| Error::Usage(format!("{}: {e}", f.display())))?,
        (None, None) => {
            return Err(Error::Usage(
                "query needs SQL or --file Q.sql (tables: objects, classes)".into(),
            ))
        }
    };
    let snap = super::open_for_cli(file)?;
    let dom = Arc::new(super::dominators_for_cli(&snap));
    super::keep_tree(&snap, &dom);
    let answer = crate::query::run(snap.snapshot().clone(), Some(dom), &sql)
        .map_err(|e| Error::Usage(format!("query: {e}")))?;
    if json {
        super::commands::print_json(&answer);
        return Ok(());
    }
    let cell = |v: &serde_json::Value| match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => sanitize(s).into_owned(),
        other => other.to_string(),
    };
    if csv {
        let quote = |s: String| {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s
            }
        };
        let header: Vec<String> = answer
            .columns
            .iter()
            .map(|c| quote(sanitize(c).into_owned()))
            .collect();
        println!("{}", header.join(","));
        for r in &answer.rows {
            let line: Vec<String> = r.iter().map(|v| quote(cell(v))).collect();
            println!("{}", line.join(","));
        }
        return Ok(());
    }
    // A table: each column as wide as its widest cell; numbers to the right.
    let cells: Vec<Vec<String>> = answer
        .rows
        .iter()
        .map(|r| r.iter().map(cell).collect())
        .collect();
    let heads: Vec<String> = answer
        .columns
        .iter()
        .map(|c| sanitize(c).into_owned())
        .collect();
    let widths: Vec<usize> = (0..heads.len())
        .map(|c| {
            cells
                .iter()
                .map(|r| crate::text::width(&r[c]))
                .chain([crate::text::width(&heads[c])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let numeric: Vec<bool> = (0..heads.len())
        .map(|c| {
            !answer.rows.is_empty()
                && answer
                    .rows
                    .iter()
                    .all(|r| r[c].is_number() || r[c].is_null())
        })
        .collect();
    let line = |r: &[String]| {
        r.iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = " ".repeat(widths[c] - crate::text::width(s).min(widths[c]));
                if numeric[c] {
                    format!("{pad}{s}")
                } else {
                    format!("{s}{pad}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    println!("{}", line(&heads));
    for r in &cells {
        println!("{}", line(r));
    }
    println!("({} rows)", answer.rows.len());
    Ok(())
}
