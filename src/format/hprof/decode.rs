//! Decoding HPROF objects on demand: fields with names and values, strings, array
//! previews, edge labels and short labels, read from the mapped bytes when a view asks.
//!
//! Owns nothing but the lookup tables that names need (UTF8 records and LOAD CLASS names,
//! kept from pass 1; a few bytes per distinct name, not per object). Class layouts are
//! re-read from the class's CLASS DUMP record each time (the class object found by binary
//! search over the address-ordered ids): the index keeps no per-class field tables.
//!
//! Every read goes through a bounds-checked [`Cursor`] over the object's own record (the
//! record's length comes from its header, checked by pass 1), so a record whose fields
//! run past it yields a problem in words, never a read of the next record or a panic.

use std::borrow::Cow;

mod labels;

use super::spec::*;
use super::{parse_class_dump, sub_record_len, ClassDump};
use crate::format::read::{be_id, be_uint, Cursor};
use crate::format::{float_text, widen_f32, Decoder, Field, Inspection, Value};
use crate::heap::index::IdMap;
use crate::heap::{Graph, ObjId};

/// Array elements listed as fields in an inspection; the rest are counted.
pub const MAX_ELEMENTS: usize = 100;
/// Characters of a string kept in a preview.
pub const PREVIEW_CHARS: usize = 1024;
/// Elements of an array shown in a preview.
pub(super) const PREVIEW_ELEMENTS: usize = 32;

/// Answers questions about HPROF objects from the mapped bytes.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct HprofDecoder {
    pub(super) id_size: usize,
    pub(super) utf8: IdMap<(usize, usize)>,
    pub(super) class_names: IdMap<u64>,
    /// Where `java.lang.String`'s `value` and `coder` lie in its instances' field bytes,
    /// found once (the waste report reads millions of strings; `inspect` re-reads the
    /// class chain for each).
    #[serde(skip)]
    pub(super) string_layout: std::sync::OnceLock<Option<StringLayout>>,
    /// Each class's instance fields, own class first (name, type code), and the
    /// problem with its chain, found once: an instance list's Value column and filter
    /// read them for millions of instances.
    #[serde(skip)]
    pub(super) fields_of: std::sync::RwLock<std::collections::HashMap<u64, ClassFields>>,
    /// The address of every [`SAMPLE`]th object, each read when a lookup first needs it
    /// (0 until then): [`HprofDecoder::find_addr`] searches it (8 bytes per 64 objects,
    /// mostly cached) before the few records of one step, not 26 records spread over the
    /// dump (a string field's text took two such searches, 2.8 µs an instance).
    #[serde(skip)]
    pub(super) sampled: std::sync::OnceLock<Vec<std::sync::atomic::AtomicU64>>,
}

/// Objects per entry of [`HprofDecoder::sampled`].
const SAMPLE: usize = 64;

/// A class's instance fields, own class first: (name, type code); and what is wrong
/// with its superclass chain, if anything.
pub(super) type ClassFields = std::sync::Arc<(Vec<(String, u8)>, Option<String>)>;

/// `java.lang.String`'s instance layout: its class id and the byte positions of its
/// `value` reference and its `coder` byte (absent before JDK 9).
#[derive(Clone, Copy, Debug)]
pub(super) struct StringLayout {
    pub(super) class: u64,
    pub(super) value_at: usize,
    pub(super) coder_at: Option<usize>,
    pub(super) size: usize,
}

/// HPROF's type code of `byte`.
pub(super) const T_BYTE: u8 = 8;

/// The parts of a record, as far as they are whole.
pub(super) enum Record<'a> {
    Instance {
        class: u64,
        data: &'a [u8],
        data_offset: u64,
    },
    ObjArray {
        class: u64,
        length: u64,
        elems: &'a [u8],
    },
    PrimArray {
        ty: u8,
        length: u64,
        elems: &'a [u8],
    },
    NoData {
        ty: u8,
        length: u64,
    },
    Class(ClassDump, &'a [u8], u64),
}

impl HprofDecoder {
    /// `from`, whose references [`labels`] names.
    fn referrer<'a>(&'a self, b: &'a [u8], g: &'a Graph, from: ObjId) -> labels::Referrer<'a> {
        labels::Referrer {
            d: self,
            b,
            g,
            from,
        }
    }

    pub(super) fn address(&self, bytes: &[u8], g: &Graph, o: ObjId) -> u64 {
        let Some(off) = g.offset.get(o as usize) else {
            return 0;
        };
        let off = off as usize;
        bytes
            .get(off + 1..off + 1 + self.id_size)
            .map(|b| be_id(b, self.id_size))
            .unwrap_or(0)
    }

    /// The object at `addr`: ids are in address order, so a binary search in the
    /// sampled addresses, then in the records of one step.
    pub(super) fn find_addr(&self, bytes: &[u8], g: &Graph, want: u64) -> Option<ObjId> {
        // Each sampled address is read from the dump when a search first needs it: taking
        // them all at once touched every page of the dump (2.3 GB more resident on the
        // 50 M-object bench file).
        use std::sync::atomic::{AtomicU64, Ordering};
        let sampled = self.sampled.get_or_init(|| {
            (0..g.len().div_ceil(SAMPLE))
                .map(|_| AtomicU64::new(0))
                .collect()
        });
        let at = |k: usize| {
            let a = sampled[k].load(Ordering::Relaxed);
            if a != 0 {
                return a;
            }
            let a = self.address(bytes, g, (k * SAMPLE) as ObjId);
            sampled[k].store(a, Ordering::Relaxed);
            a
        };
        // The step whose first address is the last at or below `want`.
        let (mut lo, mut hi) = (0usize, sampled.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if at(mid) <= want {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let k = lo;
        if k == 0 {
            return None;
        }
        let (mut lo, mut hi) = ((k - 1) * SAMPLE, (k * SAMPLE).min(g.len()));
        while lo < hi {
            let mid = (lo + hi) / 2;
            let a = self.address(bytes, g, mid as ObjId);
            match a.cmp(&want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as ObjId),
            }
        }
        None
    }

    pub(super) fn text<'a>(&self, bytes: &'a [u8], name_id: u64) -> Cow<'a, str> {
        self.utf8
            .get(&name_id)
            .and_then(|&(off, len)| bytes.get(off..off.checked_add(len)?))
            .map(super::modified_utf8)
            .unwrap_or_else(|| Cow::Owned(format!("<name 0x{name_id:x}>")))
    }

    pub(super) fn class_name(&self, bytes: &[u8], cid: u64) -> String {
        match self.class_names.get(&cid) {
            Some(&nid) => java_name(&self.text(bytes, nid)),
            None => format!("<class 0x{cid:x}>"),
        }
    }

    pub(super) fn reference(&self, bytes: &[u8], g: &Graph, addr: u64) -> Value {
        if addr == 0 {
            return Value::Null;
        }
        match self.find_addr(bytes, g, addr) {
            Some(o) => Value::Object(o),
            None => Value::Missing(format!("0x{addr:x}")),
        }
    }

    /// [`Self::reference`] for the `nth` non-null reference field (from 1) of the
    /// instance `from`, found among `from`'s references in the index rather than by a
    /// search of the addresses: the index keeps an instance's class, then its non-null
    /// references in field order, so the `nth` is there unless one before it points at
    /// nothing in the dump; each one taken is checked by its address. (For the Value
    /// column and the instance filter, which read the first fields of millions of
    /// instances: the search took about half of each one's time.)
    pub(super) fn reference_from(
        &self,
        bytes: &[u8],
        g: &Graph,
        from: ObjId,
        nth: usize,
        addr: u64,
    ) -> Value {
        if addr == 0 {
            return Value::Null;
        }
        let edges = g.edges(from);
        let hit = |e: usize| {
            let t = g.out_targets[e];
            (self.address(bytes, g, t) == addr).then_some(t)
        };
        // Where it is when no reference before it is null or dangling, then anywhere.
        let at = edges.start + nth;
        let found = (at < edges.end).then(|| hit(at)).flatten();
        match found.or_else(|| edges.clone().find_map(hit)) {
            Some(t) => Value::Object(t),
            None => self.reference(bytes, g, addr),
        }
    }

    pub(super) fn value(&self, bytes: &[u8], g: &Graph, t: u8, raw: &[u8]) -> Value {
        let u = be_uint(raw);
        match t {
            T_OBJECT => self.reference(bytes, g, u),
            4 => Value::Bool(u != 0),
            5 => Value::Char(u as u16),
            6 => Value::Float(widen_f32(f32::from_bits(u as u32))),
            7 => Value::Float(f64::from_bits(u)),
            8 => Value::Int(u as u8 as i8 as i64),
            9 => Value::Int(u as u16 as i16 as i64),
            10 => Value::Int(u as u32 as i32 as i64),
            11 => Value::Int(u as i64),
            _ => Value::Int(u as i64),
        }
    }

    /// The object's record, split into its parts. `Err` says in words what is wrong.
    pub(super) fn record<'a>(
        &self,
        bytes: &'a [u8],
        g: &Graph,
        o: ObjId,
    ) -> Result<Record<'a>, String> {
        let id = self.id_size;
        let off = g.offset.get(o as usize).ok_or("no such object")? as usize;
        let tail = bytes.get(off..).unwrap_or(&[]);
        let whole = Cursor::new(tail, off as u64);
        let len = sub_record_len(&whole, tail, id)
            .map_err(|e| format!("the record at byte offset {off} is not whole: {e}"))?;
        let rec = &tail[..len];
        let mut c = Cursor::new(rec, off as u64);
        let bad = |e: crate::error::ParseError| e.to_string();
        let tag = c.u8("tag").map_err(bad)?;
        match tag {
            INSTANCE_DUMP => {
                c.skip(id + 4, "object id and stack trace serial")
                    .map_err(bad)?;
                let class = c.uint_be(id, "class id").map_err(bad)?;
                let n = c.u32_be("field byte count").map_err(bad)? as usize;
                let data_offset = c.offset();
                let data = c.bytes(n, "field values").map_err(bad)?;
                Ok(Record::Instance {
                    class,
                    data,
                    data_offset,
                })
            }
            OBJECT_ARRAY_DUMP => {
                c.skip(id + 4, "array id and stack trace serial")
                    .map_err(bad)?;
                let length = c.u32_be("length").map_err(bad)? as u64;
                let class = c.uint_be(id, "array class id").map_err(bad)?;
                let elems = c.bytes(length as usize * id, "elements").map_err(bad)?;
                Ok(Record::ObjArray {
                    class,
                    length,
                    elems,
                })
            }
            PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                c.skip(id + 4, "array id and stack trace serial")
                    .map_err(bad)?;
                let length = c.u32_be("length").map_err(bad)? as u64;
                let ty = c.u8("element type").map_err(bad)?;
                if tag == PRIMITIVE_ARRAY_NODATA {
                    return Ok(Record::NoData { ty, length });
                }
                let es = type_size(ty, id).unwrap_or(1);
                let elems = c.bytes(length as usize * es, "elements").map_err(bad)?;
                Ok(Record::PrimArray { ty, length, elems })
            }
            CLASS_DUMP => {
                let d = parse_class_dump(bytes, off, id).map_err(bad)?;
                Ok(Record::Class(d, rec, off as u64))
            }
            t => Err(format!(
                "byte offset {off} holds tag 0x{t:02x}, not an object"
            )),
        }
    }

    /// The instance fields of an instance record, own class first, then superclasses.
    /// The instance fields of `class` and its superclasses, own first ([`ClassFields`]).
    pub(super) fn fields(&self, bytes: &[u8], g: &Graph, class: u64) -> ClassFields {
        if let Some(f) = self
            .fields_of
            .read()
            .ok()
            .and_then(|m| m.get(&class).cloned())
        {
            return f;
        }
        let (chain, problem) = self.class_chain(bytes, g, class);
        let list: Vec<(String, u8)> = chain
            .iter()
            .flat_map(|cd| cd.fields.iter())
            .map(|&(nid, t)| (self.text(bytes, nid).into_owned(), t))
            .collect();
        let f: ClassFields = std::sync::Arc::new((list, problem));
        if let Ok(mut m) = self.fields_of.write() {
            m.insert(class, f.clone());
        }
        f
    }

    pub(super) fn instance_fields(
        &self,
        bytes: &[u8],
        g: &Graph,
        class: u64,
        data: &[u8],
        data_offset: u64,
        out: &mut Inspection,
    ) {
        let id = self.id_size;
        let f = self.fields(bytes, g, class);
        out.problems.extend(f.1.clone());
        let mut c = Cursor::new(data, data_offset);
        for (name, t) in &f.0 {
            let (name, t) = (name.clone(), *t);
            let Some(size) = type_size(t, id) else {
                out.problems.push(format!(
                    "field {name} of class {} (or a superclass) has the unknown type code {t}",
                    self.class_name(bytes, class)
                ));
                return;
            };
            match c.bytes(size, "field value") {
                Ok(raw) => out.fields.push(Field {
                    name,
                    ty: type_name(t).to_string(),
                    value: self.value(bytes, g, t, raw),
                    is_static: false,
                }),
                Err(_) => {
                    out.problems.push(format!(
                        "field {name} ({}, {size} bytes) at byte {} runs past the record's {} bytes of field values",
                        type_name(t),
                        c.pos(),
                        data.len()
                    ));
                    return;
                }
            }
        }
        if problem_free(out) && c.remaining() > 0 {
            out.problems.push(format!(
                "{} bytes of field values are not described by the class",
                c.remaining()
            ));
        }
    }
}

fn problem_free(i: &Inspection) -> bool {
    i.problems.is_empty()
}

/// A primitive value as text (for previews).
pub(super) fn display_primitive(ty: u8, raw: &[u8]) -> String {
    let u = be_uint(raw);
    match ty {
        4 => (u != 0).to_string(),
        5 => char::from_u32(u as u32)
            .map(|c| format!("{c:?}"))
            .unwrap_or_else(|| format!("\\u{u:04x}")),
        6 => float_text(widen_f32(f32::from_bits(u as u32))),
        7 => float_text(f64::from_bits(u)),
        8 => (u as u8 as i8).to_string(),
        9 => (u as u16 as i16).to_string(),
        10 => (u as u32 as i32).to_string(),
        _ => (u as i64).to_string(),
    }
}

const BOXES: &[&str] = &[
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Short",
    "java.lang.Byte",
    "java.lang.Character",
    "java.lang.Boolean",
    "java.lang.Float",
    "java.lang.Double",
];

impl Decoder for HprofDecoder {
    fn save_state(&self) -> Option<Vec<u8>> {
        crate::sys::codec::encode(self)
    }

    fn heap_bytes(&self) -> u64 {
        use crate::format::map_bytes;
        map_bytes(&self.utf8) + map_bytes(&self.class_names)
    }

    fn content_classes(&self, _bytes: &[u8], g: &Graph) -> Vec<crate::heap::ClassId> {
        const PRIMITIVE_ARRAYS: [&str; 8] = [
            "boolean[]",
            "char[]",
            "float[]",
            "double[]",
            "byte[]",
            "short[]",
            "int[]",
            "long[]",
        ];
        (0..g.classes.len() as u32)
            .filter(|&c| {
                let n = g.classes[c as usize].name.as_str();
                n == "java.lang.String" || PRIMITIVE_ARRAYS.contains(&n)
            })
            .collect()
    }

    fn content<'a>(
        &self,
        bytes: &'a [u8],
        g: &Graph,
        o: ObjId,
    ) -> Option<crate::format::Content<'a>> {
        match self.record(bytes, g, o).ok()? {
            Record::PrimArray { length, elems, .. } => Some(crate::format::Content {
                string: false,
                data: Cow::Borrowed(elems),
                length,
                bytes: g.shallow_size(o),
                owns: None,
                encoding: crate::format::Encoding::Binary,
            }),
            Record::Instance { class, data, .. }
                if self
                    .string_layout
                    .get()
                    .is_some_and(|l| l.is_some_and(|l| l.class == class)) =>
            {
                let l = self.string_layout.get()?.as_ref()?;
                self.string_by_layout(bytes, g, o, l, data)
            }
            Record::Instance { class, .. }
                if self.class_name(bytes, class) == "java.lang.String" =>
            {
                // The first string finds the layout the others are read by, and is read
                // by it too (its contents compare with theirs).
                if let Some(l) = self.string_layout(bytes, g, class) {
                    if l.class == class {
                        let Ok(Record::Instance { data, .. }) = self.record(bytes, g, o) else {
                            return None;
                        };
                        return self.string_by_layout(bytes, g, o, &l, data);
                    }
                }
                let ins = self.inspect(bytes, g, o);
                let (text, length) = self.string_text(bytes, g, &ins.fields, usize::MAX)?;
                let value = ins.fields.iter().find_map(|f| match f.value {
                    Value::Object(v) if f.name == "value" => Some(v),
                    _ => None,
                })?;
                Some(crate::format::Content {
                    string: true,
                    data: Cow::Owned(text.into_bytes()),
                    length,
                    bytes: g.shallow_size(o) + g.shallow_size(value),
                    owns: Some(value),
                    encoding: crate::format::Encoding::Utf8,
                })
            }
            _ => None,
        }
    }

    fn object_name(&self, bytes: &[u8], g: &Graph, o: ObjId) -> String {
        format!("0x{:x}", self.address(bytes, g, o))
    }

    fn object_number(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Option<u64> {
        Some(self.address(bytes, g, o))
    }

    fn find_object(&self, bytes: &[u8], g: &Graph, name: &str) -> Option<ObjId> {
        let hex = name
            .strip_prefix("0x")
            .or_else(|| name.strip_prefix("0X"))?;
        let want = u64::from_str_radix(hex, 16).ok()?;
        self.find_addr(bytes, g, want)
    }

    fn inspect_from(&self, bytes: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection {
        let id = self.id_size;
        let mut out = Inspection::default();
        let rec = match self.record(bytes, g, o) {
            Ok(r) => r,
            Err(e) => {
                out.problems.push(e);
                return out;
            }
        };
        match rec {
            Record::Instance {
                class,
                data,
                data_offset,
            } => {
                self.instance_fields(bytes, g, class, data, data_offset, &mut out);
                if self.class_name(bytes, class) == "java.lang.String" {
                    if let Some((text, len)) =
                        self.string_text(bytes, g, &out.fields, PREVIEW_CHARS)
                    {
                        out.preview = Some(text);
                        out.length = Some(len);
                    }
                }
            }
            Record::ObjArray { length, elems, .. } => {
                out.length = Some(length);
                let shown: Vec<String> = (elems.chunks_exact(id).take(PREVIEW_ELEMENTS))
                    .map(|raw| match be_id(raw, id) {
                        0 => "null".to_string(),
                        a => format!("0x{a:x}"),
                    })
                    .collect();
                let mut preview = format!("[{}", shown.join(", "));
                let start = from.min((elems.len() / id) as u64) as usize;
                let page = elems[start * id..].chunks_exact(id).take(MAX_ELEMENTS);
                for (i, raw) in (start..).zip(page) {
                    let v = self.reference(bytes, g, be_id(raw, id));
                    out.fields.push(Field {
                        name: format!("[{i}]"),
                        ty: "object".into(),
                        value: v,
                        is_static: false,
                    });
                }
                if length > PREVIEW_ELEMENTS as u64 {
                    preview.push_str(", …");
                }
                preview.push(']');
                out.preview = Some(preview);
                out.more_elements = length.saturating_sub((start + out.fields.len()) as u64);
                out.next_from = (start + out.fields.len()) as u64;
            }
            Record::PrimArray { ty, length, elems } => {
                out.length = Some(length);
                let es = type_size(ty, id).unwrap_or(1);
                let start = from.min((elems.len() / es) as u64) as usize;
                let page = elems[start * es..].chunks_exact(es).take(MAX_ELEMENTS);
                for (i, raw) in (start..).zip(page) {
                    out.fields.push(Field {
                        name: format!("[{i}]"),
                        ty: type_name(ty).into(),
                        value: self.value(bytes, g, ty, raw),
                        is_static: false,
                    });
                }
                out.more_elements = length.saturating_sub((start + out.fields.len()) as u64);
                out.next_from = (start + out.fields.len()) as u64;
                out.preview = Some(self.primitive_preview(ty, elems, length));
            }
            Record::NoData { ty, length } => {
                out.length = Some(length);
                out.problems.push(format!(
                    "the dump leaves out this {}[]'s contents (PRIMITIVE ARRAY NODATA)",
                    type_name(ty)
                ));
            }
            Record::Class(_, rec, off) => {
                let mut c = Cursor::new(rec, off);
                let names = [
                    "<super>",
                    "<classloader>",
                    "<signers>",
                    "<protection domain>",
                ];
                let r: crate::format::read::ReadResult<()> = (|| {
                    c.skip(1 + id + 4, "class dump header")?;
                    for name in names {
                        let v = c.uint_be(id, "class reference")?;
                        out.fields.push(Field {
                            name: name.into(),
                            ty: "object".into(),
                            value: self.reference(bytes, g, v),
                            is_static: true,
                        });
                    }
                    c.skip(2 * id + 4, "reserved ids and instance size")?;
                    let cp = c.u16_be("constant pool count")?;
                    for _ in 0..cp {
                        let idx = c.u16_be("constant pool index")?;
                        let t = c.u8("constant pool type")?;
                        let raw = c.bytes(type_size(t, id).unwrap_or(0), "constant pool value")?;
                        out.fields.push(Field {
                            name: format!("<constant pool #{idx}>"),
                            ty: type_name(t).into(),
                            value: self.value(bytes, g, t, raw),
                            is_static: true,
                        });
                    }
                    let statics = c.u16_be("static field count")?;
                    for _ in 0..statics {
                        let nid = c.uint_be(id, "static field name")?;
                        let t = c.u8("static field type")?;
                        let raw = c.bytes(type_size(t, id).unwrap_or(0), "static field value")?;
                        out.fields.push(Field {
                            name: self.text(bytes, nid).into_owned(),
                            ty: type_name(t).into(),
                            value: self.value(bytes, g, t, raw),
                            is_static: true,
                        });
                    }
                    Ok(())
                })();
                if let Err(e) = r {
                    out.problems.push(format!("class dump is not whole: {e}"));
                }
            }
        }
        out
    }

    fn edge_label(&self, bytes: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String> {
        let want = self.address(bytes, g, to);
        match self.record(bytes, g, from).ok()? {
            Record::Instance { class, .. } | Record::ObjArray { class, .. } if class == want => {
                Some("<class>".into())
            }
            Record::ObjArray { elems, .. } => elems
                .chunks_exact(self.id_size)
                .position(|e| be_id(e, self.id_size) == want)
                .map(|i| format!("[{i}]")),
            Record::Instance { .. } | Record::Class(..) => {
                let ins = self.inspect(bytes, g, from);
                let field = ins
                    .fields
                    .into_iter()
                    .find(|f| f.value == Value::Object(to))
                    .map(|f| labels::static_name(f.is_static, f.name));
                field.or_else(|| self.referrer(bytes, g, from).defined_class(to))
            }
            Record::PrimArray { .. } | Record::NoData { .. } => None,
        }
    }

    /// Each of `to` named by its own place in turn ([`labels`]): an array holding one
    /// target at `[0]` and `[3]` names the first reference `[0]` and the second `[3]`.
    fn edge_labels(&self, b: &[u8], g: &Graph, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        let r = self.referrer(b, g, from);
        let rec = self.record(b, g, from).ok();
        if let Some(l) = rec.as_ref().and_then(|x| r.of_array(to, x)) {
            return l;
        }
        let named = rec.as_ref().and_then(|x| r.of_instance(to, x));
        match named.or_else(|| r.of_class(to)) {
            // What no field holds (a class loader's defined classes) is named one by one.
            Some(l) => l
                .into_iter()
                .zip(to)
                .map(|(l, &t)| l.or_else(|| r.defined_class(t)))
                .collect(),
            None => to.iter().map(|&t| self.edge_label(b, g, from, t)).collect(),
        }
    }

    fn each_edge_label(
        &self,
        b: &[u8],
        g: &Graph,
        from: ObjId,
        name: &mut dyn FnMut(Option<&str>),
    ) {
        let to = &g.out_targets[g.edges(from)];
        let rec = self.record(b, g, from);
        if rec.is_ok_and(|rec| self.referrer(b, g, from).each_in_order(to, &rec, name)) {
            return;
        }
        for l in self.edge_labels(b, g, from, to) {
            name(l.as_deref());
        }
    }

    fn first_fields(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        // An instance's fields by its class's cached list, the primitives read in place,
        // a string's text by its layout (what `Snapshot::first_fields` takes from a
        // whole inspection).
        let Ok(Record::Instance { class, data, .. }) = self.record(bytes, g, o) else {
            return None;
        };
        let f = self.fields(bytes, g, class);
        let mut at = 0usize;
        let mut refs = 0usize;
        let mut words: Vec<String> = Vec::with_capacity(2);
        for (name, t) in &f.0 {
            let size = type_size(*t, self.id_size)?;
            let raw = data.get(at..at + size)?;
            at += size;
            let value = if *t == T_OBJECT {
                let addr = be_uint(raw);
                refs += usize::from(addr != 0);
                self.reference_from(bytes, g, o, refs, addr)
            } else {
                self.value(bytes, g, *t, raw)
            };
            let word = match value {
                // A reference counts when it is to a string: its text.
                Value::Object(s)
                    if g.classes[g.class_of.get(s as usize) as usize].name
                        == "java.lang.String" =>
                {
                    crate::format::string_word(self.content(bytes, g, s))
                }
                Value::Object(_) => None,
                v => crate::format::value_word(&v),
            };
            let Some(v) = word else {
                continue;
            };
            words.push(format!("{name}={v}"));
            if words.len() == 2 {
                break;
            }
        }
        Some(words.join(" "))
    }

    fn superclasses(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Vec<String> {
        self.superclass_names(bytes, g, o)
    }

    fn label(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        match self.record(bytes, g, o).ok()? {
            Record::Class(d, ..) => Some(format!("class {}", self.class_name(bytes, d.id))),
            Record::Instance { .. } => {
                // The index's name of its class (the same name, not decoded again: a
                // filter asks this of millions of instances).
                let cname = g.classes[g.class_of.get(o as usize) as usize].name.as_str();
                let string = cname == "java.lang.String";
                let boxed = BOXES.contains(&cname);
                let thread = cname == "java.lang.Thread";
                if !(string || boxed || thread) {
                    return None;
                }
                let ins = self.inspect(bytes, g, o);
                if string {
                    let (t, len) = self.string_text(bytes, g, &ins.fields, 64)?;
                    let more = if len > 64 { "…" } else { "" };
                    return Some(format!("{t:?}{more}"));
                }
                let f = ins
                    .fields
                    .iter()
                    .find(|f| f.name == if thread { "name" } else { "value" })?;
                match (&f.value, thread) {
                    (Value::Object(s), true) => {
                        let si = self.inspect(bytes, g, *s);
                        let (t, _) = self.string_text(bytes, g, &si.fields, 64)?;
                        Some(format!("{t:?}"))
                    }
                    (Value::Int(i), false) => Some(i.to_string()),
                    (Value::Float(x), false) => Some(float_text(*x)),
                    (Value::Bool(b), false) => Some(b.to_string()),
                    (Value::Char(c), false) => char::from_u32(*c as u32).map(|c| format!("{c:?}")),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
