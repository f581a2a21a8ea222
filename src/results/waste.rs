//! `waste`: duplicate strings and primitive arrays, sparse collections.

use schemars::JsonSchema;
use serde::Serialize;

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::ObjId;
use crate::waste::Waste;

/// The `waste` document: each list largest `wasted_bytes` first; a format without such
/// objects gives an empty list.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WasteReport {
    pub schema_version: SchemaVersion,
    pub duplicate_arrays: Vec<DuplicateArray>,
    pub duplicate_strings: Vec<DuplicateString>,
    pub sparse_collections: Vec<SparseCollections>,
    /// Why there can be no duplicate strings in this format, for the text table.
    #[serde(skip)]
    pub strings_note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplicateArray {
    pub bytes_each: u64,
    pub class: String,
    pub count: u64,
    pub example: String,
    pub length: u64,
    /// The example's printable text (Go), where it has one.
    pub preview: Option<String>,
    pub wasted_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplicateString {
    pub bytes_each: u64,
    pub count: u64,
    pub example: String,
    pub text: String,
    pub wasted_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SparseCollections {
    pub capacity: u64,
    pub class: String,
    pub count: u64,
    pub example: String,
    pub holder: String,
    pub size: u64,
    pub wasted_bytes: u64,
}

/// How the waste report names its example objects: by name (`0x…`, `@123`) and class.
pub trait ExampleNames {
    fn name(&self, o: ObjId) -> String;
    fn class(&self, o: ObjId) -> String;
}

impl ExampleNames for Snapshot {
    fn name(&self, o: ObjId) -> String {
        self.object_name(o)
    }
    fn class(&self, o: ObjId) -> String {
        self.class_name(o).to_string()
    }
}

/// The examples of a report made without the index: its ids index this list of
/// (name, class).
impl ExampleNames for [(String, String)] {
    fn name(&self, o: ObjId) -> String {
        self.get(o as usize)
            .map(|x| x.0.clone())
            .unwrap_or_default()
    }
    fn class(&self, o: ObjId) -> String {
        self.get(o as usize)
            .map(|x| x.1.clone())
            .unwrap_or_default()
    }
}

impl WasteReport {
    pub fn of(names: &(impl ExampleNames + ?Sized), w: &Waste) -> WasteReport {
        WasteReport {
            schema_version: SchemaVersion,
            duplicate_arrays: w
                .arrays
                .iter()
                .map(|a| DuplicateArray {
                    bytes_each: a.bytes_each,
                    class: names.class(a.example),
                    count: a.count,
                    example: names.name(a.example),
                    length: a.length,
                    preview: a.preview.clone(),
                    wasted_bytes: a.wasted_bytes(),
                })
                .collect(),
            duplicate_strings: w
                .strings
                .iter()
                .map(|s| DuplicateString {
                    bytes_each: s.bytes_each,
                    count: s.count,
                    example: names.name(s.example),
                    text: s.text.clone(),
                    wasted_bytes: s.wasted_bytes(),
                })
                .collect(),
            sparse_collections: w
                .sparse
                .iter()
                .map(|c| SparseCollections {
                    capacity: c.capacity,
                    class: c.class.clone(),
                    count: c.count,
                    example: names.name(c.example),
                    holder: c.holder.clone(),
                    size: c.size,
                    wasted_bytes: c.wasted_bytes,
                })
                .collect(),
            strings_note: w.strings_note.clone(),
        }
    }
}
