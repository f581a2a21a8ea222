//! The results of the batch commands as data: one serde type per command's document
//! (`docs/cli.md`), built from the analyses, and rendered by every front-end. The
//! CLI prints them as text tables and as `--json`; the TUI, the Markdown and HTML
//! reports and the MCP server are to render the same values (ripgrep's printers write
//! its wire types, `crates/printer/src/jsont.rs`, the same way).
//!
//! What this module owns: the wire types, the functions that fill them from a
//! [`Snapshot`](crate::format::Snapshot) and the analyses' own types, and the JSON
//! Schemas generated from the types ([`schemas`], committed as `docs/schema/<command>.json`
//! and checked by `tests/it/schema.rs`). What it does not: opening dumps, computing
//! analyses, and any rendering other than serde's (the text tables are in `cli/`).
//!
//! Every document leads with `"schema_version"` ([`SchemaVersion`]); the fields after
//! it are declared in the alphabetical order the documents had when they were built as
//! `serde_json::Value` maps, so that the bytes printed stayed the same. Keys that only
//! some runs print are `skip_serializing_if`; keys printed as `null` are `Option`s
//! without it: the schemas, generated for what is serialised, say which are required.
//!
//! A field marked `#[serde(skip)]` is what the text tables need and the JSON never had
//! (an unrounded share, a field's value in words): it is in no schema.
//!
//! Documents too large to hold (a path two million steps long) or too deep to serialise
//! on a thread's usual stack (a dominator tree printed 200,000 levels down) hold the
//! analysis' object ids and make each entry as it is written: [`path::PathList`],
//! [`dominators::DominatorForest`].

pub mod diff;
pub mod dominators;
pub mod inspect;
pub mod path;
pub mod pinch;
pub mod retained;
pub mod summary;
pub mod suspects;
pub mod threads;
pub mod waste;

pub use diff::{Diff, Leaks};
pub use dominators::{DominatorTree, Dominators, LargestObjects};
pub use inspect::Inspect;
pub use path::{PathStep, Paths};
pub use summary::{Histogram, Summary};
pub use suspects::Suspects;
pub use threads::Threads;
pub use waste::WasteReport;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

/// The version of every document's shape. Adding a key does not change it (the contract
/// is only added to); it would change if a key's meaning or type ever had to.
pub const SCHEMA_VERSION: u32 = 1;

/// `"schema_version": 1`, the first key of every document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(SCHEMA_VERSION)
    }
}

impl JsonSchema for SchemaVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaVersion".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The version of this document's shape.",
            "type": "integer",
            "const": SCHEMA_VERSION,
        })
    }
}

/// The commands with a `--json` document, each with its JSON Schema (draft 2020-12, for
/// what is serialised), in the order of `docs/cli.md`.
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn of<T: JsonSchema>() -> serde_json::Value {
        let g = schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator();
        g.into_root_schema_for::<T>().to_value()
    }
    vec![
        ("summary", of::<Summary>()),
        ("histogram", of::<Histogram>()),
        ("dominators", of::<Dominators>()),
        ("path", of::<Paths>()),
        ("inspect", of::<Inspect>()),
        ("threads", of::<Threads>()),
        ("diff", of::<Diff>()),
        ("leaks", of::<Leaks>()),
        ("suspects", of::<Suspects>()),
        ("waste", of::<WasteReport>()),
        ("retained", of::<retained::Retained>()),
        ("pinch", of::<pinch::Pinch>()),
    ]
}

/// The object a results entry names, with its class: `{"class": ..., "object": ...}`,
/// plus `"label"` where the object has one.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectRef {
    pub class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub label: Option<String>,
    pub object: String,
}

impl ObjectRef {
    pub fn of(snap: &crate::format::Snapshot, o: crate::heap::ObjId) -> ObjectRef {
        ObjectRef {
            class: snap.class_name(o).to_string(),
            label: snap.label(o),
            object: snap.object_name(o),
        }
    }
}
