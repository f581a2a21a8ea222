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
mod classes;
pub mod decode;
mod layout;
pub mod need;
mod pass1;
mod pass2;
mod quick;
mod quick_waste;
pub mod roles;
pub mod spec;
mod strings;
mod threads;
mod unique;

pub use decode::HprofDecoder;
pub use quick::histogram as quick_histogram;
pub use quick_waste::waste as quick_waste;

use std::collections::HashMap;

use crate::error::ParseError;
use crate::format::read::{be_id, Cursor, ReadResult};
use crate::format::{Format, Snapshot};
use crate::heap::index::IdMap;
use crate::heap::{
    AddrIndex, ClassId, ClassInfo, EdgeBuilder, Graph, ObjId, Offsets, Root, RootKind,
};
use crate::source::Source;
use crate::sys::progress::Progress;
use bodies::{for_bodies, walk_body, Body, BodyEnd, Runs};
use classes::*;
use layout::*;
use pass1::*;
use pass2::*;
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

#[inline]
fn align8(x: u64) -> u64 {
    (x + 7) & !7
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

/// Memory a class dump's class takes beyond the estimate per byte of file: its records
/// (the name, the class, its field lists, its group) and the field lists' entries.
/// Measured by `tests/hostile_memory.rs` (allocations counted) on files of only class
/// dumps, which it holds to this bound: about 470 bytes per class of four fields (750,000
/// such classes, 130 MB of file, took 510 MB of anonymous memory for `summary`).
const PER_CLASS_DUMP: u64 = 512;
const PER_CLASS_DUMP_BYTE: u64 = 2;

/// A file of many class dumps takes far more memory than the estimate per byte of file
/// (which is measured on heaps of objects), all in small blocks that neither the guard
/// counts nor the disk can take: 750,000 classes in 159 MB took 550 MB where 190 MB was
/// estimated, and the kernel killed the process in a 600 MiB cgroup (issue 40). Once the
/// class dumps are counted, their memory is held to the budget: the file is refused with
/// the figures if it does not fit.
fn check_classes(p: &Pass1) -> Result<(), ParseError> {
    check_class_memory(&p.heap.class_dumps, p.heap.class_dump_bytes)
}

/// [`check_classes`] for a walk's list of class dumps (id, offset) and their bytes.
fn check_class_memory(class_dumps: &[(u64, usize)], bytes: u64) -> Result<(), ParseError> {
    let at = class_dumps.first().map_or(0, |c| c.1 as u64);
    check_class_count(class_dumps.len() as u64, bytes, at)
}

/// [`check_classes`] for `n` class dumps of `bytes` in all, the first at offset `at`:
/// also while they are read (a walk that keeps each one it meets).
fn check_class_count(n: u64, bytes: u64, at: u64) -> Result<(), ParseError> {
    let extra = n * PER_CLASS_DUMP + bytes * PER_CLASS_DUMP_BYTE;
    crate::sys::memory::check_more(extra, &format!("its {n} class dumps")).map_err(|why| {
        ParseError::new(
            at,
            "class dumps whose classes fit in the memory available",
            why,
        )
    })
}

/// Opens an HPROF file whose bytes `source` holds.
pub fn open(source: Source, progress: &Progress) -> Result<Snapshot, ParseError> {
    let b = source.bytes();
    let h = java_header(b)?;
    let id = h.id_size;
    progress.phase("reading records", b.len() as u64);
    let release = |r: std::ops::Range<usize>| source.release(r);
    let mut p = pass1(b, &h, progress, &release);
    if let Some(e) = p.damage.take() {
        return Err(e);
    }
    check_classes(&p)?;
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
    let mut class_of: Vec<ClassId> = crate::sys::huge::with_capacity(n);
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
            runs: &cls.runs,
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
        for cid in cls.extending(tc) {
            if let Some(r) = cls.recs.get(&cid) {
                thread_groups.push(r.group);
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
        // HotSpot writes the GC roots after the objects: a dump cut before them keeps
        // none, and would retain nothing. Its roots are then, as memlab takes them for
        // V8, the objects nothing references (over strong references).
        if g.roots.is_empty() && !g.class_of.is_empty() {
            root_the_unreferenced(&mut g);
            warnings.insert(
                0,
                "no GC roots in what is whole (they come last in the file): the objects \
                 nothing references are taken as roots"
                    .to_string(),
            );
        }
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
        fields_of: Default::default(),
        sampled: Default::default(),
    };
    let mut snap = Snapshot {
        id_size: Some(id as u32),
        truncated: p.truncated,
        warnings,
        facts,
        ..Snapshot::of(
            source,
            Format::Hprof,
            h.version.clone(),
            g,
            Box::new(decoder),
        )
    };
    snap.thread_list = threads::build(&snap, &thread_objects, &trace_frames, &thread_groups);
    // The threads listed, not the ROOT THREAD OBJECT records: HotSpot writes none for the
    // live threads it hides (5 of the 15 Java threads in the JDK 17 fixtures), which the
    // list finds by their Thread objects, so counting serials undercounts what `jstack`
    // shows and disagreed with the threads pane.
    snap.threads = snap.thread_list.len();
    Ok(snap)
}

#[inline]
fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Makes a root (of kind unknown) of every object that no strong reference reaches:
/// for a dump cut before its root records.
fn root_the_unreferenced(g: &mut Graph) {
    let n = g.class_of.len();
    let mut held = vec![0u64; n.div_ceil(64)];
    for (i, &t) in g.out_targets.iter().enumerate() {
        if !g.is_weak(i) && (t as usize) < n {
            held[t as usize / 64] |= 1 << (t % 64);
        }
    }
    for o in 0..n {
        if held[o / 64] >> (o % 64) & 1 == 0 {
            g.roots.push(Root {
                obj: o as ObjId,
                kind: crate::heap::RootKind::Unknown,
                thread: u32::MAX,
                frame: u32::MAX,
            });
        }
    }
    g.sort_roots();
}
