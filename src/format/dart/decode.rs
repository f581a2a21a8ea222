//! Decoding Dart objects on demand: an object's record is read again from the map for
//! its NonReferenceData (the value of an int, double or bool, a string's kept code units
//! and full length, a list's length, a function's or class's name) and its references,
//! which are named by the class's field list (`[k]` past the fields). Fields that hold a
//! Smi, Mint, double, bool or null show its value; others name the object.
//!
//! Identity hash codes are the `persistent_ids` ("identity hash") by which `diff` and
//! `leaks` match objects across snapshots of one process. A hash of 0 means "none"
//! (Smis, strings, lists, code...): such objects get id 0, which the trait defines as "no
//! id", so they are never counted as new, gone or kept (they cannot be told apart, and
//! calling every one of them new would drown the objects that can be matched); the class
//! counts of `diff` still cover them.
//! Two objects may share a hash (the VM's are 30 bits on ia32): a match by hash is
//! right with high probability, not certainly.

use super::{data, spec, Class, Data, HASH_STRIDE};
use crate::format::read::Cursor;
use crate::format::{float_text, Decoder, Field, Inspection, Value};
use crate::heap::{Graph, ObjId};

/// References listed by an inspection; the rest are counted.
const MAX_FIELDS: usize = 256;

/// The identity hash codes' place in the file: the offset of every
/// [`HASH_STRIDE`]-th hash, not the hashes themselves.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Hashes {
    /// Whether the file has the section at all.
    pub present: bool,
    /// How many hashes could be read (fewer than the objects in a cut file).
    pub read: usize,
    /// How many are not 0.
    pub nonzero: usize,
    marks: Vec<u64>,
}

impl Hashes {
    /// Reads `n` hashes from `c`, keeping an offset every `stride` of them; stops at the
    /// first that cannot be read.
    pub fn read(c: &mut Cursor, n: usize, stride: usize) -> Hashes {
        let mut h = Hashes {
            present: true,
            ..Default::default()
        };
        h.marks.reserve(n.div_ceil(stride).min(c.remaining()));
        for i in 0..n {
            if i % stride == 0 {
                h.marks.push(c.offset());
            }
            match c.uleb128("identity hash code") {
                Ok(v) => h.nonzero += (v != 0) as usize,
                Err(_) => break,
            }
            h.read += 1;
        }
        h
    }

    /// The hash of object `o`, or `None` when the file has none for it.
    pub fn get(&self, b: &[u8], o: ObjId) -> Option<u64> {
        if (o as usize) >= self.read {
            return None;
        }
        let at = *self.marks.get(o as usize / HASH_STRIDE)? as usize;
        let mut c = Cursor::new(b.get(at..)?, at as u64);
        for _ in 0..o as usize % HASH_STRIDE {
            c.uleb128("hash").ok()?;
        }
        c.uleb128("hash").ok()
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct DartDecoder {
    /// Index = class id − 1 = the graph's class id.
    pub(super) classes: Vec<Class>,
    pub(super) smi_class: Option<u32>,
    /// 32 or 64: how `_Smi` words are read.
    pub(super) word_bits: u32,
    /// (object, external size), sorted by object; an object may have several.
    pub(super) externals: Vec<(ObjId, u64)>,
    pub(super) hashes: Hashes,
}

/// A decoded record: class, data, references as written (1-origin, 0 = none).
struct Record {
    class: u32,
    data: Data,
    refs: Vec<u64>,
}

impl DartDecoder {
    fn record(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<Record> {
        let off = g.offset.get(o as usize)? as usize;
        let mut c = Cursor::new(b.get(off..)?, off as u64);
        let class = c.uleb128("class id").ok()?.checked_sub(1)? as u32;
        c.uleb128("shallow size").ok()?;
        let d = data(&mut c).ok()?;
        let n = super::count(&mut c, 1, "references").ok()?;
        let mut refs = Vec::with_capacity(n);
        for _ in 0..n {
            refs.push(c.uleb128("reference").ok()?);
        }
        Some(Record {
            class,
            data: d,
            refs,
        })
    }

    /// Just the data of `o`.
    fn data_of(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<Data> {
        let off = g.offset.get(o as usize)? as usize;
        let mut c = Cursor::new(b.get(off..)?, off as u64);
        c.uleb128("class id").ok()?;
        c.uleb128("shallow size").ok()?;
        data(&mut c).ok()
    }

    /// An IntegerData's value: a `_Smi` word made signed at the word size, else SLEB.
    fn int(&self, class: u32, unsigned: u64, signed: i64) -> i64 {
        if Some(class) == self.smi_class {
            if self.word_bits == 32 {
                unsigned as u32 as i32 as i64
            } else {
                unsigned as i64
            }
        } else {
            signed
        }
    }

    fn external(&self, o: ObjId) -> u64 {
        let i = self.externals.partition_point(|e| e.0 < o);
        self.externals[i..]
            .iter()
            .take_while(|e| e.0 == o)
            .map(|e| e.1)
            .sum()
    }

    /// A value for the field or label: ints, doubles, bools and null as values.
    fn value_of(&self, b: &[u8], g: &Graph, t: ObjId) -> (String, Value) {
        let class = g.class_of.get(t as usize);
        match self.data_of(b, g, t) {
            Some(Data::Int { unsigned, signed }) => {
                ("int".into(), Value::Int(self.int(class, unsigned, signed)))
            }
            Some(Data::Double(v)) => ("double".into(), Value::Float(v)),
            Some(Data::Bool(v)) => ("bool".into(), Value::Bool(v)),
            Some(Data::Null) => ("Null".into(), Value::Null),
            _ => ("object".into(), Value::Object(t)),
        }
    }
}

/// Text of a string's kept code units, with `…` when the snapshot cut it.
fn string_text(b: &[u8], d: &Data, max: usize) -> Option<(String, u64, usize)> {
    let (s, len, kept) = match *d {
        Data::Latin1 { len, at, kept } => (
            b.get(at..at + kept)?.iter().map(|&c| c as char).collect(),
            len,
            kept,
        ),
        Data::Utf16 { len, at, kept } => {
            let units: Vec<u16> = b
                .get(at..at + 2 * kept)?
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .collect();
            (String::from_utf16_lossy(&units), len, kept)
        }
        _ => return None,
    };
    let mut out: String = s.chars().take(max).collect();
    if (kept as u64) < len || s.chars().count() > max {
        out.push('…');
    }
    Some((out, len, kept))
}

fn name_text(b: &[u8], at: usize, len: usize, max: usize) -> Option<String> {
    let s = String::from_utf8_lossy(b.get(at..at + len)?);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    Some(out)
}

impl Decoder for DartDecoder {
    fn save_state(&self) -> Option<Vec<u8>> {
        crate::sys::codec::encode(self)
    }

    fn heap_bytes(&self) -> u64 {
        use crate::format::vec_bytes;
        let classes: u64 = self
            .classes
            .iter()
            .map(|c| {
                (c.name.capacity() + c.library_name.capacity() + c.library_uri.capacity()) as u64
                    + vec_bytes(&c.fields)
                    + c.fields.iter().map(|f| f.1.capacity() as u64).sum::<u64>()
                    + vec_bytes(&c.weak)
            })
            .sum();
        vec_bytes(&self.classes)
            + classes
            + vec_bytes(&self.externals)
            + vec_bytes(&self.hashes.marks)
    }

    fn object_number(&self, _b: &[u8], _g: &Graph, o: ObjId) -> Option<u64> {
        Some(o as u64 + 1)
    }

    fn object_name(&self, _b: &[u8], _g: &Graph, o: ObjId) -> String {
        format!("#{}", o as u64 + 1)
    }

    fn find_object(&self, _b: &[u8], g: &Graph, name: &str) -> Option<ObjId> {
        let n: u64 = name.strip_prefix('#')?.parse().ok()?;
        (n >= 1 && n <= g.len() as u64).then(|| (n - 1) as ObjId)
    }

    fn inspect_from(&self, b: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection {
        let mut out = Inspection::default();
        let Some(rec) = self.record(b, g, o) else {
            out.problems.push("the object's record is not whole".into());
            return out;
        };
        let class = self.classes.get(rec.class as usize);
        out.facts.push(("id".into(), format!("#{}", o as u64 + 1)));
        if let Some(k) = class {
            out.facts
                .push(("class id".into(), (rec.class + 1).to_string()));
            if !k.library_name.is_empty() {
                out.facts.push(("library".into(), k.library_name.clone()));
            }
        }
        out.facts.push((
            "identity hash".into(),
            match self.hashes.get(b, o) {
                Some(0) => "0 (none)".to_string(),
                Some(h) => h.to_string(),
                None => "- (not in the snapshot)".to_string(),
            },
        ));
        out.facts.push((
            "external size".into(),
            format!(
                "{} bytes (shallow {} bytes)",
                self.external(o),
                g.shallow_size(o)
            ),
        ));
        out.facts
            .push(("data".into(), data_kind(&rec.data).to_string()));
        match rec.data {
            Data::Int { unsigned, signed } => {
                let v = self.int(rec.class, unsigned, signed);
                out.facts.push(("value".into(), v.to_string()));
                out.preview = Some(v.to_string());
            }
            Data::Double(v) => {
                out.facts.push(("value".into(), float_text(v)));
                out.preview = Some(float_text(v));
            }
            Data::Bool(v) => out.facts.push(("value".into(), v.to_string())),
            Data::Latin1 { len, kept, .. } | Data::Utf16 { len, kept, .. } => {
                if let Some((t, _, _)) = string_text(b, &rec.data, usize::MAX) {
                    out.preview = Some(t);
                }
                out.length = Some(len);
                out.facts.push((
                    "string".into(),
                    if (kept as u64) < len {
                        format!("{len} code units; the snapshot keeps the first {kept}")
                    } else {
                        format!("{len} code units")
                    },
                ));
            }
            Data::Length(n) => out.length = Some(n),
            Data::Name { at, len } => {
                if let Some(t) = name_text(b, at, len, usize::MAX) {
                    out.facts.push(("name".into(), t.clone()));
                    out.preview = Some(t);
                }
            }
            Data::None | Data::Null => {}
        }
        // The synthetic Isolate's references are the isolate's static fields.
        let statics = rec.class == 2
            && class
                .is_some_and(|k| k.library_uri.is_empty() && k.name == spec::SYNTHETIC_CLASSES[2]);
        let start = usize::try_from(from)
            .unwrap_or(usize::MAX)
            .min(rec.refs.len());
        for (pos, &r) in rec.refs.iter().enumerate().skip(start).take(MAX_FIELDS) {
            let name = class
                .map(|k| k.ref_label(pos as u64))
                .unwrap_or_else(|| format!("[{pos}]"));
            let (ty, value) = if r == 0 {
                (
                    "none".to_string(),
                    Value::Missing("0 (no object: an unboxed or omitted slot)".into()),
                )
            } else if r > g.len() as u64 {
                (
                    "object".to_string(),
                    Value::Missing(format!("#{r} (not in the snapshot)")),
                )
            } else {
                self.value_of(b, g, (r - 1) as ObjId)
            };
            out.fields.push(Field {
                name,
                ty,
                value,
                is_static: statics,
            });
        }
        out.more_elements = rec.refs.len().saturating_sub(start + MAX_FIELDS) as u64;
        out.next_from = rec.refs.len().min(start + MAX_FIELDS) as u64;
        out
    }

    fn edge_label(&self, b: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String> {
        let rec = self.record(b, g, from)?;
        let want = to as u64 + 1;
        let pos = rec.refs.iter().position(|&r| r == want)?;
        Some(match self.classes.get(rec.class as usize) {
            Some(k) => k.ref_label(pos as u64),
            None => format!("[{pos}]"),
        })
    }

    /// Each of `to` named by its own reference, in turn: two fields holding one target
    /// are named apart, not both by the first.
    fn edge_labels(&self, b: &[u8], g: &Graph, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        let Some(rec) = self.record(b, g, from) else {
            return vec![None; to.len()];
        };
        let want: Vec<u64> = to.iter().map(|&t| t as u64 + 1).collect();
        let class = self.classes.get(rec.class as usize);
        crate::heap::positions::in_turn(&want, rec.refs.iter().copied())
            .into_iter()
            .map(|pos| {
                let pos = pos? as u64;
                Some(match class {
                    Some(k) => k.ref_label(pos),
                    None => format!("[{pos}]"),
                })
            })
            .collect()
    }

    fn label(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        let class = g.class_of.try_get(o as usize)?;
        let d = self.data_of(b, g, o)?;
        match d {
            Data::Int { unsigned, signed } => Some(self.int(class, unsigned, signed).to_string()),
            Data::Double(v) => Some(float_text(v)),
            Data::Bool(v) => Some(v.to_string()),
            Data::Null => Some("null".into()),
            Data::Latin1 { len, kept, .. } | Data::Utf16 { len, kept, .. } => {
                let (t, _, _) = string_text(b, &d, 48)?;
                Some(if (kept as u64) < len {
                    format!("{t:?} ({len} chars)")
                } else {
                    format!("{t:?}")
                })
            }
            Data::Length(n) => Some(format!("length {n}")),
            Data::Name { at, len } => name_text(b, at, len, 64),
            Data::None => None,
        }
    }

    fn content_classes(&self, _b: &[u8], g: &Graph) -> Vec<crate::heap::ClassId> {
        (0..g.classes.len() as u32)
            .filter(|&c| {
                let n = g.classes[c as usize].name.as_str();
                n.ends_with("::_OneByteString") || n.ends_with("::_TwoByteString")
            })
            .collect()
    }

    /// A string's text when the snapshot kept all of it (the VM may keep a prefix only).
    fn content<'a>(&self, b: &'a [u8], g: &Graph, o: ObjId) -> Option<crate::format::Content<'a>> {
        let d = self.data_of(b, g, o)?;
        let (len, kept) = match d {
            Data::Latin1 { len, kept, .. } | Data::Utf16 { len, kept, .. } => (len, kept),
            _ => return None,
        };
        if (kept as u64) < len {
            return None;
        }
        let (text, _, _) = string_text(b, &d, usize::MAX)?;
        Some(crate::format::Content {
            string: true,
            data: std::borrow::Cow::Owned(text.into_bytes()),
            length: len,
            bytes: g.shallow_size(o),
            owns: None,
            encoding: crate::format::Encoding::Utf8,
        })
    }

    fn persistent_ids(&self, b: &[u8], g: &Graph) -> Option<(&'static str, Vec<u64>)> {
        if !self.hashes.present {
            return None;
        }
        let n = g.len();
        let mut ids = Vec::with_capacity(n);
        if let Some(&at) = self.hashes.marks.first() {
            let mut c = Cursor::new(&b[at as usize..], at);
            for _ in 0..self.hashes.read.min(n) {
                ids.push(c.uleb128("hash").unwrap_or(0));
            }
        }
        ids.resize(n, 0);
        Some(("identity hash", ids))
    }
}

fn data_kind(d: &Data) -> &'static str {
    spec::tag_name(match d {
        Data::None => spec::TAG_NONE,
        Data::Null => spec::TAG_NULL,
        Data::Bool(_) => spec::TAG_BOOL,
        Data::Int { .. } => spec::TAG_INT,
        Data::Double(_) => spec::TAG_DOUBLE,
        Data::Latin1 { .. } => spec::TAG_LATIN1,
        Data::Utf16 { .. } => spec::TAG_UTF16,
        Data::Length(_) => spec::TAG_LENGTH,
        Data::Name { .. } => spec::TAG_NAME,
    })
}
