//! SQL over a snapshot (issue 41): the index's columns and the analyses' results as
//! tables of Apache DataFusion, which parses, plans and runs the query (heaptui writes no
//! SQL parser or executor).
//!
//! Why DataFusion (`bench/README.md`, "what an SQL engine costs"): over 50 M objects the
//! acceptance's `GROUP BY class` took 0.47 s on two cores, where SQLite over a virtual
//! table took 18.5 s; its cost is the build (10–14 minutes from nothing) and the binary
//! (110 MB stripped, heaptui alone 6.4 MB). So it is this module alone, behind the
//! default cargo feature `sql`: a build without it (`--no-default-features`) has every
//! other command, and test binaries that do not query link none of it.
//!
//! The tables (`docs/query.md` says what each column is): `objects`, `refs` and `strings`
//! are made batch by batch from the index as the query reads them, and only the columns it
//! reads ([`objects`]); `classes`, `roots`, `threads`, `frames`, `locals`, `suspects`,
//! `waste` and `diff` are computed when first read ([`tables`]). The functions `field`,
//! `path`, `referrers`, `class_of`, `is_instance_of`, `text`, `size` and the table
//! function `fields('Class')` decode what they need per row ([`functions`]). Two
//! snapshots open (`--base`) give the schemas `base` and `target` (the unqualified names
//! are the target's) and the table `diff`.
//!
//! Every front-end runs a query here ([`run_each`]): the CLI streams its rows, the TUI
//! collects them ([`run_until`]) on a thread it can stop.

pub mod export;
mod functions;
mod lazy;
mod objects;
mod tables;

pub use crate::format::id_number;
pub use functions::parse_size;
pub use lazy::CANCELLED;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch};
use datafusion::catalog::{MemorySchemaProvider, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::texts::Texts;

/// A query's answer, as `query --json` prints it: the columns' names, and one array per
/// row in their order.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A snapshot's dominator tree as a query gets it: given, or made the first time a
/// table or column that needs it is read (`SELECT count(*) FROM strings` never builds
/// it). The columns and tables of retained sizes and suspects are NULL or empty without
/// one.
#[derive(Clone)]
pub struct Tree {
    kept: Arc<OnceLock<Option<Arc<Dominators>>>>,
    make: Arc<dyn Fn() -> Option<Arc<Dominators>> + Send + Sync>,
}

impl Tree {
    /// A tree already built (or none).
    pub fn ready(d: Option<Arc<Dominators>>) -> Tree {
        Tree {
            kept: Arc::new(OnceLock::from(d)),
            make: Arc::new(|| None),
        }
    }

    /// A tree `make` builds when a query first needs it.
    pub fn when_asked(make: impl Fn() -> Option<Arc<Dominators>> + Send + Sync + 'static) -> Tree {
        Tree {
            kept: Arc::default(),
            make: Arc::new(make),
        }
    }

    pub fn get(&self) -> Option<&Arc<Dominators>> {
        self.kept.get_or_init(|| (self.make)()).as_ref()
    }

    /// The tree, if a query has built or been given one.
    pub fn built(&self) -> Option<&Arc<Dominators>> {
        self.kept.get().and_then(Option::as_ref)
    }
}

/// A snapshot's strings' text as a query gets it ([`crate::format::texts`]): made the
/// first time the `strings` table is read, and kept. The session's reads it from beside
/// the index cache entry, or makes it and writes it there ([`Strings::when_asked`]).
#[derive(Clone)]
pub struct Strings(Arc<MakeTexts>);

/// What gives a query the strings' text (`None` when stopped first).
type MakeTexts = dyn Fn(&AtomicBool) -> Option<Arc<Texts>> + Send + Sync;

impl Strings {
    /// Made in memory and kept in the snapshot.
    pub fn of(snap: &Arc<Snapshot>) -> Strings {
        let snap = snap.clone();
        Strings(Arc::new(move |stop| snap.texts(stop)))
    }

    /// Given by `make` (`None` when stopped).
    pub fn when_asked(
        make: impl Fn(&AtomicBool) -> Option<Arc<Texts>> + Send + Sync + 'static,
    ) -> Strings {
        Strings(Arc::new(make))
    }

    pub fn get(&self, stop: &AtomicBool) -> Option<Arc<Texts>> {
        (self.0)(stop)
    }
}

/// One snapshot a query reads, with its dominator tree and its strings.
#[derive(Clone)]
pub struct Input {
    pub snap: Arc<Snapshot>,
    pub dom: Tree,
    pub texts: Strings,
}

impl Input {
    /// `snap` with `dom`, its strings made in memory when asked for.
    pub fn new(snap: Arc<Snapshot>, dom: Tree) -> Input {
        Input {
            texts: Strings::of(&snap),
            snap,
            dom,
        }
    }
}

/// What a query reads: a snapshot, or two (`base` and `target`).
#[derive(Clone)]
pub struct Inputs {
    pub target: Input,
    pub base: Option<Input>,
}

impl Inputs {
    pub fn one(snap: Arc<Snapshot>, dom: Option<Arc<Dominators>>) -> Inputs {
        Inputs {
            target: Input::new(snap, Tree::ready(dom)),
            base: None,
        }
    }
}

/// The tables and their columns, in the order `SELECT *` gives them: for completion and
/// the docs' test. `diff` is there only with two snapshots.
pub const TABLES: &[(&str, &[&str])] = &[
    (
        "objects",
        &[
            "id",
            "class",
            "shallow",
            "retained",
            "dominator",
            "depth",
            "reachable",
            "root_kind",
            "label",
            "n",
            "dominator_n",
            "id_num",
        ],
    ),
    (
        "classes",
        &["name", "package", "count", "shallow", "retained"],
    ),
    ("refs", &["src", "dst", "name", "kind", "src_n", "dst_n"]),
    ("roots", &["id", "kind", "thread", "frame", "n"]),
    ("strings", &["id", "text", "length", "bytes", "n"]),
    (
        "threads",
        &["id", "name", "state", "object", "system", "frames"],
    ),
    (
        "frames",
        &["thread", "depth", "function", "location", "locals"],
    ),
    ("locals", &["thread", "frame", "id", "class", "n"]),
    (
        "suspects",
        &[
            "rank", "kind", "object", "class", "retained", "share", "holder", "title", "objects",
        ],
    ),
    (
        "waste",
        &[
            "kind",
            "class",
            "text",
            "count",
            "bytes_each",
            "wasted",
            "holder",
            "example",
            "length",
            "capacity",
        ],
    ),
    (
        "diff",
        &[
            "class",
            "base_count",
            "target_count",
            "delta_count",
            "base_shallow",
            "target_shallow",
            "delta_shallow",
            "base_retained",
            "target_retained",
            "delta_retained",
            "new",
            "gone",
        ],
    ),
];

/// The queries shipped with heaptui: plain `.sql` files in `docs/queries/`, named by
/// their file name; the first comment lines say what each answers.
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "top-retained",
        include_str!("../../docs/queries/top-retained.sql"),
    ),
    (
        "largest-objects",
        include_str!("../../docs/queries/largest-objects.sql"),
    ),
    (
        "duplicate-strings",
        include_str!("../../docs/queries/duplicate-strings.sql"),
    ),
    (
        "unreachable",
        include_str!("../../docs/queries/unreachable.sql"),
    ),
    (
        "roots-by-kind",
        include_str!("../../docs/queries/roots-by-kind.sql"),
    ),
    (
        "thread-locals",
        include_str!("../../docs/queries/thread-locals.sql"),
    ),
    (
        "jwt-strings",
        include_str!("../../docs/queries/jwt-strings.sql"),
    ),
    ("big-maps", include_str!("../../docs/queries/big-maps.sql")),
    ("growth", include_str!("../../docs/queries/growth.sql")),
];

/// What a shipped query answers: its leading comment lines, joined.
pub fn about(sql: &str) -> String {
    sql.lines()
        .map_while(|l| l.trim().strip_prefix("--"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The SQL of the shipped query `name` (without its `:`).
pub fn shipped(name: &str) -> Option<&'static str> {
    SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The functions a query may call beside DataFusion's own.
pub const FUNCTIONS: &[&str] = &[
    "field",
    "path",
    "referrers",
    "class_of",
    "is_instance_of",
    "text",
    "size",
    "fields",
];

/// The tables of one snapshot, by name.
fn tables_of(i: &Input, stop: &Arc<AtomicBool>) -> Vec<(&'static str, Arc<dyn TableProvider>)> {
    let (s, d) = (&i.snap, &i.dom);
    vec![
        (
            "objects",
            objects::objects(s, d, stop) as Arc<dyn TableProvider>,
        ),
        ("classes", tables::classes(s, d, stop)),
        ("refs", objects::refs(s, stop)),
        ("roots", tables::roots(s, stop)),
        ("strings", objects::strings(s, &i.texts, stop)),
        ("threads", tables::threads(s, stop)),
        ("frames", tables::frames(s, stop)),
        ("locals", tables::locals(s, stop)),
        ("suspects", tables::suspects(s, d, stop)),
        ("waste", tables::waste(s, stop)),
    ]
}

/// The memory DataFusion's operators may hold (hash tables, sorts; they spill to the
/// cache directory past it): `HEAPTUI_QUERY_MEMORY`, else half of what the budget
/// leaves, at least 256 MiB.
fn memory_limit() -> usize {
    if let Some(b) = crate::sys::env::bytes("HEAPTUI_QUERY_MEMORY") {
        return b.min(usize::MAX as u64) as usize;
    }
    let left = crate::sys::budget::budget()
        .ok()
        .flatten()
        .map_or(u64::MAX, |b| b.bytes);
    (left / 2).max(256 << 20).min(usize::MAX as u64) as usize
}

/// A session with the tables and functions of `inputs`.
fn context(inputs: &Inputs, stop: &Arc<AtomicBool>) -> Result<(SessionContext, SpillDir), String> {
    let e = |e: datafusion::error::DataFusionError| e.to_string();
    let (pool, parts) = (memory_limit(), rayon::current_num_threads().max(1));
    let mut rt = RuntimeEnvBuilder::new().with_memory_limit(pool, 1.0);
    // Spill files in a folder of this query's own under the cache directory's `spill/`
    // where it can be made, else the system's temporary directory (DataFusion's own
    // choice).
    let spill = SpillDir::new();
    if let Some(dir) = &spill.0 {
        rt = rt.with_temp_file_path(dir);
    }
    let mut config = SessionConfig::new()
        .with_target_partitions(parts)
        .with_information_schema(true);
    // What each sort keeps back for merging its spilled runs: DataFusion's 10 MiB, or
    // less in a small pool, so that a sort there spills instead of failing.
    config.options_mut().execution.sort_spill_reservation_bytes =
        (10 << 20).min(pool / (4 * parts));
    let ctx = SessionContext::new_with_config_rt(config, rt.build_arc().map_err(e)?);
    for (name, t) in tables_of(&inputs.target, stop) {
        ctx.register_table(name, t).map_err(e)?;
    }
    if let Some(base) = &inputs.base {
        let catalog = ctx
            .catalog("datafusion")
            .ok_or("DataFusion's default catalog is missing")?;
        for (schema, input) in [("base", base), ("target", &inputs.target)] {
            catalog
                .register_schema(schema, Arc::new(MemorySchemaProvider::new()))
                .map_err(e)?;
            for (name, t) in tables_of(input, stop) {
                ctx.register_table(format!("{schema}.{name}"), t)
                    .map_err(e)?;
            }
        }
        let d = tables::diff(
            (&base.snap, &base.dom),
            (&inputs.target.snap, &inputs.target.dom),
            stop,
        );
        ctx.register_table("diff", d).map_err(e)?;
    }
    functions::register(&ctx, &inputs.target.snap, stop);
    Ok((ctx, spill))
}

/// A query's spill folder, `spill/query-<pid>-<n>` in the cache directory, removed with
/// what is in it when the query is done (DataFusion's own folders inside it are removed
/// only when the engine is dropped, which a process that exits skips). One left by a
/// process that is gone (killed) is removed by the next query.
struct SpillDir(Option<std::path::PathBuf>);

impl SpillDir {
    fn new() -> SpillDir {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let Some(root) = crate::sys::files::spill_dir() else {
            return SpillDir(None);
        };
        if let Ok(rd) = std::fs::read_dir(&root) {
            for e in rd.flatten() {
                let name = e.file_name();
                let pid = name.to_str().and_then(|n| {
                    n.strip_prefix("query-")?
                        .split('-')
                        .next()?
                        .parse::<u32>()
                        .ok()
                });
                if pid.is_some_and(|pid| crate::sys::tmpfiles::stale(&e.path(), pid)) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = root.join(format!("query-{}-{n}", std::process::id()));
        SpillDir(std::fs::create_dir_all(&dir).is_ok().then_some(dir))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if let Some(d) = &self.0 {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The threads a query runs on: as many as rayon's.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(rayon::current_num_threads().max(1))
        .thread_name("query")
        .enable_time()
        .build()
        .map_err(|e| format!("the query's threads: {e}"))
}

/// Runs `sql` over `inputs`, giving `columns` the columns' names once and then `rows`
/// the rows a batch at a time, as they come; `rows` returns `false` to end the query
/// early (`| head`). `stop` set from another thread ends it with [`CANCELLED`]. `Err`
/// carries the engine's message (a syntax error names its position).
pub fn run_each(
    inputs: &Inputs,
    sql: &str,
    stop: &Arc<AtomicBool>,
    columns: impl FnOnce(Vec<String>),
    mut rows: impl FnMut(Vec<Vec<serde_json::Value>>) -> bool,
) -> Result<(), String> {
    let rt = runtime()?;
    let r = rt.block_on(async {
        let (ctx, _spill) = context(inputs, stop)?;
        let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
        columns(
            df.schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect(),
        );
        let mut stream = df.execute_stream().await.map_err(|e| e.to_string())?;
        loop {
            // The flag is watched while the engine works, not only between batches: a
            // join's first batch may be minutes away.
            let next = tokio::select! {
                b = stream.next() => b,
                _ = stopped(stop) => return Err(CANCELLED.to_string()),
            };
            let Some(b) = next else { break };
            let b = b.map_err(|e| message(&e.to_string()))?;
            if !rows(json_rows(&b)?) {
                break;
            }
        }
        Ok(())
    });
    // Without waiting for a batch still being made on a worker thread: it ends at its
    // table's next batch, when it finds the flag set or its stream gone.
    rt.shutdown_background();
    r
}

/// Ends when `stop` is set.
async fn stopped(stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The engine's message without its wrapping (`External error: `, `Execution error: `
/// before one of ours).
fn message(m: &str) -> String {
    match m.find(CANCELLED) {
        Some(_) => CANCELLED.to_string(),
        None => m.to_string(),
    }
}

/// Runs `sql` over `inputs` and collects its answer ([`run_each`]).
pub fn run_until(
    inputs: &Inputs,
    sql: &str,
    stop: &Arc<AtomicBool>,
) -> Result<QueryResult, String> {
    let mut out = QueryResult {
        columns: Vec::new(),
        rows: Vec::new(),
    };
    let mut cols = Vec::new();
    run_each(
        inputs,
        sql,
        stop,
        |c| cols = c,
        |r| {
            out.rows.extend(r);
            true
        },
    )?;
    out.columns = cols;
    Ok(out)
}

/// Runs `sql` over `snap` (with its dominator tree's retained sizes when given).
pub fn run(
    snap: Arc<Snapshot>,
    dom: Option<Arc<Dominators>>,
    sql: &str,
) -> Result<QueryResult, String> {
    run_until(&Inputs::one(snap, dom), sql, &Arc::default())
}

/// A batch's rows as JSON.
fn json_rows(b: &RecordBatch) -> Result<Vec<Vec<serde_json::Value>>, String> {
    (0..b.num_rows())
        .map(|r| b.columns().iter().map(|c| json_of(c, r)).collect())
        .collect()
}

/// Row `r` of `column` as JSON: numbers as numbers, text as strings, lists as arrays,
/// NULL as null.
fn json_of(column: &ArrayRef, r: usize) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    if column.is_null(r) {
        return Ok(Value::Null);
    }
    let v = ScalarValue::try_from_array(column, r).map_err(|e| e.to_string())?;
    Ok(match v {
        ScalarValue::Boolean(Some(b)) => Value::Bool(b),
        ScalarValue::UInt8(Some(x)) => x.into(),
        ScalarValue::UInt16(Some(x)) => x.into(),
        ScalarValue::UInt32(Some(x)) => x.into(),
        ScalarValue::UInt64(Some(x)) => x.into(),
        ScalarValue::Int8(Some(x)) => x.into(),
        ScalarValue::Int16(Some(x)) => x.into(),
        ScalarValue::Int32(Some(x)) => x.into(),
        ScalarValue::Int64(Some(x)) => x.into(),
        ScalarValue::Float32(Some(x)) => {
            serde_json::Number::from_f64(x as f64).map_or(Value::Null, Value::Number)
        }
        ScalarValue::Float64(Some(x)) => {
            serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
        }
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Value::String(s),
        ScalarValue::Dictionary(_, inner) => {
            let a = inner.to_array().map_err(|e| e.to_string())?;
            return json_of(&a, 0);
        }
        ScalarValue::List(l) => {
            let items = l.value(0);
            return (0..items.len())
                .map(|i| json_of(&items, i))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array);
        }
        other => Value::String(other.to_string()),
    })
}
