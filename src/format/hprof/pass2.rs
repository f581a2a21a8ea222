//! HPROF pass 2: the objects visited in id order, each record read where pass 1 found it,
//! giving its class, modelled shallow size and outgoing references, in chunks on the
//! thread pool. See the parent module.

use super::*;

/// Read-only context of pass 2, shared by the worker threads.
pub(super) struct Pass2<'a> {
    pub(super) b: &'a [u8],
    pub(super) id: usize,
    pub(super) offsets: &'a Offsets,
    pub(super) addrs: &'a AddrIndex,
    pub(super) recs: &'a IdMap<ClassRec>,
    pub(super) runs: &'a [FieldRun],
    pub(super) dumps: &'a IdMap<ClassDump>,
    pub(super) layout: Layout,
    pub(super) class_group: ClassId,
    pub(super) class_instance_size: u64,
    pub(super) prim_groups: [ClassId; 12],
    /// Class loader objects (sorted) and the classes each defined.
    pub(super) loader_classes: &'a [(ObjId, Vec<ObjId>)],
    pub(super) progress: &'a Progress,
    pub(super) release: &'a (dyn Fn(std::ops::Range<usize>) + Sync),
    pub(super) done: std::sync::atomic::AtomicU64,
}

/// Pass 2's output for one range of objects.
#[derive(Default)]
pub(super) struct Chunk {
    pub(super) class_of: Vec<ClassId>,
    pub(super) shallow: Vec<u64>,
    /// End of each object's edges, relative to the chunk's first edge.
    pub(super) ends: Vec<u32>,
    pub(super) targets: Vec<ObjId>,
    /// Weak edges, relative to the chunk's first edge.
    pub(super) weak: Vec<u32>,
    /// (object relative to the chunk, class id) for classes with no CLASS DUMP.
    pub(super) unknown: Vec<(u32, u64)>,
    pub(super) dangling: u64,
}

impl Pass2<'_> {
    pub(super) fn chunk(&self, range: std::ops::Range<usize>) -> Chunk {
        let id = self.id;
        let layout = &self.layout;
        let len = range.len();
        let mut c = Chunk {
            class_of: Vec::with_capacity(len),
            shallow: Vec::with_capacity(len),
            ends: Vec::with_capacity(len),
            targets: Vec::with_capacity(len * 2),
            ..Default::default()
        };
        let mut last_class: Option<(u64, &ClassRec)> = None;
        let mut next_loader = self
            .loader_classes
            .partition_point(|l| (l.0 as usize) < range.start);
        for (k, i) in range.clone().enumerate() {
            // Pass 1 checked every record it listed against the bytes.
            let rec = &self.b[self.offsets.at(i) as usize..];
            let tag = rec[0];
            let push = |target: u64, weak: bool, c: &mut Chunk| {
                if target == 0 {
                    return;
                }
                match self.addrs.get(target) {
                    Some(t) => {
                        if weak {
                            c.weak.push(c.targets.len() as u32);
                        }
                        c.targets.push(t);
                    }
                    None => c.dangling += 1,
                }
            };
            match tag {
                INSTANCE_DUMP => {
                    let cid = be_id(&rec[1 + id + 4..], id);
                    let data_len = be_u32(&rec[1 + 2 * id + 4..]) as usize;
                    let data = &rec[1 + 2 * id + 8..1 + 2 * id + 8 + data_len];
                    // Instances of one class often sit together: remember the last one.
                    let cr = match last_class {
                        Some((cc, r)) if cc == cid => Some(r),
                        _ => {
                            let r = self.recs.get(&cid);
                            last_class = r.map(|r| (cid, r));
                            r
                        }
                    };
                    push(cid, false, &mut c);
                    match cr {
                        Some(cr) => {
                            c.class_of.push(cr.group);
                            c.shallow.push(cr.instance_size);
                            cr.for_each_ref(self.runs, data.len(), |o, weak| {
                                if o + id <= data.len() {
                                    push(be_id(&data[o..], id), weak, &mut c);
                                }
                            });
                        }
                        None => {
                            c.unknown.push((k as u32, cid));
                            c.class_of.push(u32::MAX);
                            c.shallow.push(align8(layout.obj_header + data_len as u64));
                        }
                    }
                }
                OBJECT_ARRAY_DUMP => {
                    let n = be_u32(&rec[1 + id + 4..]) as usize;
                    let cid = be_id(&rec[1 + id + 8..], id);
                    push(cid, false, &mut c);
                    match self.recs.get(&cid) {
                        Some(cr) => c.class_of.push(cr.group),
                        None => {
                            c.unknown.push((k as u32, cid));
                            c.class_of.push(u32::MAX);
                        }
                    }
                    c.shallow.push(layout.array(n as u64, layout.ref_size));
                    let elems = &rec[1 + 2 * id + 8..1 + 2 * id + 8 + n * id];
                    for e in elems.chunks_exact(id) {
                        push(be_id(e, id), false, &mut c);
                    }
                }
                PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                    let n = be_u32(&rec[1 + id + 4..]) as u64;
                    let t = rec[1 + id + 8];
                    let slot = if (4..=11).contains(&t) { t as usize } else { 0 };
                    c.class_of.push(self.prim_groups[slot]);
                    let es = type_size(t, id).unwrap_or(1) as u64;
                    c.shallow.push(layout.array(n, es));
                }
                _ => {
                    // CLASS DUMP: the class object.
                    let cid = be_id(&rec[1..], id);
                    c.class_of.push(self.class_group);
                    let mut size = self.class_instance_size;
                    if let Some(d) = self.dumps.get(&cid) {
                        size = align8(size + d.static_bytes + d.static_refs * layout.ref_size);
                        // Superclass, loader, signers, protection domain, then constant
                        // pool and static values, in record order.
                        let mut cur = Cursor::new(rec, self.offsets.at(i));
                        let _ = class_refs(&mut cur, id, &mut |t| push(t, false, &mut c));
                    }
                    c.shallow.push(size);
                }
            }
            if let Some((l, classes)) = self.loader_classes.get(next_loader) {
                if *l as usize == i {
                    c.targets.extend_from_slice(classes);
                    next_loader += 1;
                }
            }
            c.ends.push(c.targets.len() as u32);
        }
        // The chunk's records (heap order is file order for HotSpot) are done with.
        let offs = || range.clone().map(|i| self.offsets.at(i));
        if let (Some(lo), Some(hi)) = (offs().min(), offs().max()) {
            (self.release)(lo as usize..hi as usize);
        }
        let done = self
            .done
            .fetch_add(len as u64, std::sync::atomic::Ordering::Relaxed);
        self.progress.set(done + len as u64);
        c
    }
}

/// Emits the object references a class dump holds, in record order.
pub(super) fn class_refs(c: &mut Cursor, id: usize, f: &mut dyn FnMut(u64)) -> ReadResult<()> {
    c.skip(1 + id + 4, "class dump header")?;
    for _ in 0..4 {
        f(c.uint_be(id, "class reference")?);
    }
    c.skip(2 * id + 4, "reserved ids and instance size")?;
    let cp = c.u16_be("constant pool count")?;
    for _ in 0..cp {
        c.skip(2, "constant pool index")?;
        let t = c.u8("constant pool type")?;
        let v = c.uint_be(type_size(t, id).unwrap_or(0), "constant pool value")?;
        if t == T_OBJECT {
            f(v);
        }
    }
    let statics = c.u16_be("static field count")?;
    for _ in 0..statics {
        c.skip(id, "static field name")?;
        let t = c.u8("static field type")?;
        let v = c.uint_be(type_size(t, id).unwrap_or(0), "static field value")?;
        if t == T_OBJECT {
            f(v);
        }
    }
    Ok(())
}
