//! `inspect`: one object's class, sizes, fields, contents and referrers.

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

use super::SchemaVersion;
use crate::format::{float_text, Snapshot, Value};
use crate::heap::dominators::{Dominators, VIRTUAL_ROOT};
use crate::heap::ObjId;

/// Referrers listed by `inspect`; the rest are counted.
pub const MAX_REFERRERS: usize = 100;

/// The `inspect` document (plus `distance`, `dominator`, `roots`, `problems`,
/// `more_elements`, `referrers_total`, `facts` and `label`: additions to the contract).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Inspect {
    pub schema_version: SchemaVersion,
    pub class: String,
    /// References from the nearest GC root.
    pub distance: Option<u64>,
    /// The immediate dominator: an object, `"(virtual root)"`, or `null` where no GC
    /// root reaches it.
    pub dominator: Option<String>,
    pub facts: Facts,
    pub fields: Vec<FieldEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub label: Option<String>,
    pub length: Option<u64>,
    pub more_elements: u64,
    pub object: String,
    pub preview: Option<String>,
    pub problems: Vec<String>,
    /// The first 100 referrers.
    pub referrers: Vec<Referrer>,
    pub referrers_total: usize,
    pub retained_bytes: Option<u64>,
    pub roots: Vec<String>,
    pub shallow_bytes: u64,
}

/// The format's facts about the object (label → value), in the format's order; in JSON
/// an object, whose keys are sorted and of which a label given twice keeps its last value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts(pub Vec<(String, String)>);

impl Serialize for Facts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<&str, &str> = self
            .0
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        map.serialize(s)
    }
}

impl JsonSchema for Facts {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Facts".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        <BTreeMap<String, String>>::json_schema(g)
    }
}

/// A field, an element or a static (`"static": true`) of the object.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldEntry {
    pub name: String,
    #[serde(rename = "static", skip_serializing_if = "std::ops::Not::not")]
    pub is_static: bool,
    /// The type as the runtime names it: `int`, `boolean`, `object`, ...
    #[serde(rename = "type")]
    pub ty: String,
    pub value: FieldValue,
    /// The value as decoded, for the text table (which says it in words).
    #[serde(skip)]
    pub decoded: Value,
}

/// A field's value: numbers as numbers, references as `OBJECT` names, a float that is
/// not finite and a character as text.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl FieldValue {
    pub fn of(snap: &Snapshot, v: &Value) -> FieldValue {
        match v {
            Value::Null => FieldValue::Null,
            Value::Bool(b) => FieldValue::Bool(*b),
            Value::Int(i) => FieldValue::Int(*i),
            Value::Float(f) if f.is_finite() => FieldValue::Float(*f),
            Value::Float(f) => FieldValue::Text(float_text(*f)),
            Value::Char(c) => FieldValue::Text(char_text(*c)),
            Value::Object(o) => FieldValue::Text(snap.object_name(*o)),
            Value::Missing(s) | Value::Text(s) => FieldValue::Text(s.clone()),
        }
    }
}

/// A Java `char` as the character, or `\uXXXX` where the code unit is none.
pub fn char_text(c: u16) -> String {
    char::from_u32(c as u32)
        .map(|c| c.to_string())
        .unwrap_or_else(|| format!("\\u{c:04x}"))
}

/// An object that holds the inspected one, and by which edge.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Referrer {
    pub class: String,
    pub edge: Option<String>,
    pub object: String,
    /// The referrer's label, for the text table.
    #[serde(skip)]
    pub label: Option<String>,
}

impl Inspect {
    pub fn of(snap: &Snapshot, d: &Dominators, o: ObjId) -> Inspect {
        let g = &snap.graph;
        let ins = snap.inspect(o);
        let mut referrers: Vec<ObjId> = g.referrers(o).to_vec();
        referrers.dedup();
        let shown = &referrers[..referrers.len().min(MAX_REFERRERS)];
        let mut roots: Vec<String> = g
            .roots_of(o)
            .iter()
            .map(|r| snap.describe_root(r))
            .collect();
        roots.dedup();
        Inspect {
            schema_version: SchemaVersion,
            class: snap.class_name(o).to_string(),
            distance: snap.distance(o),
            dominator: match d.idom(o) {
                Some(VIRTUAL_ROOT) => Some("(virtual root)".to_string()),
                Some(x) => Some(snap.object_name(x)),
                None => None,
            },
            facts: Facts(ins.facts),
            fields: ins
                .fields
                .into_iter()
                .map(|f| FieldEntry {
                    value: FieldValue::of(snap, &f.value),
                    name: f.name,
                    is_static: f.is_static,
                    ty: f.ty,
                    decoded: f.value,
                })
                .collect(),
            label: snap.label(o),
            length: ins.length,
            more_elements: ins.more_elements,
            object: snap.object_name(o),
            preview: ins.preview,
            problems: ins.problems,
            referrers: shown
                .iter()
                .map(|&r| Referrer {
                    class: snap.class_name(r).to_string(),
                    edge: snap.edge_label(r, o),
                    object: snap.object_name(r),
                    label: snap.label(r),
                })
                .collect(),
            referrers_total: referrers.len(),
            retained_bytes: d.retained(o),
            roots,
            shallow_bytes: g.shallow_size(o),
        }
    }
}
