//! The Dart VM heap snapshot reader: the `dartheap` stream that the VM service sends for
//! `requestHeapSnapshot` (DevTools' "Download snapshot", `vm_service`'s
//! `HeapSnapshotGraph`).
//!
//! Owns turning the stream into the format-neutral [`Graph`]; [`decode::DartDecoder`]
//! answers the rest (field names, values, strings, identity hash codes) from the map
//! later. Layout and tables: [`spec`], `specs/dart-heap-snapshot.md` and its corrections,
//! `specs/NOTES.md` §6.
//!
//! The stream is all LEB128, with no record lengths, so one sequential pass reads it:
//! header, classes (kept whole: names, library and field lists are small), then every
//! object's class, shallow size, NonReferenceData (skipped; its offset is the object's
//! record offset, decoded again on demand) and references, then the external properties
//! and the identity hash codes. Object ids are the file's own 1-origin indices, so dense
//! id = index − 1 and no id map is needed; `OBJECT` is written `#index`.
//!
//! What real files do that the spec does not say, and what we do about it:
//! - A reference of 0 means "no object" (an unboxed slot): skipped, counted in a fact.
//! - Objects 1–3 are synthetic (`Root`, `Read-Only Pages`, `Isolate`); they are the GC
//!   roots (kind "synthetic root"). Every heap object is in the file, reachable or not:
//!   the unreachable ones are kept, have no dominator (MAT's rule, not V8's), and are
//!   counted in the `unreachable` fact beside the summary's reachable figures.
//! - `_Smi` IntegerData is the machine word as unsigned LEB128 (a negative Smi reads as
//!   2^32 − n on a 32-bit VM), `_Mint` is signed LEB128. The word size is not in the
//!   file: it is 64 bits when some Smi value needs more than 32 bits, else 32 bits
//!   (a 64-bit VM's negative Smis are ≥ 2^63, so a 64-bit file is told apart as soon as
//!   it holds one negative Smi; a 64-bit file without any is read right too unless it
//!   holds a positive Smi in 2^31..2^32, which would then show as negative).
//! - Identity hash codes may be missing (older VMs): the file then ends after the
//!   external properties, which is whole, not truncated. Their offsets are indexed every
//!   [`HASH_STRIDE`] objects (an eighth of a byte per object), not stored.
//! - References that the VM's GC treats as weak (a `_WeakProperty`'s key, a
//!   `_WeakReference`'s target, finalizer entries, `WeakArray` elements: [`spec::WEAK`])
//!   are marked weak.
//!
//! Bad input: a stream cut before the first object (header, class table) is an error
//! naming the offset; a stream cut later opens as far as its objects are whole
//! (`truncated` = the offset of the first object that is not; references to the missing
//! objects are dropped). A count that the bytes left could not hold (a string length, a
//! field or reference count) is refused before anything is sized from it: in the header
//! it is an error, among the objects it ends the readable part like a cut, with a
//! warning that quotes the count and its offset. The header's object and reference counts
//! bound the file (the memory check up front computes the index's need from them,
//! [`crate::sys::memory`]): no more objects are read, and more references are an
//! error at the object that brings one too many.

mod data;
pub mod decode;
pub mod need;
pub mod roles;
pub mod spec;

pub(crate) use data::header;
pub use data::Data;
use data::*;

use crate::error::ParseError;
use crate::format::read::{Cursor, ReadResult};
use crate::format::{Format, Snapshot};
use crate::heap::{ClassInfo, EdgeBuilder, Graph, ObjId, Root, RootKind};
use crate::source::Source;
use crate::sys::progress::Progress;
use decode::DartDecoder;

/// Every this many objects, the offset of that object's identity hash is kept.
pub const HASH_STRIDE: usize = 64;

/// One class of the snapshot with its field list.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Class {
    pub name: String,
    /// `dart.core`
    pub library_name: String,
    /// `dart:core`, `package:app/model.dart`; empty for the VM's internal classes.
    pub library_uri: String,
    /// (position in the object's reference list, field name); names may be empty.
    pub fields: Vec<(u64, String)>,
    /// Reference positions that are weak.
    pub weak: Vec<u64>,
    /// References past the fields (elements) are weak.
    pub weak_elements: bool,
}

impl Class {
    /// The class name as heaptui shows it: `libraryUri::Name` (`dart:core::_List`), the
    /// bare name for the VM's internal classes, `(class N)` for a nameless class id.
    pub fn display(&self, id: usize) -> String {
        match (self.library_uri.is_empty(), self.name.is_empty()) {
            (_, true) => format!("(class {id})"),
            (true, false) => self.name.clone(),
            (false, false) => format!("{}::{}", self.library_uri, self.name),
        }
    }

    /// The name of the reference at `pos` of an object of this class: the field's name,
    /// or `[k]` for the k-th reference past the fields (a list's elements, a static
    /// slot without a name).
    pub fn ref_label(&self, pos: u64) -> String {
        if let Some((_, n)) = self.fields.iter().find(|f| f.0 == pos) {
            if !n.is_empty() {
                return n.clone();
            }
            return format!("[{pos}]");
        }
        let base = self.fields.len() as u64;
        format!("[{}]", pos.saturating_sub(base))
    }

    fn is_weak(&self, pos: u64) -> bool {
        (self.weak_elements && pos >= self.fields.len() as u64) || self.weak.contains(&pos)
    }
}

/// A count of items of at least `min_size` bytes each, checked against the bytes left
/// before anything is sized from it; an error names the count's own offset.
pub(crate) fn count(c: &mut Cursor, min_size: u64, what: &str) -> ReadResult<usize> {
    let at = c.offset();
    let n = c.uleb128(what)?;
    c.check_count(n, min_size, what).map_err(|mut e| {
        e.offset = at;
        e
    })
}

/// A UTF-8 string of the stream: (absolute offset, length).
pub(crate) fn string(c: &mut Cursor, what: &str) -> ReadResult<(usize, usize)> {
    let n = count(c, 1, what)?;
    let at = c.offset() as usize;
    c.skip(n, what)?;
    Ok((at, n))
}

fn text(b: &[u8], s: (usize, usize)) -> String {
    String::from_utf8_lossy(&b[s.0..s.0 + s.1]).into_owned()
}

/// Totals of the object pass, for the facts.
#[derive(Default)]
struct Counts {
    zero_refs: u64,
    dangling_refs: u64,
    max_smi: u64,
    smis: u64,
}

/// Reads one object: its class (0-based), shallow size, smi value (when it is one), and
/// its references into `refs` (as written: 1-origin, 0 = none).
fn object(
    c: &mut Cursor,
    class_count: usize,
    smi_class: Option<u32>,
    refs: &mut Vec<u64>,
) -> ReadResult<(u32, u64, Option<u64>)> {
    let at = c.offset();
    let class = c.uleb128("class id")?;
    if class == 0 || class > class_count as u64 {
        return Err(ParseError::new(
            at,
            format!("a class id from 1 to {class_count}"),
            class.to_string(),
        ));
    }
    let class = (class - 1) as u32;
    let size = c.uleb128("shallow size")?;
    let d = data(c)?;
    let smi = match d {
        Data::Int { unsigned, .. } if Some(class) == smi_class => Some(unsigned),
        _ => None,
    };
    let n = count(c, 1, "references")?;
    refs.clear();
    for _ in 0..n {
        refs.push(c.uleb128("reference")?);
    }
    Ok((class, size, smi))
}

/// [`object`] without error messages, over the raw bytes: `None` wherever `object` would
/// fail (or a value is overlong), and then `object` reads the same bytes again to say
/// why. Same checks, a fraction of the cost: one bounds check per LEB128 byte.
#[inline]
fn object_fast(
    b: &[u8],
    p: &mut usize,
    class_count: usize,
    smi_class: Option<u32>,
    refs: &mut Vec<u64>,
) -> Option<(u32, u64, Option<u64>)> {
    #[inline(always)]
    fn leb(b: &[u8], p: &mut usize) -> Option<u64> {
        let x = *b.get(*p)?;
        *p += 1;
        if x < 0x80 {
            return Some(x as u64);
        }
        let (mut v, mut shift) = ((x & 0x7f) as u64, 7u32);
        loop {
            let x = *b.get(*p)?;
            *p += 1;
            if shift >= 63 && x > 1 {
                return None;
            }
            v |= ((x & 0x7f) as u64) << shift;
            if x < 0x80 {
                return Some(v);
            }
            shift += 7;
        }
    }
    #[inline(always)]
    fn skip(b: &[u8], p: &mut usize, n: u64) -> Option<()> {
        let left = (b.len() - *p) as u64;
        if n > left {
            return None;
        }
        *p += n as usize;
        Some(())
    }
    let class = leb(b, p)?;
    if class == 0 || class > class_count as u64 {
        return None;
    }
    let class = (class - 1) as u32;
    let size = leb(b, p)?;
    let mut smi = None;
    match leb(b, p)? {
        spec::TAG_NONE | spec::TAG_NULL => {}
        spec::TAG_BOOL | spec::TAG_LENGTH => {
            leb(b, p)?;
        }
        spec::TAG_INT => {
            let v = leb(b, p)?;
            if Some(class) == smi_class {
                smi = Some(v);
            }
        }
        spec::TAG_DOUBLE => skip(b, p, 8)?,
        t @ (spec::TAG_LATIN1 | spec::TAG_UTF16) => {
            leb(b, p)?;
            let kept = leb(b, p)?;
            let unit = if t == spec::TAG_LATIN1 { 1 } else { 2 };
            skip(b, p, kept.checked_mul(unit)?)?;
        }
        spec::TAG_NAME => {
            let n = leb(b, p)?;
            skip(b, p, n)?;
        }
        _ => return None,
    }
    let n = leb(b, p)?;
    if n > (b.len() - *p) as u64 {
        return None;
    }
    refs.clear();
    for _ in 0..n {
        refs.push(leb(b, p)?);
    }
    Some((class, size, smi))
}

/// Opens a Dart VM heap snapshot whose bytes `source` holds.
pub fn open(source: Source, progress: &Progress) -> Result<Snapshot, ParseError> {
    let b = source.bytes();
    let h = header(b)?;
    let class_count = h.classes.len();
    let smi_class = h
        .classes
        .iter()
        .position(|k| (k.library_uri.as_str(), k.name.as_str()) == spec::SMI)
        .map(|i| i as u32);
    let declared = h.object_count as usize;
    progress.phase("reading objects", b.len() as u64);

    let mut g = Graph::default();
    // Sized by what the bytes left can hold (an object is at least four bytes), never by
    // the count alone.
    let room = (b.len() - h.objects_at) / 4;
    let cap = declared.min(room);
    let mut class_of: Vec<u32> = Vec::with_capacity(cap);
    g.shallow.reserve_exact(cap);
    g.offset.reserve_exact(cap);
    let edges_hint = (h.reference_count as usize).min(b.len() - h.objects_at);
    let mut eb = EdgeBuilder::with_capacity(cap, edges_hint);
    let mut counts = Counts::default();
    let mut refs: Vec<u64> = Vec::new();
    let mut truncated: Option<u64> = None;
    let mut warnings: Vec<String> = Vec::new();
    // `p` walks the objects; the fast reader goes first, and the checked one reads an
    // object again only where the fast one gave up, to name what is wrong.
    let mut p = h.objects_at;
    let mut released = 0usize;
    let mut refs_read = 0u64;
    let max_size = (1u64 << 40).min((1u64 << 62) / declared.max(1) as u64);
    for i in 0..declared {
        let at = p as u64;
        if i % (1 << 20) == 0 {
            progress.set(at);
            // The pages behind the scan leave our resident set (they stay cached).
            if p - released >= 64 << 20 {
                source.release(released..p);
                released = p;
            }
        }
        let read = match object_fast(b, &mut p, class_count, smi_class, &mut refs) {
            Some(x) => Ok(x),
            None => {
                p = at as usize;
                let mut c = Cursor::new(&b[p..], at);
                let r = object(&mut c, class_count, smi_class, &mut refs);
                p += c.pos();
                r
            }
        };
        match read {
            Ok((class, size, smi)) => {
                refs_read += refs.len() as u64;
                if refs_read > h.reference_count {
                    // More than the header said: the memory check trusted the count.
                    return Err(ParseError::new(
                        at,
                        format!(
                            "at most {} references in all, the header's reference count",
                            h.reference_count
                        ),
                        format!("an object that brings them to {refs_read}"),
                    ));
                }
                if size > max_size {
                    // Sizes are summed (totals, retained sizes): none may wrap.
                    let size_at = at as usize
                        + b[at as usize..]
                            .iter()
                            .position(|&x| x < 0x80)
                            .map_or(0, |k| k + 1);
                    return Err(ParseError::new(
                        size_at as u64,
                        format!(
                            "a shallow size of at most {max_size} bytes (2^40, or 2^62 over the object count)"
                        ),
                        size.to_string(),
                    ));
                }
                if let Some(v) = smi {
                    counts.smis += 1;
                    counts.max_smi = counts.max_smi.max(v);
                }
                let cls = &h.classes[class as usize];
                for (pos, &r) in refs.iter().enumerate() {
                    if r == 0 {
                        counts.zero_refs += 1;
                    } else if r > declared as u64 {
                        counts.dangling_refs += 1;
                    } else {
                        eb.push((r - 1) as ObjId, cls.is_weak(pos as u64));
                    }
                }
                if eb.targets.len() >= u32::MAX as usize {
                    return Err(ParseError::new(at, "fewer than 2^32 references", "more"));
                }
                eb.finish_object();
                class_of.push(class);
                g.push_shallow(i as ObjId, size);
                g.offset.push(at);
            }
            Err(e) => {
                // A cut reads as the end of the bytes; an object that is there but wrong
                // (a bad tag, a class id past the table) is damage, and says where
                // (exit 2) rather than passing for a truncated file.
                let cut = e.found.contains("end of file")
                    || e.found.contains("before the end")
                    || e.found.contains("bytes left");
                if !cut {
                    return Err(e);
                }
                truncated = Some(at);
                if !e.found.contains("end of file") {
                    warnings.push(format!(
                        "object #{} at byte offset {at} is unreadable: expected {}, found {} (at byte offset {}); it and the objects after it are left out",
                        i + 1,
                        e.expected,
                        e.found,
                        e.offset
                    ));
                }
                break;
            }
        }
    }
    g.class_of = class_of.into();
    let n = g.class_of.len();
    if n < declared {
        // References to the objects that are not there are dropped.
        let mut kept = EdgeBuilder::with_capacity(n, eb.targets.len());
        for o in 0..n {
            for e in eb.start[o] as usize..eb.start[o + 1] as usize {
                let t = eb.targets[e];
                if (t as usize) < n {
                    let weak = eb.weak.get(e / 64).is_some_and(|w| w >> (e % 64) & 1 == 1);
                    kept.push(t, weak);
                } else {
                    counts.dangling_refs += 1;
                }
            }
            kept.finish_object();
        }
        eb = kept;
    }
    eb.install(&mut g);
    g.classes = h
        .classes
        .iter()
        .enumerate()
        .map(|(i, k)| ClassInfo {
            name: k.display(i + 1),
        })
        .collect();
    // The synthetic objects are the roots.
    for o in 0..n.min(3) {
        let k = &h.classes[g.class_of.get(o) as usize];
        if g.class_of.get(o) < 3
            && k.library_uri.is_empty()
            && spec::SYNTHETIC_CLASSES.contains(&k.name.as_str())
        {
            g.roots.push(Root {
                obj: o as ObjId,
                kind: RootKind::Synthetic,
                thread: u32::MAX,
                frame: u32::MAX,
            });
        }
    }
    if g.roots.is_empty() && n > 0 {
        warnings.push("object #1 is not the synthetic Root: it is taken as the root anyway".into());
        g.roots.push(Root {
            obj: 0,
            kind: RootKind::Synthetic,
            thread: u32::MAX,
            frame: u32::MAX,
        });
    }
    g.sort_roots();

    // External properties and identity hash codes, when the objects were whole.
    progress.phase("reading external properties and hash codes", 0);
    let mut c = Cursor::new(&b[p..], p as u64);
    let mut externals: Vec<(ObjId, u64, (usize, usize))> = Vec::new();
    let mut hashes = decode::Hashes::default();
    let mut ext_declared_total = 0u64;
    if truncated.is_none() {
        let at = c.offset();
        let r: ReadResult<()> = (|| {
            let props = count(&mut c, 3, "external properties")?;
            for _ in 0..props {
                let o = c.uleb128("external property object")?;
                let size = c.uleb128("external size")?;
                let name = string(&mut c, "external property name")?;
                ext_declared_total += size;
                if o >= 1 && o <= n as u64 {
                    externals.push(((o - 1) as ObjId, size, name));
                } else {
                    warnings.push(format!(
                        "an external property of {size} bytes names object #{o}, which is not in the snapshot"
                    ));
                }
            }
            Ok(())
        })();
        if let Err(e) = r {
            truncated = Some(at);
            externals.clear();
            if !e.found.contains("end of file") {
                warnings.push(format!(
                    "the external properties at byte offset {at} are unreadable: expected {}, found {} (at byte offset {})",
                    e.expected, e.found, e.offset
                ));
            }
        } else if !c.is_empty() {
            hashes = decode::Hashes::read(&mut c, n, HASH_STRIDE);
            if hashes.read < n {
                truncated = Some(c.offset());
            } else if !c.is_empty() {
                warnings.push(format!(
                    "{} bytes after the identity hash codes (from byte offset {}) are ignored",
                    c.remaining(),
                    c.offset()
                ));
            }
        }
    }
    externals.sort_by_key(|e| e.0);
    let ext_total: u64 = externals.iter().map(|e| e.1).sum();

    let word_bits = if counts.max_smi > u32::MAX as u64 {
        64
    } else {
        32
    };
    progress.phase("finding unreachable objects", 0);
    let (_, reach_n, reach_bytes) = crate::heap::reach::reachable(&g);
    let all_bytes: u64 = (0..n as ObjId).map(|o| g.shallow_size(o)).sum();
    let mut facts = vec![
        ("isolate".to_string(), h.name.clone()),
        (
            "classes".to_string(),
            "libraryUri::Name as the snapshot's class table gives them; --group-by package groups by library".to_string(),
        ),
        (
            "heap used".to_string(),
            format!(
                "{} bytes (the header's shallowSize: the VM's heap usage with image pages, not the sum of the objects)",
                h.shallow_size
            ),
        ),
        ("heap capacity".to_string(), format!("{} bytes", h.capacity)),
        (
            "external size".to_string(),
            format!(
                "{} bytes (header); {} external properties on {} objects, {} bytes",
                h.external_size,
                externals.len(),
                {
                    let mut v: Vec<ObjId> = externals.iter().map(|e| e.0).collect();
                    v.dedup();
                    v.len()
                },
                ext_total
            ),
        ),
        (
            "unreachable".to_string(),
            format!(
                "{} objects, {} bytes: in the file but not reached from the root (garbage the VM had not yet collected); they have no retained size",
                n as u64 - reach_n,
                all_bytes - reach_bytes
            ),
        ),
        (
            "references".to_string(),
            format!(
                "{} declared; {} are 0 (no object: unboxed or omitted slots) and skipped; {} name no object of the snapshot",
                h.reference_count, counts.zero_refs, counts.dangling_refs
            ),
        ),
        (
            "identity hash codes".to_string(),
            if !hashes.present {
                "absent (a VM older than the field): objects cannot be matched between snapshots".to_string()
            } else {
                format!(
                    "{} of {} objects have one (0 = none: Smis, strings, lists and more); diff matches objects by them",
                    hashes.nonzero, n
                )
            },
        ),
        (
            "word size".to_string(),
            format!(
                "{word_bits}-bit, from the {} Smi values (largest raw value {})",
                counts.smis, counts.max_smi
            ),
        ),
    ];
    if h.flags != 0 {
        facts.push(("flags".to_string(), h.flags.to_string()));
    }
    if ext_declared_total != h.external_size && truncated.is_none() {
        warnings.push(format!(
            "the external properties add up to {ext_declared_total} bytes; the header says {}",
            h.external_size
        ));
    }
    if let Some(t) = truncated {
        warnings.insert(
            0,
            format!(
                "truncated at byte offset {t}: the file is read as far as it is whole ({n} of {declared} objects)"
            ),
        );
    }
    let decoder = DartDecoder {
        classes: h.classes,
        smi_class,
        word_bits,
        externals: externals.iter().map(|e| (e.0, e.1)).collect(),
        hashes,
    };
    let version = if h.flags == 0 {
        "dartheap".to_string()
    } else {
        format!("dartheap (flags {})", h.flags)
    };
    Ok(Snapshot {
        truncated,
        warnings,
        facts,
        ..Snapshot::of(source, Format::Dart, version, g, Box::new(decoder))
    })
}

/// The offset where the identity hash codes start (just after the external properties),
/// or `None` when the stream is not whole up to there. For tests that cut a real file
/// into one without hash codes.
pub fn hash_codes_offset(b: &[u8]) -> Option<usize> {
    let h = header(b).ok()?;
    let mut c = Cursor::new(&b[h.objects_at..], h.objects_at as u64);
    let mut refs = Vec::new();
    for _ in 0..h.object_count {
        object(&mut c, h.classes.len(), None, &mut refs).ok()?;
    }
    let count = c.uleb128("external property count").ok()?;
    for _ in 0..count {
        c.uleb128("object").ok()?;
        c.uleb128("size").ok()?;
        string(&mut c, "name").ok()?;
    }
    Some(c.offset() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb_reads_both_ways() {
        // -5000000000 as SLEB128, -1 and 63 / -64 at the one-byte sign boundary.
        for (bytes, u, s) in [
            (vec![0x7f], 0x7f, -1i64),
            (vec![0x3f], 0x3f, 63),
            (vec![0x40], 0x40, -64),
            (vec![0x80, 0x01], 0x80, 128),
        ] {
            let mut c = Cursor::new(&bytes, 0);
            assert_eq!(leb(&mut c, "v").unwrap(), (u, s));
        }
        let mut v = Vec::new();
        let mut x: i64 = -5_000_000_000;
        loop {
            let byte = (x & 0x7f) as u8;
            x >>= 7;
            let done = (x == 0 && byte & 0x40 == 0) || (x == -1 && byte & 0x40 != 0);
            v.push(if done { byte } else { byte | 0x80 });
            if done {
                break;
            }
        }
        let mut c = Cursor::new(&v, 0);
        assert_eq!(leb(&mut c, "v").unwrap().1, -5_000_000_000);
        // Eleven bytes of continuation: refused, not wrapped.
        let long = [0xffu8; 11];
        assert!(leb(&mut Cursor::new(&long, 0), "v").is_err());
    }

    #[test]
    fn labels_of_fields_and_elements() {
        let k = Class {
            name: "_List".into(),
            library_uri: "dart:core".into(),
            fields: vec![(0, "type_arguments_".into()), (1, "length_".into())],
            ..Default::default()
        };
        assert_eq!(k.display(93), "dart:core::_List");
        assert_eq!(k.ref_label(1), "length_");
        assert_eq!(k.ref_label(2), "[0]");
        assert_eq!(k.ref_label(7), "[5]");
        assert_eq!(Class::default().display(5), "(class 5)");
    }
}
