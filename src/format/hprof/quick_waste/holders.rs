//! Who holds each sparse collection: the references to them, read again from the
//! records that can hold one (the first walk noted where they are), only when some
//! were found (see the parent module).

use super::*;

/// The class and holder, in words, of each sparse collection in `found` (sorted by
/// address): the first strong reference to it in address order, and for a map inside
/// a `HashSet`, the set and the reference to the set. `None` when one of them is held
/// through another collection's plumbing (an `Object[]`, a `HashMap$Node`): its holder
/// is then the collection above and what holds that, which the index names
/// (`crate::waste`), and the report is left to it.
#[allow(clippy::too_many_arguments)]
pub(super) fn holders(
    b: &[u8],
    id: usize,
    strings_may_hold: bool,
    cls: &Classes,
    all: &Found,
    layouts: &IdMap<CollLayout>,
    found: &[(u64, u64, u64, u64, u64)],
    progress: &Progress,
    name_of: &dyn Fn(u64) -> Option<String>,
    class_name: &dyn Fn(u64) -> String,
) -> Option<IdMap<(String, String)>> {
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
    // The walk noted where the instances that can hold references and the object
    // arrays are (each whole there): only they and the class dumps are read again; the
    // strings whose one reference the walk read, only when one of those is a collection.
    let strings: &[Offsets] = if strings_may_hold {
        &all.strings_at
    } else {
        &[]
    };
    let mut hits: Vec<(u64, u64, u64)> = all
        .holding
        .par_iter()
        .chain(strings.par_iter())
        .map(|run| {
            let mut hits = Vec::new();
            let mut last = None;
            for off in run.iter() {
                refs_of(b, id, cls, &wanted, off, &mut hits, &mut last);
            }
            hits
        })
        .flatten()
        .collect();
    for &(_, off) in &all.class_dumps {
        refs_of(b, id, cls, &wanted, off as u64, &mut hits, &mut None);
    }
    progress.set(b.len() as u64);
    // (target, referrer address, referrer record offset), the lowest referrer kept.
    let mut first: IdMap<(u64, u64)> = IdMap::default();
    for (t, from, off) in hits {
        let e = first.entry(t).or_insert((from, off));
        if from < e.0 {
            *e = (from, off);
        }
    }
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
        let from_class = record_class(off);
        if crate::format::Format::Hprof
            .roles()
            .is_structural(&from_class)
        {
            return None;
        }
        let (label, owner) = reference_label(b, id, cls, off, held, name_of, class_name);
        // A view's `this$0` comes first: the holder is another referrer, which the
        // index finds (`crate::waste`).
        if label == "this$0" {
            return None;
        }
        let holder = holder_words(&from_class, &label, owner.as_deref());
        out.insert(addr, (class, holder));
    }
    Some(out)
}

/// The cached class of the last instance: instances of one class often come in runs.
type LastClass<'c> = Option<(u64, Option<&'c ClassRec>)>;

/// Pushes the references of the whole record at `off` to the `wanted` targets, as
/// (target, referrer address, referrer record offset).
fn refs_of<'c>(
    b: &[u8],
    id: usize,
    cls: &'c Classes,
    wanted: &dyn Fn(u64) -> bool,
    off: u64,
    hits: &mut Vec<(u64, u64, u64)>,
    last: &mut LastClass<'c>,
) {
    let rec = &b[off as usize..];
    let from = be_id(&rec[1..], id);
    match rec[0] {
        INSTANCE_DUMP => {
            let cid = be_id(&rec[1 + id + 4..], id);
            let cr = match *last {
                Some((c, r)) if c == cid => r,
                _ => {
                    let r = cls.recs.get(&cid);
                    *last = Some((cid, r));
                    r
                }
            };
            if let Some(cr) = cr {
                let len = be_u32(&rec[1 + 2 * id + 4..]) as usize;
                let data = instance_data(rec, id);
                let data = &data[..data.len().min(len)];
                cr.for_each_ref(&cls.runs, data.len(), |o, weak| {
                    if !weak && o + id <= data.len() {
                        let t = be_id(&data[o..], id);
                        if wanted(t) {
                            hits.push((t, from, off));
                        }
                    }
                });
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
        _ => {
            let mut c = Cursor::new(rec, off);
            let _ = class_refs(&mut c, id, &mut |t| {
                if wanted(t) {
                    hits.push((t, from, off));
                }
            });
        }
    }
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
            let len = be_u32(&rec[1 + 2 * id + 4..]) as usize;
            let data = instance_data(rec, id);
            let data = &data[..data.len().min(len)];
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
