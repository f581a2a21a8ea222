//! The class histogram of an HPROF file without the index: one walk of the heap dump
//! bodies, in parallel, that counts the objects of each class and sums their modelled
//! sizes. It reads no reference and sorts no address, so it is ready in a fraction of
//! the index's time: the TUI shows it while the index is being built, and
//! `histogram --no-retained` prints it when there is no index cache entry to read.
//!
//! It groups and sizes objects exactly as the index does: the same class records
//! ([`Classes`]), the same layout inferred from the same sample ([`layout_sample`]) and
//! the same size rules. A record that repeats an earlier record's object id would be
//! counted here, while the index keeps the first and warns: so the walk proves that no
//! id repeats ([`super::unique`]), and where it cannot, leaves the file to the index.

use super::unique::Loaded;
use super::*;
use crate::format::QuickHistogram;
use crate::heap::histogram::Row;

/// Per-class tallies of one body.
#[derive(Default)]
struct Tally {
    /// Instances by class id: (count, their sizes had the class no class dump).
    instances: IdMap<(u64, u64)>,
    /// Object arrays by array class id: (count, bytes).
    object_arrays: IdMap<(u64, u64)>,
    /// Primitive arrays by element type (0 for a type that is none): (count, bytes).
    primitive_arrays: [(u64, u64); 12],
    /// Class dumps: (class id, offset), in file order, and their bytes.
    class_dumps: Vec<(u64, usize)>,
    class_dump_bytes: u64,
    /// The object ids met, as increasing runs: whether any repeats.
    ids: super::unique::IdRuns,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        for (k, (n, s)) in other.instances {
            let e = self.instances.entry(k).or_default();
            e.0 += n;
            e.1 += s;
        }
        for (k, (n, s)) in other.object_arrays {
            let e = self.object_arrays.entry(k).or_default();
            e.0 += n;
            e.1 += s;
        }
        for (t, (n, s)) in other.primitive_arrays.into_iter().enumerate() {
            self.primitive_arrays[t].0 += n;
            self.primitive_arrays[t].1 += s;
        }
        self.class_dumps.extend(other.class_dumps);
        self.class_dump_bytes += other.class_dump_bytes;
        self.ids.add(other.ids);
    }
}

/// Walks one body, counting as [`Pass2`] sizes: instances by class id, arrays by
/// their class or element type, class objects by their dump.
fn tally(b: &[u8], body: Body, id: usize, layout: &Layout, loaded: &Loaded) -> (Tally, BodyEnd) {
    let mut t = Tally::default();
    // Instances of one class often come in runs: counted locally, added at the end.
    let mut run: Option<(u64, u64, u64)> = None;
    let end = walk_body(b, body, id, &|_| {}, |tag, rec, off| {
        match tag {
            INSTANCE_DUMP | OBJECT_ARRAY_DUMP | PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                t.ids.object(be_id(&rec[1..], id), loaded)
            }
            CLASS_DUMP => t.ids.class(be_id(&rec[1..], id)),
            _ => {}
        }
        match tag {
            INSTANCE_DUMP => {
                let cid = be_id(&rec[1 + id + 4..], id);
                let data_len = be_u32(&rec[1 + 2 * id + 4..]) as u64;
                let size = align8(layout.obj_header + data_len);
                match &mut run {
                    Some((c, n, s)) if *c == cid => {
                        *n += 1;
                        *s += size;
                    }
                    _ => {
                        if let Some((c, n, s)) = run.replace((cid, 1, size)) {
                            let e = t.instances.entry(c).or_default();
                            e.0 += n;
                            e.1 += s;
                        }
                    }
                }
            }
            OBJECT_ARRAY_DUMP => {
                let n = be_u32(&rec[1 + id + 4..]) as u64;
                let cid = be_id(&rec[1 + id + 8..], id);
                let e = t.object_arrays.entry(cid).or_default();
                e.0 += 1;
                e.1 += layout.array(n, layout.ref_size);
            }
            PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                let n = be_u32(&rec[1 + id + 4..]) as u64;
                let ty = rec[1 + id + 8];
                let slot = if (4..=11).contains(&ty) {
                    ty as usize
                } else {
                    0
                };
                let es = type_size(ty, id).unwrap_or(1) as u64;
                t.primitive_arrays[slot].0 += 1;
                t.primitive_arrays[slot].1 += layout.array(n, es);
            }
            CLASS_DUMP => {
                t.class_dumps.push((be_id(&rec[1..], id), off as usize));
                t.class_dump_bytes += rec.len() as u64;
            }
            _ => {}
        }
        true
    });
    if let Some((c, n, s)) = run {
        let e = t.instances.entry(c).or_default();
        e.0 += n;
        e.1 += s;
    }
    (t, end)
}

/// What a walk of the bodies without the index needs first: the header, the top-level
/// records' facts, the bodies, and the layout inferred from the index's sample (the
/// first object records in file order).
pub(super) struct Prepared {
    pub h: Header,
    pub p: Pass1,
    pub bodies: Vec<Body>,
    pub layout: Layout,
}

pub(super) fn prepare(b: &[u8], progress: &Progress, phase: &str) -> Result<Prepared, ParseError> {
    let h = java_header(b)?;
    let id = h.id_size;
    let art = h.version.ends_with("1.0.3");
    progress.phase(phase, b.len() as u64);
    let mut p = Pass1::default();
    let bodies = top_level(b, &h, &mut p);
    let mut sample = Vec::new();
    if layout_is_inferred(&h, art) {
        'bodies: for &body in &bodies {
            walk_body(b, body, id, &|_| {}, |tag, rec, off| {
                if matches!(
                    tag,
                    INSTANCE_DUMP
                        | OBJECT_ARRAY_DUMP
                        | PRIMITIVE_ARRAY_DUMP
                        | PRIMITIVE_ARRAY_NODATA
                        | CLASS_DUMP
                ) {
                    sample.push((be_id(&rec[1..], id), off));
                }
                sample.len() < LAYOUT_SAMPLE
            });
            if sample.len() >= LAYOUT_SAMPLE {
                break 'bodies;
            }
        }
    }
    let (layout, _) = infer_layout(b, &h, &layout_sample(&sample), art);
    Ok(Prepared {
        h,
        p,
        bodies,
        layout,
    })
}

/// The class histogram of the HPROF file `b`, without building the index; `None` where
/// the walk cannot prove that no object id repeats (the index then answers, keeping the
/// first record of each and warning).
pub fn histogram(b: &[u8], progress: &Progress) -> Result<Option<QuickHistogram>, ParseError> {
    let Prepared {
        h,
        mut p,
        bodies,
        layout,
    } = prepare(b, progress, "counting objects")?;
    let id = h.id_size;

    let loaded = Loaded::new(p.class_names.keys().copied());
    let mut all = Tally::default();
    for_bodies(
        &bodies,
        progress,
        |body| tally(b, body, id, &layout, &loaded),
        |body, (t, end)| {
            all.add(t);
            p.body_end(body, end);
        },
    );
    p.finish(b.len());
    if let Some(e) = p.damage.take() {
        return Err(e);
    }
    if !std::mem::take(&mut all.ids).unique(&loaded) {
        return Ok(None);
    }
    check_class_memory(&all.class_dumps, all.class_dump_bytes)?;

    let class_name = |cid: u64| class_name_of(b, &p.class_names, &p.utf8, cid);
    let field_name = |nid: u64| utf8_text(b, &p.utf8, nid);
    let mut cls = Classes::build(b, id, layout, &all.class_dumps, &class_name, &field_name);

    let mut per_group: Vec<(u64, u64)> = Vec::new();
    let mut add = |g: ClassId, n: u64, s: u64| {
        let g = g as usize;
        if per_group.len() <= g {
            per_group.resize(g + 1, (0, 0));
        }
        per_group[g].0 += n;
        per_group[g].1 += s;
    };
    // Classes without a class dump are grouped by name, in class id order so that the
    // numbering does not depend on hashing.
    let mut instances: Vec<(u64, (u64, u64))> = all.instances.into_iter().collect();
    instances.sort_unstable_by_key(|x| x.0);
    for (cid, (n, unmodelled)) in instances {
        match cls.recs.get(&cid) {
            Some(r) => add(r.group, n, n * r.instance_size),
            None => add(cls.group(class_name(cid), false), n, unmodelled),
        }
    }
    let mut arrays: Vec<(u64, (u64, u64))> = all.object_arrays.into_iter().collect();
    arrays.sort_unstable_by_key(|x| x.0);
    for (cid, (n, s)) in arrays {
        let g = match cls.recs.get(&cid) {
            Some(r) => r.group,
            None => cls.group(class_name(cid), false),
        };
        add(g, n, s);
    }
    for (slot, &(n, s)) in all.primitive_arrays.iter().enumerate() {
        add(cls.prim_groups[slot], n, s);
    }
    for &(cid, _) in &all.class_dumps {
        let mut size = cls.class_instance_size;
        if let Some(d) = cls.dumps.get(&cid) {
            size = align8(size + d.static_bytes + d.static_refs * layout.ref_size);
        }
        add(cls.class_group, 1, size);
    }
    let rows = per_group
        .iter()
        .enumerate()
        .filter(|(_, x)| x.0 > 0)
        .map(|(g, &(count, shallow))| Row {
            class: Some(g as ClassId),
            name: cls.infos[g].name.clone(),
            count,
            shallow,
            retained: None,
        })
        .collect();
    let mut warnings = std::mem::take(&mut p.warnings);
    warnings.append(&mut cls.warnings);
    if let Some(t) = p.truncated {
        warnings.insert(
            0,
            format!("truncated at byte offset {t}: the file is read as far as it is whole"),
        );
    }
    progress.set(b.len() as u64);
    Ok(Some(QuickHistogram {
        rows,
        truncated: p.truncated,
        warnings,
    }))
}
