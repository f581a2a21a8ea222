//! The functions a query may call on objects (`field`, `path`, `referrers`, `class_of`,
//! `is_instance_of`, `text`, `size`) and the table function `fields('Class')`: each
//! decodes what it needs from the dump for the rows the query gives it, when it runs.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListBuilder, StringArray,
    StringBuilder, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{plan_err, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    create_udf, ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, Volatility,
};
use datafusion::prelude::SessionContext;

use super::lazy::Lazy;
use crate::format::{Snapshot, Value};
use crate::heap::ObjId;

/// The type a field's values take in a query: from the values themselves.
fn type_of(v: &Value) -> Option<DataType> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => DataType::Boolean,
        Value::Int(_) => DataType::Int64,
        Value::Float(_) => DataType::Float64,
        _ => DataType::Utf8,
    })
}

/// A column of `values` as `ty` (a value of another kind is NULL, an object its name).
fn column_of(snap: &Snapshot, ty: &DataType, values: &[Option<Value>]) -> ArrayRef {
    match ty {
        DataType::Boolean => Arc::new(BooleanArray::from_iter(values.iter().map(|v| match v {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }))),
        DataType::Int64 => Arc::new(Int64Array::from_iter(values.iter().map(|v| match v {
            Some(Value::Int(x)) => Some(*x),
            _ => None,
        }))),
        DataType::Float64 => Arc::new(Float64Array::from_iter(values.iter().map(|v| match v {
            Some(Value::Float(x)) => Some(*x),
            Some(Value::Int(x)) => Some(*x as f64),
            _ => None,
        }))),
        _ => Arc::new(StringArray::from_iter(values.iter().map(|v| {
            Some(match v.as_ref()? {
                Value::Null => return None,
                Value::Bool(b) => b.to_string(),
                Value::Int(x) => x.to_string(),
                Value::Float(x) => crate::format::float_text(*x),
                Value::Char(c) => crate::results::inspect::char_text(*c),
                Value::Object(o) => snap.object_name(*o),
                Value::Missing(s) | Value::Text(s) => s.clone(),
            })
        }))),
    }
}

/// The objects the text ids in `a` name (NULL where none does).
fn objects_of(snap: &Snapshot, a: &ArrayRef) -> Result<Vec<Option<ObjId>>> {
    let a = datafusion::arrow::compute::cast(a, &DataType::Utf8)?;
    let s = a.as_any().downcast_ref::<StringArray>().ok_or_else(|| {
        DataFusionError::Execution("an object id is text: '0x…', '@N', '#N'".into())
    })?;
    Ok(s.iter()
        .map(|x| x.and_then(|x| snap.find_object(x)))
        .collect())
}

fn arrays(args: &[ColumnarValue]) -> Result<Vec<ArrayRef>> {
    ColumnarValue::values_to_arrays(args)
}

/// The text of a constant argument.
fn literal_text(v: Option<&ScalarValue>) -> Option<String> {
    match v? {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        _ => None,
    }
}

/// `field(id, 'name')`: the value of a field, of the type its values have (an integer,
/// a float, a boolean; text for characters, strings' words and objects, which are named
/// as `id` is). The type is read from the first class whose first instance has a field so
/// named.
struct FieldFn {
    snap: Arc<Snapshot>,
    signature: Signature,
    types: Mutex<HashMap<String, DataType>>,
}

impl std::fmt::Debug for FieldFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field")
    }
}
impl PartialEq for FieldFn {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for FieldFn {}
impl std::hash::Hash for FieldFn {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        "field".hash(h)
    }
}

impl FieldFn {
    fn type_named(&self, name: &str) -> DataType {
        if let Some(t) = self.types.lock().unwrap().get(name) {
            return t.clone();
        }
        let mut ty = DataType::Utf8;
        'classes: for o in self.snap.graph.first_instances().into_iter().flatten() {
            for f in self.snap.inspect(o).fields {
                if f.name == name && !f.is_static {
                    if let Some(t) = type_of(&f.value) {
                        ty = t;
                        break 'classes;
                    }
                }
            }
        }
        self.types
            .lock()
            .unwrap()
            .insert(name.to_string(), ty.clone());
        ty
    }
}

impl ScalarUDFImpl for FieldFn {
    fn name(&self) -> &str {
        "field"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let Some(name) = literal_text(args.scalar_arguments.get(1).copied().flatten()) else {
            return plan_err!("field(id, 'name'): the field's name is a constant text");
        };
        Ok(Arc::new(Field::new("field", self.type_named(&name), true)))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let a = arrays(&args.args)?;
        let objs = objects_of(&self.snap, &a[0])?;
        let names = datafusion::arrow::compute::cast(&a[1], &DataType::Utf8)?;
        let names = names.as_any().downcast_ref::<StringArray>().unwrap();
        let values: Vec<Option<Value>> = objs
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let name = names.is_valid(i).then(|| names.value(i))?;
                self.snap
                    .inspect((*o)?)
                    .fields
                    .into_iter()
                    .find(|f| f.name == name && !f.is_static)
                    .map(|f| f.value)
            })
            .collect();
        Ok(ColumnarValue::Array(column_of(
            &self.snap,
            args.return_field.data_type(),
            &values,
        )))
    }
}

/// A function of objects' ids alone: `f` of each row's object (NULL where no object).
fn of_objects(
    snap: &Arc<Snapshot>,
    name: &str,
    ret: DataType,
    f: impl Fn(&Snapshot, Vec<Option<ObjId>>) -> Result<ArrayRef> + Send + Sync + 'static,
) -> ScalarUDF {
    let s = snap.clone();
    create_udf(
        name,
        vec![DataType::Utf8],
        ret,
        Volatility::Immutable,
        Arc::new(move |args: &[ColumnarValue]| {
            let a = arrays(args)?;
            Ok(ColumnarValue::Array(f(&s, objects_of(&s, &a[0])?)?))
        }),
    )
}

/// What `size('200 MiB')` reads: a number of bytes with a unit (B, KB, KiB, MB, MiB, GB,
/// GiB, TB, TiB; the 1024-based units also as K, M, G).
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: f64 = n.parse().ok()?;
    let k: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024f64.powi(4),
        _ => return None,
    };
    let bytes = n * k;
    (bytes.is_finite() && bytes < u64::MAX as f64).then_some(bytes.round() as u64)
}

/// Registers the functions over `snap` in `ctx`.
pub fn register(ctx: &SessionContext, snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) {
    ctx.register_udf(ScalarUDF::from(FieldFn {
        snap: snap.clone(),
        signature: Signature::exact(vec![DataType::Utf8, DataType::Utf8], Volatility::Immutable),
        types: Mutex::default(),
    }));
    ctx.register_udf(of_objects(snap, "class_of", DataType::Utf8, |s, objs| {
        Ok(Arc::new(StringArray::from_iter(
            objs.iter().map(|o| o.map(|o| s.class_name(o).to_string())),
        )))
    }));
    ctx.register_udf(of_objects(snap, "text", DataType::Utf8, |s, objs| {
        Ok(Arc::new(StringArray::from_iter(objs.iter().map(|o| {
            let o = (*o)?;
            s.decoder
                .content(s.bytes(), &s.graph, o)
                .filter(|c| c.string)
                .map(|c| c.text())
        }))))
    }));
    ctx.register_udf(of_objects(snap, "path", DataType::Utf8, |s, objs| {
        Ok(Arc::new(StringArray::from_iter(objs.iter().map(|o| {
            let p = crate::heap::paths::to_roots(&s.graph, (*o)?, 1, false);
            let p = p.first()?;
            Some(path_words(s, p))
        }))))
    }));
    let item = Arc::new(Field::new("item", DataType::Utf8, true));
    ctx.register_udf(of_objects(
        snap,
        "referrers",
        DataType::List(item),
        |s, objs| {
            let mut b = ListBuilder::new(StringBuilder::new());
            for o in objs {
                match o {
                    Some(o) => {
                        let mut seen: Vec<ObjId> = s.graph.referrers(o).to_vec();
                        seen.dedup();
                        for r in seen {
                            b.values().append_value(s.object_name(r));
                        }
                        b.append(true);
                    }
                    None => b.append(false),
                }
            }
            Ok(Arc::new(b.finish()))
        },
    ));
    let s = snap.clone();
    ctx.register_udf(create_udf(
        "is_instance_of",
        vec![DataType::Utf8, DataType::Utf8],
        DataType::Boolean,
        Volatility::Immutable,
        Arc::new(move |args: &[ColumnarValue]| {
            let a = arrays(args)?;
            let objs = objects_of(&s, &a[0])?;
            let classes = datafusion::arrow::compute::cast(&a[1], &DataType::Utf8)?;
            let classes = classes.as_any().downcast_ref::<StringArray>().unwrap();
            Ok(ColumnarValue::Array(Arc::new(BooleanArray::from_iter(
                objs.iter().enumerate().map(|(i, o)| {
                    let o = (*o)?;
                    let want = classes.is_valid(i).then(|| classes.value(i))?;
                    Some(
                        s.class_name(o) == want
                            || s.decoder
                                .superclasses(s.bytes(), &s.graph, o)
                                .iter()
                                .any(|c| c == want),
                    )
                }),
            ))))
        }),
    ));
    ctx.register_udf(create_udf(
        "size",
        vec![DataType::Utf8],
        DataType::UInt64,
        Volatility::Immutable,
        Arc::new(|args: &[ColumnarValue]| {
            let a = arrays(args)?;
            let t = a[0]
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| DataFusionError::Execution("size('200 MiB') takes text".into()))?;
            let out = t
                .iter()
                .map(|x| match x {
                    None => Ok(None),
                    Some(x) => parse_size(x).map(Some).ok_or_else(|| {
                        DataFusionError::Execution(format!(
                            "size({x:?}): not a size (e.g. '200 MiB', '1.5 GB', '4096')"
                        ))
                    }),
                })
                .collect::<Result<UInt64Array>>()?;
            Ok(ColumnarValue::Array(Arc::new(out)))
        }),
    ));
    ctx.register_udtf(
        "fields",
        Arc::new(FieldsFn {
            snap: snap.clone(),
            stop: stop.clone(),
        }),
    );
}

/// A path as one line: `0x… (java.lang.Class) .CACHE → 0x… (java.util.HashMap) .table → …`.
fn path_words(s: &Snapshot, p: &[ObjId]) -> String {
    crate::results::path::PathStep::all(s, p, false)
        .iter()
        .map(|step| {
            let head = match (&step.folded, &step.edge) {
                (Some(_), _) => format!("{} ", step.fold_words().unwrap_or_default()),
                (None, Some(e)) => format!("{e} → "),
                (None, None) => String::new(),
            };
            format!("{head}{} {}", step.class, step.object)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `fields('Class')`: one row per instance of the class, `id` and `n`, then a column per
/// field (its type from the values of the first instances).
struct FieldsFn {
    snap: Arc<Snapshot>,
    stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for FieldsFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fields")
    }
}

/// Instances whose fields decide the columns' types.
const SAMPLE: usize = 64;
/// Columns at most (an array's elements are its fields: a page of them).
const MAX_FIELDS: usize = 256;

impl TableFunctionImpl for FieldsFn {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let class = match args.exprs().first() {
            Some(Expr::Literal(v, _)) => literal_text(Some(v)),
            _ => None,
        };
        let Some(class) = class else {
            return plan_err!(
                "fields('Class'): the class is a constant text, e.g. fields('java.lang.String')"
            );
        };
        let snap = self.snap.clone();
        let g = &snap.graph;
        let ids: Vec<bool> = g.classes.iter().map(|c| c.name == class).collect();
        if !ids.contains(&true) {
            let hint = crate::heap::matcher::class_suggestion(
                g.classes.iter().map(|c| c.name.as_str()),
                &class,
            );
            return plan_err!("fields: no class named {class}{hint}");
        }
        let objs: Vec<ObjId> = g
            .class_of
            .iter()
            .enumerate()
            .filter(|(_, c)| ids[*c as usize])
            .map(|(o, _)| o as ObjId)
            .collect();
        // The columns: the fields' names in the first instance's order, a name met again
        // (a field hidden by a subclass's) numbered; types from the first values met.
        let mut names: Vec<String> = Vec::new();
        let mut types: Vec<Option<DataType>> = Vec::new();
        for &o in objs.iter().take(SAMPLE) {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            let fields = snap.inspect(o).fields;
            for f in fields.iter().filter(|f| !f.is_static) {
                let k = seen.entry(f.name.as_str()).or_default();
                *k += 1;
                let col = column_name(&f.name, *k);
                let at = match names.iter().position(|n| *n == col) {
                    Some(i) => i,
                    None if names.len() < MAX_FIELDS => {
                        names.push(col);
                        types.push(None);
                        names.len() - 1
                    }
                    None => continue,
                };
                match (&types[at], type_of(&f.value)) {
                    (None, t) => types[at] = t,
                    (Some(a), Some(b)) if *a != b => types[at] = Some(DataType::Utf8),
                    _ => {}
                }
            }
        }
        let types: Vec<DataType> = types
            .into_iter()
            .map(|t| t.unwrap_or(DataType::Utf8))
            .collect();
        let mut columns = vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("n", DataType::UInt32, false),
        ];
        for (n, t) in names.iter().zip(&types) {
            if n == "id" || n == "n" {
                columns.push(Field::new(format!("field_{n}"), t.clone(), true));
            } else {
                columns.push(Field::new(n, t.clone(), true));
            }
        }
        let schema = Arc::new(Schema::new(columns));
        let units = objs.len();
        Ok(Lazy::new(
            format!("fields('{class}')"),
            schema,
            units,
            4096,
            &self.stop,
            move |cols, range| {
                let these = &objs[range];
                let need_fields = cols.iter().any(|&c| c >= 2);
                let rows: Vec<Vec<Option<Value>>> = these
                    .iter()
                    .map(|&o| {
                        let mut row = vec![None; names.len()];
                        if need_fields {
                            let mut seen: HashMap<String, usize> = HashMap::new();
                            for f in snap.inspect(o).fields.into_iter().filter(|f| !f.is_static) {
                                let k = seen.entry(f.name.clone()).or_default();
                                *k += 1;
                                let col = column_name(&f.name, *k);
                                if let Some(i) = names.iter().position(|n| *n == col) {
                                    row[i] = Some(f.value);
                                }
                            }
                        }
                        row
                    })
                    .collect();
                let out = cols
                    .iter()
                    .map(|&c| -> ArrayRef {
                        match c {
                            0 => Arc::new(StringArray::from_iter_values(
                                these.iter().map(|&o| snap.object_name(o)),
                            )),
                            1 => Arc::new(UInt32Array::from(these.to_vec())),
                            c => {
                                let values: Vec<Option<Value>> =
                                    rows.iter().map(|r| r[c - 2].clone()).collect();
                                column_of(&snap, &types[c - 2], &values)
                            }
                        }
                    })
                    .collect();
                Ok((out, these.len()))
            },
        ))
    }
}

/// A field's column: its name, numbered from its second occurrence in one object.
fn column_name(name: &str, k: usize) -> String {
    if k <= 1 {
        name.to_string()
    } else {
        format!("{name}_{k}")
    }
}
