//! The MoarVM heap snapshot reader: `.mvmheap` files of format 2 (`MoarHeapDumpv002`,
//! what Debian's MoarVM writes, being built without zstd) and 3 (`MoarHeapDumpv003`,
//! zstd-compressed columns with tables of contents and JSON metadata).
//!
//! Owns turning one snapshot of such a file into the format-neutral [`Graph`]: what the
//! two versions share (the collectables and references of a snapshot, and the strings,
//! types and static frames that accumulate over the file) lives here; [`v2`] and [`v3`]
//! find the blocks and decode them; [`decode::MoarDecoder`] answers inspections later.
//!
//! A file holds several snapshots (one per GC run while profiling). Opening it walks the
//! whole file once to list them and to collect the strings, types and static frames
//! (small); only the snapshot asked for (`FILE#N`, else the last) has its collectables
//! and references decoded. Objects carry no content (no string values, no numbers): the
//! index is the graph, and the decoder keeps each reference's description (4 bytes per
//! reference) and each collectable's kind, type or frame and managed size (7 bytes).
//! `Graph::offset` stays empty: v3 collectables have no record of their own (they are rows
//! of compressed columns), and nothing is read back from the file after opening.
//!
//! Bad input: every count is checked against the bytes left before anything is sized from
//! it; zstd frames are streamed with a bounded window and refused past
//! [`MAX_EXPANSION`] times the file's size; a file cut short opens with the snapshots
//! that are whole before the cut (`truncated` names the offset); references to
//! collectables that do not exist are dropped and counted, and sizes are capped so that
//! no sum can overflow. A format 3 snapshot's collectables and references are counted
//! before its columns are decoded, and one whose index would not fit in the memory left
//! is refused then ([`crate::sys::memory`]): its frames, each within the ratio, can
//! claim a hundred million collectables from 14 MB.
//!
//! Modelling choices (`specs/NOTES.md` §5):
//! - Every collectable is an object of the graph, so counts equal the runtime's own
//!   (`snapmeta`). Class = the type name for objects; type objects and STables are
//!   `Name (type object)` and `Name (STable)` so that `Name` counts instances only, as
//!   the runtime's highscore tables do; the REPR is added (`Name [REPR]`) where one name
//!   stands for types of several REPRs. Frames group by static frame, `name (file:line)`.
//!   The root-set collectables are classes of their own, named as MoarVM names them.
//! - Size = managed + unmanaged size, as MoarVM's tools show it.
//! - GC roots: collectable 0 (the snapshot's root) and the root sets it refers to
//!   (permanent, VM instance, and per thread C stack, thread, inter-generational and call
//!   stack roots). The inter-generational set is the old generation's remembered set: it
//!   points straight at old objects, live or dead, and would make the virtual root the
//!   owner of everything it touches. Its references are therefore weak: live objects are
//!   owned (dominated, and reached by shortest paths) through their real roots, and old
//!   objects that died since the last full collection, which only the set still reaches,
//!   are "weakly reachable" and hang below the virtual root with what they hold. This is
//!   the community analyzer's rule (moar-ha follows those references last), and
//!   `summary`'s facts say how many objects it concerns.

pub mod decode;
pub mod need;
pub mod roles;
pub mod v2;
pub mod v3;

mod names;
pub use names::Names;
use std::collections::HashMap;

use crate::error::{Error, ParseError, Result};
use crate::format::{Format, Snapshot, SnapshotInfo};
use crate::heap::{ClassInfo, EdgeBuilder, Frame, Graph, ObjId, Root, RootKind, Thread};
use crate::source::Source;
use crate::sys::progress::Progress;
use decode::MoarDecoder;

/// Collectable kinds, as the file numbers them.
pub const KIND_OBJECT: u8 = 1;
pub const KIND_TYPE_OBJECT: u8 = 2;
pub const KIND_STABLE: u8 = 3;
pub const KIND_FRAME: u8 = 4;
pub const KIND_PERM_ROOTS: u8 = 5;
pub const KIND_INSTANCE_ROOTS: u8 = 6;
pub const KIND_CSTACK_ROOTS: u8 = 7;
pub const KIND_THREAD_ROOTS: u8 = 8;
pub const KIND_ROOT: u8 = 9;
pub const KIND_INTERGEN_ROOTS: u8 = 10;
pub const KIND_CALLSTACK_ROOTS: u8 = 11;

/// A kind in words (`inspect`), and for the root kinds the class name, as MoarVM's own
/// reference descriptions name them.
pub fn kind_name(kind: u8) -> &'static str {
    match kind {
        KIND_OBJECT => "object",
        KIND_TYPE_OBJECT => "type object",
        KIND_STABLE => "STable",
        KIND_FRAME => "frame",
        KIND_PERM_ROOTS => "Permanent Roots",
        KIND_INSTANCE_ROOTS => "VM Instance Roots",
        KIND_CSTACK_ROOTS => "C Stack Roots",
        KIND_THREAD_ROOTS => "Thread Roots",
        KIND_ROOT => "Root",
        KIND_INTERGEN_ROOTS => "Inter-generational Roots",
        KIND_CALLSTACK_ROOTS => "Thread Call Stack Roots",
        _ => "unknown kind",
    }
}

fn root_kind(kind: u8) -> Option<RootKind> {
    Some(match kind {
        KIND_ROOT => RootKind::Synthetic,
        KIND_PERM_ROOTS => RootKind::MoarPermanent,
        KIND_INSTANCE_ROOTS => RootKind::MoarInstance,
        KIND_CSTACK_ROOTS => RootKind::MoarCStack,
        KIND_THREAD_ROOTS => RootKind::MoarThread,
        KIND_INTERGEN_ROOTS => RootKind::MoarInterGen,
        KIND_CALLSTACK_ROOTS => RootKind::MoarCallStack,
        _ => return None,
    })
}

/// How far one zstd frame may expand, as a multiple of the file's size (plus 1 MiB): a
/// column of a real file expands to at most a few times the file (every column of a
/// snapshot is compressed at 2 to 110 to one, and a file holds at least one snapshot's
/// columns), so 64 times is generous, and a frame that claims more is refused before
/// it can exhaust memory.
pub const MAX_EXPANSION: u64 = 64;

/// One snapshot's tables, decoded from either version.
#[derive(Debug, Default)]
pub struct Tables {
    pub kind: Vec<u8>,
    pub type_or_frame: Vec<u32>,
    pub managed: Vec<u16>,
    pub unmanaged: Vec<u64>,
    pub ref_count: Vec<u32>,
    pub ref_start: Vec<u64>,
    /// Reference descriptions: `(index << 2) | kind`.
    pub ref_desc: Vec<u64>,
    /// Reference targets; `u32::MAX` for one beyond every collectable index.
    pub ref_target: Vec<u32>,
}

/// What the file says about one snapshot before it is decoded.
#[derive(Debug, Clone, Default)]
pub struct Listed {
    /// Blocks by name: (name, start, end) as file offsets (v2: `coll`, `refs`).
    pub blocks: Vec<(String, usize, usize)>,
    pub collectables: u64,
    pub references: Option<u64>,
    /// v3's snapmeta.
    pub meta: Option<serde_json::Value>,
}

impl Listed {
    pub fn block(&self, name: &str) -> Option<(usize, usize)> {
        self.blocks.iter().find(|b| b.0 == name).map(|b| (b.1, b.2))
    }
}

/// A walk over the whole file: its snapshots, names and how far it is whole.
#[derive(Debug, Default)]
pub struct Scan {
    pub snapshots: Vec<Listed>,
    pub names: Names,
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
    pub facts: Vec<(String, String)>,
    /// v3's filemeta `start_time`, for times relative to the profile's start.
    pub start_time: Option<u64>,
}

fn human_bytes(n: u64) -> String {
    if n >= 10 << 20 {
        format!("{:.1} MiB", n as f64 / (1 << 20) as f64)
    } else if n >= 10 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn label(scan: &Scan, i: usize) -> String {
    let l = &scan.snapshots[i];
    let refs = l
        .references
        .map(|r| format!(", {r} references"))
        .unwrap_or_default();
    match &l.meta {
        Some(m) => {
            let u = |k: &str| m.get(k).and_then(|v| v.as_u64());
            let time = match (u("snap_time"), scan.start_time) {
                (Some(t), Some(s)) if t >= s => {
                    format!(" at +{:.3} s", (t - s) as f64 / 1e6)
                }
                _ => String::new(),
            };
            format!(
                "GC {}{time}: {} collectables ({} objects, {} type objects, {} STables, {} frames){refs}, {}",
                u("gc_seq_num").map_or("?".into(), |g| g.to_string()),
                l.collectables,
                u("total_objects").map_or("?".into(), |g| g.to_string()),
                u("total_typeobjects").map_or("?".into(), |g| g.to_string()),
                u("total_stables").map_or("?".into(), |g| g.to_string()),
                u("total_frames").map_or("?".into(), |g| g.to_string()),
                u("total_heap_size").map_or("?".into(), human_bytes),
            )
        }
        None => format!("{} collectables{refs}", l.collectables),
    }
}

/// Opens snapshot `which` (0-based; the last when `None`) of a MoarVM heap snapshot file.
/// Errors name the file; a snapshot number the file does not have is a usage error.
pub fn open(source: Source, which: Option<usize>, progress: &Progress) -> Result<Snapshot> {
    let path = source.path.clone();
    let perr = |e: ParseError| Error::parse(&path, e);
    let b = source.bytes();
    let magic = b.get(..16).unwrap_or(b);
    let v3 = match magic {
        b"MoarHeapDumpv002" => false,
        b"MoarHeapDumpv003" => true,
        _ => {
            return Err(perr(ParseError::new(
                0,
                "\"MoarHeapDumpv002\" or \"MoarHeapDumpv003\" (the formats this reader knows)",
                crate::format::read::quoted_bytes(magic),
            )))
        }
    };
    progress.phase("listing snapshots", b.len() as u64);
    let mut scan = if v3 {
        v3::scan(b, progress).map_err(perr)?
    } else {
        v2::scan(b, progress).map_err(perr)?
    };
    let count = scan.snapshots.len();
    if count == 0 {
        return Err(perr(ParseError::new(
            scan.truncated.unwrap_or(16),
            "a whole snapshot (the collectables and references of at least one GC run)",
            "none before the file stops being whole",
        )));
    }
    let index = which.unwrap_or(count - 1);
    if index >= count {
        return Err(Error::Usage(format!(
            "{}: has {count} snapshot(s); #{index} is not one of them (0-based)",
            path.display()
        )));
    }
    let infos: Vec<SnapshotInfo> = (0..count)
        .map(|i| SnapshotInfo {
            index: i,
            label: label(&scan, i),
            objects: scan.snapshots[i].collectables,
        })
        .collect();
    let listed = scan.snapshots[index].clone();
    if v3 {
        // The columns are compressed, so the file's size says little: the snapshot's
        // counts decide, the references counted in their column (the metadata's
        // `total_refs` is only a claim).
        progress.phase("counting references", 0);
        let refs = v3::references(b, &listed).map_err(perr)?;
        let need = need::counted_need(listed.collectables, refs);
        crate::sys::memory::check_need(&path, Format::MoarVm.title(), b.len() as u64, need)?;
    }
    progress.phase("decoding the snapshot", 0);
    let tables = if v3 {
        v3::tables(b, &listed).map_err(perr)?
    } else {
        v2::tables(b, &listed).map_err(perr)?
    };
    progress.phase("building the graph", tables.kind.len() as u64);
    let names = std::mem::take(&mut scan.names);
    let built = build(tables, &names).map_err(perr)?;

    let mut facts = std::mem::take(&mut scan.facts);
    // Every snapshot of the file, this one marked (`summary` lists them in JSON too).
    facts.push((
        "snapshot".into(),
        format!("#{index} of {count} (FILE#N opens another, 0-based)"),
    ));
    for i in &infos {
        let mark = if i.index == index { "  <- open" } else { "" };
        facts.push((
            format!("snapshot #{}", i.index),
            format!("{}{mark}", i.label),
        ));
    }
    if let Some(m) = &listed.meta {
        facts.push(("snapmeta".into(), m.to_string()));
    }
    let kc = &built.kind_counts;
    facts.push((
        "collectables by kind".into(),
        format!(
            "object {}, type object {}, STable {}, frame {}, root sets {}",
            kc[KIND_OBJECT as usize],
            kc[KIND_TYPE_OBJECT as usize],
            kc[KIND_STABLE as usize],
            kc[KIND_FRAME as usize],
            (KIND_PERM_ROOTS..=KIND_CALLSTACK_ROOTS)
                .map(|k| kc[k as usize])
                .sum::<u64>()
        ),
    ));
    facts.push((
        "frames".into(),
        format!(
            "{} frame collectables; {} of them are listed by call stack roots (the runtime's total_frames counts only the others)",
            kc[KIND_FRAME as usize], built.callstack_frames
        ),
    ));
    facts.push((
        "classes".into(),
        "type names (\"Name (type object)\", \"Name (STable)\" for those; \"[REPR]\" added where a name has several REPRs); frames by static frame \"name (file:line)\"; sizes = managed + unmanaged".into(),
    ));
    facts.push(("inter-gen. roots".into(), built.intergen_fact.clone()));
    let mut warnings = std::mem::take(&mut scan.warnings);
    if built.dropped_refs > 0 {
        warnings.push(format!(
            "{} references point outside the snapshot's collectables (or outside its reference table) and are left out",
            built.dropped_refs
        ));
    }
    if built.capped > 0 {
        warnings.push(format!(
            "{} collectables claim sizes beyond what any snapshot can hold; counted as {} bytes each",
            built.capped,
            (1u64 << 40).min((1u64 << 62) / built.kind.len().max(1) as u64)
        ));
    }
    if let Some(t) = scan.truncated {
        warnings.insert(
            0,
            format!(
                "truncated at byte offset {t}: {count} snapshot(s) before it are whole; the rest is cut off"
            ),
        );
    }
    let version = String::from_utf8_lossy(magic).into_owned();
    let decoder = MoarDecoder {
        names,
        kind: built.kind,
        type_or_frame: built.type_or_frame,
        managed: built.managed,
        labels: built.labels,
        big_labels: built.big_labels,
        snapshot: infos[index].label.clone(),
    };
    Ok(Snapshot {
        threads: built.threads.len(),
        thread_list: built.threads,
        truncated: scan.truncated,
        warnings,
        facts,
        snapshots: infos,
        snapshot_index: index,
        ..Snapshot::of(
            source,
            Format::MoarVm,
            version,
            built.graph,
            Box::new(decoder),
        )
    })
}

/// A reference description packed in 32 bits: kind in the top two, index below; kind 3
/// means "look in the big labels" (an index of 2^30 or more).
pub const LABEL_BIG: u32 = 3 << 30;

fn pack_label(desc: u64) -> Option<u32> {
    let kind = (desc & 3) as u32;
    let index = desc >> 2;
    (kind < 3 && index < (1 << 30)).then_some(kind << 30 | index as u32)
}

struct Built {
    graph: Graph,
    kind: Vec<u8>,
    type_or_frame: Vec<u32>,
    managed: Vec<u16>,
    labels: Vec<u32>,
    big_labels: Vec<(u32, u64)>,
    threads: Vec<Thread>,
    kind_counts: [u64; 16],
    /// Collectables whose size was capped.
    capped: u64,
    /// Distinct frames that call stack roots refer to (MoarVM's total_frames leaves them out).
    callstack_frames: u64,
    dropped_refs: u64,
    intergen_fact: String,
}

/// Class names: per type, per static frame, per root kind; REPR added to colliding names.
struct Classes {
    by_name: HashMap<String, u32>,
    infos: Vec<ClassInfo>,
    /// Per type index: class of its objects, type objects, STables (u32::MAX: not yet).
    per_type: Vec<[u32; 3]>,
    per_frame: Vec<u32>,
    per_kind: [u32; 16],
    colliding: std::collections::HashSet<u32>,
}

impl Classes {
    fn new(names: &Names) -> Self {
        // A type name used with more than one REPR gets the REPR added.
        let mut reprs: HashMap<u32, u32> = HashMap::new();
        let mut colliding = std::collections::HashSet::new();
        for &[r, n] in &names.types {
            let name = n;
            match reprs.get(&name) {
                Some(&r0) if r0 != r => {
                    colliding.insert(name);
                }
                Some(_) => {}
                None => {
                    reprs.insert(name, r);
                }
            }
        }
        // Also types whose names are equal as text under different string indexes.
        let mut by_text: HashMap<&str, (u32, u32)> = HashMap::new();
        for &[r, n] in &names.types {
            let text = names.strings.get(n as usize).map(|s| &**s).unwrap_or("");
            let rt = names.strings.get(r as usize).map(|s| &**s).unwrap_or("");
            match by_text.get(text) {
                Some(&(n0, r0)) => {
                    let r0t = names.strings.get(r0 as usize).map(|s| &**s).unwrap_or("");
                    if r0t != rt {
                        colliding.insert(n);
                        colliding.insert(n0);
                    }
                }
                None => {
                    by_text.insert(text, (n, r));
                }
            }
        }
        Classes {
            by_name: HashMap::new(),
            infos: Vec::new(),
            per_type: vec![[u32::MAX; 3]; names.types.len()],
            per_frame: vec![u32::MAX; names.frames.len()],
            per_kind: [u32::MAX; 16],
            colliding,
        }
    }

    fn named(&mut self, name: String) -> u32 {
        if let Some(&c) = self.by_name.get(&name) {
            return c;
        }
        let c = self.infos.len() as u32;
        self.infos.push(ClassInfo { name: name.clone() });
        self.by_name.insert(name, c);
        c
    }

    fn of(&mut self, names: &Names, kind: u8, tofi: u32) -> u32 {
        match kind {
            KIND_OBJECT | KIND_TYPE_OBJECT | KIND_STABLE => {
                let slot = (kind - 1) as usize;
                if let Some(c) = self.per_type.get(tofi as usize).map(|p| p[slot]) {
                    if c != u32::MAX {
                        return c;
                    }
                }
                let base = match names.types.get(tofi as usize) {
                    Some(&[r, n]) => {
                        let name = names.string(n as u64);
                        if self.colliding.contains(&n) {
                            format!("{name} [{}]", names.string(r as u64))
                        } else {
                            name.into_owned()
                        }
                    }
                    None => format!("<type #{tofi} missing>"),
                };
                let name = match kind {
                    KIND_OBJECT => base,
                    KIND_TYPE_OBJECT => format!("{base} (type object)"),
                    _ => format!("{base} (STable)"),
                };
                let c = self.named(name);
                if let Some(p) = self.per_type.get_mut(tofi as usize) {
                    p[slot] = c;
                }
                c
            }
            KIND_FRAME => {
                if let Some(&c) = self.per_frame.get(tofi as usize) {
                    if c != u32::MAX {
                        return c;
                    }
                }
                let c = self.named(names.frame_name(tofi));
                if let Some(p) = self.per_frame.get_mut(tofi as usize) {
                    *p = c;
                }
                c
            }
            k => {
                let slot = (k as usize).min(15);
                if self.per_kind[slot] == u32::MAX {
                    let name = if (5..=11).contains(&k) {
                        kind_name(k).to_string()
                    } else {
                        format!("<collectable kind {k}>")
                    };
                    self.per_kind[slot] = self.named(name);
                }
                self.per_kind[slot]
            }
        }
    }
}

fn build(t: Tables, names: &Names) -> std::result::Result<Built, ParseError> {
    let n = t.kind.len();
    if n >= u32::MAX as usize - 1 {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 - 1 collectables",
            n.to_string(),
        ));
    }
    let m = t.ref_desc.len() as u64;
    let mut g = Graph::default();
    let mut classes = Classes::new(names);
    let mut kind_counts = [0u64; 16];
    let mut class_of: Vec<u32> = Vec::with_capacity(n);
    g.shallow.reserve_exact(n);
    // Unmanaged sizes are the runtime's word, not bytes of the file: a damaged one could
    // be anything. Capped so that no sum over the snapshot can overflow (1 TiB each, less
    // for snapshots of more than 4 M collectables).
    let cap = (1u64 << 40).min((1u64 << 62) / n.max(1) as u64);
    let mut capped = 0u64;
    for i in 0..n {
        let k = t.kind[i];
        kind_counts[(k as usize).min(15)] += 1;
        class_of.push(classes.of(names, k, t.type_or_frame[i]));
        let size = (t.managed[i] as u64).saturating_add(t.unmanaged[i]);
        capped += (size > cap) as u64;
        g.push_shallow(i as ObjId, size.min(cap));
    }
    g.class_of = class_of.into();
    // The references: each collectable's own run (runs are not in collectable order).
    let mut total = 0u64;
    for i in 0..n {
        total += t.ref_count[i] as u64;
    }
    let cap = total.min(m) as usize;
    if cap >= u32::MAX as usize {
        return Err(ParseError::new(
            0,
            "fewer than 2^32 references",
            cap.to_string(),
        ));
    }
    let mut eb = EdgeBuilder::with_capacity(n, cap);
    let mut labels: Vec<u32> = Vec::with_capacity(cap);
    let mut big_labels = Vec::new();
    let mut dropped = 0u64;
    let mut intergen_refs = 0u64;
    for i in 0..n {
        let start = t.ref_start[i];
        let cnt = t.ref_count[i] as u64;
        let end = start.saturating_add(cnt);
        if cnt > 0 && end > m {
            dropped += end - start.max(m).min(end);
        }
        let weak = t.kind[i] == KIND_INTERGEN_ROOTS;
        for r in start.min(m)..end.min(m) {
            let target = t.ref_target[r as usize];
            if target as usize >= n {
                dropped += 1;
                continue;
            }
            let e = eb.targets.len() as u32;
            eb.push(target, weak);
            intergen_refs += weak as u64;
            let d = t.ref_desc[r as usize];
            labels.push(match pack_label(d) {
                Some(l) => l,
                None => {
                    big_labels.push((e, d));
                    LABEL_BIG
                }
            });
        }
        eb.finish_object();
    }
    drop(t.ref_desc);
    drop(t.ref_target);
    drop(t.ref_start);
    drop(t.ref_count);
    drop(t.unmanaged);
    eb.install(&mut g);

    // Roots: collectable 0 and the root sets; per-thread sets numbered in the order the
    // root lists them (C stack, thread, inter-generational, call stack roots per thread).
    let mut thread_of: HashMap<ObjId, u32> = HashMap::new();
    let mut threads_seen = 0u32;
    for (o, &k) in t.kind.iter().enumerate() {
        if k != KIND_ROOT {
            continue;
        }
        for e in g.edges(o as ObjId) {
            let c = g.out_targets[e];
            match t.kind[c as usize] {
                KIND_CSTACK_ROOTS => {
                    threads_seen += 1;
                    thread_of.insert(c, threads_seen - 1);
                }
                KIND_THREAD_ROOTS | KIND_INTERGEN_ROOTS | KIND_CALLSTACK_ROOTS => {
                    thread_of.insert(c, threads_seen.saturating_sub(1));
                }
                _ => {}
            }
        }
    }
    // Per thread: its call stack roots and thread roots.
    let mut stacks: Vec<(u32, u8, ObjId)> = Vec::new();
    for (o, &k) in t.kind.iter().enumerate() {
        if let Some(kind) = root_kind(k) {
            let thread = thread_of.get(&(o as ObjId)).copied().unwrap_or(u32::MAX);
            g.roots.push(Root {
                obj: o as ObjId,
                kind,
                thread,
                frame: u32::MAX,
            });
            if (k == KIND_CALLSTACK_ROOTS || k == KIND_THREAD_ROOTS) && thread != u32::MAX {
                // Call stack first: it lists the innermost frames.
                stacks.push((thread, (k == KIND_THREAD_ROOTS) as u8, o as ObjId));
            }
        }
    }
    g.sort_roots();
    g.classes = classes.infos;

    // Threads: the frames each call stack root lists (innermost first, by depth), then
    // the frames the thread roots name (the current frame and the call stack's frames
    // that were moved to the heap), then their callers on the heap ("Caller").
    stacks.sort_unstable();
    let find = |w: &str| names.strings.iter().position(|s| &**s == w);
    let caller = find("Caller");
    let from_thread: Vec<usize> = [
        "Current frame",
        "Callstack reference to heap-promoted frame",
    ]
    .iter()
    .filter_map(|w| find(w))
    .collect();
    let skip: Vec<usize> = ["Caller", "Outer", "Code reference", "Static frame"]
        .iter()
        .filter_map(|w| find(w))
        .collect();
    let string_label = |l: u32| (l >> 30 == 2).then_some((l & ((1 << 30) - 1)) as usize);
    let mut threads = Vec::new();
    let mut k = 0;
    while k < stacks.len() {
        let thread = stacks[k].0;
        let mut frames = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while k < stacks.len() && stacks[k].0 == thread {
            let (_, is_thread_roots, holder) = stacks[k];
            k += 1;
            for e in g.edges(holder) {
                let f = g.out_targets[e];
                let wanted = is_thread_roots == 0
                    || string_label(labels[e]).is_some_and(|s| from_thread.contains(&s));
                if wanted && t.kind[f as usize] == KIND_FRAME && seen.insert(f) {
                    frames.push(f);
                }
            }
        }
        let mut last = frames.last().copied();
        while let (Some(f), Some(caller)) = (last, caller) {
            last = None;
            for e in g.edges(f) {
                if string_label(labels[e]) == Some(caller) {
                    let c = g.out_targets[e];
                    if t.kind[c as usize] == KIND_FRAME && seen.insert(c) {
                        frames.push(c);
                        last = Some(c);
                    }
                    break;
                }
            }
        }
        let frames = frames
            .into_iter()
            .map(|f| {
                let (function, location) = names.frame_parts(t.type_or_frame[f as usize]);
                let mut locals = Vec::new();
                for e in g.edges(f) {
                    let l = labels[e];
                    let named_skip =
                        l >> 30 == 2 && skip.contains(&((l & ((1 << 30) - 1)) as usize));
                    let o = g.out_targets[e];
                    if !named_skip && t.kind[o as usize] != KIND_FRAME && !locals.contains(&o) {
                        locals.push(o);
                    }
                }
                Frame {
                    function,
                    location,
                    locals,
                }
            })
            .collect();
        threads.push(Thread {
            name: format!("thread {}", thread + 1),
            id: Some(thread as u64 + 1),
            state: None,
            object: None,
            serial: thread,
            system: false,
            frames,
            held: Vec::new(),
        });
    }

    let mut cs_frames: Vec<ObjId> = t
        .kind
        .iter()
        .enumerate()
        .filter(|(_, &k)| k == KIND_CALLSTACK_ROOTS)
        .flat_map(|(o, _)| g.edges(o as ObjId).map(|e| g.out_targets[e]))
        .filter(|&f| t.kind[f as usize] == KIND_FRAME)
        .collect();
    cs_frames.sort_unstable();
    cs_frames.dedup();
    let callstack_frames = cs_frames.len() as u64;

    // What the weak inter-generational references leave: objects only they reach.
    let (seen, _, _) = crate::heap::reach::reachable(&g);
    let (mut only, mut only_bytes) = (0u64, 0u64);
    for o in 0..n {
        if seen[o / 64] >> (o % 64) & 1 == 0 {
            only += 1;
            only_bytes += g.shallow_size(o as ObjId);
        }
    }
    let intergen_fact = format!(
        "{intergen_refs} references, weak: live objects are owned through their real roots; {only} collectables ({only_bytes} bytes) are reached only through them (old-generation objects dead since the last full collection, still in the remembered set): they hang below the virtual root, and paths reach them only with --include-weak"
    );
    Ok(Built {
        graph: g,
        kind: t.kind,
        type_or_frame: t.type_or_frame,
        managed: t.managed,
        labels,
        big_labels,
        threads,
        kind_counts,
        capped,
        callstack_frames,
        dropped_refs: dropped,
        intergen_fact,
    })
}
