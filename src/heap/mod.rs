//! The format-neutral heap model.
//!
//! Owns what every view needs about every object, in columns indexed by a dense
//! [`ObjId`]: its class, its shallow size and where its record starts in the file; the
//! outgoing references as a CSR with a per-edge weak flag, the referrers as the transposed
//! CSR, and the GC roots with their kind. It does not own field values, strings, array
//! contents or edge names: a format's [`crate::format::Decoder`] decodes those from the
//! memory map when a view asks.
//!
//! The columns are [`Column`]s: vectors when a reader builds them, stretches of the
//! memory-mapped index cache entry when a dump is reopened ([`crate::cache`]).
//!
//! The analyses in this module's children (`histogram`, `dominators`, `paths`) look only
//! at this model, never at a format. The diff's growth by owner needs reference names
//! from a format's decoder, so it lives above, in [`crate::diff`], on top of
//! [`crate::format::Snapshot`].

pub mod column;
pub mod dominators;
pub mod histogram;
pub mod huge;
pub mod index;
pub mod packed;
pub mod paths;
pub mod reach;

pub use column::Column;
pub use index::{AddrIndex, EdgeBuilder};
pub use packed::{Offsets, Starts};

/// A dense object id, `0..objects`.
pub type ObjId = u32;
/// A dense class id, `0..classes`: whatever groups objects in the histogram.
pub type ClassId = u32;

/// The kind of a GC root, named as the runtimes' own tools name them.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum RootKind {
    Unknown,
    JniGlobal,
    JniLocal,
    JavaFrame,
    NativeStack,
    SystemClass,
    ThreadBlock,
    MonitorUsed,
    ThreadObject,
    InternedString,
    Finalizing,
    Debugger,
    ReferenceCleanup,
    VmInternal,
    JniMonitor,
    Unreachable,
    /// A snapshot's own synthetic root and what it refers to (V8's root, `(GC roots)`,
    /// the global object, embedder roots).
    Synthetic,
    /// A global object the snapshot's root points at directly (V8's shortcut edge from
    /// the root to Node's `global` or a page's `Window`).
    GlobalObject,
    /// A pointer slot of a Go data segment (global variables), at `frame` = the offset.
    DataSegment,
    /// A pointer slot of a Go bss segment, at `frame` = the offset.
    BssSegment,
    /// A pointer slot of a goroutine's stack frame (`thread` = goroutine, `frame` =
    /// depth).
    GoroutineFrame,
    /// MoarVM's root sets (the collectables that the snapshot's root refers to), named as
    /// MoarVM names them; the per-thread ones carry `thread`.
    MoarPermanent,
    MoarInstance,
    MoarCStack,
    MoarThread,
    MoarInterGen,
    MoarCallStack,
}

impl RootKind {
    pub fn name(self) -> &'static str {
        match self {
            RootKind::Unknown => "unknown",
            RootKind::JniGlobal => "JNI global",
            RootKind::JniLocal => "JNI local",
            RootKind::JavaFrame => "Java frame",
            RootKind::NativeStack => "native stack",
            RootKind::SystemClass => "system class",
            RootKind::ThreadBlock => "thread block",
            RootKind::MonitorUsed => "busy monitor",
            RootKind::ThreadObject => "thread",
            RootKind::InternedString => "interned string",
            RootKind::Finalizing => "finalizing",
            RootKind::Debugger => "debugger",
            RootKind::ReferenceCleanup => "reference cleanup",
            RootKind::VmInternal => "VM internal",
            RootKind::JniMonitor => "JNI monitor",
            RootKind::Unreachable => "unreachable",
            RootKind::Synthetic => "synthetic root",
            RootKind::GlobalObject => "global object",
            RootKind::DataSegment => "data segment",
            RootKind::BssSegment => "bss segment",
            RootKind::GoroutineFrame => "goroutine frame",
            RootKind::MoarPermanent => "permanent roots",
            RootKind::MoarInstance => "VM instance roots",
            RootKind::MoarCStack => "C stack roots",
            RootKind::MoarThread => "thread roots",
            RootKind::MoarInterGen => "inter-generational roots",
            RootKind::MoarCallStack => "call stack roots",
        }
    }
}

/// One GC root: the object, its kind, and for thread-bound roots the thread serial and
/// frame number (`u32::MAX` where there is none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Root {
    pub obj: ObjId,
    pub kind: RootKind,
    pub thread: u32,
    pub frame: u32,
}

/// A thread (Java thread, goroutine) with its stack, innermost frame first.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Thread {
    /// The name the runtime gave it (may hold untrusted text).
    pub name: String,
    /// The runtime's own id (Java `Thread.tid`, goroutine id), when known.
    pub id: Option<u64>,
    /// The state in the runtime's words (`RUNNABLE`, `WAITING`, `chan receive`, ...).
    pub state: Option<String>,
    /// The object that stands for the thread (a `java.lang.Thread`), when there is one.
    pub object: Option<ObjId>,
    /// The dump's serial number of the thread (HPROF), for matching roots.
    pub serial: u32,
    /// A thread of the runtime itself rather than of the program.
    pub system: bool,
    pub frames: Vec<Frame>,
    /// Objects the thread holds outside any known frame (e.g. Android's thread roots,
    /// which carry no frames; JNI locals without a frame).
    pub held: Vec<ObjId>,
}

/// One stack frame and the objects it holds (its locals).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Frame {
    /// `package.Class.method` (Java), `pkg.function` (Go).
    pub function: String,
    /// `File.java:42`, `Native Method`, `file.go:12`.
    pub location: String,
    pub locals: Vec<ObjId>,
}

/// A histogram group.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ClassInfo {
    /// The display name, already in the runtime's own tools' form (see CLI.md). May hold
    /// untrusted text: sanitise before it reaches a terminal.
    pub name: String,
}

/// The compact index of one snapshot.
#[derive(Debug, Default)]
pub struct Graph {
    /// Class of every object.
    pub class_of: column::ClassColumn,
    /// Shallow size of every object; `u32::MAX` means "look in `big_sizes`".
    pub shallow: Column<u32>,
    /// Sizes of the rare objects of 4 GiB or more.
    pub big_sizes: Vec<(ObjId, u64)>,
    /// File offset of every object's record (4.125 bytes per object: [`packed`]).
    pub offset: Offsets,
    /// CSR of outgoing references: `out_targets[out_start[i]..out_start[i+1]]`.
    /// (`out_start` and `in_start` take 2.0625 bytes per object: [`packed`].)
    pub out_start: Starts,
    pub out_targets: Column<ObjId>,
    /// One bit per edge in `out_targets`: set when the edge is weak (ignored by
    /// reachability, dominators and paths unless asked).
    pub weak: Column<u64>,
    /// Transposed CSR: who refers to each object.
    pub in_start: Starts,
    pub in_sources: Column<ObjId>,
    /// One bit per entry of `in_sources`: set when that reference is weak. Empty when
    /// the snapshot has no weak edge at all.
    pub in_weak: Column<u64>,
    /// GC roots, sorted by object (see [`Graph::sort_roots`]); an object may be rooted
    /// several times, by different kinds.
    pub roots: Vec<Root>,
    pub classes: Vec<ClassInfo>,
    /// Objects that nothing reaches still get a place in the dominator tree, below the
    /// virtual root (memlab's and DevTools' rule for V8 snapshots). Otherwise (MAT's rule
    /// for HPROF) they have no dominator and no retained size.
    pub orphans_are_roots: bool,
}

impl Graph {
    #[inline]
    pub fn len(&self) -> usize {
        self.class_of.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.class_of.is_empty()
    }

    #[inline]
    pub fn shallow_size(&self, o: ObjId) -> u64 {
        let s = self.shallow[o as usize];
        if s != u32::MAX {
            return s as u64;
        }
        self.big_sizes
            .iter()
            .find(|(id, _)| *id == o)
            .map(|(_, s)| *s)
            .unwrap_or(s as u64)
    }

    /// Sets a shallow size, keeping the column at four bytes per object.
    pub fn push_shallow(&mut self, o: ObjId, size: u64) {
        if size >= u32::MAX as u64 {
            self.shallow.push(u32::MAX);
            self.big_sizes.push((o, size));
        } else {
            self.shallow.push(size as u32);
        }
    }

    #[inline]
    pub fn edges(&self, o: ObjId) -> std::ops::Range<usize> {
        self.out_start.at(o as usize) as usize..self.out_start.at(o as usize + 1) as usize
    }

    #[inline]
    pub fn referrers(&self, o: ObjId) -> &[ObjId] {
        &self.in_sources[self.referrer_range(o)]
    }

    /// The positions in `in_sources` of the referrers of `o` (for [`Graph::is_weak_referrer`]).
    #[inline]
    pub fn referrer_range(&self, o: ObjId) -> std::ops::Range<usize> {
        self.in_start.at(o as usize) as usize..self.in_start.at(o as usize + 1) as usize
    }

    /// Whether the reference at position `i` of `in_sources` is weak.
    #[inline]
    pub fn is_weak_referrer(&self, i: usize) -> bool {
        self.in_weak
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Sorts the roots by object, so that [`Graph::roots_of`] can binary-search them.
    /// Stable: the order in which a format listed the kinds of one object is kept.
    pub fn sort_roots(&mut self) {
        self.roots.sort_by_key(|r| r.obj);
    }

    /// The root records of `o` (empty when it is not a GC root).
    pub fn roots_of(&self, o: ObjId) -> &[Root] {
        let lo = self.roots.partition_point(|r| r.obj < o);
        let hi = lo + self.roots[lo..].partition_point(|r| r.obj == o);
        &self.roots[lo..hi]
    }

    #[inline]
    pub fn is_root(&self, o: ObjId) -> bool {
        !self.roots_of(o).is_empty()
    }

    #[inline]
    pub fn is_weak(&self, edge: usize) -> bool {
        self.weak
            .get(edge / 64)
            .is_some_and(|w| w >> (edge % 64) & 1 == 1)
    }

    pub fn edge_count(&self) -> usize {
        self.out_targets.len()
    }

    /// Bytes of the index itself (the columns and CSRs, not the dump's map): in memory
    /// when built, in the cache entry's map when reopened (counted the same).
    pub fn index_bytes(&self) -> u64 {
        fn v<T>(x: &Vec<T>) -> u64 {
            (x.capacity() * std::mem::size_of::<T>()) as u64
        }
        fn c<T: column::Plain>(x: &Column<T>) -> u64 {
            x.bytes() as u64
        }
        self.class_of.bytes() as u64
            + c(&self.shallow)
            + v(&self.big_sizes)
            + self.offset.bytes()
            + self.out_start.bytes()
            + c(&self.out_targets)
            + c(&self.weak)
            + self.in_start.bytes()
            + c(&self.in_sources)
            + c(&self.in_weak)
            + v(&self.roots)
            + self
                .classes
                .iter()
                .map(|c| (std::mem::size_of::<ClassInfo>() + c.name.capacity()) as u64)
                .sum::<u64>()
    }
}
