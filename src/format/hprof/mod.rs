//! The HPROF reader: Java heap dumps from HotSpot (1.0.1, 1.0.2), the old JVMTI agent and
//! Android's ART (1.0.3), with 4- or 8-byte identifiers.
//!
//! Owns turning the mapped bytes into the format-neutral [`Graph`] and answering, later,
//! what the index does not keep. It does not own any analysis.
//!
//! Two passes. Pass 1 walks the top-level records once: it notes where each UTF8 record
//! is, maps class ids to names (LOAD CLASS), and lists the heap dump bodies in runs of
//! about 1 MiB ([`bodies`]); then it walks the bodies' sub-records, in parallel where
//! there are several runs (HotSpot writes thousands of 1 MiB segments), collecting every object's address and record offset,
//! every class dump and every GC root, merged in file order. Sorting the addresses gives
//! dense ids in heap order. Pass 2 visits the objects in id order, reading each record
//! where pass 1 found it, and emits its class, modelled shallow size and outgoing
//! references. Two passes are needed because ART writes a class dump wherever the class
//! object sits in the heap, possibly after its instances (`specs/NOTES.md` §2), and
//! because addresses must be ranked before references can be resolved.
//!
//! [`quick`] counts the class histogram in one walk of the bodies, without the index,
//! grouping and sizing objects with the same [`Classes`] and [`Layout`] as pass 2: the
//! TUI shows it while the index is built, and `histogram --no-retained` prints it.
//! [`quick_waste`] finds the waste report (duplicate strings and arrays, sparse
//! collections) the same way, for `waste` on a file with no index cache entry.
//!
//! Shallow sizes are a model: the file records field bytes, not heap sizes. HotSpot
//! objects are an object header plus their fields, aligned to 8; arrays an array header
//! plus elements. Whether compressed oops and compressed class pointers were on is not
//! written anywhere, so it is inferred from the gaps between consecutive arrays' addresses
//! (HotSpot dumps objects in address order, so the gap after an array is its real size).
//! ART's class dumps carry the real instance size, which is used as is.

mod bodies;
pub mod decode;
mod quick;
mod quick_waste;
pub mod spec;
mod threads;

pub use decode::HprofDecoder;
pub use quick::{histogram as quick_histogram, QuickHistogram};
pub use quick_waste::{waste as quick_waste, QuickWaste};

use std::collections::HashMap;

use crate::error::ParseError;
use crate::format::read::{be_id, Cursor, ReadResult};
use crate::format::{Format, Snapshot};
use crate::heap::index::IdMap;
use crate::heap::{
    AddrIndex, ClassId, ClassInfo, EdgeBuilder, Graph, ObjId, Offsets, Root, RootKind,
};
use crate::progress::Progress;
use crate::source::Source;
use bodies::{for_bodies, walk_body, Body, BodyEnd, Runs};
use spec::*;

/// The file header.
#[derive(Debug, Clone)]
pub struct Header {
    pub version: String,
    pub id_size: usize,
    pub timestamp_ms: u64,
    pub data_start: usize,
}

pub fn parse_header(b: &[u8]) -> ReadResult<Header> {
    let nul = b.iter().take(32).position(|&c| c == 0).ok_or_else(|| {
        ParseError::new(
            0,
            "\"JAVA PROFILE 1.0.x\" followed by a NUL byte",
            "no NUL within the first 32 bytes",
        )
    })?;
    let version = String::from_utf8_lossy(&b[..nul]).into_owned();
    let mut c = Cursor::new(&b[nul + 1..], nul as u64 + 1);
    let id_size = c.u32_be("identifier size")?;
    if id_size != 4 && id_size != 8 {
        return Err(ParseError::new(
            nul as u64 + 1,
            "identifier size 4 or 8",
            format!("{id_size}"),
        ));
    }
    let hi = c.u32_be("timestamp (high word)")? as u64;
    let lo = c.u32_be("timestamp (low word)")? as u64;
    Ok(Header {
        version,
        id_size: id_size as usize,
        timestamp_ms: hi << 32 | lo,
        data_start: nul + 1 + 12,
    })
}

/// A GC root as pass 1 finds it, before addresses are resolved.
struct RawRoot {
    addr: u64,
    kind: RootKind,
    thread: u32,
    frame: u32,
}

/// What pass 1 learns.
#[derive(Default)]
struct Pass1 {
    utf8: IdMap<(usize, usize)>,
    class_names: IdMap<u64>,
    /// What the heap dump bodies hold, merged in file order.
    heap: Part,
    /// STACK FRAME records: frame id → (method name id, source file id, class serial,
    /// line).
    frames: IdMap<(u64, u64, u32, i32)>,
    /// STACK TRACE records: serial → (thread serial, frame ids).
    traces: std::collections::HashMap<u32, (u32, Vec<u64>)>,
    /// LOAD CLASS: class serial → class id.
    class_serials: std::collections::HashMap<u32, u64>,
    truncated: Option<u64>,
    warnings: Vec<String>,
    saw_segments: bool,
    saw_heap: bool,
    saw_end: bool,
    stack_frames: usize,
    stack_traces: usize,
    /// Heap dump records found unreadable.
    unreadable: u64,
}

/// Total length (tag byte included) of the sub-record starting at `c`, or an error when
/// it is unknown or runs past the end of `c`.
#[inline]
fn sub_record_len(c: &Cursor, body: &[u8], id: usize) -> ReadResult<usize> {
    let pos = c.pos();
    let tag = body[pos];
    let mut r = *c;
    r.skip(1, "sub-record tag")?;
    let fixed = |n: usize| -> ReadResult<usize> {
        let mut r2 = *c;
        r2.skip(1 + n, "heap dump sub-record")?;
        Ok(1 + n)
    };
    match tag {
        0xFF | 0x05 | 0x07 | 0x89 | 0x8A | 0x8B | 0x8C | 0x8D | 0x90 => fixed(id),
        0x01 => fixed(2 * id),
        0x04 | 0x06 => fixed(id + 4),
        0x02 | 0x03 | 0x08 | 0x8E => fixed(id + 8),
        PRIMITIVE_ARRAY_NODATA => fixed(id + 9),
        HEAP_DUMP_INFO => fixed(4 + id),
        INSTANCE_DUMP => {
            r.skip(id + 4 + id, "instance dump header")?;
            let n = r.u32_be("instance field byte count")? as usize;
            r.skip(n, "instance field values")?;
            Ok(r.pos() - pos)
        }
        OBJECT_ARRAY_DUMP => {
            r.skip(id + 4, "object array header")?;
            let n = r.u32_be("object array length")? as u64;
            r.skip(id, "array class id")?;
            let n = r.check_count(n, id as u64, "object array elements")?;
            r.skip(n * id, "object array elements")?;
            Ok(r.pos() - pos)
        }
        PRIMITIVE_ARRAY_DUMP => {
            r.skip(id + 4, "primitive array header")?;
            let n = r.u32_be("primitive array length")? as u64;
            let at = r.offset();
            let t = r.u8("primitive array element type")?;
            let es = match type_size(t, id) {
                Some(s) if t != T_OBJECT => s,
                _ => {
                    return Err(ParseError::new(
                        at,
                        "a primitive element type code (4-11)",
                        format!("{t}"),
                    ))
                }
            };
            let n = r.check_count(n, es as u64, "primitive array elements")?;
            r.skip(n * es, "primitive array elements")?;
            Ok(r.pos() - pos)
        }
        CLASS_DUMP => {
            r.skip(id + 4 + 6 * id + 4, "class dump header")?;
            let cp = r.u16_be("constant pool count")?;
            for _ in 0..cp {
                r.skip(2, "constant pool index")?;
                let at = r.offset();
                let t = r.u8("constant pool type")?;
                let s = type_size(t, id)
                    .ok_or_else(|| ParseError::new(at, "a basic type code", format!("{t}")))?;
                r.skip(s, "constant pool value")?;
            }
            let statics = r.u16_be("static field count")?;
            for _ in 0..statics {
                r.skip(id, "static field name")?;
                let at = r.offset();
                let t = r.u8("static field type")?;
                let s = type_size(t, id)
                    .ok_or_else(|| ParseError::new(at, "a basic type code", format!("{t}")))?;
                r.skip(s, "static field value")?;
            }
            let fields = r.u16_be("instance field count")? as usize;
            r.skip(fields * (id + 1), "instance field descriptors")?;
            Ok(r.pos() - pos)
        }
        t => Err(ParseError::new(
            c.offset(),
            "a heap dump sub-record tag",
            format!("unknown tag 0x{t:02x}"),
        )),
    }
}

/// What pass 1 learns from heap dump bodies: object ids and record offsets, class
/// dumps, GC roots, heap names and thread objects, in file order.
#[derive(Default)]
struct Part {
    objs: Vec<(u64, u64)>,
    class_dumps: Vec<(u64, usize)>,
    roots: Vec<RawRoot>,
    heap_names: Vec<u64>,
    thread_serials: Vec<u32>,
    /// ROOT THREAD OBJECT: (thread object id, thread serial, stack trace serial).
    thread_objects: Vec<(u64, u32, u32)>,
}

impl Part {
    fn add_heap_name(&mut self, name: u64) {
        if !self.heap_names.contains(&name) {
            self.heap_names.push(name);
        }
    }

    /// Appends what a later body held.
    fn append(&mut self, mut later: Part) {
        self.objs.append(&mut later.objs);
        self.class_dumps.append(&mut later.class_dumps);
        self.roots.append(&mut later.roots);
        for name in later.heap_names {
            self.add_heap_name(name);
        }
        self.thread_serials.append(&mut later.thread_serials);
        self.thread_objects.append(&mut later.thread_objects);
    }

    /// Notes one sub-record: an object, a class dump, a root or a heap's name.
    fn visit(&mut self, tag: u8, rec: &[u8], off: u64, id: usize) {
        match tag {
            INSTANCE_DUMP | OBJECT_ARRAY_DUMP | PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                self.objs.push((be_id(&rec[1..], id), off));
            }
            CLASS_DUMP => {
                let cid = be_id(&rec[1..], id);
                self.objs.push((cid, off));
                self.class_dumps.push((cid, off as usize));
            }
            HEAP_DUMP_INFO => self.add_heap_name(be_id(&rec[5..], id)),
            t => {
                let Some((kind, extra)) = root_kind(t) else {
                    return;
                };
                let addr = be_id(&rec[1..], id);
                let (thread, frame) = match extra {
                    8 => (be_u32(&rec[1 + id..]), be_u32(&rec[5 + id..])),
                    4 => (be_u32(&rec[1 + id..]), u32::MAX),
                    _ => (u32::MAX, u32::MAX),
                };
                if t == ROOT_THREAD_OBJECT {
                    self.thread_serials.push(thread);
                    self.thread_objects.push((addr, thread, frame));
                    // The third field is a stack trace serial, not a frame.
                    self.roots.push(RawRoot {
                        addr,
                        kind,
                        thread,
                        frame: u32::MAX,
                    });
                } else if addr != 0 {
                    self.roots.push(RawRoot {
                        addr,
                        kind,
                        thread,
                        frame,
                    });
                }
            }
        }
    }
}

/// A class's Java name from LOAD CLASS and its UTF8 record, or its id when the dump has
/// no name for it.
fn class_name_of(
    b: &[u8],
    class_names: &IdMap<u64>,
    utf8: &IdMap<(usize, usize)>,
    cid: u64,
) -> String {
    class_names
        .get(&cid)
        .and_then(|&nid| utf8_text(b, utf8, nid))
        .map(|s| java_name(&s))
        .unwrap_or_else(|| format!("<class 0x{cid:x}>"))
}

/// Walks the top-level records: strings, classes, frames and traces are noted, the heap
/// dump records returned in runs for [`walk_body`] (a HotSpot dump holds thousands of
/// 1 MiB segments, which are walked in parallel).
fn top_level(b: &[u8], h: &Header, p: &mut Pass1) -> Vec<Body> {
    let id = h.id_size;
    let mut bodies = Runs::default();
    let mut pos = h.data_start;
    let len = b.len();
    while pos < len {
        if len - pos < 9 {
            p.truncated = Some(pos as u64);
            break;
        }
        let tag = b[pos];
        let rlen = be_u32(&b[pos + 5..]) as usize;
        let body_start = pos + 9;
        let claimed_end = body_start.saturating_add(rlen);
        let cut = claimed_end > len;
        let body_end = claimed_end.min(len);
        let body = &b[body_start..body_end];
        match tag {
            UTF8 if !cut && rlen >= id => {
                p.utf8.insert(be_id(body, id), (body_start + id, rlen - id));
            }
            LOAD_CLASS if !cut && rlen >= 8 + 2 * id => {
                let serial = be_u32(body);
                let class_id = be_id(&body[4..], id);
                let name_id = be_id(&body[8 + id..], id);
                p.class_names.insert(class_id, name_id);
                p.class_serials.insert(serial, class_id);
            }
            STACK_FRAME => {
                p.stack_frames += 1;
                if !cut && rlen >= 4 * id + 8 {
                    let fid = be_id(body, id);
                    let method = be_id(&body[id..], id);
                    let source = be_id(&body[3 * id..], id);
                    let at = 4 * id;
                    let class = be_u32(&body[at..]);
                    let line = be_u32(&body[at + 4..]) as i32;
                    p.frames.insert(fid, (method, source, class, line));
                }
            }
            STACK_TRACE => {
                p.stack_traces += 1;
                if !cut && rlen >= 12 {
                    let (serial, thread, n) = (
                        be_u32(body),
                        be_u32(&body[4..]),
                        be_u32(&body[8..]) as usize,
                    );
                    // The frame count is checked against the record's bytes.
                    let n = n.min((rlen - 12) / id);
                    let frames = (0..n).map(|k| be_id(&body[12 + k * id..], id)).collect();
                    p.traces.insert(serial, (thread, frames));
                }
            }
            HEAP_DUMP | HEAP_DUMP_SEGMENT => {
                if tag == HEAP_DUMP_SEGMENT {
                    p.saw_segments = true;
                }
                p.saw_heap = true;
                bodies.add(pos, body_end, cut);
                // A cut body says where the file ends once it is walked.
                if cut {
                    break;
                }
            }
            HEAP_DUMP_END => p.saw_end = true,
            _ => {}
        }
        if cut {
            if p.truncated.is_none() {
                p.truncated = Some(pos as u64);
            }
            break;
        }
        pos = claimed_end;
    }
    bodies.list
}

fn pass1(
    b: &[u8],
    h: &Header,
    progress: &Progress,
    release: &(dyn Fn(std::ops::Range<usize>) + Sync),
) -> Pass1 {
    let id = h.id_size;
    let mut p = Pass1::default();
    let bodies = top_level(b, h, &mut p);
    // The smallest object record is about 25 bytes and a typical one 40-50: reserving
    // for one object per 48 bytes avoids most regrowth (each regrowth copies the whole
    // vector) and never exceeds what the file's size justifies.
    p.heap.objs = crate::heap::huge::with_capacity(
        bodies.iter().map(|x| x.end - x.start).sum::<usize>() / 48,
    );
    for_bodies(
        &bodies,
        progress,
        |body| {
            let mut part = Part::default();
            let end = walk_body(b, body, id, release, |tag, rec, off| {
                part.visit(tag, rec, off, id);
                true
            });
            (part, end)
        },
        |body, (part, end)| {
            p.heap.append(part);
            p.body_end(body, end);
        },
    );
    p.finish(b.len());
    progress.set(b.len() as u64);
    p
}

/// What the shallow-size model assumes about the VM's object layout.
#[derive(Clone, Copy, Debug)]
struct Layout {
    obj_header: u64,
    ref_size: u64,
    array_header: u64,
    /// Array header for 8-byte elements (differs on 32-bit VMs and ART).
    array_header_wide: u64,
    /// ART: instance sizes come from the class dump.
    art: bool,
}

#[inline]
fn align8(x: u64) -> u64 {
    (x + 7) & !7
}

impl Layout {
    fn array(&self, n: u64, elem: u64) -> u64 {
        let h = if elem == 8 {
            self.array_header_wide
        } else {
            self.array_header
        };
        align8(h + n * elem)
    }
}

/// Bytes HotSpot adds to instances of a class beyond the fields the dump lists: fields
/// the VM injects (`javaClasses.hpp`, JDK 17: `loader_data`, `module_entry`, `vmindex`,
/// ...) and the padding around `@Contended` field groups (`java.lang.Thread`'s
/// thread-local-random group: 128 bytes before and after). The dump cannot show them, but
/// `GC.class_histogram` counts them, and a model without them is wrong for every class
/// loader and thread. Other `@Contended` classes (`Striped64$Cell`, `Exchanger$Node`,
/// ...) are not modelled: their annotation covers the whole class and rounds differently.
/// Returns (bytes added, whether the class's own part ends 8-aligned).
fn hidden_bytes(java_name: &str, l: &Layout) -> (u64, bool) {
    let intptr = if l.obj_header == 8 { 4 } else { 8 };
    let extra = match java_name {
        "java.lang.Thread" if l.obj_header > 8 => return (256, true),
        "java.lang.ClassLoader" | "java.lang.Module" | "java.lang.invoke.MemberName" => intptr,
        "java.lang.invoke.ResolvedMethodName" => intptr + l.ref_size,
        "java.lang.invoke.MethodHandleNatives$CallSiteContext" => 2 * intptr,
        "java.lang.StackFrameInfo" => 2,
        "java.lang.InternalError" => 1,
        "java.lang.Class" => 2 * intptr + 8 + 3 * l.ref_size,
        _ => 0,
    };
    (extra, false)
}

/// Per-class facts pass 2 needs for every instance.
struct ClassRec {
    group: ClassId,
    /// Reference slots in the instance data (byte offset, weak).
    refs: Vec<(u32, bool)>,
    /// Modelled heap size of an instance.
    instance_size: u64,
}

/// A class dump, parsed.
struct ClassDump {
    id: u64,
    super_id: u64,
    /// The class loader object (0: the boot loader).
    loader_id: u64,
    /// The reported "instance size" (ART: the real size).
    reported_size: u32,
    /// References held by the class object (super, loader, signers, protection domain,
    /// constant pool and static values).
    /// Bytes of primitive static fields, and the number of reference statics.
    static_bytes: u64,
    static_refs: u64,
    fields: Vec<(u64, u8)>,
}

fn parse_class_dump(b: &[u8], off: usize, id: usize) -> ReadResult<ClassDump> {
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

fn utf8_text<'a>(
    b: &'a [u8],
    utf8: &IdMap<(usize, usize)>,
    id: u64,
) -> Option<std::borrow::Cow<'a, str>> {
    let &(off, len) = utf8.get(&id)?;
    let bytes = b.get(off..off.checked_add(len)?)?;
    Some(modified_utf8(bytes))
}

/// Text of a UTF8 record, which is the JVM's modified UTF-8 (`specs/hprof.md` §1): NUL as
/// `C0 80` and characters above U+FFFF as two 3-byte surrogate halves (CESU-8), decoded
/// as the characters they stand for (plain lossy UTF-8 showed each as two to six U+FFFD:
/// tests/hostile.rs). Anything else invalid becomes U+FFFD, as `from_utf8_lossy` does.
pub(crate) fn modified_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(s);
    }
    // A 3-byte surrogate half ED A0..BF xx: its UTF-16 unit.
    let half = |b: &[u8]| -> Option<u32> {
        match b {
            [0xED, hi @ 0xA0..=0xBF, lo @ 0x80..=0xBF, ..] => {
                Some(0xD000 | (*hi as u32 & 0x3F) << 6 | (*lo as u32 & 0x3F))
            }
            _ => None,
        }
    };
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        let e = match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => e,
        };
        let (good, bad) = rest.split_at(e.valid_up_to());
        out.push_str(std::str::from_utf8(good).unwrap_or_default());
        if bad.starts_with(&[0xC0, 0x80]) {
            out.push('\0');
            rest = &bad[2..];
        } else if let Some(hi) = half(bad) {
            let pair = (0xD800..0xDC00)
                .contains(&hi)
                .then(|| half(&bad[3..]))
                .flatten()
                .filter(|lo| (0xDC00..0xE000).contains(lo));
            match pair {
                Some(lo) => {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                    rest = &bad[6..];
                }
                None => {
                    out.push('\u{FFFD}');
                    rest = &bad[3..];
                }
            }
        } else {
            out.push('\u{FFFD}');
            rest = &bad[e.error_len().unwrap_or(bad.len())..];
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether the layout is inferred from a sample of records (64-bit HotSpot), rather than
/// fixed by the id size or the writer (32-bit VMs, ART).
fn layout_is_inferred(h: &Header, art: bool) -> bool {
    h.id_size == 8 && !art
}

/// Infers compressed oops / class pointers from the address gaps after arrays.
fn infer_layout(b: &[u8], h: &Header, objs: &[(u64, u64)], art: bool) -> (Layout, String) {
    if !layout_is_inferred(h, art) {
        let l = Layout {
            obj_header: 8,
            ref_size: 4,
            array_header: 12,
            array_header_wide: 16,
            art,
        };
        let what = if art {
            "ART: instance sizes from the class dumps, 4-byte references"
        } else {
            "32-bit VM: 8-byte headers, 4-byte references"
        };
        return (l, what.to_string());
    }
    let id = h.id_size;
    // Votes: [ccp (16-byte array header), no ccp (24)], [coops (4-byte refs), 8-byte refs]
    let mut hdr = [0u64; 2];
    let mut refs = [0u64; 2];
    for w in objs.windows(2).take(2_000_000) {
        let (addr, off) = w[0];
        let gap = w[1].0.wrapping_sub(addr);
        if gap == 0 || gap > (1 << 20) {
            continue;
        }
        let off = off as usize;
        let Some(rec) = b.get(off..off + 2 + 2 * id + 8) else {
            continue;
        };
        match rec[0] {
            PRIMITIVE_ARRAY_DUMP => {
                let n = u32::from_be_bytes([
                    rec[1 + id + 4],
                    rec[2 + id + 4],
                    rec[3 + id + 4],
                    rec[4 + id + 4],
                ]) as u64;
                let es = type_size(rec[1 + id + 8], id).unwrap_or(1) as u64;
                if gap == align8(16 + n * es) {
                    hdr[0] += 1;
                } else if gap == align8(24 + n * es) {
                    hdr[1] += 1;
                }
            }
            OBJECT_ARRAY_DUMP => {
                let n = u32::from_be_bytes([
                    rec[1 + id + 4],
                    rec[2 + id + 4],
                    rec[3 + id + 4],
                    rec[4 + id + 4],
                ]) as u64;
                if n == 0 {
                    continue;
                }
                if gap == align8(16 + 4 * n) {
                    refs[0] += 1;
                    hdr[0] += 1;
                } else if gap == align8(16 + 8 * n) || gap == align8(24 + 8 * n) {
                    refs[1] += 1;
                }
            }
            _ => {}
        }
    }
    let max_addr = objs.last().map(|o| o.0).unwrap_or(0);
    let (ccp, coops, how) = if hdr[0] + hdr[1] + refs[0] + refs[1] >= 8 {
        (
            hdr[0] >= hdr[1],
            refs[0] >= refs[1] && hdr[0] >= hdr[1],
            format!(
                "inferred from {} array address gaps",
                hdr[0] + hdr[1] + refs[0] + refs[1]
            ),
        )
    } else {
        let small = max_addr < (32u64 << 30);
        (
            small,
            small,
            "assumed from the heap's addresses".to_string(),
        )
    };
    let l = Layout {
        obj_header: if ccp { 12 } else { 16 },
        ref_size: if coops { 4 } else { 8 },
        array_header: if ccp { 16 } else { 24 },
        array_header_wide: if ccp { 16 } else { 24 },
        art: false,
    };
    let what = format!(
        "{}, {} ({how})",
        if coops {
            "compressed oops"
        } else {
            "uncompressed oops"
        },
        if ccp {
            "compressed class pointers"
        } else {
            "uncompressed class pointers"
        }
    );
    (l, what)
}

/// Every class dump parsed, and each class's histogram group, reference slots and
/// modelled instance size: what the index and the quick histogram both group by.
struct Classes {
    /// The histogram groups, by [`ClassId`].
    infos: Vec<ClassInfo>,
    groups: HashMap<String, ClassId>,
    dumps: IdMap<ClassDump>,
    /// Class ids in file order.
    class_ids: Vec<u64>,
    recs: IdMap<ClassRec>,
    class_group: ClassId,
    class_instance_size: u64,
    prim_groups: [ClassId; 12],
    warnings: Vec<String>,
}

impl Classes {
    /// The group named `name`: a new one when `unique` (each dumped class is its own
    /// row even when two loaders define the same name), else the first of that name.
    fn group(&mut self, name: String, unique: bool) -> ClassId {
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

    fn build<'b>(
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

/// The header of a Java heap dump ("JAVA PROFILE 1.0.x"), or what was found instead.
fn java_header(b: &[u8]) -> ReadResult<Header> {
    let h = parse_header(b)?;
    if !h.version.starts_with("JAVA PROFILE 1.0.") {
        return Err(ParseError::new(
            0,
            "\"JAVA PROFILE 1.0.x\"",
            format!("{:?}", h.version),
        ));
    }
    Ok(h)
}

/// Object records the layout is inferred from: the first [`LAYOUT_SAMPLE`] in file
/// order, sorted by address (HotSpot writes objects in address order, so neighbours in
/// the file are neighbours in memory). The index and the quick histogram take the same
/// sample, so they size objects alike.
const LAYOUT_SAMPLE: usize = 2_000_000;

fn layout_sample(objs_in_file_order: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut s = objs_in_file_order[..objs_in_file_order.len().min(LAYOUT_SAMPLE)].to_vec();
    s.sort_by_key(|o| o.0);
    s
}

/// Opens an HPROF file whose bytes `source` holds.
pub fn open(source: Source, progress: &Progress) -> Result<Snapshot, ParseError> {
    let b = source.bytes();
    let h = java_header(b)?;
    let id = h.id_size;
    progress.phase("reading records", b.len() as u64);
    let release = |r: std::ops::Range<usize>| source.release(r);
    let mut p = pass1(b, &h, progress, &release);
    let art = h.version.ends_with("1.0.3");
    let (layout, layout_text) = infer_layout(b, &h, &layout_sample(&p.heap.objs), art);

    // Dense ids: rank by address.
    progress.phase("sorting objects", 0);
    // Stable sort on purpose: HotSpot writes the class dumps first and then every other
    // object in address order, so the input is a handful of sorted runs, which the
    // standard library's merge sort detects and merges in near-linear time.
    p.heap.objs.sort_by_key(|o| o.0);
    progress.phase("laying out classes", 0);
    let before = p.heap.objs.len();
    p.heap.objs.dedup_by_key(|o| o.0);
    if p.heap.objs.len() < before {
        p.warnings.push(format!(
            "{} object records repeat an address already seen; the first of each is used",
            before - p.heap.objs.len()
        ));
    }
    if p.heap.objs.len() >= u32::MAX as usize {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 objects",
            format!("{}", p.heap.objs.len()),
        ));
    }

    let mut g = Graph::default();
    let n = p.heap.objs.len();
    // Two independent reads of the record list, on two threads.
    let objs = &p.heap.objs;
    let (offset, addrs) = rayon::join(
        || objs.iter().map(|o| o.1).collect(),
        || AddrIndex::new(objs.iter().map(|o| o.0).collect()),
    );
    g.offset = offset;
    drop(std::mem::take(&mut p.heap.objs));

    let class_name = |cid: u64| class_name_of(b, &p.class_names, &p.utf8, cid);
    let field_name = |nid: u64| utf8_text(b, &p.utf8, nid);
    let mut cls = Classes::build(b, id, layout, &p.heap.class_dumps, &class_name, &field_name);
    let warnings = std::mem::take(&mut cls.warnings);
    p.warnings.extend(warnings);
    // A class lives as long as its defining loader (the VM's ClassLoaderData holds it),
    // but no field in the heap says so: give each loader object a reference to every
    // class it defined ("<defined class>"), so that application classes and their static
    // fields are owned by their loader rather than looking unreachable. Boot-loader
    // classes are GC roots ("system class") already.
    let mut loader_classes: Vec<(ObjId, Vec<ObjId>)> = Vec::new();
    {
        let mut by_loader: IdMap<Vec<ObjId>> = IdMap::default();
        for &cid in &cls.class_ids {
            if let Some(d) = cls.dumps.get(&cid) {
                if d.loader_id != 0 {
                    if let Some(c) = addrs.get(cid) {
                        by_loader.entry(d.loader_id).or_default().push(c);
                    }
                }
            }
        }
        for (loader, classes) in by_loader {
            if let Some(l) = addrs.get(loader) {
                loader_classes.push((l, classes));
            }
        }
        loader_classes.sort_by_key(|l| l.0);
    }

    const CHUNK: usize = 1 << 16;
    // Pass 2: class, size and references of every object, in id order, in parallel
    // chunks, a batch of chunks at a time: each batch's results are appended in order
    // and freed before the next, so that the chunks never hold a second copy of the
    // index (1.2 GB on 50 M objects when they were all kept until the end).
    progress.phase("resolving references", n as u64);
    // Every reference takes at least an id's bytes of the file, and a loader gets one
    // per class it defined: the edge arrays are reserved for that bound, so they never
    // regrow (capacity that is never written costs no memory).
    let edge_bound = (b.len() / id + cls.class_ids.len()).min(u32::MAX as usize);
    let mut e = EdgeBuilder::with_capacity(n, edge_bound);
    let mut class_of: Vec<ClassId> = crate::heap::huge::with_capacity(n);
    g.shallow = crate::heap::CompactColumn::wide_with_capacity(n);
    let mut dangling = 0u64;
    let mut fixups = Vec::new();
    let offsets = std::mem::take(&mut g.offset);
    {
        let ctx = Pass2 {
            b,
            id,
            offsets: &offsets,
            addrs: &addrs,
            recs: &cls.recs,
            dumps: &cls.dumps,
            layout,
            class_group: cls.class_group,
            class_instance_size: cls.class_instance_size,
            prim_groups: cls.prim_groups,
            loader_classes: &loader_classes,
            progress,
            release: &release,
            done: std::sync::atomic::AtomicU64::new(0),
        };
        use rayon::prelude::*;
        let chunks = n.div_ceil(CHUNK);
        let batch = rayon::current_num_threads().max(1) * 8;
        let mut first = 0;
        while first < chunks {
            let last = (first + batch).min(chunks);
            let done: Vec<Chunk> = (first..last)
                .into_par_iter()
                .map(|c| ctx.chunk(c * CHUNK..((c + 1) * CHUNK).min(n)))
                .collect();
            for (k, c) in (first..last).zip(done) {
                let base_obj = k * CHUNK;
                if e.targets.len() + c.targets.len() >= u32::MAX as usize {
                    return Err(ParseError::new(
                        0,
                        "fewer than 2^32 references",
                        format!("more than {}", e.targets.len()),
                    ));
                }
                let base_edge = e.targets.len() as u32;
                dangling += c.dangling;
                class_of.extend_from_slice(&c.class_of);
                for (i, &s) in c.shallow.iter().enumerate() {
                    g.push_shallow((base_obj + i) as ObjId, s);
                }
                for &w in &c.weak {
                    e.mark_weak((base_edge + w) as usize);
                }
                e.targets.extend_from_slice(&c.targets);
                e.start.extend(c.ends.iter().map(|&x| base_edge + x));
                fixups.extend(
                    c.unknown
                        .iter()
                        .map(|&(i, cid)| (base_obj + i as usize, cid)),
                );
            }
            first = last;
        }
    }
    g.offset = offsets;
    // Objects whose class has no CLASS DUMP: grouped by class id, named from LOAD CLASS.
    let mut unknown_groups: IdMap<ClassId> = IdMap::default();
    for (i, cid) in fixups {
        let gid = *unknown_groups
            .entry(cid)
            .or_insert_with(|| cls.group(class_name(cid), false));
        class_of[i] = gid;
    }
    g.class_of = class_of.into();
    g.classes = std::mem::take(&mut cls.infos);
    // Classes that are java.lang.Thread or extend it: their instances are threads even
    // when the dump gives them no ROOT THREAD OBJECT (HotSpot leaves out threads hidden
    // from external view, such as the compiler threads).
    let thread_class = cls
        .class_ids
        .iter()
        .copied()
        .find(|&c| class_name(c) == "java.lang.Thread");
    let mut thread_groups: Vec<ClassId> = Vec::new();
    if let Some(tc) = thread_class {
        for &cid in &cls.class_ids {
            let mut cur = Some(cid);
            let mut depth = 0;
            while let Some(c) = cur {
                if c == tc {
                    if let Some(r) = cls.recs.get(&cid) {
                        thread_groups.push(r.group);
                    }
                    break;
                }
                depth += 1;
                cur = cls
                    .dumps
                    .get(&c)
                    .map(|d| d.super_id)
                    .filter(|&x| x != 0 && depth < 512);
            }
        }
    }
    drop(std::mem::take(&mut cls.dumps));

    // Roots, and the threads' objects: the last uses of the address index, which goes
    // before the referrers are built (10 bytes per object less at that step's peak, and
    // nothing held when they are built later, beside the dominator pass).
    let mut unresolved_roots = 0u64;
    for r in &p.heap.roots {
        match addrs.get(r.addr) {
            Some(o) => g.roots.push(Root {
                obj: o,
                kind: r.kind,
                thread: r.thread,
                frame: r.frame,
            }),
            None => unresolved_roots += 1,
        }
    }
    g.sort_roots();
    let thread_objects: Vec<(Option<ObjId>, u32, u32)> = p
        .heap
        .thread_objects
        .iter()
        .map(|&(addr, serial, trace)| (addrs.get(addr), serial, trace))
        .collect();
    drop(addrs);
    e.install(&mut g);

    let mut warnings = std::mem::take(&mut p.warnings);
    if dangling > 0 {
        warnings.push(format!(
            "{dangling} references point at ids with no object in the dump (dangling; ignored)"
        ));
    }
    if unresolved_roots > 0 {
        warnings.push(format!(
            "{unresolved_roots} GC roots name ids with no object in the dump (ignored)"
        ));
    }
    if let Some(t) = p.truncated {
        warnings.insert(
            0,
            format!("truncated at byte offset {t}: the file is read as far as it is whole"),
        );
    }
    let mut facts = vec![
        ("object layout".to_string(), layout_text),
        ("class dumps".to_string(), cls.class_ids.len().to_string()),
        ("dangling references".to_string(), dangling.to_string()),
        (
            "stack traces / frames".to_string(),
            format!("{} / {}", p.stack_traces, p.stack_frames),
        ),
    ];
    if !p.heap.heap_names.is_empty() {
        let names: Vec<String> = p
            .heap
            .heap_names
            .iter()
            .map(|&nid| {
                utf8_text(b, &p.utf8, nid)
                    .map(|s| s.into_owned())
                    .unwrap_or_default()
            })
            .collect();
        facts.push(("heaps".to_string(), names.join(", ")));
    }
    let mut serials = p.heap.thread_serials.clone();
    serials.sort_unstable();
    serials.dedup();
    let trace_frames = {
        let text = |id: u64| utf8_text(b, &p.utf8, id).map(|c| c.into_owned());
        let cname = |cid: u64| class_name(cid);
        threads::trace_frames(&p.traces, &p.frames, &p.class_serials, &text, &cname)
    };
    let decoder = HprofDecoder {
        id_size: id,
        utf8: std::mem::take(&mut p.utf8),
        class_names: std::mem::take(&mut p.class_names),
        string_layout: Default::default(),
    };
    let mut snap = Snapshot {
        format: Format::Hprof,
        format_version: h.version.clone(),
        id_size: Some(id as u32),
        graph: g,
        threads: serials.len(),
        thread_list: Vec::new(),
        truncated: p.truncated,
        warnings,
        facts,
        decoder: Box::new(decoder),
        snapshots: Vec::new(),
        snapshot_index: 0,
        source,
    };
    snap.thread_list = threads::build(&snap, &thread_objects, &trace_frames, &thread_groups);
    Ok(snap)
}

/// Read-only context of pass 2, shared by the worker threads.
struct Pass2<'a> {
    b: &'a [u8],
    id: usize,
    offsets: &'a Offsets,
    addrs: &'a AddrIndex,
    recs: &'a IdMap<ClassRec>,
    dumps: &'a IdMap<ClassDump>,
    layout: Layout,
    class_group: ClassId,
    class_instance_size: u64,
    prim_groups: [ClassId; 12],
    /// Class loader objects (sorted) and the classes each defined.
    loader_classes: &'a [(ObjId, Vec<ObjId>)],
    progress: &'a Progress,
    release: &'a (dyn Fn(std::ops::Range<usize>) + Sync),
    done: std::sync::atomic::AtomicU64,
}

/// Pass 2's output for one range of objects.
#[derive(Default)]
struct Chunk {
    class_of: Vec<ClassId>,
    shallow: Vec<u64>,
    /// End of each object's edges, relative to the chunk's first edge.
    ends: Vec<u32>,
    targets: Vec<ObjId>,
    /// Weak edges, relative to the chunk's first edge.
    weak: Vec<u32>,
    /// (object relative to the chunk, class id) for classes with no CLASS DUMP.
    unknown: Vec<(u32, u64)>,
    dangling: u64,
}

#[inline]
fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

impl Pass2<'_> {
    fn chunk(&self, range: std::ops::Range<usize>) -> Chunk {
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
                            for &(o, weak) in &cr.refs {
                                let o = o as usize;
                                if o + id <= data.len() {
                                    push(be_id(&data[o..], id), weak, &mut c);
                                }
                            }
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
fn class_refs(c: &mut Cursor, id: usize, f: &mut dyn FnMut(u64)) -> ReadResult<()> {
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
