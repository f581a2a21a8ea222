//! The Go heap dump reader: `runtime/debug.WriteHeapDump` files (headers go1.5 to go1.7;
//! Go 1.19 still writes go1.7, `specs/NOTES.md` §4).
//!
//! Owns turning the records into the format-neutral [`Graph`] and the goroutines into
//! [`Thread`]s; [`decode::GoDecoder`] answers the rest (words, pointers, text) later.
//!
//! The file has no record lengths: pass 1 decodes every field of every record, keeping
//! each object's address, record offset and size, the goroutines and their frames, the
//! data and bss segments, finalizers, memstats and allocation samples. Objects carry no
//! type, so pointers are raw words: sorting the objects by address lets each pointer slot
//! be resolved by range (interior pointers are common); pointers into stacks, data,
//! read-only data or nowhere are dropped and counted. A "class" is the allocation site
//! (innermost non-runtime frame of the object's alloc sample) when the program ran with
//! `runtime.MemProfileRate = 1`, else the size class (the content length).

pub mod decode;
pub mod need;
pub mod roles;

use std::collections::HashMap;

use crate::error::ParseError;
use crate::format::read::{Cursor, ReadResult};
use crate::format::{Format, Snapshot};
use crate::heap::{ClassInfo, EdgeBuilder, Frame, Graph, ObjId, Root, RootKind, Thread};
use crate::source::Source;
use crate::sys::progress::Progress;
use decode::GoDecoder;

/// A string field: its offset and length in the file.
fn string(c: &mut Cursor, what: &str) -> ReadResult<(usize, usize)> {
    let n = c.uleb128(what)?;
    let n = c.check_count(n, 1, what)?;
    let at = c.pos();
    c.skip(n, what)?;
    Ok((at, n))
}

/// Walks a fieldlist, calling `f` with the offset of every pointer slot.
pub fn fieldlist(c: &mut Cursor, ptr: u64, f: &mut dyn FnMut(u64)) -> ReadResult<()> {
    loop {
        let at = c.offset();
        let kind = c.uleb128("field kind")?;
        match kind {
            0 => return Ok(()),
            1 => f(c.uleb128("field offset")?),
            // iface / eface (older dumps): two pointer words.
            2 | 3 => {
                let off = c.uleb128("field offset")?;
                f(off);
                f(off + ptr);
            }
            k => {
                return Err(ParseError::new(
                    at,
                    "a field kind (0 end, 1 pointer, 2 iface, 3 eface)",
                    k.to_string(),
                ))
            }
        }
    }
}

struct Goroutine {
    id: u64,
    status: u64,
    system: bool,
    wait_reason: String,
    frames: Vec<Frame>,
}

/// A stack frame or segment whose pointer slots are roots: (content offset, length,
/// fieldlist offset in the file).
struct Slots {
    content: (usize, usize),
    fieldlist: usize,
}

#[derive(Default)]
struct Pass1 {
    objs: Vec<(u64, u64, u64)>,
    goroutines: Vec<Goroutine>,
    /// (goroutine index, depth, slots)
    frames: Vec<(usize, u32, Slots)>,
    segments: Vec<(RootKind, u64, Slots)>,
    finalizers: Vec<u64>,
    other_roots: Vec<u64>,
    memstats: Vec<u64>,
    profiles: HashMap<u64, Vec<(String, String, u64)>>,
    samples: Vec<(u64, u64)>,
    os_threads: u64,
    ptr_size: u64,
    big_endian: bool,
    arch: String,
    version: String,
    heap_range: (u64, u64),
    truncated: Option<u64>,
    warnings: Vec<String>,
}

fn text(b: &[u8], s: (usize, usize)) -> String {
    String::from_utf8_lossy(&b[s.0..s.0 + s.1]).into_owned()
}

fn pass1(b: &[u8], start: usize, progress: &Progress) -> Result<Pass1, ParseError> {
    let mut p = Pass1 {
        ptr_size: 8,
        ..Default::default()
    };
    let mut c = Cursor::new(&b[start..], start as u64);
    // Offsets inside `c` are relative to `start`; file offsets are `start + pos`.
    let abs = |pos: usize| start + pos;
    let mut last_report = 0;
    let mut saw_eof = false;
    loop {
        let at = c.offset();
        if c.pos() - last_report > (4 << 20) {
            progress.set(at);
            last_report = c.pos();
        }
        if c.is_empty() {
            break;
        }
        let r: ReadResult<bool> = (|| {
            let kind = c.uleb128("record kind")?;
            match kind {
                0 => return Ok(true),
                1 => {
                    let addr = c.uleb128("object address")?;
                    let (_, n) = string(&mut c, "object contents")?;
                    fieldlist(&mut c, p.ptr_size, &mut |_| {})?;
                    p.objs.push((addr, at, n as u64));
                }
                2 => {
                    string(&mut c, "root description")?;
                    p.other_roots.push(c.uleb128("root pointer")?);
                }
                3 => {
                    c.uleb128("type address")?;
                    c.uleb128("type size")?;
                    string(&mut c, "type name")?;
                    c.uleb128("type indirect flag")?;
                }
                4 => {
                    c.uleb128("goroutine address")?;
                    c.uleb128("stack pointer")?;
                    let id = c.uleb128("goroutine id")?;
                    c.uleb128("go statement pc")?;
                    let status = c.uleb128("status")?;
                    let system = c.uleb128("system flag")? != 0;
                    c.uleb128("background flag")?;
                    c.uleb128("wait since")?;
                    let reason = string(&mut c, "wait reason")?;
                    for what in ["context", "thread", "defer", "panic"] {
                        c.uleb128(what)?;
                    }
                    p.goroutines.push(Goroutine {
                        id,
                        status,
                        system,
                        wait_reason: text(b, (abs(reason.0), reason.1)),
                        frames: Vec::new(),
                    });
                }
                5 => {
                    c.uleb128("frame stack pointer")?;
                    let depth = c.uleb128("frame depth")?;
                    c.uleb128("child stack pointer")?;
                    let content = string(&mut c, "frame contents")?;
                    c.uleb128("entry pc")?;
                    let pc = c.uleb128("pc")?;
                    c.uleb128("continuation pc")?;
                    let name = string(&mut c, "function name")?;
                    let fl = c.pos();
                    fieldlist(&mut c, p.ptr_size, &mut |_| {})?;
                    let Some(g) = p.goroutines.len().checked_sub(1) else {
                        return Ok(false); // a frame before any goroutine: ignored
                    };
                    let function = text(b, (abs(name.0), name.1));
                    let frames = &mut p.goroutines[g].frames;
                    frames.push(Frame {
                        function,
                        location: format!("pc 0x{pc:x}"),
                        locals: Vec::new(),
                    });
                    p.frames.push((
                        g,
                        depth.min(u32::MAX as u64) as u32,
                        Slots {
                            content: (abs(content.0), content.1),
                            fieldlist: abs(fl),
                        },
                    ));
                }
                6 => {
                    p.big_endian = c.uleb128("big-endian flag")? != 0;
                    // Checked before it is kept: the records read before a bad params
                    // record stay in the snapshot, and every later pass reads words of
                    // `ptr_size` bytes (a size of 0 panicked in `word`; go fuzzer).
                    let ptr_size = c.uleb128("pointer size")?;
                    if ptr_size != 4 && ptr_size != 8 {
                        return Err(ParseError::new(
                            c.offset(),
                            "a pointer size of 4 or 8",
                            ptr_size.to_string(),
                        ));
                    }
                    p.ptr_size = ptr_size;
                    p.heap_range = (c.uleb128("heap start")?, c.uleb128("heap end")?);
                    let arch = string(&mut c, "architecture")?;
                    let ver = string(&mut c, "GOEXPERIMENT")?;
                    c.uleb128("ncpu")?;
                    p.arch = text(b, (abs(arch.0), arch.1));
                    p.version = text(b, (abs(ver.0), ver.1));
                }
                7 | 11 => {
                    p.finalizers.push(c.uleb128("finalizer object")?);
                    for what in ["FuncVal", "entry pc", "argument type", "object type"] {
                        c.uleb128(what)?;
                    }
                }
                8 => {
                    c.uleb128("itab address")?;
                    c.uleb128("itab type")?;
                }
                9 => {
                    for what in ["thread address", "Go thread id", "OS thread id"] {
                        c.uleb128(what)?;
                    }
                    p.os_threads += 1;
                }
                10 => {
                    p.memstats.clear();
                    for _ in 0..281 {
                        p.memstats.push(c.uleb128("memstats field")?);
                    }
                }
                12 | 13 => {
                    let addr = c.uleb128("segment address")?;
                    let content = string(&mut c, "segment contents")?;
                    let fl = c.pos();
                    fieldlist(&mut c, p.ptr_size, &mut |_| {})?;
                    let kind = if kind == 12 {
                        RootKind::DataSegment
                    } else {
                        RootKind::BssSegment
                    };
                    p.segments.push((
                        kind,
                        addr,
                        Slots {
                            content: (abs(content.0), content.1),
                            fieldlist: abs(fl),
                        },
                    ));
                }
                14 => {
                    for _ in 0..7 {
                        c.uleb128("defer record field")?;
                    }
                }
                15 => {
                    for _ in 0..6 {
                        c.uleb128("panic record field")?;
                    }
                }
                16 => {
                    let id = c.uleb128("profile record id")?;
                    c.uleb128("allocation size")?;
                    let n = c.uleb128("stack frame count")?;
                    let n = c.check_count(n, 3, "profile stack frames")?;
                    let mut stack = Vec::with_capacity(n);
                    for _ in 0..n {
                        let f = string(&mut c, "function name")?;
                        let file = string(&mut c, "file name")?;
                        let line = c.uleb128("line")?;
                        stack.push((
                            text(b, (abs(f.0), f.1)),
                            text(b, (abs(file.0), file.1)),
                            line,
                        ));
                    }
                    c.uleb128("allocations")?;
                    c.uleb128("frees")?;
                    p.profiles.insert(id, stack);
                }
                17 => {
                    let addr = c.uleb128("sampled object")?;
                    let id = c.uleb128("profile record id")?;
                    p.samples.push((addr, id));
                }
                k => {
                    return Err(ParseError::new(
                        at,
                        "a record kind from 0 to 17",
                        k.to_string(),
                    ))
                }
            }
            Ok(false)
        })();
        match r {
            Ok(true) => {
                saw_eof = true;
                break;
            }
            Ok(false) => {}
            Err(e) => {
                // A read that ran out of bytes: the cursor says "end of file" when none
                // are left (a cut right after a field), "only N bytes before the end"
                // when some are, and a count check "only N bytes left". Missing the
                // first made a cut right after a record's kind an unreadable record
                // (and, before any object, a refusal): found by tests/no_cache/truncation.rs.
                let cut = e.found.contains("before the end")
                    || e.found.contains("bytes left")
                    || e.found == "end of file";
                // A record that is there but wrong (an unknown kind, a bad field) is not
                // a cut: the file is damaged, and says where (exit 2), rather than
                // passing for a truncated one.
                if !cut {
                    return Err(e);
                }
                p.truncated = Some(at);
                break;
            }
        }
    }
    if !saw_eof && p.truncated.is_none() {
        p.truncated = Some(b.len() as u64);
        p.warnings.push("the dump has no EOF record".into());
    }
    Ok(p)
}

/// Objects sorted by address, for resolving a pointer by range: a block table over the
/// addresses ([`crate::heap::AddrIndex`]) finds the greatest start at or below the
/// pointer, and the object's size says whether the pointer falls inside it.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Ranges {
    pub index: crate::heap::AddrIndex,
    pub sizes: Vec<u64>,
}

impl Ranges {
    /// The object containing `p` and the offset of `p` in it.
    #[inline]
    pub fn resolve(&self, p: u64) -> Option<(ObjId, u64)> {
        let i = self.index.floor(p)?;
        let off = p - self.index.addr(i);
        (off < self.sizes[i as usize].max(1)).then_some((i, off))
    }

    pub fn addrs(&self) -> &[u64] {
        self.index.addrs()
    }
}

fn word(b: &[u8], at: usize, ptr: u64, big: bool) -> Option<u64> {
    let w = b.get(at..at + ptr as usize)?;
    Some(if ptr == 4 {
        let a = [w[0], w[1], w[2], w[3]];
        (if big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }) as u64
    } else {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        if big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    })
}

/// The innermost frame of an allocation stack that is not the runtime's own.
fn alloc_site(stack: &[(String, String, u64)]) -> Option<String> {
    let f = stack
        .iter()
        .find(|(func, _, _)| !func.starts_with("runtime.") && !func.starts_with("runtime/"))
        .or_else(|| stack.first())?;
    Some(format!("{} ({}:{})", f.0, f.1, f.2))
}

/// Opens a Go heap dump whose bytes `source` holds.
pub fn open(source: Source, progress: &Progress) -> Result<Snapshot, ParseError> {
    let b = source.bytes();
    let nl = b.iter().take(32).position(|&c| c == b'\n').ok_or_else(|| {
        ParseError::new(
            0,
            "\"goX.Y heap dump\\n\"",
            "no newline in the first 32 bytes",
        )
    })?;
    let header = String::from_utf8_lossy(&b[..nl]).into_owned();
    progress.phase("reading records", b.len() as u64);
    let mut p = pass1(b, nl + 1, progress)?;
    progress.phase("sorting objects", 0);
    // Objects come in span order: many short ascending runs, where pdqsort beats merging.
    p.objs.sort_unstable_by_key(|o| o.0);
    let before = p.objs.len();
    p.objs.dedup_by_key(|o| o.0);
    if p.objs.len() < before {
        p.warnings.push(format!(
            "{} object records repeat an address; one of each is used",
            before - p.objs.len()
        ));
    }
    let n = p.objs.len();
    if n >= u32::MAX as usize - 1 {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 - 1 objects",
            n.to_string(),
        ));
    }
    let ranges = Ranges {
        index: crate::heap::AddrIndex::new(p.objs.iter().map(|o| o.0).collect()),
        sizes: p.objs.iter().map(|o| o.2).collect(),
    };
    let (ptr, big) = (p.ptr_size, p.big_endian);

    // Classes: allocation sites where sampled, else size classes.
    let mut g = Graph::default();
    let mut groups: HashMap<String, u32> = HashMap::new();
    let mut group = |g: &mut Graph, name: String| -> u32 {
        *groups.entry(name.clone()).or_insert_with(|| {
            g.classes.push(ClassInfo { name });
            (g.classes.len() - 1) as u32
        })
    };
    let mut site: Vec<u32> = vec![u32::MAX; n];
    let mut sampled = 0u64;
    for &(addr, id) in &p.samples {
        if let (Some((o, 0)), Some(stack)) = (ranges.resolve(addr), p.profiles.get(&id)) {
            if let Some(s) = alloc_site(stack) {
                site[o as usize] = group(&mut g, s);
                sampled += 1;
            }
        }
    }
    let by_site = sampled > 0;
    progress.phase("resolving pointers", n as u64);
    // Size classes as groups, named once per size, not once per object.
    let mut size_groups: HashMap<u64, u32> = HashMap::new();
    let mut class_of: Vec<u32> = Vec::with_capacity(n);
    g.offset.reserve_exact(n);
    g.shallow.reserve_exact(n);
    for (i, &(_, off, size)) in p.objs.iter().enumerate() {
        let c = if site[i] != u32::MAX {
            site[i]
        } else {
            *size_groups
                .entry(size)
                .or_insert_with(|| group(&mut g, format!("size class {size}")))
        };
        class_of.push(c);
        g.offset.push(off);
        g.push_shallow(i as ObjId, size);
    }
    g.class_of = class_of.into();
    // Pointers, in parallel chunks of objects, joined in order.
    const CHUNK: usize = 1 << 16;
    let chunks: Vec<(Vec<u32>, Vec<ObjId>, u64, u64)> = {
        use rayon::prelude::*;
        let objs = &p.objs;
        let ranges = &ranges;
        let done = std::sync::atomic::AtomicU64::new(0);
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let range = k * CHUNK..((k + 1) * CHUNK).min(n);
                let mut ends = Vec::with_capacity(range.len());
                let mut targets = Vec::with_capacity(range.len() * 2);
                let (mut interior, mut dropped) = (0u64, 0u64);
                for &(_, off, _) in &objs[range.clone()] {
                    // Re-read the record: address, contents, fieldlist (pass 1 checked it).
                    let mut cur = Cursor::new(&b[off as usize..], off);
                    let _ = cur.uleb128("kind");
                    let _ = cur.uleb128("address");
                    if let Ok((at, len)) = string(&mut cur, "contents") {
                        let base = off as usize + at;
                        let _ = fieldlist(&mut cur, ptr, &mut |slot| {
                            if slot + ptr > len as u64 {
                                return;
                            }
                            if let Some(w) =
                                word(b, base + slot as usize, ptr, big).filter(|&w| w != 0)
                            {
                                match ranges.resolve(w) {
                                    Some((t, o)) => {
                                        interior += (o != 0) as u64;
                                        targets.push(t);
                                    }
                                    None => dropped += 1,
                                }
                            }
                        });
                    }
                    ends.push(targets.len() as u32);
                }
                let d = done.fetch_add(range.len() as u64, std::sync::atomic::Ordering::Relaxed);
                progress.set(d + range.len() as u64);
                (ends, targets, interior, dropped)
            })
            .collect()
    };
    let total: usize = chunks.iter().map(|c| c.1.len()).sum();
    if total >= u32::MAX as usize {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 pointers",
            total.to_string(),
        ));
    }
    let mut eb = EdgeBuilder::with_capacity(n, total);
    let (mut interior, mut dropped) = (0u64, 0u64);
    for (ends, targets, i, d) in chunks {
        let base = eb.targets.len() as u32;
        eb.targets.extend_from_slice(&targets);
        eb.start.extend(ends.iter().map(|&e| base + e));
        interior += i;
        dropped += d;
    }
    drop(site);
    eb.install(&mut g);

    // Roots: segments, finalizers, other roots, goroutine frames.
    let root = |g: &mut Graph, w: u64, kind: RootKind, thread: u32, frame: u32| -> Option<ObjId> {
        let (o, _) = ranges.resolve(w)?;
        g.roots.push(Root {
            obj: o,
            kind,
            thread,
            frame,
        });
        Some(o)
    };
    let slots = |s: &Slots, f: &mut dyn FnMut(u64, u64)| {
        let mut cur = Cursor::new(&b[s.fieldlist..], s.fieldlist as u64);
        let _ = fieldlist(&mut cur, ptr, &mut |slot| {
            if slot + ptr <= s.content.1 as u64 {
                if let Some(w) = word(b, s.content.0 + slot as usize, ptr, big).filter(|&w| w != 0)
                {
                    f(slot, w);
                }
            }
        });
    };
    for (kind, _, s) in &p.segments {
        slots(s, &mut |slot, w| {
            root(&mut g, w, *kind, u32::MAX, slot.min(u32::MAX as u64) as u32);
        });
    }
    for &w in &p.finalizers {
        root(&mut g, w, RootKind::Finalizing, u32::MAX, u32::MAX);
    }
    for &w in &p.other_roots {
        root(&mut g, w, RootKind::Unknown, u32::MAX, u32::MAX);
    }
    for (gi, depth, s) in &p.frames {
        let mut locals = Vec::new();
        slots(s, &mut |_, w| {
            if let Some(o) = root(&mut g, w, RootKind::GoroutineFrame, *gi as u32, *depth) {
                if !locals.contains(&o) {
                    locals.push(o);
                }
            }
        });
        if let Some(f) = p.goroutines[*gi].frames.get_mut(*depth as usize) {
            f.locals.extend(locals);
        }
    }
    g.sort_roots();

    let threads: Vec<Thread> = p
        .goroutines
        .into_iter()
        .enumerate()
        .map(|(i, gr)| Thread {
            name: format!("goroutine {}", gr.id),
            id: Some(gr.id),
            state: Some(match gr.status {
                0 => "idle".to_string(),
                1 => "runnable".to_string(),
                2 => "running".to_string(),
                3 => "syscall".to_string(),
                4 if !gr.wait_reason.is_empty() => gr.wait_reason.clone(),
                4 => "waiting".to_string(),
                s => format!("status {s}"),
            }),
            object: None,
            serial: i as u32,
            system: gr.system,
            frames: gr.frames,
            held: Vec::new(),
        })
        .collect();

    let ms = |k: usize| p.memstats.get(k).copied();
    let mut facts = vec![
        (
            "classes".to_string(),
            if by_site {
                format!("allocation sites ({sampled} objects sampled; the rest by size class)")
            } else {
                "size classes (objects carry no type; run with runtime.MemProfileRate = 1 for allocation sites)".to_string()
            },
        ),
        (
            "Go".to_string(),
            format!("{} {} ({}-byte pointers)", p.version, p.arch, ptr),
        ),
        (
            "heap range".to_string(),
            format!("0x{:x}..0x{:x}", p.heap_range.0, p.heap_range.1),
        ),
        ("goroutines".to_string(), threads.len().to_string()),
        ("OS threads".to_string(), p.os_threads.to_string()),
        (
            "pointers".to_string(),
            format!(
                "{interior} into the middle of an object; {dropped} outside every object (dropped)"
            ),
        ),
    ];
    if let (Some(alloc), Some(objs)) = (ms(0), ms(11)) {
        facts.push((
            "memstats".to_string(),
            format!(
                "Alloc {alloc}, HeapAlloc {}, HeapObjects {objs}, NumGC {}",
                ms(6).unwrap_or(0),
                ms(280).unwrap_or(0)
            ),
        ));
    }
    let mut warnings = std::mem::take(&mut p.warnings);
    if let Some(t) = p.truncated {
        warnings.insert(
            0,
            format!("truncated at byte offset {t}: the file is read as far as it is whole"),
        );
    }
    let mut samples = std::mem::take(&mut p.samples);
    samples.sort_unstable();
    let decoder = GoDecoder {
        ptr_size: ptr,
        big_endian: big,
        ranges,
        samples,
        profiles: std::mem::take(&mut p.profiles),
    };
    Ok(Snapshot {
        id_size: Some(ptr as u32),
        threads: threads.len(),
        thread_list: threads,
        truncated: p.truncated,
        warnings,
        facts,
        ..Snapshot::of(source, Format::Go, header, g, Box::new(decoder))
    })
}
