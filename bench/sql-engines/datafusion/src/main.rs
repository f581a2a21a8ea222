//! Issue 41's engine probe: 50 M rows of (class, shallow, retained) as Arrow batches in
//! a DataFusion MemTable (class dictionary-encoded over 5,000 names, as heaptui's class
//! column would be), and the acceptance's GROUP BY three times.
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{DictionaryArray, StringArray, UInt32Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt32Type};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::*;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> datafusion::error::Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(50_000_000);
    let names: Vec<String> = (0..5000).map(|i| format!("com.acme.Class{i}")).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "class",
            DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)),
            false,
        ),
        Field::new("shallow", DataType::UInt64, false),
        Field::new("retained", DataType::UInt64, false),
    ]));
    let t = Instant::now();
    let values = Arc::new(StringArray::from(names.clone()));
    let batch = 1 << 20;
    let mut batches = Vec::new();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    for start in (0..n).step_by(batch) {
        let len = batch.min(n - start);
        let keys: UInt32Array = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 5000) as u32
            })
            .collect();
        let dict = DictionaryArray::<UInt32Type>::try_new(keys, values.clone())?;
        let shallow: UInt64Array = (0..len).map(|i| (i % 97) as u64 * 8).collect();
        let retained: UInt64Array = (0..len).map(|i| (i % 1013) as u64 * 8).collect();
        batches.push(RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(dict), Arc::new(shallow), Arc::new(retained)],
        )?);
    }
    eprintln!("built {n} rows in {:.2} s", t.elapsed().as_secs_f64());
    let ctx = SessionContext::new();
    let parts: Vec<Vec<RecordBatch>> = batches
        .chunks(batches.len().div_ceil(2))
        .map(|c| c.to_vec())
        .collect();
    ctx.register_table("objects", Arc::new(MemTable::try_new(schema, parts)?))?;
    for _ in 0..3 {
        let t = Instant::now();
        let df = ctx.sql("SELECT class, count(*), sum(retained) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 10").await?;
        let r = df.collect().await?;
        eprintln!(
            "group by: {:.3} s, {} rows",
            t.elapsed().as_secs_f64(),
            r.iter().map(|b| b.num_rows()).sum::<usize>()
        );
    }
    Ok(())
}
