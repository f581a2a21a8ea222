//! The tables of a few rows to a few thousand: `classes`, `roots`, `threads`, `frames`,
//! `locals`, and the analyses `suspects`, `waste` and `diff`. Each is computed the first
//! time a query reads it (the suspects need the dominator tree, the waste a pass over the
//! strings and arrays), from the same result types the CLI prints.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::error::Result;

use super::lazy::Lazy;
use super::Tree;
use crate::format::Snapshot;

/// How many suspects the `suspects` table lists.
pub const SUSPECTS: usize = 100;
/// How many findings of each kind the `waste` table lists.
pub const WASTE: usize = 1000;

type Rows = Vec<Vec<ScalarValue>>;

/// A table of `columns` whose rows `rows` makes the first time the table is read.
pub fn small(
    name: &str,
    columns: &[(&str, DataType)],
    stop: &Arc<AtomicBool>,
    rows: impl Fn() -> Rows + Send + Sync + 'static,
    units: usize,
) -> Arc<Lazy> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, t)| Field::new(*n, t.clone(), true))
            .collect::<Vec<_>>(),
    ));
    let kept: Arc<OnceLock<Rows>> = Arc::default();
    let types: Vec<DataType> = columns.iter().map(|c| c.1.clone()).collect();
    // The row count is known only once the rows are made: the table is one batch of
    // up to `units` rows (a bound known beforehand), made whole on first read.
    Lazy::new(
        name,
        schema,
        units.max(1),
        usize::MAX,
        stop,
        move |cols, _| {
            let rows = kept.get_or_init(&rows);
            let out = cols
                .iter()
                .map(|&c| {
                    if rows.is_empty() {
                        return Ok(datafusion::arrow::array::new_empty_array(&types[c]));
                    }
                    ScalarValue::iter_to_array(rows.iter().map(|r| r[c].clone()))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((out, rows.len()))
        },
    )
}

fn text(s: impl Into<String>) -> ScalarValue {
    ScalarValue::Utf8(Some(s.into()))
}
fn opt_text(s: Option<impl Into<String>>) -> ScalarValue {
    ScalarValue::Utf8(s.map(Into::into))
}
fn num(x: u64) -> ScalarValue {
    ScalarValue::UInt64(Some(x))
}
fn opt_num(x: Option<u64>) -> ScalarValue {
    ScalarValue::UInt64(x)
}

const T: DataType = DataType::Utf8;
const N: DataType = DataType::UInt64;

/// `classes(name, package, count, shallow, retained)`: the histogram's rows.
pub fn classes(snap: &Arc<Snapshot>, dom: &Tree, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let (snap, dom) = (snap.clone(), dom.clone());
    let units = snap.graph.classes.len();
    small(
        "classes",
        &[
            ("name", T),
            ("package", T),
            ("count", N),
            ("shallow", N),
            ("retained", N),
        ],
        stop,
        move || {
            let mut rows = crate::heap::histogram::by_class(&snap.graph);
            if let Some(d) = dom.get() {
                crate::heap::histogram::add_retained(&mut rows, &d.class_retained(&snap.graph));
            }
            rows.iter()
                .map(|r| {
                    vec![
                        text(&r.name),
                        text(crate::heap::histogram::package_of(&r.name)),
                        num(r.count),
                        num(r.shallow),
                        opt_num(r.retained),
                    ]
                })
                .collect()
        },
        units,
    )
}

/// `roots(id, kind, thread, frame, n)`: every GC root record (an object rooted twice is
/// two rows); `thread` the thread's name where the root is bound to one.
pub fn roots(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let s = snap.clone();
    small(
        "roots",
        &[
            ("id", T),
            ("kind", T),
            ("thread", T),
            ("frame", N),
            ("n", DataType::UInt32),
        ],
        stop,
        move || {
            s.graph
                .roots
                .iter()
                .map(|r| {
                    vec![
                        text(s.object_name(r.obj)),
                        text(r.kind.name()),
                        opt_text(
                            s.thread_list
                                .iter()
                                .find(|t| t.serial == r.thread && r.thread != u32::MAX)
                                .map(|t| t.name.clone())
                                .or_else(|| s.thread_name(r.thread)),
                        ),
                        opt_num((r.frame != u32::MAX).then_some(r.frame as u64)),
                        ScalarValue::UInt32(Some(r.obj)),
                    ]
                })
                .collect()
        },
        snap.graph.roots.len(),
    )
}

/// A thread's key in `threads`, `frames` and `locals`: the runtime's own id, else its
/// place in the dump's list.
fn thread_key(t: &crate::heap::Thread, i: usize) -> u64 {
    t.id.unwrap_or(i as u64)
}

/// `threads(id, name, state, object, system, frames)`.
pub fn threads(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let s = snap.clone();
    small(
        "threads",
        &[
            ("id", N),
            ("name", T),
            ("state", T),
            ("object", T),
            ("system", DataType::Boolean),
            ("frames", N),
        ],
        stop,
        move || {
            s.thread_list
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    vec![
                        num(thread_key(t, i)),
                        text(&t.name),
                        opt_text(t.state.clone()),
                        opt_text(t.object.map(|o| s.object_name(o))),
                        ScalarValue::Boolean(Some(t.system)),
                        num(t.frames.len() as u64),
                    ]
                })
                .collect()
        },
        snap.thread_list.len(),
    )
}

/// `frames(thread, depth, function, location, locals)`: innermost frame at depth 0.
pub fn frames(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let s = snap.clone();
    small(
        "frames",
        &[
            ("thread", N),
            ("depth", N),
            ("function", T),
            ("location", T),
            ("locals", N),
        ],
        stop,
        move || {
            let mut rows = Vec::new();
            for (i, t) in s.thread_list.iter().enumerate() {
                for (d, f) in t.frames.iter().enumerate() {
                    rows.push(vec![
                        num(thread_key(t, i)),
                        num(d as u64),
                        text(&f.function),
                        text(&f.location),
                        num(f.locals.len() as u64),
                    ]);
                }
            }
            rows
        },
        snap.thread_list.iter().map(|t| t.frames.len()).sum(),
    )
}

/// `locals(thread, frame, id, class, n)`: the objects each frame holds (`frame` its
/// depth; NULL for what a thread holds outside any known frame).
pub fn locals(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let s = snap.clone();
    small(
        "locals",
        &[
            ("thread", N),
            ("frame", N),
            ("id", T),
            ("class", T),
            ("n", DataType::UInt32),
        ],
        stop,
        move || {
            let mut rows = Vec::new();
            let row = |t: u64, f: Option<u64>, o: u32| {
                vec![
                    num(t),
                    opt_num(f),
                    text(s.object_name(o)),
                    text(s.class_name(o)),
                    ScalarValue::UInt32(Some(o)),
                ]
            };
            for (i, t) in s.thread_list.iter().enumerate() {
                let k = thread_key(t, i);
                for (d, f) in t.frames.iter().enumerate() {
                    rows.extend(f.locals.iter().map(|&o| row(k, Some(d as u64), o)));
                }
                rows.extend(t.held.iter().map(|&o| row(k, None, o)));
            }
            rows
        },
        snap.thread_list
            .iter()
            .map(|t| t.held.len() + t.frames.iter().map(|f| f.locals.len()).sum::<usize>())
            .sum(),
    )
}

/// `suspects(rank, kind, object, class, retained, share, holder, title, objects)`: the
/// `suspects` command's rows, its first [`SUSPECTS`]. Empty without a dominator tree.
pub fn suspects(snap: &Arc<Snapshot>, dom: &Tree, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let (s, dom) = (snap.clone(), dom.clone());
    small(
        "suspects",
        &[
            ("rank", N),
            ("kind", T),
            ("object", T),
            ("class", T),
            ("retained", N),
            ("share", DataType::Float64),
            ("holder", T),
            ("title", T),
            ("objects", N),
        ],
        stop,
        move || {
            let Some(d) = dom.get() else {
                return Vec::new();
            };
            let doc =
                crate::results::suspects::Suspects::of(&s, &crate::suspects::find(&s, d, SUSPECTS));
            doc.suspects
                .iter()
                .map(|x| {
                    vec![
                        num(x.rank as u64),
                        text(&x.kind),
                        text(&x.object),
                        text(&x.class),
                        num(x.retained_bytes),
                        ScalarValue::Float64(Some(x.share)),
                        text(&x.holder),
                        text(&x.title),
                        num(x.objects),
                    ]
                })
                .collect()
        },
        SUSPECTS,
    )
}

/// `waste(kind, class, text, count, bytes_each, wasted, holder, example, length,
/// capacity)`: the `waste` command's findings, [`WASTE`] of each kind, `kind` one of
/// `duplicate string`, `duplicate array`, `sparse collection`.
pub fn waste(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let s = snap.clone();
    small(
        "waste",
        &[
            ("kind", T),
            ("class", T),
            ("text", T),
            ("count", N),
            ("bytes_each", N),
            ("wasted", N),
            ("holder", T),
            ("example", T),
            ("length", N),
            ("capacity", N),
        ],
        stop,
        move || {
            let w = crate::waste::find(&s, WASTE);
            let doc = crate::results::waste::WasteReport::of(s.as_ref(), &w);
            let mut rows = Vec::new();
            for x in &doc.duplicate_strings {
                rows.push(vec![
                    text("duplicate string"),
                    opt_text(
                        s.find_object(&x.example)
                            .map(|o| s.class_name(o).to_string()),
                    ),
                    text(&x.text),
                    num(x.count),
                    num(x.bytes_each),
                    num(x.wasted_bytes),
                    opt_text(None::<String>),
                    text(&x.example),
                    opt_num(None),
                    opt_num(None),
                ]);
            }
            for x in &doc.duplicate_arrays {
                rows.push(vec![
                    text("duplicate array"),
                    text(&x.class),
                    opt_text(x.preview.clone()),
                    num(x.count),
                    num(x.bytes_each),
                    num(x.wasted_bytes),
                    opt_text(None::<String>),
                    text(&x.example),
                    num(x.length),
                    opt_num(None),
                ]);
            }
            for x in &doc.sparse_collections {
                rows.push(vec![
                    text("sparse collection"),
                    text(&x.class),
                    opt_text(None::<String>),
                    num(x.count),
                    opt_num(None),
                    num(x.wasted_bytes),
                    text(&x.holder),
                    text(&x.example),
                    num(x.size),
                    num(x.capacity),
                ]);
            }
            rows
        },
        3 * WASTE,
    )
}

/// `diff(class, base_count, target_count, delta_count, base_shallow, target_shallow,
/// delta_shallow, base_retained, target_retained, delta_retained, new, gone)`: per class,
/// both snapshots' figures, as `diff` prints them.
pub fn diff(
    base: (&Arc<Snapshot>, &Tree),
    target: (&Arc<Snapshot>, &Tree),
    stop: &Arc<AtomicBool>,
) -> Arc<Lazy> {
    let (a, da) = (base.0.clone(), base.1.clone());
    let (b, db) = (target.0.clone(), target.1.clone());
    let units = a.graph.classes.len() + b.graph.classes.len();
    let i = DataType::Int64;
    small(
        "diff",
        &[
            ("class", T),
            ("base_count", N),
            ("target_count", N),
            ("delta_count", i.clone()),
            ("base_shallow", N),
            ("target_shallow", N),
            ("delta_shallow", i.clone()),
            ("base_retained", N),
            ("target_retained", N),
            ("delta_retained", i),
            ("new", N),
            ("gone", N),
        ],
        stop,
        move || {
            let (ids, _) = crate::diff::identity_checked(&a, &b);
            let doms = match (da.get(), db.get()) {
                (Some(x), Some(y)) => Some((x.as_ref(), y.as_ref())),
                _ => None,
            };
            let new_known = ids.is_some();
            crate::diff::class_deltas(&a, &b, doms, ids.as_ref())
                .iter()
                .map(|r| {
                    let ret = |x: u64| opt_num(doms.map(|_| x));
                    let i = |x: i64| ScalarValue::Int64(Some(x));
                    vec![
                        text(&r.class),
                        num(r.base_count),
                        num(r.target_count),
                        i(r.delta_count()),
                        num(r.base_shallow),
                        num(r.target_shallow),
                        i(r.delta_shallow()),
                        ret(r.base_retained),
                        ret(r.target_retained),
                        ScalarValue::Int64(doms.map(|_| r.delta_retained())),
                        opt_num(new_known.then_some(r.new)),
                        opt_num(new_known.then_some(r.gone)),
                    ]
                })
                .collect()
        },
        units,
    )
}
