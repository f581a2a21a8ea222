//! SQL over a snapshot (issue 41): the index's columns as tables of Apache DataFusion,
//! which parses, plans and runs the query (heaptui writes no SQL parser or executor).
//!
//! Why DataFusion (`bench/README.md`, "what an SQL engine costs"): over 50 M objects the
//! acceptance's `GROUP BY class` took 0.47 s on two cores, where SQLite over a virtual
//! table took 18.5 s; its cost is the build (10–14 minutes from nothing) and the binary
//! (110 MB stripped, heaptui alone 6.4 MB). So it is this module alone, behind the
//! default cargo feature `sql`: a build without it (`--no-default-features`) has every
//! other command, and test binaries that do not query link none of it.
//!
//! Tables so far: `objects(id, class, shallow, retained)` (`id` in the `OBJECT` syntax of
//! `../shared/CLI.md`, `retained` NULL where no GC root reaches the object) and
//! `classes(name, package, count, shallow, retained)`. `objects` is made batch by batch
//! as the query reads it, and only the columns it reads: the id's text is decoded from the
//! dump only when `id` is asked for.

mod objects;

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;

/// A query's answer, as `query --json` prints it: the columns' names, and one array per
/// row in their order.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// Runs `sql` over `snap` (with its dominator tree's retained sizes when given). `Err`
/// carries the engine's message (a syntax error names its position).
pub fn run(
    snap: Arc<Snapshot>,
    dom: Option<Arc<Dominators>>,
    sql: &str,
) -> Result<QueryResult, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(rayon::current_num_threads().max(1))
        .thread_name("query")
        .build()
        .map_err(|e| format!("the query's threads: {e}"))?;
    rt.block_on(async move {
        let ctx = SessionContext::new();
        ctx.register_table(
            "objects",
            Arc::new(objects::Objects::new(snap.clone(), dom.clone())),
        )
        .map_err(|e| e.to_string())?;
        ctx.register_table("classes", classes(&snap, dom.as_deref())?)
            .map_err(|e| e.to_string())?;
        let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
        let columns = df
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let batches = df.collect().await.map_err(|e| e.to_string())?;
        let mut rows = Vec::new();
        for b in &batches {
            for r in 0..b.num_rows() {
                let row = b
                    .columns()
                    .iter()
                    .map(|c| json_of(c, r))
                    .collect::<Result<Vec<_>, String>>()?;
                rows.push(row);
            }
        }
        Ok(QueryResult { columns, rows })
    })
}

/// The `classes` table: the histogram's rows.
fn classes(snap: &Snapshot, dom: Option<&Dominators>) -> Result<Arc<MemTable>, String> {
    let mut rows = crate::heap::histogram::by_class(&snap.graph);
    if let Some(d) = dom {
        crate::heap::histogram::add_retained(&mut rows, &d.class_retained(&snap.graph));
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("package", DataType::Utf8, false),
        Field::new("count", DataType::UInt64, false),
        Field::new("shallow", DataType::UInt64, false),
        Field::new("retained", DataType::UInt64, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.name.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter()
                .map(|r| crate::heap::histogram::package_of(&r.name)),
        )),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.count))),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.shallow),
        )),
        Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.retained))),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())?;
    MemTable::try_new(schema, vec![vec![batch]])
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Row `r` of `column` as JSON: numbers as numbers, text as strings, NULL as null.
fn json_of(column: &ArrayRef, r: usize) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    let v = ScalarValue::try_from_array(column, r).map_err(|e| e.to_string())?;
    if v.is_null() {
        return Ok(Value::Null);
    }
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
        other => Value::String(other.to_string()),
    })
}
