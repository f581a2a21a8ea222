//! HPROF class dumps: parsing one ([`parse_class_dump`]) and the table of every class's
//! instance layout and statics that both passes and the quick readers size objects with
//! ([`Classes`]).

use super::decode::Record;
use super::*;

/// Per-class facts pass 2 needs for every instance.
pub(super) struct ClassRec {
    pub(super) group: ClassId,
    /// The [`FieldRun`] of this class, or of its nearest superclass with fields
    /// ([`NO_RUN`]: none has any).
    pub(super) first_run: u32,
    /// Its place in its superclass chain: 1 without a superclass.
    pub(super) depth: u32,
    /// Modelled heap size of an instance.
    pub(super) instance_size: u64,
}

/// One class's own instance fields, as an instance record lays them out after those of
/// its subclasses: shared by every subclass, so that the table is as large as the class
/// dumps, whatever the depth of the hierarchy. (Each class had its whole chain's
/// reference slots: 750,000 classes each extending the last with one reference field
/// took 3.5 GB for a 70 MB file, and 17 s.)
pub(super) struct FieldRun {
    /// Reference slots: (byte offset from the start of this class's fields, weak).
    refs: Vec<(u32, bool)>,
    /// Bytes of this class's fields.
    bytes: u32,
    depth: u32,
    /// The next run up the superclass chain.
    up: u32,
}

/// No [`FieldRun`].
pub(super) const NO_RUN: u32 = u32::MAX;

/// Classes of a superclass chain read for an instance's references (the inspector reads
/// as many, `decode.rs`): a hostile chain is millions long.
const MAX_CHAIN: u32 = 512;

impl ClassRec {
    /// Calls `f` with the byte offset and weakness of each reference slot of an instance
    /// of this class whose field data is `len` bytes, own fields first, then its
    /// superclasses', up to [`MAX_CHAIN`] classes and no further than the data: the cost
    /// is bounded by the record's bytes.
    pub(super) fn for_each_ref(
        &self,
        runs: &[FieldRun],
        len: usize,
        mut f: impl FnMut(usize, bool),
    ) {
        let mut r = self.first_run;
        let mut base = 0usize;
        while let Some(run) = runs.get(r as usize) {
            if base >= len || self.depth - run.depth >= MAX_CHAIN {
                break;
            }
            for &(o, weak) in &run.refs {
                f(base + o as usize, weak);
            }
            base += run.bytes as usize;
            r = run.up;
        }
    }
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
    /// The classes' own fields, [`ClassRec::first_run`] into it.
    pub(super) runs: Vec<FieldRun>,
    /// Each class's superclass, 0 where a loop was cut (or none).
    pub(super) supers: IdMap<u64>,
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

    /// The classes (in file order) whose superclass chain holds `target`, itself
    /// included: one walk per chain, the classes settled remembered.
    pub(super) fn extending(&self, target: u64) -> Vec<u64> {
        let mut known: IdMap<bool> = IdMap::default();
        let mut out = Vec::new();
        for &cid in &self.class_ids {
            let mut path = Vec::new();
            let mut cur = cid;
            let found = loop {
                if cur == target {
                    break true;
                }
                if let Some(&k) = known.get(&cur) {
                    break k;
                }
                if !self.dumps.contains_key(&cur) || path.len() > self.dumps.len() {
                    break false;
                }
                path.push(cur);
                match self.supers.get(&cur) {
                    Some(&s) if s != 0 => cur = s,
                    _ => break false,
                }
            };
            for p in path {
                known.insert(p, found);
            }
            if found {
                out.push(cid);
            }
        }
        out
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
            runs: Vec::new(),
            supers: IdMap::default(),
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
        // The superclass chains, each loop cut where it closes (the edge back to a class
        // already on the walk): one walk per chain with the classes already settled
        // remembered, so a deep hierarchy costs its size, not its size times its depth
        // (300,000 classes in one line took 27.5 s with a search of the chain at every
        // step, and were taken for loops past 512).
        let mut supers: IdMap<u64> = dumps.iter().map(|(&k, d)| (k, d.super_id)).collect();
        let mut settled: IdMap<()> = IdMap::default();
        for &cid in &class_ids {
            let mut path: Vec<u64> = Vec::new();
            let mut on_path: IdMap<()> = IdMap::default();
            let mut cur = cid;
            while dumps.contains_key(&cur) && !settled.contains_key(&cur) {
                if on_path.insert(cur, ()).is_some() {
                    if let Some(&last) = path.last() {
                        supers.insert(last, 0);
                    }
                    c.warnings
                        .push(format!("class 0x{cid:x}: superclass chain loops"));
                    break;
                }
                path.push(cur);
                match supers.get(&cur) {
                    Some(&s) if s != 0 => cur = s,
                    _ => break,
                }
            }
            for p in path {
                settled.insert(p, ());
            }
        }
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
        // Each class from its superclass's figures, superclasses first: its depth, its
        // modelled heap size (a class with a `@Contended` group ends aligned, and its
        // subclasses' fields start after that) and its own fields' run.
        struct Memo {
            depth: u32,
            heap: u64,
            first_run: u32,
        }
        let mut memo: IdMap<Memo> = IdMap::default();
        let mut runs: Vec<FieldRun> = Vec::new();
        for &cid in &class_ids {
            let mut stack = Vec::new();
            let mut cur = cid;
            while dumps.contains_key(&cur) && !memo.contains_key(&cur) {
                stack.push(cur);
                match supers.get(&cur) {
                    Some(&s) if s != 0 => cur = s,
                    _ => break,
                }
            }
            while let Some(k) = stack.pop() {
                let Some(cd) = dumps.get(&k) else { continue };
                let parent = supers
                    .get(&k)
                    .filter(|&&s| s != 0)
                    .and_then(|s| memo.get(s));
                let (depth, mut heap, up) =
                    parent.map_or((1, 0, NO_RUN), |m| (m.depth + 1, m.heap, m.first_run));
                if !layout.art {
                    let (extra, aligned_end) = hidden
                        .get(&k)
                        .copied()
                        .unwrap_or_else(|| hidden_bytes(&class_name(k), &layout));
                    heap += extra;
                    for &(_, t) in &cd.fields {
                        heap += if t == T_OBJECT {
                            layout.ref_size
                        } else {
                            type_size(t, id).unwrap_or(0) as u64
                        };
                    }
                    if aligned_end {
                        heap = align8(layout.obj_header + heap) - layout.obj_header;
                    }
                }
                let is_ref_class = Some(k) == reference_class;
                let mut refs = Vec::new();
                let mut bytes = 0u32;
                for &(nid, t) in &cd.fields {
                    if t == T_OBJECT {
                        let weak = is_ref_class && field_name(nid).is_some_and(|n| n == "referent");
                        refs.push((bytes, weak));
                    }
                    bytes = bytes.saturating_add(type_size(t, id).unwrap_or(0) as u32);
                }
                let first_run = if bytes > 0 {
                    runs.push(FieldRun {
                        refs,
                        bytes,
                        depth,
                        up,
                    });
                    (runs.len() - 1) as u32
                } else {
                    up
                };
                memo.insert(
                    k,
                    Memo {
                        depth,
                        heap,
                        first_run,
                    },
                );
            }
        }
        let mut too_deep = 0usize;
        let mut recs: IdMap<ClassRec> = IdMap::default();
        for &cid in &class_ids {
            let (Some(d), Some(m)) = (dumps.get(&cid), memo.get(&cid)) else {
                continue;
            };
            if m.depth > MAX_CHAIN {
                too_deep += 1;
            }
            let instance_size = if layout.art {
                align8(d.reported_size as u64)
            } else {
                align8(layout.obj_header + m.heap)
            };
            let g_id = c.group(class_name(cid), true);
            recs.insert(
                cid,
                ClassRec {
                    group: g_id,
                    first_run: m.first_run,
                    depth: m.depth,
                    instance_size,
                },
            );
        }
        if too_deep > 0 {
            c.warnings.push(format!(
                "{too_deep} classes have superclass chains deeper than 512 classes: the \
                 fields of their ancestors past the 512th are not read (their sizes are \
                 counted)"
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
        c.runs = runs;
        c.supers = supers;
        c.class_group = class_group;
        c.class_instance_size = class_instance_size;
        c.prim_groups = prim_groups;
        c
    }
}

/// What the decoder reads of classes beside its own file.
impl super::decode::HprofDecoder {
    /// The class dumps of `cid` and its superclasses, the class itself first.
    pub(super) fn class_chain(
        &self,
        bytes: &[u8],
        g: &Graph,
        cid: u64,
    ) -> (Vec<ClassDump>, Option<String>) {
        let mut chain = Vec::new();
        let mut cur = cid;
        while cur != 0 {
            // Stop at the first class met twice: a loop's fields are listed once.
            if chain.iter().any(|d: &ClassDump| d.id == cur) {
                return (chain, Some("the superclass chain loops".into()));
            }
            if chain.len() >= 512 {
                return (
                    chain,
                    Some("the superclass chain is deeper than 512 classes: the fields past the 512th are not read".into()),
                );
            }
            let Some(o) = self.find_addr(bytes, g, cur) else {
                return (
                    chain,
                    Some(format!(
                        "class 0x{cur:x} has no CLASS DUMP in the file, so its fields cannot be named"
                    )),
                );
            };
            let off = g.offset.at(o as usize) as usize;
            match parse_class_dump(bytes, off, self.id_size) {
                Ok(d) if d.id == cur => {
                    cur = d.super_id;
                    chain.push(d);
                }
                Ok(_) => {
                    return (chain, Some(format!("class 0x{cur:x} has no CLASS DUMP")));
                }
                Err(e) => return (chain, Some(format!("class dump unreadable: {e}"))),
            }
        }
        (chain, None)
    }

    /// [`Decoder::superclasses`](crate::format::Decoder::superclasses): the names of
    /// the classes an instance's class extends, nearest first.
    pub(super) fn superclass_names(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Vec<String> {
        match self.record(bytes, g, o) {
            Ok(Record::Instance { class, .. }) => self
                .class_chain(bytes, g, class)
                .0
                .iter()
                .skip(1)
                .map(|d| self.class_name(bytes, d.id))
                .collect(),
            Ok(Record::ObjArray { .. }) => vec!["java.lang.Object".to_string()],
            _ => Vec::new(),
        }
    }
}
