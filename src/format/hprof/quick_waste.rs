//! `heaptui waste` on an HPROF file without the index: the duplicate strings, duplicate
//! primitive arrays and sparse collections of [`crate::waste`], found by walking the
//! heap dump bodies instead of building the graph, when there is no index cache entry
//! to read (as [`super::quick`] does for the histogram).
//!
//! One parallel walk hashes every primitive array's elements and notes where the
//! `java.lang.String`s, the Java collections, the object arrays and the class dumps
//! are. Each string is then joined to its value array by address (its contents are
//! the array's), and what is left of the arrays is grouped on its own, as the index's
//! pass does. Sparse collections are read from their fields as there; then, only when
//! some are found, the references that hold them are looked for (the first strong one
//! in address order, as the index's referrer lists give it) in the records that can
//! hold one, whose offsets the walk noted: not the bodies again.
//!
//! The answers are the index's, example objects included (the lowest address of each
//! group, as the lowest dense id there), which `tests/it/suspects.rs` checks on the
//! fixtures. Files this walk does not model as the index does (ART, strings with
//! `offset`/`count` or of more than one class, and files where an object id may repeat:
//! [`super::unique`]) return `None`, and the caller builds the index.

use super::quick::{prepare, Prepared};
use super::*;
use crate::format::Encoding;
use crate::format::QuickWaste;
use crate::heap::waste::{
    content_key, group_sparse, holder_words, sparse_waste, DupArray, DupString,
};
use crate::heap::waste::{Waste, SPARSE_CLASSES};
use rayon::prelude::*;

mod duplicates;
mod holders;
mod offsets;
use duplicates::duplicates;
use holders::holders;
use offsets::Offsets;

/// A primitive array: its address, record offset (with its element type and flags
/// above it) and its content key; or a string that took its value array's entry.
#[derive(Clone, Copy)]
struct Prim {
    addr: u64,
    off: u64,
    hash: u128,
}

/// What the first walk notes in one body.
#[derive(Default)]
struct Found {
    class_dumps: Vec<(u64, usize)>,
    class_dump_bytes: u64,
    /// Strings read where the walk knew their layout: (value array, string, UTF-16).
    values: Vec<(u64, u64, bool)>,
    /// Strings it did not: (address, record offset).
    strings: Vec<(u64, u64)>,
    /// Instances of the collection classes: (address, record offset).
    collections: Vec<(u64, u64)>,
    prims: Vec<Prim>,
    /// Object arrays: (address, length).
    obj_arrays: Vec<(u64, u32)>,
    /// Where the instances and object arrays are, run by run: the records that can hold
    /// a sparse collection, read again to find its holder without walking the bodies.
    /// Instances of classes without reference fields are left out, and so are the
    /// strings whose one reference, `value`, the walk read: those go to `strings_at`,
    /// read again only when a value is a collection.
    holding: Vec<Offsets>,
    strings_at: Vec<Offsets>,
    /// The object ids met, as increasing runs: whether any repeats.
    ids: super::unique::IdRuns,
}

impl Found {
    fn append(&mut self, mut o: Found) {
        self.class_dumps.append(&mut o.class_dumps);
        self.class_dump_bytes += o.class_dump_bytes;
        self.strings.append(&mut o.strings);
        self.values.append(&mut o.values);
        self.collections.append(&mut o.collections);
        self.prims.append(&mut o.prims);
        self.obj_arrays.append(&mut o.obj_arrays);
        self.holding.append(&mut o.holding);
        self.strings_at.append(&mut o.strings_at);
        self.ids.add(o.ids);
    }
}

/// Byte offset and type of a named instance field of class `cid`, own fields first,
/// then the superclasses' (the order the decoder lists them in).
fn field_at(
    dumps: &IdMap<ClassDump>,
    id: usize,
    cid: u64,
    name: &dyn Fn(u64) -> Option<String>,
    want: &str,
) -> Option<(usize, u8)> {
    let mut at = 0usize;
    let mut cur = cid;
    for _ in 0..512 {
        let d = dumps.get(&cur)?;
        for &(nid, t) in &d.fields {
            if name(nid).as_deref() == Some(want) {
                return Some((at, t));
            }
            at += type_size(t, id)?;
        }
        if d.super_id == 0 {
            return None;
        }
        cur = d.super_id;
    }
    None
}

/// A signed integer field's value, as the decoder reads it.
fn int_value(data: &[u8], f: Option<(usize, u8)>) -> Option<i64> {
    let (at, t) = f?;
    let raw = data.get(at..at + type_size(t, 8)?)?;
    let u = raw.iter().fold(0u64, |a, &b| a << 8 | b as u64);
    Some(match t {
        8 => u as u8 as i8 as i64,
        9 => u as u16 as i16 as i64,
        10 => u as u32 as i32 as i64,
        11 => u as i64,
        _ => return None,
    })
}

/// The instance data of an INSTANCE DUMP record.
fn instance_data(rec: &[u8], id: usize) -> &[u8] {
    rec.get(1 + 2 * id + 8..).unwrap_or(&[])
}

/// Where a collection class keeps its slots and its size.
#[derive(Clone, Copy, Default)]
struct CollLayout {
    table: Option<(usize, u8)>,
    size: Option<(usize, u8)>,
    count: Option<(usize, u8)>,
    base_count: Option<(usize, u8)>,
    element_data: Option<(usize, u8)>,
    element_count: Option<(usize, u8)>,
    elements: Option<(usize, u8)>,
    head: Option<(usize, u8)>,
    tail: Option<(usize, u8)>,
    /// A `HashSet`'s `map`.
    map: Option<(usize, u8)>,
    set: bool,
}

/// What the first walk does with an instance of a class.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `java.lang.String`; `only_value` when `value` is its one reference field.
    String {
        only_value: bool,
    },
    Collection,
    /// A class whose instances have no reference field.
    NoRefs,
    Other,
}

/// How many reference fields the instances of `cid` have, when its whole chain of
/// classes is in `dumps`.
fn object_fields(dumps: &IdMap<ClassDump>, cid: u64) -> Option<usize> {
    let mut n = 0;
    let mut cur = cid;
    for _ in 0..512 {
        let d = dumps.get(&cur)?;
        n += d.fields.iter().filter(|f| f.1 == T_OBJECT).count();
        if d.super_id == 0 {
            return Some(n);
        }
        cur = d.super_id;
    }
    None
}

/// The waste report of the HPROF file `b` without the index, or `None` where the file
/// needs the index's reading (see the module's doc).
pub fn waste(b: &[u8], progress: &Progress, top: usize) -> Result<Option<QuickWaste>, ParseError> {
    let Prepared {
        h,
        mut p,
        bodies,
        layout,
    } = prepare(b, progress, "looking for waste")?;
    let id = h.id_size;
    if layout.art || b.len() as u64 > OFFSET {
        return Ok(None);
    }
    let t0 = std::time::Instant::now();
    let timing = crate::sys::env::flag("HEAPTUI_TIMING");
    let lap = |what: &str| {
        if timing {
            eprintln!(
                "timing: quick waste: {what} at {:.3} s",
                t0.elapsed().as_secs_f64()
            );
        }
    };
    let class_name = |cid: u64| class_name_of(b, &p.class_names, &p.utf8, cid);
    // The classes of interest by LOAD CLASS name, before any class dump is read.
    let mut string_ids = Vec::new();
    let mut coll_ids = Vec::new();
    for &cid in p.class_names.keys() {
        let n = class_name(cid);
        if n == "java.lang.String" {
            string_ids.push(cid);
        } else if SPARSE_CLASSES.contains(&n.as_str())
            || matches!(n.as_str(), "java.util.HashSet" | "java.util.LinkedHashSet")
        {
            coll_ids.push(cid);
        }
    }
    if string_ids.len() > 1 {
        return Ok(None);
    }
    let string_id = string_ids.first().copied();
    let utf8 = std::mem::take(&mut p.utf8);
    let name_of = |nid: u64| utf8_text(b, &utf8, nid).map(|s| s.into_owned());
    // The class dumps before the first object (HotSpot writes every class first): the
    // string layout from them lets the walk read each string's value as it passes.
    let mut leading: IdMap<ClassDump> = IdMap::default();
    // Each one kept: their memory held to the budget as they come, every 4,096 (a file
    // of only class dumps kept 750,000 here and thrashed in a small cgroup).
    let (mut kept, mut kept_bytes, mut first) = (0u64, 0u64, None);
    let mut refused = None;
    'lead: for &body in &bodies {
        let mut object = false;
        walk_body(b, body, id, &|_| {}, |tag, rec, off| {
            match tag {
                CLASS_DUMP => {
                    kept += 1;
                    kept_bytes += rec.len() as u64;
                    first.get_or_insert(off);
                    if kept % 4096 == 0 {
                        if let Err(e) = check_class_count(kept, kept_bytes, first.unwrap_or(off)) {
                            refused = Some(e);
                            return false;
                        }
                    }
                    if let Ok(d) = parse_class_dump(b, off as usize, id) {
                        leading.insert(d.id, d);
                    }
                }
                INSTANCE_DUMP
                | OBJECT_ARRAY_DUMP
                | PRIMITIVE_ARRAY_DUMP
                | PRIMITIVE_ARRAY_NODATA => {
                    object = true;
                }
                _ => {}
            }
            !object
        });
        if let Some(e) = refused {
            return Err(e);
        }
        if object {
            break 'lead;
        }
    }
    let early = string_id.and_then(|sid| string_layout(&leading, id, sid, &name_of).ok().flatten());
    // What the walk does with an instance, by its class: the classes whose whole chain
    // is among the leading dumps and has no reference field hold nothing.
    let mut kinds: IdMap<Kind> = IdMap::default();
    for &cid in leading.keys() {
        if object_fields(&leading, cid) == Some(0) {
            kinds.insert(cid, Kind::NoRefs);
        }
    }
    for &cid in &coll_ids {
        kinds.insert(cid, Kind::Collection);
    }
    if let Some(sid) = string_id {
        let only_value = early.is_some() && object_fields(&leading, sid) == Some(1);
        kinds.insert(sid, Kind::String { only_value });
    }
    let no_refs: Vec<u64> = kinds
        .iter()
        .filter(|x| *x.1 == Kind::NoRefs)
        .map(|x| *x.0)
        .collect();
    drop(leading);

    let loaded = super::unique::Loaded::new(p.class_names.keys().copied());
    let mut all = Found::default();
    for_bodies(
        &bodies,
        progress,
        |body| {
            let mut f = Found::default();
            let (mut holding, mut strings_at) = (Offsets::default(), Offsets::default());
            let mut last: Option<(u64, Kind)> = None;
            let end = walk_body(b, body, id, &|_| {}, |tag, rec, off| {
                let addr = be_id(&rec[1..], id);
                match tag {
                    INSTANCE_DUMP
                    | OBJECT_ARRAY_DUMP
                    | PRIMITIVE_ARRAY_DUMP
                    | PRIMITIVE_ARRAY_NODATA => f.ids.object(addr, &loaded),
                    CLASS_DUMP => f.ids.class(addr),
                    _ => {}
                }
                match tag {
                    INSTANCE_DUMP => {
                        let cid = be_id(&rec[1 + id + 4..], id);
                        let kind = match last {
                            Some((c, k)) if c == cid => k,
                            _ => {
                                let k = kinds.get(&cid).copied().unwrap_or(Kind::Other);
                                last = Some((cid, k));
                                k
                            }
                        };
                        match kind {
                            Kind::String { only_value } => {
                                match early.and_then(|sl| sl.value(b, id, off)) {
                                    Some((v, utf16)) => {
                                        f.values.push((v, addr, utf16));
                                        if only_value {
                                            strings_at.push(off);
                                        } else {
                                            holding.push(off);
                                        }
                                    }
                                    None => {
                                        f.strings.push((addr, off));
                                        holding.push(off);
                                    }
                                }
                            }
                            Kind::Collection => {
                                f.collections.push((addr, off));
                                holding.push(off);
                            }
                            Kind::Other => holding.push(off),
                            Kind::NoRefs => {}
                        }
                    }
                    OBJECT_ARRAY_DUMP => {
                        holding.push(off);
                        f.obj_arrays.push((addr, be_u32(&rec[1 + id + 4..])));
                    }
                    PRIMITIVE_ARRAY_DUMP => {
                        let n = be_u32(&rec[1 + id + 4..]) as u64;
                        let ty = rec[1 + id + 8];
                        let class = if (4..=11).contains(&ty) { ty as u64 } else { 0 };
                        let h = xxhash_rust::xxh3::xxh3_128(&rec[1 + id + 9..]);
                        f.prims.push(Prim {
                            addr,
                            off: off | (ty as u64) << TYPE_SHIFT,
                            hash: content_key(h, n, class + 1, Encoding::Binary as u64),
                        });
                    }
                    CLASS_DUMP => {
                        f.class_dumps.push((addr, off as usize));
                        f.class_dump_bytes += rec.len() as u64;
                    }
                    _ => {}
                }
                true
            });
            holding.shrink();
            strings_at.shrink();
            f.holding.push(holding);
            f.strings_at.push(strings_at);
            (f, end)
        },
        |body, (f, end)| {
            // The arrays' entries are the bulk: room for as many as the rest of the file
            // holds at this rate, so that they are not copied at every doubling.
            let more = f.prims.len();
            if all.prims.capacity() < all.prims.len() + more {
                let rate = (all.prims.len() + more) as f64 / body.end.max(1) as f64;
                let want = (rate * b.len() as f64 * 1.05) as usize;
                all.prims
                    .reserve(want.saturating_sub(all.prims.len()).max(more));
            }
            all.append(f);
            p.body_end(body, end);
        },
    );
    p.finish(b.len());
    if let Some(e) = p.damage.take() {
        return Err(e);
    }
    // A repeated object id: the index keeps the first record and warns; so must the
    // answer (issue 40).
    if !std::mem::take(&mut all.ids).unique(&loaded) {
        return Ok(None);
    }
    check_class_memory(&all.class_dumps, all.class_dump_bytes)?;
    lap(&format!(
        "walked: {} strings, {} primitive arrays, {} object arrays, {} collections",
        all.strings.len(),
        all.prims.len(),
        all.obj_arrays.len(),
        all.collections.len()
    ));
    let class_name = |cid: u64| class_name_of(b, &p.class_names, &utf8, cid);
    let field_name = |nid: u64| utf8_text(b, &utf8, nid);
    let cls = Classes::build(b, id, layout, &all.class_dumps, &class_name, &field_name);
    // The instances left out of the second reading must hold nothing by the classes as
    // the index reads them (a later dump of a class could differ from the leading one).
    let holds_refs = |cid: &u64| {
        cls.recs.get(cid).is_some_and(|r| {
            let mut any = false;
            r.for_each_ref(&cls.runs, usize::MAX, |_, _| any = true);
            any
        })
    };
    if no_refs.iter().any(holds_refs) {
        return Ok(None);
    }

    // The string layout, checked against the one the walk used.
    let string_layout = match string_id {
        None => None,
        Some(sid) => match string_layout(&cls.dumps, id, sid, &name_of) {
            Err(()) => return Ok(None),
            Ok(None) => None,
            Ok(Some(mut l)) => {
                if early.is_some_and(|e| {
                    (e.value_at, e.coder_at, e.size) != (l.value_at, l.coder_at, l.size)
                }) {
                    return Ok(None);
                }
                l.bytes = cls.recs.get(&sid).map_or(0, |r| r.instance_size);
                Some(l)
            }
        },
    };
    // Strings the walk could not read (their class dump came later): read now.
    if let Some(sl) = string_layout {
        let late: Vec<(u64, u64, bool)> = all
            .strings
            .par_iter()
            .filter_map(|&(addr, off)| {
                let (v, utf16) = sl.value(b, id, off)?;
                Some((v, addr, utf16))
            })
            .collect();
        all.values.extend(late);
    }
    all.strings = Vec::new();

    // Primitive arrays by address; a record's type and length re-read where needed.
    let mut prims = std::mem::take(&mut all.prims);
    prims.par_sort_unstable_by_key(|x| x.addr);
    let prim_at = |addr: u64| -> Option<usize> {
        let i = prims.partition_point(|x| x.addr < addr);
        (prims.get(i)?.addr == addr).then_some(i)
    };

    // Sparse collections, from their fields.
    let mut obj_arrays = std::mem::take(&mut all.obj_arrays);
    obj_arrays.par_sort_unstable_by_key(|x| x.0);
    let mut layouts: IdMap<CollLayout> = IdMap::default();
    for &cid in &coll_ids {
        let f = |n: &str| field_at(&cls.dumps, id, cid, &name_of, n);
        let obj = |n: &str| f(n).filter(|x| x.1 == T_OBJECT);
        let int = |n: &str| f(n).filter(|x| (8..=11).contains(&x.1));
        let set = matches!(
            class_name(cid).as_str(),
            "java.util.HashSet" | "java.util.LinkedHashSet"
        );
        layouts.insert(
            cid,
            CollLayout {
                table: obj("table"),
                size: int("size"),
                count: int("count"),
                base_count: int("baseCount"),
                element_data: obj("elementData"),
                element_count: int("elementCount"),
                elements: obj("elements"),
                head: int("head"),
                tail: int("tail"),
                map: obj("map"),
                set,
            },
        );
    }
    // (capacity, shallow size) of the array at `addr`.
    let array_of = |addr: u64| -> Option<(u64, u64)> {
        if let Ok(i) = obj_arrays.binary_search_by_key(&addr, |x| x.0) {
            let n = obj_arrays[i].1 as u64;
            return Some((n, layout.array(n, layout.ref_size)));
        }
        let (_, n, _, bytes) = prim_rec(b, id, &layout, prims[prim_at(addr)?].off);
        Some((n, bytes))
    };
    let resolves = |addr: u64| -> bool {
        addr != 0
            && (obj_arrays.binary_search_by_key(&addr, |x| x.0).is_ok() || prim_at(addr).is_some())
    };
    let coll_class = |off: u64| be_id(&b[off as usize + 1 + id + 4..], id);
    let reference = |data: &[u8], f: Option<(usize, u8)>| -> Option<u64> {
        let (at, _) = f?;
        Some(be_id(data.get(at..at + id)?, id))
    };
    // (address, class id, capacity, size, wasted bytes)
    let mut found: Vec<(u64, u64, u64, u64, u64)> = all
        .collections
        .par_iter()
        .filter_map(|&(addr, off)| {
            let cid = coll_class(off);
            let l = layouts.get(&cid)?;
            if l.set {
                return None;
            }
            let data = instance_data(&b[off as usize..], id);
            let data = &data[..data
                .len()
                .min(be_u32(&b[off as usize + 1 + 2 * id + 4..]) as usize)];
            let int = |f| int_value(data, f);
            let (array, size) = if let Some(t) = reference(data, l.table).filter(|&t| resolves(t)) {
                (
                    t,
                    int(l.size)
                        .or_else(|| int(l.count))
                        .or_else(|| int(l.base_count))?,
                )
            } else if let Some(e) = reference(data, l.element_data).filter(|&t| resolves(t)) {
                (e, int(l.size).or_else(|| int(l.element_count))?)
            } else if let Some(e) = reference(data, l.elements).filter(|&t| resolves(t)) {
                let cap = array_of(e)?.0 as i64;
                let (h, t) = (int(l.head)?, int(l.tail)?);
                (e, if cap > 0 { (t - h).rem_euclid(cap) } else { 0 })
            } else {
                return None;
            };
            let (capacity, bytes) = array_of(array)?;
            let size = size.max(0) as u64;
            let wasted = sparse_waste(capacity, size, bytes)?;
            Some((addr, cid, capacity, size, wasted))
        })
        .collect();
    found.sort_unstable_by_key(|x| x.0);

    lap("collections read");
    let mut names: Vec<(String, String)> = Vec::new();
    let mut name = |addr: u64, class: String| -> ObjId {
        names.push((format!("0x{addr:x}"), class));
        (names.len() - 1) as ObjId
    };
    // A string's value that is a collection (in a hostile file) makes the strings
    // holders to look at.
    let mut collection_addrs: Vec<u64> = all.collections.iter().map(|x| x.0).collect();
    collection_addrs.sort_unstable();
    let strings_may_hold = all
        .values
        .iter()
        .any(|v| collection_addrs.binary_search(&v.0).is_ok());
    drop(collection_addrs);
    let mut waste = Waste::default();
    (waste.strings, waste.arrays) = duplicates(
        b,
        id,
        &layout,
        string_layout,
        std::mem::take(&mut all.values),
        prims,
        top,
        &mut name,
        &lap,
    );

    if !found.is_empty() && top > 0 {
        let Some(holders) = holders(
            b,
            id,
            strings_may_hold,
            &cls,
            &all,
            &layouts,
            &found,
            progress,
            &name_of,
            &class_name,
        ) else {
            lap("held through another collection: left to the index");
            return Ok(None);
        };
        let sparse = found.iter().map(|&(addr, cid, capacity, size, wasted)| {
            let (class, holder) = match holders.get(&addr) {
                Some(h) => h.clone(),
                None => (class_name(cid), "no referrer".to_string()),
            };
            (addr, class, holder, capacity, size, wasted)
        });
        // Ranked by address, so that the lowest rank is the lowest address.
        let ranked: Vec<_> = sparse.enumerate().map(|(k, x)| (k as ObjId, x)).collect();
        let groups = group_sparse(
            ranked
                .iter()
                .map(|(k, x)| (*k, x.1.clone(), x.2.clone(), x.3, x.4, x.5)),
            top,
        );
        for mut g in groups {
            let (addr, cid, ..) = found[g.example as usize];
            g.example = name(addr, class_name(cid));
            waste.sparse.push(g);
        }
    }

    lap("holders found");
    let mut warnings = std::mem::take(&mut p.warnings);
    warnings.extend(cls.warnings.iter().cloned());
    if let Some(t) = p.truncated {
        warnings.insert(
            0,
            format!("truncated at byte offset {t}: the file is read as far as it is whole"),
        );
    }
    progress.set(b.len() as u64);
    Ok(Some(QuickWaste {
        waste,
        names,
        truncated: p.truncated,
        warnings,
    }))
}

/// `java.lang.String`'s instance layout: where its `value` and `coder` are, the size
/// of its instance data, and its modelled shallow size.
#[derive(Clone, Copy)]
struct StringLayout {
    value_at: usize,
    coder_at: Option<usize>,
    size: usize,
    bytes: u64,
}

/// The layout of the string class `sid` from the class dumps: `None` when it has no
/// `value` reference, `Err` when it has `offset`/`count` (read field by field by the
/// index). Its `bytes` are left 0.
fn string_layout(
    dumps: &IdMap<ClassDump>,
    id: usize,
    sid: u64,
    name_of: &dyn Fn(u64) -> Option<String>,
) -> Result<Option<StringLayout>, ()> {
    let has = |n: &str| field_at(dumps, id, sid, name_of, n).is_some();
    if has("offset") || has("count") {
        return Err(());
    }
    let Some((value_at, _)) =
        field_at(dumps, id, sid, name_of, "value").filter(|f| f.1 == T_OBJECT)
    else {
        return Ok(None);
    };
    let coder_at = field_at(dumps, id, sid, name_of, "coder")
        .filter(|f| f.1 == 8)
        .map(|f| f.0);
    let mut size = 0usize;
    let mut cur = sid;
    for _ in 0..512 {
        let Some(d) = dumps.get(&cur) else {
            // A chain that is not whole is not the layout.
            return Ok(None);
        };
        size += d
            .fields
            .iter()
            .map(|&(_, t)| type_size(t, id).unwrap_or(0))
            .sum::<usize>();
        if d.super_id == 0 {
            break;
        }
        cur = d.super_id;
    }
    Ok(Some(StringLayout {
        value_at,
        coder_at,
        size,
        bytes: 0,
    }))
}

impl StringLayout {
    /// The value array's address and whether the text is UTF-16, for a string record.
    fn value(&self, b: &[u8], id: usize, off: u64) -> Option<(u64, bool)> {
        let rec = &b[off as usize..];
        let len = be_u32(rec.get(1 + 2 * id + 4..)?) as usize;
        let data = instance_data(rec, id);
        let data = &data[..data.len().min(len)];
        if data.len() != self.size {
            return None;
        }
        let v = be_id(data.get(self.value_at..self.value_at + id)?, id);
        Some((v, self.coder_at.and_then(|at| data.get(at)) == Some(&1)))
    }
}

/// Type, length, elements and modelled shallow size of the primitive array whose
/// record is at `off` (the walk checked that it is whole).
fn prim_rec<'a>(b: &'a [u8], id: usize, layout: &Layout, off: u64) -> (u8, u64, &'a [u8], u64) {
    let rec = &b[(off & OFFSET) as usize..];
    let n = be_u32(&rec[1 + id + 4..]) as u64;
    let ty = rec[1 + id + 8];
    let es = type_size(ty, id).unwrap_or(1) as u64;
    let elems = &rec[1 + id + 9..1 + id + 9 + (n * es) as usize];
    (ty, n, elems, layout.array(n, es))
}

/// Set in [`Prim::off`] for an entry that stands for a string: its address is the
/// string's, its offset its value array's.
const STRING: u64 = 1 << 63;
/// Set in [`Prim::off`] beside [`STRING`] for a string whose text is UTF-16.
const UTF16: u64 = 1 << 62;
/// Where [`Prim::off`] keeps the array's element type, above the record offset.
const TYPE_SHIFT: u32 = 48;
/// The record offset in [`Prim::off`].
const OFFSET: u64 = (1 << TYPE_SHIFT) - 1;
