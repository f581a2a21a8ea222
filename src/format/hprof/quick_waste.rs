//! `heaptui waste` on an HPROF file without the index: the duplicate strings, duplicate
//! primitive arrays and sparse collections of [`crate::waste`], found by walking the
//! heap dump bodies instead of building the graph, when there is no index cache entry
//! to read (as [`super::quick`] does for the histogram).
//!
//! One parallel walk hashes every primitive array's elements and notes where the
//! `java.lang.String`s, the Java collections, the object arrays and the class dumps
//! are. Each string is then joined to its value array by address (its contents are
//! the array's), and what is left of the arrays is grouped on its own, as the index's
//! pass does. Sparse collections are read from their fields as there; a second walk,
//! only when some are found, looks for the references that hold them: the first
//! strong one in address order, as the index's referrer lists give it.
//!
//! The answers are the index's, example objects included (the lowest address of each
//! group, as the lowest dense id there), which `tests/suspects.rs` checks on the
//! fixtures. Files this walk does not model as the index does (ART, strings with
//! `offset`/`count` or of more than one class) return `None`, and the caller builds
//! the index.

use super::quick::{prepare, Prepared};
use super::*;
use crate::format::Encoding;
use crate::waste::{content_key, group_sparse, holder_words, sparse_waste, DupArray, DupString};
use crate::waste::{Waste, SPARSE_CLASSES};
use rayon::prelude::*;

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

/// A primitive array: its address, record offset and the hash of its elements.
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
    /// Strings: (address, record offset).
    strings: Vec<(u64, u64)>,
    /// Instances of the collection classes: (address, record offset).
    collections: Vec<(u64, u64)>,
    prims: Vec<Prim>,
    /// Object arrays: (address, length, record offset).
    obj_arrays: Vec<(u64, u32)>,
}

impl Found {
    fn append(&mut self, mut o: Found) {
        self.class_dumps.append(&mut o.class_dumps);
        self.strings.append(&mut o.strings);
        self.collections.append(&mut o.collections);
        self.prims.append(&mut o.prims);
        self.obj_arrays.append(&mut o.obj_arrays);
    }
}

/// Byte offset and type of a named instance field of class `cid`, own fields first,
/// then the superclasses' (the order the decoder lists them in).
fn field_at(
    cls: &Classes,
    id: usize,
    cid: u64,
    name: &dyn Fn(u64) -> Option<String>,
    want: &str,
) -> Option<(usize, u8)> {
    let mut at = 0usize;
    let mut cur = cid;
    for _ in 0..512 {
        let d = cls.dumps.get(&cur)?;
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
    if layout.art {
        return Ok(None);
    }
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

    let mut all = Found::default();
    for_bodies(
        &bodies,
        progress,
        |body| {
            let mut f = Found::default();
            let end = walk_body(b, body, id, &|_| {}, |tag, rec, off| {
                let addr = be_id(&rec[1..], id);
                match tag {
                    INSTANCE_DUMP => {
                        let cid = be_id(&rec[1 + id + 4..], id);
                        if Some(cid) == string_id {
                            f.strings.push((addr, off));
                        } else if coll_ids.contains(&cid) {
                            f.collections.push((addr, off));
                        }
                    }
                    OBJECT_ARRAY_DUMP => {
                        f.obj_arrays.push((addr, be_u32(&rec[1 + id + 4..])));
                    }
                    PRIMITIVE_ARRAY_DUMP => {
                        let elems = &rec[1 + id + 9..];
                        f.prims.push(Prim {
                            addr,
                            off,
                            hash: xxhash_rust::xxh3::xxh3_128(elems),
                        });
                    }
                    CLASS_DUMP => f.class_dumps.push((addr, off as usize)),
                    _ => {}
                }
                true
            });
            (f, end)
        },
        |body, (f, end)| {
            all.append(f);
            p.body_end(body, end);
        },
    );
    p.finish(b.len());
    let class_name = |cid: u64| class_name_of(b, &p.class_names, &p.utf8, cid);
    let field_name = |nid: u64| utf8_text(b, &p.utf8, nid);
    let cls = Classes::build(b, id, layout, &all.class_dumps, &class_name, &field_name);
    let name_of = |nid: u64| utf8_text(b, &p.utf8, nid).map(|s| s.into_owned());

    // The string layout: `value` (a reference) and `coder` (a byte); none with
    // `offset`/`count`, which the index reads field by field.
    let mut string_layout = None;
    if let Some(sid) = string_id {
        if let Some(rec) = cls.recs.get(&sid) {
            let has = |n: &str| field_at(&cls, id, sid, &name_of, n).is_some();
            if has("offset") || has("count") {
                return Ok(None);
            }
            let value = field_at(&cls, id, sid, &name_of, "value").filter(|f| f.1 == T_OBJECT);
            let coder = field_at(&cls, id, sid, &name_of, "coder").filter(|f| f.1 == 8);
            let size: usize = {
                let mut n = 0usize;
                let mut cur = sid;
                for _ in 0..512 {
                    let Some(d) = cls.dumps.get(&cur) else { break };
                    n += d
                        .fields
                        .iter()
                        .map(|&(_, t)| type_size(t, id).unwrap_or(0))
                        .sum::<usize>();
                    if d.super_id == 0 {
                        break;
                    }
                    cur = d.super_id;
                }
                n
            };
            if let Some((value_at, _)) = value {
                string_layout = Some((value_at, coder.map(|c| c.0), size, rec.instance_size));
            }
        }
    }

    // Primitive arrays by address; a record's type and length re-read where needed.
    let mut prims = std::mem::take(&mut all.prims);
    prims.par_sort_unstable_by_key(|x| x.addr);
    let prim_at = |addr: u64| -> Option<usize> {
        let i = prims.partition_point(|x| x.addr < addr);
        (prims.get(i)?.addr == addr).then_some(i)
    };
    // (type, length, elements, shallow size) of the array at `off`.
    let prim_rec = |off: u64| -> (u8, u64, &[u8], u64) {
        let rec = &b[off as usize..];
        let n = be_u32(&rec[1 + id + 4..]) as u64;
        let ty = rec[1 + id + 8];
        let es = type_size(ty, id).unwrap_or(1) as u64;
        let elems = &rec[1 + id + 9..1 + id + 9 + (n * es) as usize];
        (ty, n, elems, layout.array(n, es))
    };

    // Strings joined to their value arrays: (key, bytes each, address, the array).
    let strings: Vec<(u128, u64, u64, usize)> = match string_layout {
        None => Vec::new(),
        Some((value_at, coder_at, size, string_bytes)) => all
            .strings
            .par_iter()
            .filter_map(|&(addr, off)| {
                let data = instance_data(&b[off as usize..], id);
                let data = &data[..data
                    .len()
                    .min(be_u32(&b[off as usize + 1 + 2 * id + 4..]) as usize)];
                if data.len() != size {
                    return None;
                }
                let v = be_id(data.get(value_at..value_at + id)?, id);
                let i = prim_at(v)?;
                let (ty, n, elems, bytes) = prim_rec(prims[i].off);
                if ty != 8 {
                    return None;
                }
                let utf16 = coder_at.and_then(|at| data.get(at)) == Some(&1);
                let (length, enc) = if utf16 {
                    (elems.len() as u64 / 2, Encoding::Utf16Le)
                } else {
                    (n, Encoding::Latin1)
                };
                let key = content_key(prims[i].hash, length, 0, enc);
                Some((key, string_bytes + bytes, addr, i))
            })
            .collect(),
    };
    let mut owned = vec![false; prims.len()];
    for s in &strings {
        owned[s.3] = true;
    }
    // Everything seen: (key, bytes each, address, is a string).
    let mut seen: Vec<(u128, u64, u64, bool)> =
        strings.iter().map(|s| (s.0, s.1, s.2, true)).collect();
    drop(strings);
    seen.par_extend(
        prims
            .par_iter()
            .zip(owned.par_iter())
            .filter(|x| !*x.1)
            .map(|(x, _)| {
                let (ty, n, _, bytes) = prim_rec(x.off);
                let slot = if (4..=11).contains(&ty) { ty as u64 } else { 0 };
                (
                    content_key(x.hash, n, slot + 1, Encoding::Binary),
                    bytes,
                    x.addr,
                    false,
                )
            }),
    );
    drop(owned);
    seen.par_sort_unstable_by_key(|x| x.0);
    let mut groups: Vec<(u64, u64, u64, bool)> = Vec::new();
    for run in seen.chunk_by(|a, b| a.0 == b.0) {
        if run.len() >= 2 {
            let first = run.iter().map(|x| x.2).min().unwrap_or(run[0].2);
            groups.push((run.len() as u64, run[0].1, first, run[0].3));
        }
    }
    drop(seen);
    groups.sort_unstable_by(|a, b| {
        let w = |x: &(u64, u64, u64, bool)| (x.0 - 1).saturating_mul(x.1);
        w(b).cmp(&w(a)).then(a.2.cmp(&b.2))
    });

    let mut names: Vec<(String, String)> = Vec::new();
    let mut name = |addr: u64, class: String| -> ObjId {
        names.push((format!("0x{addr:x}"), class));
        (names.len() - 1) as ObjId
    };
    let mut waste = Waste::default();
    all.strings.par_sort_unstable_by_key(|x| x.0);
    let string_text = |addr: u64| -> Option<String> {
        let (value_at, coder_at, _, _) = string_layout?;
        let off = all
            .strings
            .binary_search_by_key(&addr, |x| x.0)
            .ok()
            .map(|i| all.strings[i].1)?;
        let data = instance_data(&b[off as usize..], id);
        let i = prim_at(be_id(data.get(value_at..value_at + id)?, id))?;
        let (_, _, elems, _) = prim_rec(prims[i].off);
        let utf16 = coder_at.and_then(|at| data.get(at)) == Some(&1);
        let c = crate::format::Content {
            string: true,
            data: elems.into(),
            length: 0,
            bytes: 0,
            owns: None,
            encoding: if utf16 {
                Encoding::Utf16Le
            } else {
                Encoding::Latin1
            },
        };
        Some(c.text())
    };
    for (count, bytes_each, addr, is_string) in groups {
        if waste.strings.len() >= top && waste.arrays.len() >= top {
            break;
        }
        if is_string && waste.strings.len() < top {
            let Some(text) = string_text(addr) else {
                continue;
            };
            waste.strings.push(DupString {
                text,
                count,
                bytes_each,
                example: name(addr, "java.lang.String".into()),
            });
        } else if !is_string && waste.arrays.len() < top {
            let Some(i) = prim_at(addr) else { continue };
            let (ty, n, _, _) = prim_rec(prims[i].off);
            let class = if (4..=11).contains(&ty) {
                format!("{}[]", type_name(ty))
            } else {
                "unknown[]".to_string()
            };
            waste.arrays.push(DupArray {
                preview: None,
                length: n,
                count,
                bytes_each,
                example: name(addr, class),
            });
        }
    }

    // Sparse collections, from their fields.
    let mut obj_arrays = std::mem::take(&mut all.obj_arrays);
    obj_arrays.par_sort_unstable_by_key(|x| x.0);
    let mut layouts: IdMap<CollLayout> = IdMap::default();
    for &cid in &coll_ids {
        let f = |n: &str| field_at(&cls, id, cid, &name_of, n);
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
        let (_, n, _, bytes) = prim_rec(prims[prim_at(addr)?].off);
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

    if !found.is_empty() && top > 0 {
        let holders = holders(
            b,
            &bodies,
            id,
            &cls,
            &all,
            &layouts,
            &found,
            progress,
            &name_of,
            &class_name,
        );
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

/// The class and holder, in words, of each sparse collection in `found` (sorted by
/// address): the first strong reference to it in address order, and for a map inside
/// a `HashSet`, the set and the reference to the set.
#[allow(clippy::too_many_arguments)]
fn holders(
    b: &[u8],
    bodies: &[Body],
    id: usize,
    cls: &Classes,
    all: &Found,
    layouts: &IdMap<CollLayout>,
    found: &[(u64, u64, u64, u64, u64)],
    progress: &Progress,
    name_of: &dyn Fn(u64) -> Option<String>,
    class_name: &dyn Fn(u64) -> String,
) -> IdMap<(String, String)> {
    // Sets whose `map` is a sparse collection stand for it.
    let mut set_of: IdMap<u64> = IdMap::default();
    let found_at = |a: u64| found.binary_search_by_key(&a, |x| x.0).is_ok();
    for &(addr, off) in &all.collections {
        let cid = be_id(&b[off as usize + 1 + id + 4..], id);
        let Some(l) = layouts.get(&cid).filter(|l| l.set) else {
            continue;
        };
        let data = instance_data(&b[off as usize..], id);
        if let Some((at, _)) = l.map {
            if let Some(m) = data.get(at..at + id).map(|r| be_id(r, id)) {
                if found_at(m) {
                    set_of.entry(m).or_insert(addr);
                }
            }
        }
    }
    let mut targets: Vec<u64> = found.iter().map(|x| x.0).collect();
    targets.extend(set_of.values().copied());
    targets.sort_unstable();
    targets.dedup();
    // A filter before the search: one bit per hash of an address.
    let mut bits = vec![0u64; 1 << 14];
    let bit = |a: u64| (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44) as usize;
    for &t in &targets {
        bits[bit(t) / 64] |= 1 << (bit(t) % 64);
    }
    let wanted = |a: u64| {
        a != 0 && bits[bit(a) / 64] >> (bit(a) % 64) & 1 == 1 && targets.binary_search(&a).is_ok()
    };
    progress.phase("finding what holds the sparse collections", b.len() as u64);
    // (target, referrer address, referrer record offset), the lowest referrer kept.
    let mut first: IdMap<(u64, u64)> = IdMap::default();
    for_bodies(
        bodies,
        progress,
        |body| {
            let mut hits: Vec<(u64, u64, u64)> = Vec::new();
            walk_body(b, body, id, &|_| {}, |tag, rec, off| {
                let from = be_id(&rec[1..], id);
                match tag {
                    INSTANCE_DUMP => {
                        let cid = be_id(&rec[1 + id + 4..], id);
                        if let Some(cr) = cls.recs.get(&cid) {
                            let data = instance_data(rec, id);
                            for &(o, weak) in &cr.refs {
                                let o = o as usize;
                                if !weak && o + id <= data.len() {
                                    let t = be_id(&data[o..], id);
                                    if wanted(t) {
                                        hits.push((t, from, off));
                                    }
                                }
                            }
                        }
                    }
                    OBJECT_ARRAY_DUMP => {
                        let n = be_u32(&rec[1 + id + 4..]) as usize;
                        for e in rec[1 + 2 * id + 8..][..n * id].chunks_exact(id) {
                            let t = be_id(e, id);
                            if wanted(t) {
                                hits.push((t, from, off));
                            }
                        }
                    }
                    CLASS_DUMP => {
                        let mut c = Cursor::new(rec, off);
                        let _ = class_refs(&mut c, id, &mut |t| {
                            if wanted(t) {
                                hits.push((t, from, off));
                            }
                        });
                    }
                    _ => {}
                }
                true
            });
            hits
        },
        |_, hits| {
            for (t, from, off) in hits {
                let e = first.entry(t).or_insert((from, off));
                if from < e.0 {
                    *e = (from, off);
                }
            }
        },
    );
    let record_class = |off: u64| -> String {
        let rec = &b[off as usize..];
        match rec[0] {
            INSTANCE_DUMP => class_name(be_id(&rec[1 + id + 4..], id)),
            OBJECT_ARRAY_DUMP => class_name(be_id(&rec[1 + id + 8..], id)),
            _ => "java.lang.Class".to_string(),
        }
    };
    let mut out = IdMap::default();
    for &(addr, cid, ..) in found {
        let mut class = class_name(cid);
        let mut held = addr;
        let Some(&(mut from, mut off)) = first.get(&addr) else {
            out.insert(addr, (class, "no referrer".to_string()));
            continue;
        };
        if set_of.get(&addr) == Some(&from) {
            class = record_class(off);
            held = from;
            match first.get(&from) {
                Some(&(f, o)) => (from, off) = (f, o),
                None => {
                    out.insert(addr, (class, "no referrer".to_string()));
                    continue;
                }
            }
        }
        let _ = from;
        let (label, owner) = reference_label(b, id, cls, off, held, name_of, class_name);
        let holder = holder_words(&record_class(off), &label, owner.as_deref());
        out.insert(addr, (class, holder));
    }
    out
}

/// The name of the reference to `to` in the record at `off`, as the decoder's edge
/// label gives it (`[i]`, a field's name, `static NAME`), and for a class dump the
/// class it stands for.
fn reference_label(
    b: &[u8],
    id: usize,
    cls: &Classes,
    off: u64,
    to: u64,
    name_of: &dyn Fn(u64) -> Option<String>,
    class_name: &dyn Fn(u64) -> String,
) -> (String, Option<String>) {
    let rec = &b[off as usize..];
    let unknown = || ("?".to_string(), None);
    match rec[0] {
        INSTANCE_DUMP => {
            let data = instance_data(rec, id);
            let mut at = 0usize;
            let mut cur = be_id(&rec[1 + id + 4..], id);
            for _ in 0..512 {
                let Some(d) = cls.dumps.get(&cur) else { break };
                for &(nid, t) in &d.fields {
                    let Some(s) = type_size(t, id) else {
                        return unknown();
                    };
                    if t == T_OBJECT && data.get(at..at + id).map(|r| be_id(r, id)) == Some(to) {
                        return (name_of(nid).unwrap_or_else(|| "?".into()), None);
                    }
                    at += s;
                }
                if d.super_id == 0 {
                    break;
                }
                cur = d.super_id;
            }
            unknown()
        }
        OBJECT_ARRAY_DUMP => {
            let n = be_u32(&rec[1 + id + 4..]) as usize;
            rec[1 + 2 * id + 8..][..n * id]
                .chunks_exact(id)
                .position(|e| be_id(e, id) == to)
                .map(|i| (format!("[{i}]"), None))
                .unwrap_or_else(unknown)
        }
        _ => {
            let cid = be_id(&rec[1..], id);
            let owner = Some(class_name(cid));
            let mut c = Cursor::new(rec, off);
            let label: ReadResult<Option<String>> = (|| {
                c.skip(1 + id + 4, "class dump header")?;
                for name in [
                    "<super>",
                    "<classloader>",
                    "<signers>",
                    "<protection domain>",
                ] {
                    if c.uint_be(id, "class reference")? == to {
                        return Ok(Some(name.to_string()));
                    }
                }
                c.skip(2 * id + 4, "reserved ids and instance size")?;
                for _ in 0..c.u16_be("constant pool count")? {
                    let idx = c.u16_be("constant pool index")?;
                    let t = c.u8("constant pool type")?;
                    let raw = c.bytes(type_size(t, id).unwrap_or(0), "constant pool value")?;
                    if t == T_OBJECT && be_id(raw, id) == to {
                        return Ok(Some(format!("<constant pool #{idx}>")));
                    }
                }
                for _ in 0..c.u16_be("static field count")? {
                    let nid = c.uint_be(id, "static field name")?;
                    let t = c.u8("static field type")?;
                    let raw = c.bytes(type_size(t, id).unwrap_or(0), "static field value")?;
                    if t == T_OBJECT && be_id(raw, id) == to {
                        let n = name_of(nid).unwrap_or_else(|| "?".into());
                        return Ok(Some(format!("static {n}")));
                    }
                }
                Ok(None)
            })();
            (label.ok().flatten().unwrap_or_else(|| "?".into()), owner)
        }
    }
}
