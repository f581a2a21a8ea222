//! A table made batch by batch as a query reads it: the rows of units `0..units` (objects,
//! roots, a class's instances, ...) are made `per_batch` units at a time, on every core (a
//! partition per core), and only the columns the query names. Every table of the
//! schema is one, so none is built before a query asks for it.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};

/// Makes the given columns (indices into the table's schema, in its order) of the rows of
/// the units in the range, and says how many rows those are.
pub type Make = dyn Fn(&[usize], Range<usize>) -> Result<(Vec<ArrayRef>, usize)> + Send + Sync;

/// The message of a query stopped by its caller (the TUI's `Esc`).
pub const CANCELLED: &str = "the query was cancelled";

pub struct Lazy {
    pub name: String,
    pub schema: SchemaRef,
    pub units: usize,
    pub per_batch: usize,
    pub make: Arc<Make>,
    pub stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for Lazy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} table ({} units)", self.name, self.units)
    }
}

impl Lazy {
    pub fn new(
        name: impl Into<String>,
        schema: SchemaRef,
        units: usize,
        per_batch: usize,
        stop: &Arc<AtomicBool>,
        make: impl Fn(&[usize], Range<usize>) -> Result<(Vec<ArrayRef>, usize)> + Send + Sync + 'static,
    ) -> Arc<Lazy> {
        Arc::new(Lazy {
            name: name.into(),
            schema,
            units,
            per_batch: per_batch.max(1),
            make: Arc::new(make),
            stop: stop.clone(),
        })
    }
}

#[async_trait]
impl TableProvider for Lazy {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let columns: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let schema = Arc::new(self.schema.project(&columns)?);
        let n = self.units;
        // Small tables are one partition: their rows keep the order they are made in.
        let parts = if n <= self.per_batch {
            1
        } else {
            state.config().target_partitions().max(1)
        };
        let per = n.div_ceil(parts).max(1);
        let partitions: Vec<Arc<dyn PartitionStream>> = (0..n.div_ceil(per).max(1))
            .map(|p| {
                Arc::new(Part {
                    schema: schema.clone(),
                    columns: columns.clone(),
                    make: self.make.clone(),
                    stop: self.stop.clone(),
                    per_batch: self.per_batch,
                    from: p * per,
                    to: ((p + 1) * per).min(n),
                }) as Arc<dyn PartitionStream>
            })
            .collect();
        Ok(Arc::new(StreamingTableExec::try_new(
            schema,
            partitions,
            None,
            Vec::new(),
            false,
            limit,
        )?))
    }
}

/// One partition: the units `from..to`.
struct Part {
    schema: SchemaRef,
    columns: Vec<usize>,
    make: Arc<Make>,
    stop: Arc<AtomicBool>,
    per_batch: usize,
    from: usize,
    to: usize,
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "units {}..{}", self.from, self.to)
    }
}

impl PartitionStream for Part {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (schema, columns, make, stop) = (
            self.schema.clone(),
            self.columns.clone(),
            self.make.clone(),
            self.stop.clone(),
        );
        let (to, per) = (self.to, self.per_batch);
        let batches = (self.from..to).step_by(per).map(move |at| {
            if stop.load(Ordering::Relaxed) {
                return Err(DataFusionError::Execution(CANCELLED.into()));
            }
            let (cols, rows) = make(&columns, at..at.saturating_add(per).min(to))?;
            Ok(RecordBatch::try_new_with_options(
                schema.clone(),
                cols,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )?)
        });
        Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}
