//! The `objects` table: one row per object of the graph, made batch by batch from the
//! index's columns as the query reads it, and only the columns it reads.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{
    ArrayRef, DictionaryArray, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt32Type};
use datafusion::catalog::Session;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;

/// Objects per batch.
const BATCH: usize = 1 << 16;

pub struct Objects {
    snap: Arc<Snapshot>,
    dom: Option<Arc<Dominators>>,
    schema: SchemaRef,
}

impl std::fmt::Debug for Objects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "objects of {}", self.snap.source.path.display())
    }
}

impl Objects {
    pub fn new(snap: Arc<Snapshot>, dom: Option<Arc<Dominators>>) -> Self {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new(
                "class",
                DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)),
                false,
            ),
            Field::new("shallow", DataType::UInt64, false),
            Field::new("retained", DataType::UInt64, true),
        ]));
        Objects { snap, dom, schema }
    }
}

#[async_trait]
impl TableProvider for Objects {
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
        let names: ArrayRef = Arc::new(StringArray::from_iter_values(
            self.snap.graph.classes.iter().map(|c| c.name.as_str()),
        ));
        let n = self.snap.graph.len();
        let parts = state.config().target_partitions().max(1);
        let per = n.div_ceil(parts).max(1);
        let partitions: Vec<Arc<dyn PartitionStream>> = (0..n.div_ceil(per).max(1))
            .map(|p| {
                Arc::new(Part {
                    snap: self.snap.clone(),
                    dom: self.dom.clone(),
                    schema: schema.clone(),
                    columns: columns.clone(),
                    names: names.clone(),
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

/// One partition of the table: the objects `from..to`.
struct Part {
    snap: Arc<Snapshot>,
    dom: Option<Arc<Dominators>>,
    schema: SchemaRef,
    /// The table's columns this scan reads, in the schema's order.
    columns: Vec<usize>,
    names: ArrayRef,
    from: usize,
    to: usize,
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "objects {}..{}", self.from, self.to)
    }
}

impl PartitionStream for Part {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (snap, dom, schema, columns, names) = (
            self.snap.clone(),
            self.dom.clone(),
            self.schema.clone(),
            self.columns.clone(),
            self.names.clone(),
        );
        let to = self.to;
        let batches = (self.from..to).step_by(BATCH).map(move |at| {
            let objs = at as u32..(at + BATCH).min(to) as u32;
            let cols: Vec<ArrayRef> = columns
                .iter()
                .map(|&c| -> Result<ArrayRef> {
                    let g = &snap.graph;
                    Ok(match c {
                        0 => Arc::new(StringArray::from_iter_values(
                            objs.clone().map(|o| snap.object_name(o)),
                        )),
                        1 => {
                            let keys = UInt32Array::from_iter_values(
                                objs.clone().map(|o| g.class_of.get(o as usize)),
                            );
                            Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, names.clone())?)
                        }
                        2 => Arc::new(UInt64Array::from_iter_values(
                            objs.clone().map(|o| g.shallow_size(o)),
                        )),
                        _ => Arc::new(UInt64Array::from_iter(
                            objs.clone()
                                .map(|o| dom.as_ref().and_then(|d| d.retained(o))),
                        )),
                    })
                })
                .collect::<Result<_>>()?;
            Ok(RecordBatch::try_new(schema.clone(), cols)?)
        });
        Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}
