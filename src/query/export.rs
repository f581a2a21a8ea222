//! `heaptui export FILE --parquet DIR`: the tables as Parquet files, one per table, each
//! row with the dump's identity (`dump`, `format`, `snapshot`, `dump_time`), so that
//! DuckDB, Spark, Polars or DataFusion can query one dump or a fleet of them. DataFusion
//! runs `SELECT *, … FROM table` and writes the answer with its own Parquet writer.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Array, UInt64Array};
use datafusion::config::TableParquetOptions;
use datafusion::dataframe::DataFrameWriteOptions;

use super::{Input, Inputs};

/// The tables written, in order.
pub const TABLES: &[&str] = &[
    "objects", "classes", "refs", "roots", "strings", "threads", "frames", "locals", "suspects",
    "waste",
];

/// The columns a table is written with, where not all of them (`*`): in the tables of an
/// object or a reference per row, objects are their `n` (an export's key between its
/// tables: `refs.src_n = objects.n`) and `objects.id` is the name heaptui prints. Left
/// out, as a query over the export derives them by a join: `objects.dominator` and
/// `id_num` (`dominator_n`, `id`), `refs.src` and `dst`, `strings.id`; and
/// `objects.label`, which decodes every object (`strings.text` has the strings').
fn columns(table: &str) -> &'static str {
    match table {
        "objects" => "id, n, class, shallow, retained, dominator_n, depth, reachable, root_kind",
        "refs" => "src_n, dst_n, name, kind",
        "strings" => "n, text, length, bytes",
        _ => "*",
    }
}

/// The columns written without a dictionary: one distinct value per row, or nearly, where
/// a dictionary only costs its hashing; the numbers that mostly ascend as deltas.
const PLAIN: &[&str] = &["id", "n", "dominator_n", "retained", "dst_n", "text"];
const DELTAS: &[&str] = &["n", "src_n", "dominator_n"];

/// The Parquet options of every file: zstd's fastest level (the export is bound by the
/// encoding on two cores), dictionaries only where values repeat.
fn options() -> TableParquetOptions {
    let mut o = TableParquetOptions::default();
    o.global.compression = Some("zstd(1)".into());
    for c in PLAIN.iter().chain(DELTAS) {
        let e = o.column_specific_options.entry(c.to_string()).or_default();
        e.dictionary_enabled = Some(false);
        if DELTAS.contains(c) {
            e.encoding = Some("delta_binary_packed".into());
        }
    }
    o
}

/// `seconds` since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Howard Hinnant's days-to-civil.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// SQL text between single quotes.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Writes every table of `input` to `dir/TABLE.parquet` (the folder made if missing);
/// says how many rows each holds.
pub fn parquet(input: &Input, dump: &str, dir: &Path) -> Result<Vec<(&'static str, u64)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let snap = &input.snap;
    let time = std::fs::metadata(&snap.source.path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(|| "NULL".to_string(), |d| quoted(&utc(d.as_secs())));
    let identity = format!(
        "{} AS dump, {} AS format, CAST({} AS INT UNSIGNED) AS snapshot, {time} AS dump_time",
        quoted(dump),
        quoted(snap.format.id()),
        snap.snapshot_index,
    );
    let inputs = Inputs {
        target: input.clone(),
        base: None,
    };
    let stop = Arc::default();
    let rt = super::runtime()?;
    rt.block_on(async {
        let (ctx, _spill) = super::context(&inputs, &stop)?;
        let mut out = Vec::new();
        let timing = crate::sys::env::flag("HEAPTUI_TIMING");
        for &t in TABLES {
            let began = std::time::Instant::now();
            let df = ctx
                .sql(&format!("SELECT {}, {identity} FROM {t}", columns(t)))
                .await
                .map_err(|e| e.to_string())?;
            let path = dir.join(format!("{t}.parquet"));
            let counts = df
                .write_parquet(
                    &path.to_string_lossy(),
                    DataFrameWriteOptions::new().with_single_file_output(true),
                    Some(options()),
                )
                .await
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let rows = counts
                .iter()
                .filter_map(|b| {
                    b.column(0)
                        .as_any()
                        .downcast_ref::<UInt64Array>()
                        .filter(|a| !a.is_empty())
                        .map(|a| a.value(0))
                })
                .sum();
            if timing {
                eprintln!(
                    "timing: export: {t}: {:.3} s",
                    began.elapsed().as_secs_f64()
                );
            }
            out.push((t, rows));
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_is_the_calendar() {
        assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
        // `date -u -d @1795392000`: 2026-11-23T00:00:00Z; and a leap day.
        assert_eq!(super::utc(1_795_392_000 + 3_723), "2026-11-23T01:02:03Z");
        assert_eq!(super::utc(951_782_400), "2000-02-29T00:00:00Z");
    }
}
