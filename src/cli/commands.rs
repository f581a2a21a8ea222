//! `summary` and `histogram`: the plain 80-column table and the JSON document, both
//! rendered from [`crate::results`]; and [`print_json`], which prints every document.

use super::{GroupBy, SortArg};
use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::histogram::{self, Row, SortKey};
use crate::present::{summary_lines, top_suspect_sentence};
use crate::results::{Histogram, Summary};
use crate::text::sanitize;

/// Prints a `--json` document on stdout as one line (`crate::text::write_json`: what a
/// terminal acts on escaped), written as it is serialised. A closed pipe ends it quietly.
pub fn print_json<T: serde::Serialize + ?Sized>(doc: &T) {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    if crate::text::write_json(&mut w, doc).is_ok() {
        let _ = writeln!(w);
        let _ = w.flush();
    }
}

/// `summary`: the document, led by the top leak suspect in one sentence (`top_suspect`,
/// `null` when nothing holds 1 % of the heap), which needs the dominator tree.
pub fn summary(snap: &Snapshot, dom: &Dominators, as_json: bool) -> Result<()> {
    let mut v = Summary::of(snap);
    // Where the tree came from, as `index cache` says where the index did.
    if let Some(w) = dom.origin.words() {
        v.details.insert("dominator tree".to_string(), w);
    }
    let report = crate::suspects::find(snap, dom, 1);
    let top = top_suspect_sentence(&report);
    if std::env::var_os("HEAPTUI_TIMING").is_some() {
        eprintln!("timing: summary computed");
    }
    if as_json {
        v.top_suspect = Some(top);
        print_json(&v);
        return Ok(());
    }
    if let Some(t) = &top {
        println!("{:<24}{}", "top suspect", sanitize(t));
    }
    for (label, value) in summary_lines(&v) {
        println!("{label:<24}{}", sanitize(&value));
    }
    Ok(())
}

pub fn histogram_rows(
    snap: &Snapshot,
    dom: Option<&Dominators>,
    sort: SortArg,
    filter: Option<&str>,
    group_by: GroupBy,
) -> Result<Vec<Row>> {
    let mut rows = histogram::by_class(&snap.graph);
    if let Some(d) = dom {
        histogram::add_retained(&mut rows, &d.class_retained(&snap.graph));
    }
    if group_by == GroupBy::Package {
        rows = histogram::group_by_package(&rows);
        if let Some(d) = dom {
            let (map, names) = histogram::package_groups(&snap.graph);
            let per = d.group_retained(&snap.graph, &map, names.len());
            for r in &mut rows {
                r.retained = names.iter().position(|n| *n == r.name).map(|i| per[i]);
            }
        }
    }
    arrange(rows, dom.is_some(), sort, filter)
}

/// The rows of a histogram made without the index (no retained sizes), grouped,
/// filtered and sorted as [`histogram_rows`] does.
pub fn quick_histogram_rows(
    rows: Vec<Row>,
    sort: SortArg,
    filter: Option<&str>,
    group_by: GroupBy,
) -> Result<Vec<Row>> {
    let rows = match group_by {
        GroupBy::Package => histogram::group_by_package(&rows),
        _ => rows,
    };
    arrange(rows, false, sort, filter)
}

/// Filters and sorts histogram rows; sorting by retained size needs them.
fn arrange(
    mut rows: Vec<Row>,
    retained: bool,
    sort: SortArg,
    filter: Option<&str>,
) -> Result<Vec<Row>> {
    if let Some(f) = filter {
        let m = crate::heap::matcher::Matcher::new(f);
        rows.retain(|r| m.substring(&r.name).is_some());
    }
    let key = match sort {
        SortArg::Count => SortKey::Count,
        SortArg::Shallow => SortKey::Shallow,
        SortArg::Retained if !retained => {
            return Err(Error::Usage(
                "--sort retained needs the retained sizes that --no-retained skips".into(),
            ))
        }
        SortArg::Retained => SortKey::Retained,
    };
    histogram::sort(&mut rows, key);
    Ok(rows)
}

/// `histogram`: the table or the JSON document of `rows` (already sorted), with totals
/// over all of them and the first `top` shown.
///
/// With `unreachable` (per class id, how many instances no GC root reaches: they have no
/// retained size, so a class's retained figure can be below its shallow one), JSON rows
/// carry `unreachable_count` (an addition to the contract) and text rows a `†` with a
/// footnote.
pub fn print_histogram(
    rows: Vec<Row>,
    as_json: bool,
    top: Option<usize>,
    group_by: GroupBy,
    unreachable: Option<&[u64]>,
) -> Result<()> {
    let doc = Histogram::of(rows, top, group_by == GroupBy::Package, unreachable);
    if as_json {
        print_json(&doc);
        return Ok(());
    }
    let what = match group_by {
        GroupBy::Class => "CLASS",
        GroupBy::Package => "PACKAGE",
    };
    println!("     COUNT       SHALLOW      RETAINED  {what}");
    let mut marked = 0u64;
    for r in &doc.classes {
        // The mark after the name: the number columns stay numbers for scripts.
        let mark = match r.unreachable_count {
            Some(n) if n > 0 => {
                marked += n;
                "  †"
            }
            _ => "",
        };
        let retained = r
            .retained_bytes
            .map(|v| v.to_string())
            .unwrap_or_else(|| "-".into());
        println!(
            "{:>10} {:>13} {:>13}  {}{mark}",
            r.count,
            r.shallow_bytes,
            retained,
            sanitize(&r.class)
        );
    }
    let (total_count, total_shallow) = (doc.total.count, doc.total.shallow_bytes);
    println!("{total_count:>10} {total_shallow:>13} {:>13}  total", "");
    if marked > 0 {
        println!(
            "† {marked} of their instances unreachable: no GC root reaches, nothing retains them"
        );
    }
    Ok(())
}
