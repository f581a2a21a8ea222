//! The tables with a row per object or per reference: `objects`, `refs` and `strings`,
//! made from the index's columns batch by batch as a query reads them ([`Lazy`]), and
//! only the columns it reads: the id's text, a label or a reference's name is decoded
//! from the dump only when that column is asked for.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, DictionaryArray, StringArray, StringBuilder, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt32Type};
use datafusion::error::Result;

use super::lazy::Lazy;
use super::{Strings, Tree};
use crate::format::Snapshot;
use crate::heap::dominators::VIRTUAL_ROOT;
use crate::heap::texts::Texts;
use crate::heap::ObjId;

/// Objects per batch.
const BATCH: usize = 1 << 16;

fn dict() -> DataType {
    DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8))
}

/// The classes' names, the dictionary of every `class` column.
fn class_names(snap: &Snapshot) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(
        snap.graph.classes.iter().map(|c| c.name.as_str()),
    ))
}

fn class_column(snap: &Snapshot, names: &ArrayRef, objs: &[ObjId]) -> Result<ArrayRef> {
    let keys =
        UInt32Array::from_iter_values(objs.iter().map(|&o| snap.graph.class_of.get(o as usize)));
    Ok(Arc::new(DictionaryArray::<UInt32Type>::try_new(
        keys,
        names.clone(),
    )?))
}

/// The names of `objs` as heaptui prints them (`0x…`, `@N`, `#N`), NULL for `None`:
/// written into the column, without a string of their own.
fn ids(snap: &Snapshot, objs: impl Iterator<Item = Option<ObjId>>) -> StringArray {
    let mut b = StringBuilder::new();
    for o in objs {
        match o {
            Some(o) => {
                // Writing into a builder cannot fail.
                let _ = snap.write_object_name(o, &mut b);
                b.append_value("");
            }
            None => b.append_null(),
        }
    }
    b.finish()
}

/// The kinds of GC root each of objects `range` is (`None`: it is none), joined: the
/// roots (sorted by object) of the range walked beside it.
fn root_kinds(g: &crate::heap::Graph, range: std::ops::Range<usize>) -> StringArray {
    let roots = &g.roots[g.roots.partition_point(|r| (r.obj as usize) < range.start)..];
    let mut out = StringBuilder::new();
    let mut at = 0;
    for o in range {
        let mut kinds: Vec<&str> = Vec::new();
        while let Some(r) = roots.get(at).filter(|r| r.obj as usize == o) {
            kinds.push(r.kind.name());
            at += 1;
        }
        kinds.dedup();
        match kinds.is_empty() {
            true => out.append_null(),
            false => out.append_value(kinds.join(", ")),
        }
    }
    out.finish()
}

/// Every object's depth from the roots, computed once per query when a column needs it
/// (the TUI's own when it has built them).
type Depths = Arc<OnceLock<Arc<Vec<u8>>>>;

fn depths_of<'a>(snap: &'a Snapshot, kept: &'a Depths) -> &'a [u8] {
    if let Some(d) = snap.graph.depths.get() {
        return d;
    }
    kept.get_or_init(|| {
        Arc::new(crate::heap::depth::depths(&snap.graph, || false).unwrap_or_default())
    })
}

/// `objects(id, class, shallow, retained, dominator, depth, reachable, root_kind, label,
/// n, dominator_n, id_num)`.
pub fn objects(snap: &Arc<Snapshot>, dom: &Tree, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("class", dict(), false),
        Field::new("shallow", DataType::UInt64, false),
        Field::new("retained", DataType::UInt64, true),
        Field::new("dominator", DataType::Utf8, true),
        Field::new("depth", DataType::UInt32, true),
        Field::new("reachable", DataType::Boolean, false),
        Field::new("root_kind", DataType::Utf8, true),
        Field::new("label", DataType::Utf8, true),
        Field::new("n", DataType::UInt32, false),
        Field::new("dominator_n", DataType::UInt32, true),
        Field::new("id_num", DataType::UInt64, true),
    ]));
    let names = class_names(snap);
    let depths: Depths = Default::default();
    let (snap, dom) = (snap.clone(), dom.clone());
    Lazy::new(
        "objects",
        schema,
        snap.graph.len(),
        BATCH,
        stop,
        move |cols, range| {
            let objs: Vec<ObjId> = (range.start as u32..range.end as u32).collect();
            let g = &snap.graph;
            let idom = |o: ObjId| {
                dom.get()
                    .and_then(|d| d.idom(o))
                    .filter(|&d| d != VIRTUAL_ROOT)
            };
            let out = cols
                .iter()
                .map(|&c| -> Result<ArrayRef> {
                    let it = objs.iter().copied();
                    Ok(match c {
                        0 => Arc::new(ids(&snap, it.map(Some))),
                        1 => class_column(&snap, &names, &objs)?,
                        2 => Arc::new(UInt64Array::from_iter_values(it.map(|o| g.shallow_size(o)))),
                        3 => Arc::new(UInt64Array::from_iter(
                            it.map(|o| dom.get().and_then(|d| d.retained(o))),
                        )),
                        4 => Arc::new(ids(&snap, it.map(idom))),
                        5 => {
                            let d = depths_of(&snap, &depths);
                            Arc::new(UInt32Array::from_iter(it.map(|o| {
                                d.get(o as usize)
                                    .filter(|&&x| x != crate::heap::depth::UNREACHED)
                                    .map(|&x| x as u32)
                            })))
                        }
                        6 => {
                            let d = depths_of(&snap, &depths);
                            Arc::new(BooleanArray::from_iter(it.map(|o| {
                                Some(
                                    d.get(o as usize)
                                        .is_some_and(|&x| x != crate::heap::depth::UNREACHED),
                                )
                            })))
                        }
                        7 => Arc::new(root_kinds(g, range.clone())),
                        8 => Arc::new(StringArray::from_iter(it.map(|o| snap.label(o)))),
                        9 => Arc::new(UInt32Array::from_iter_values(it)),
                        10 => Arc::new(UInt32Array::from_iter(it.map(idom))),
                        _ => Arc::new(UInt64Array::from_iter(it.map(|o| snap.object_number(o)))),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((out, objs.len()))
        },
    )
}

/// What kind of reference a name and its weak flag say it is.
fn ref_kind(snap: &Snapshot, name: Option<&str>, weak: bool) -> &'static str {
    if weak {
        return "weak";
    }
    match name {
        Some(n) if n.starts_with('[') => "element",
        Some(n) if n.starts_with("static ") => "static",
        _ => snap.format.reference_kind(),
    }
}

/// `refs(src, dst, name, kind, src_n, dst_n)`: one row per reference of the index, in
/// the order of their sources.
pub fn refs(snap: &Arc<Snapshot>, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("src", DataType::Utf8, false),
        Field::new("dst", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("kind", DataType::Utf8, false),
        Field::new("src_n", DataType::UInt32, false),
        Field::new("dst_n", DataType::UInt32, false),
    ]));
    let snap = snap.clone();
    // Sources per batch: fewer than objects', as a batch holds their references.
    Lazy::new(
        "refs",
        schema,
        snap.graph.len(),
        BATCH / 4,
        stop,
        move |cols, range| {
            let g = &snap.graph;
            let (from, to) = (range.start as u32, range.end as u32);
            let (lo, hi) = (g.edges(from).start, g.edges(to - 1).end);
            let rows = hi - lo;
            let src: Vec<ObjId> = (from..to)
                .flat_map(|o| std::iter::repeat_n(o, g.edges(o).len()))
                .collect();
            let dst = &g.out_targets[lo..hi];
            let needs_names = cols.iter().any(|&c| c == 2 || c == 3);
            // Each reference's name written into the column as the decoder gives it, and
            // its kind beside it.
            let mut names = StringBuilder::with_capacity(rows, rows * 8);
            let mut kinds: Vec<&'static str> =
                Vec::with_capacity(if needs_names { rows } else { 0 });
            if needs_names {
                let mut e = lo;
                for o in from..to {
                    snap.each_edge_label(o, &mut |n| {
                        match n {
                            Some(n) => names.append_value(n),
                            None => names.append_null(),
                        }
                        kinds.push(ref_kind(&snap, n, g.is_weak(e)));
                        e += 1;
                    });
                }
            }
            let mut names = Some(names);
            let out = cols
                .iter()
                .map(|&c| -> ArrayRef {
                    match c {
                        0 => Arc::new(ids(&snap, src.iter().map(|&o| Some(o)))),
                        1 => Arc::new(ids(&snap, dst.iter().map(|&o| Some(o)))),
                        2 => Arc::new(names.take().map_or_else(
                            || StringArray::from(Vec::<Option<String>>::new()),
                            |mut n| n.finish(),
                        )),
                        3 => Arc::new(StringArray::from_iter_values(kinds.iter().copied())),
                        4 => Arc::new(UInt32Array::from(src.clone())),
                        _ => Arc::new(UInt32Array::from_iter_values(dst.iter().copied())),
                    }
                })
                .collect();
            Ok((out, rows))
        },
    )
}

/// `strings(id, text, length, bytes, n)`: every string whose text the dump keeps, from
/// the snapshot's strings' text ([`crate::format::texts`], made the first time the table
/// is read): a batch's text is one copy of a run of it, whatever the format.
pub fn strings(snap: &Arc<Snapshot>, texts: &Strings, stop: &Arc<AtomicBool>) -> Arc<Lazy> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("length", DataType::UInt64, false),
        Field::new("bytes", DataType::UInt64, false),
        Field::new("n", DataType::UInt32, false),
    ]));
    let (snap, texts, halt) = (snap.clone(), texts.clone(), stop.clone());
    Lazy::new(
        "strings",
        schema,
        snap.graph.len(),
        BATCH * 4,
        stop,
        move |cols, range| {
            let t = texts.get(&halt).ok_or_else(|| {
                datafusion::error::DataFusionError::Execution(super::CANCELLED.into())
            })?;
            let at = t.places(range.start as ObjId, range.end as ObjId);
            let objs = &t.objs[at.clone()];
            let out = cols
                .iter()
                .map(|&c| -> Result<ArrayRef> {
                    Ok(match c {
                        0 => Arc::new(ids(&snap, objs.iter().map(|&o| Some(o)))),
                        1 => Arc::new(text_column(&t, at.clone())?),
                        2 => Arc::new(UInt64Array::from(t.length[at.clone()].to_vec())),
                        3 => Arc::new(UInt64Array::from(t.bytes[at.clone()].to_vec())),
                        _ => Arc::new(UInt32Array::from(objs.to_vec())),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((out, objs.len()))
        },
    )
}

/// The text of strings `at` as an Arrow column: their run of text copied once, the
/// places made relative to it (a batch's text must be under 2 GiB).
fn text_column(t: &Texts, at: std::ops::Range<usize>) -> Result<StringArray> {
    let starts = &t.starts[at.start..=at.end];
    let (first, last) = (starts[0], starts[starts.len() - 1]);
    if last - first > i32::MAX as u64 {
        return Err(datafusion::error::DataFusionError::Execution(
            "strings: more than 2 GiB of text among 262,144 objects".into(),
        ));
    }
    let offsets: Vec<i32> = starts.iter().map(|&s| (s - first) as i32).collect();
    let values = Buffer::from(&t.text[first as usize..last as usize]);
    StringArray::try_new(OffsetBuffer::new(ScalarBuffer::from(offsets)), values, None)
        .map_err(Into::into)
}
