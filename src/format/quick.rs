//! What a format's quick passes give without building the index: the class histogram
//! (shown while the index is built, and printed by `histogram --no-retained`) and the
//! waste report. A format offers them through [`super::Format::quick_histogram`] and
//! [`super::Format::quick_waste`]; today HPROF does, in one parallel walk of its heap
//! dump bodies. The types name no format, so that a front-end showing them names none.

use crate::heap::histogram::Row;
use crate::heap::waste::Waste;

/// The histogram, and what the walk found about the file.
#[derive(Debug)]
pub struct QuickHistogram {
    /// One row per class with at least one object, in class order (unsorted).
    pub rows: Vec<Row>,
    /// Where the file ends inside a record, as the index would report it.
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
}

/// The waste report of a file, and what the walk found about it.
#[derive(Debug)]
pub struct QuickWaste {
    /// The report; its example object ids index [`QuickWaste::names`].
    pub waste: Waste,
    /// Each example's name (its address) and class.
    pub names: Vec<(String, String)>,
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
}
