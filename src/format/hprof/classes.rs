//! HPROF class dumps: parsing one ([`parse_class_dump`]) and the table of every class's
//! instance layout and statics that both passes and the quick readers size objects with
//! ([`Classes`]).

use super::*;

/// Per-class facts pass 2 needs for every instance.
pub(super) struct ClassRec {
    pub(super) group: ClassId,
    /// Reference slots in the instance data (byte offset, weak).
    pub(super) refs: Vec<(u32, bool)>,
    /// Modelled heap size of an instance.
    pub(super) instance_size: u64,
}

/// A class dump, parsed.
pub(super) struct ClassDump {
    pub(super) id: u64,
    pub(super) super_id: u64,
    /// The class loader object (0: the boot loader).
    pub(super) loader_id: u64,
    /// The reported "instance size" (ART: the real size).
    pub(super) reported_size: u32,
    /// References held by the class object (super, loader, signers, protection domain,
    /// constant pool and static values).
    /// Bytes of primitive static fields, and the number of reference statics.
    pub(super) static_bytes: u64,
    pub(super) static_refs: u64,
    pub(super) fields: Vec<(u64, u8)>,
}

pub(super) fn parse_class_dump(b: &[u8], off: usize, id: usize) -> ReadResult<ClassDump> {
    let mut c = Cursor::new(b.get(off..).unwrap_or(&[]), off as u64);
    c.skip(1, "class dump tag")?;
    let cid = c.uint_be(id, "class id")?;
    c.skip(4, "stack trace serial")?;
    let super_id = c.uint_be(id, "superclass id")?;
    let loader_id = c.uint_be(id, "class loader id")?;
    c.skip(2 * id, "signers and protection domain")?;
    c.skip(2 * id, "reserved ids")?;
    let reported_size = c.u32_be("instance size")?;
    let cp = c.u16_be("constant pool count")?;
    let mut static_bytes = 0u64;
    let mut static_refs = 0u64;
    for _ in 0..cp {
        c.skip(2, "constant pool index")?;
        let t = c.u8("constant pool type")?;
        let s = type_size(t, id).unwrap_or(0);
        c.skip(s, "constant pool value")?;
    }
    let statics = c.u16_be("static field count")?;
    for _ in 0..statics {
        c.skip(id, "static field name")?;
        let t = c.u8("static field type")?;
        let s = type_size(t, id).unwrap_or(0);
        c.skip(s, "static field value")?;
        if t == T_OBJECT {
            static_refs += 1;
        } else {
            static_bytes += s as u64;
        }
    }
    let nf = c.u16_be("instance field count")? as u64;
    let nf = c.check_count(nf, id as u64 + 1, "instance fields")?;
    let mut fields = Vec::with_capacity(nf);
    for _ in 0..nf {
        let name = c.uint_be(id, "field name id")?;
        let t = c.u8("field type")?;
        fields.push((name, t));
    }
    Ok(ClassDump {
        id: cid,
        super_id,
        loader_id,
        reported_size,
        static_bytes,
        static_refs,
        fields,
    })
}

/// Every class dump parsed, and each class's histogram group, reference slots and
/// modelled instance size: what the index and the quick histogram both group by.
pub(super) struct Classes {
    /// The histogram groups, by [`ClassId`].
    pub(super) infos: Vec<ClassInfo>,
    pub(super) groups: HashMap<String, ClassId>,
    pub(super) dumps: IdMap<ClassDump>,
    /// Class ids in file order.
    pub(super) class_ids: Vec<u64>,
    pub(super) recs: IdMap<ClassRec>,
    pub(super) class_group: ClassId,
    pub(super) class_instance_size: u64,
    pub(super) prim_groups: [ClassId; 12],
    pub(super) warnings: Vec<String>,
}

impl Classes {
    /// The group named `name`: a new one when `unique` (each dumped class is its own
    /// row even when two loaders define the same name), else the first of that name.
    pub(super) fn group(&mut self, name: String, unique: bool) -> ClassId {
        if !unique {
            if let Some(&c) = self.groups.get(&name) {
                return c;
            }
        }
        let c = self.infos.len() as ClassId;
        self.groups.insert(name.clone(), c);
        self.infos.push(ClassInfo { name });
        c
    }

    pub(super) fn build<'b>(
        b: &'b [u8],
        id: usize,
        layout: Layout,
        class_dumps: &[(u64, usize)],
        class_name: &dyn Fn(u64) -> String,
        field_name: &dyn Fn(u64) -> Option<std::borrow::Cow<'b, str>>,
    ) -> Classes {
        let mut c = Classes {
            infos: Vec::new(),
            groups: HashMap::new(),
            dumps: IdMap::default(),
            class_ids: Vec::new(),
            recs: IdMap::default(),
            class_group: 0,
            class_instance_size: 0,
            prim_groups: [0; 12],
            warnings: Vec::new(),
        };
        let mut dumps: IdMap<ClassDump> = IdMap::default();
        for &(cid, off) in class_dumps {
            match parse_class_dump(b, off, id) {
                Ok(d) => {
                    dumps.insert(cid, d);
                }
                Err(e) => c.warnings.push(format!("class dump unreadable: {e}")),
            }
        }
        // Class ids in file order, so group numbering is deterministic.
        let mut class_ids: Vec<u64> = class_dumps.iter().map(|c| c.0).collect();
        class_ids.dedup();
        let reference_class = class_ids
            .iter()
            .copied()
            .find(|&c| class_name(c) == "java.lang.ref.Reference");
        // Which classes' superclass chains loop: one walk per chain with the classes
        // already settled remembered, so a deep hierarchy costs its size, not its size
        // times its depth (300,000 classes in one line took 27.5 s with a search of the
        // chain at every step, and were taken for loops past 512).
        let mut loops: IdMap<bool> = IdMap::default();
        for &cid in &class_ids {
            let mut path: Vec<u64> = Vec::new();
            let mut on_path: HashMap<u64, ()> = HashMap::new();
            let mut cur = cid;
            let looped = loop {
                if let Some(&l) = loops.get(&cur) {
                    break l;
                }
                let Some(d) = dumps.get(&cur) else {
                    break false;
                };
                if on_path.insert(cur, ()).is_some() {
                    break true;
                }
                path.push(cur);
                if d.super_id == 0 {
                    break false;
                }
                cur = d.super_id;
            };
            for p in path {
                loops.insert(p, looped);
            }
        }
        let mut too_deep = 0usize;
        // The bytes the VM adds to each class's fields, by its name: found once per
        // class, not once per class per subclass.
        let hidden: IdMap<(u64, bool)> = if layout.art {
            IdMap::default()
        } else {
            class_ids
                .iter()
                .map(|&c| (c, hidden_bytes(&class_name(c), &layout)))
                .collect()
        };
        let mut recs: IdMap<ClassRec> = IdMap::default();
        for &cid in &class_ids {
            let Some(d) = dumps.get(&cid) else { continue };
            let looped = loops.get(&cid).copied().unwrap_or(false);
            // Walk the superclass chain: own fields first, then the superclass's.
            let mut refs = Vec::new();
            let mut data = 0u32;
            let mut heap_fields = 0u64;
            let mut cur = Some(d);
            let mut depth = 0;
            let mut weak_chain = false;
            let mut chain: Vec<&ClassDump> = Vec::new();
            while let Some(cd) = cur {
                depth += 1;
                // A class met again closes a loop: each class counts once (looping to the
                // depth limit counted the loop's fields 512 times: tests/hostile.rs). The
                // search is only for a chain known to loop.
                if looped && chain.iter().any(|c| c.id == cd.id) {
                    c.warnings
                        .push(format!("class 0x{cid:x}: superclass chain loops"));
                    break;
                }
                if depth > 512 {
                    too_deep += 1;
                    break;
                }
                chain.push(cd);
                if Some(cd.id) == reference_class {
                    weak_chain = true;
                }
                cur = if cd.super_id == 0 {
                    None
                } else {
                    dumps.get(&cd.super_id)
                };
            }
            // Heap size, superclass first: a class with a `@Contended` group ends aligned,
            // and its subclasses' fields start after that.
            for cd in chain.iter().rev() {
                if !layout.art {
                    let (extra, aligned_end) = hidden
                        .get(&cd.id)
                        .copied()
                        .unwrap_or_else(|| hidden_bytes(&class_name(cd.id), &layout));
                    heap_fields += extra;
                    for &(_, t) in &cd.fields {
                        heap_fields += if t == T_OBJECT {
                            layout.ref_size
                        } else {
                            type_size(t, id).unwrap_or(0) as u64
                        };
                    }
                    if aligned_end {
                        heap_fields = align8(layout.obj_header + heap_fields) - layout.obj_header;
                    }
                }
            }
            for cd in &chain {
                let is_ref_class = Some(cd.id) == reference_class;
                for &(nid, t) in &cd.fields {
                    let s = type_size(t, id).unwrap_or(0) as u32;
                    if t == T_OBJECT {
                        let weak = weak_chain
                            && is_ref_class
                            && field_name(nid).is_some_and(|n| n == "referent");
                        refs.push((data, weak));
                    }
                    data = data.saturating_add(s);
                }
            }
            let instance_size = if layout.art {
                align8(d.reported_size as u64)
            } else {
                align8(layout.obj_header + heap_fields)
            };
            let g_id = c.group(class_name(cid), true);
            recs.insert(
                cid,
                ClassRec {
                    group: g_id,
                    refs,
                    instance_size,
                },
            );
        }
        if too_deep > 0 {
            c.warnings.push(format!(
                "{too_deep} classes have superclass chains deeper than 512 classes: the \
                 fields of their ancestors past the 512th are not read"
            ));
        }
        let class_group = recs
            .iter()
            .find(|(_, r)| c.infos[r.group as usize].name == "java.lang.Class")
            .map(|(_, r)| r.group)
            .unwrap_or_else(|| c.group("java.lang.Class".to_string(), false));
        let class_instance_size = recs
            .values()
            .find(|r| r.group == class_group)
            .map(|r| r.instance_size)
            .unwrap_or(layout.obj_header);
        // Every primitive array type gets its group up front, so that pass 2 can run in
        // parallel without creating groups; empty groups never show (the histogram lists
        // classes with objects).
        // Slots 0-3 take arrays whose element type is no primitive type: the record walk
        // checks PRIMITIVE ARRAY NODATA (ART) for its fixed length only, and such an array
        // had no group, class u32::MAX in the index (hprof fuzzer; fuzz/README.md).
        let mut prim_groups = [c.group("unknown[]".to_string(), false); 12];
        for (t, slot) in prim_groups.iter_mut().enumerate().skip(4) {
            *slot = c.group(format!("{}[]", type_name(t as u8)), false);
        }

        c.dumps = dumps;
        c.class_ids = class_ids;
        c.recs = recs;
        c.class_group = class_group;
        c.class_instance_size = class_instance_size;
        c.prim_groups = prim_groups;
        c
    }
}
