//! The format-neutral heap model.
//!
//! Owns what every view needs about every object, in columns indexed by a dense
//! [`ObjId`]: its class, its shallow size and where its record starts in the file; the
//! outgoing references as a CSR with a per-edge weak flag, the referrers as the transposed
//! CSR (built from the references when first asked for, [`Graph::referrer_index`]), and
//! the GC roots with their kind. It does not own field values, strings, array
//! contents or edge names: a format's [`crate::format::Decoder`] decodes those from the
//! memory map when a view asks.
//!
//! The columns are [`Column`]s: vectors when a reader builds them, stretches of the
//! memory-mapped index cache entry when a dump is reopened ([`crate::cache`]).
//!
//! The analyses in this module's children (`histogram`, `dominators`, `paths`, `depth`) look only
//! at this model, never at a format. The diff's growth by owner needs reference names
//! from a format's decoder, so it lives above, in [`crate::diff`], on top of
//! [`crate::format::Snapshot`].

pub mod column;
pub mod depth;
pub mod dominators;
pub mod histogram;
pub mod index;
pub mod matcher;
pub mod merged;
pub mod packed;
pub mod paths;
pub mod positions;
pub mod reach;
pub mod sets;
pub mod texts;
pub mod waste;

pub use column::{Column, CompactColumn};
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

/// The transposed CSR of a graph's references: who refers to each object.
#[derive(Debug, Default)]
pub struct Referrers {
    pub in_start: Starts,
    pub in_sources: Column<ObjId>,
    /// One bit per entry of `in_sources`: set when that reference is weak. Empty when
    /// the snapshot has no weak edge at all.
    pub in_weak: Column<u64>,
}

impl Referrers {
    /// The positions in `in_sources` of the referrers of `o`.
    #[inline]
    pub fn range(&self, o: ObjId) -> std::ops::Range<usize> {
        self.in_start.at(o as usize) as usize..self.in_start.at(o as usize + 1) as usize
    }

    /// Whether the reference at position `i` of `in_sources` is weak.
    #[inline]
    pub fn is_weak(&self, i: usize) -> bool {
        self.in_weak
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    pub fn bytes(&self) -> u64 {
        self.in_start.bytes() + self.in_sources.bytes() as u64 + self.in_weak.bytes() as u64
    }
}

/// The compact index of one snapshot.
#[derive(Debug, Default)]
pub struct Graph {
    /// Class of every object.
    pub class_of: CompactColumn,
    /// Shallow size of every object; the column's escape value ([`CompactColumn::escape`])
    /// means "look in `big_sizes`". Two bytes per object once the index is built (sizes
    /// of 64 KiB or more are rare), four while it is built and in the rare snapshot where
    /// big objects are too many for that to pay.
    pub shallow: CompactColumn,
    /// Sizes that do not fit the shallow column, sorted by object.
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
    /// Who refers to each object: built from the references when first asked for
    /// ([`Graph::referrer_index`]), read from the cache entry on reopen.
    pub referrer_index: std::sync::OnceLock<Referrers>,
    /// GC roots, sorted by object (see [`Graph::sort_roots`]); an object may be rooted
    /// several times, by different kinds.
    pub roots: Vec<Root>,
    pub classes: Vec<ClassInfo>,
    /// The objects and shallow bytes per class, once counted ([`histogram::totals`]) or
    /// read from the index cache entry.
    pub class_totals: std::sync::OnceLock<histogram::ClassTotals>,
    /// Objects that nothing reaches still get a place in the dominator tree, below the
    /// virtual root (memlab's and DevTools' rule for V8 snapshots). Otherwise (MAT's rule
    /// for HPROF) they have no dominator and no retained size.
    pub orphans_are_roots: bool,
    /// Objects are numbered with little locality for the graph passes (V8's node order):
    /// building the referrers beside the dominator pass's search does not pay on a large
    /// such graph ([`Graph::referrers_beside_the_search`]).
    pub scattered: bool,
    /// Every object's depth from the roots ([`depth`]), once built: the loading thread
    /// builds it after the suspects when memory allows; merged paths read it.
    pub depths: std::sync::OnceLock<Vec<u8>>,
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
        let s = self.shallow.get(o as usize);
        if s != self.shallow.escape() {
            return s as u64;
        }
        match self.big_sizes.binary_search_by_key(&o, |&(x, _)| x) {
            Ok(i) => self.big_sizes[i].1,
            Err(_) => s as u64,
        }
    }

    /// Appends object `o`'s shallow size (objects in order).
    pub fn push_shallow(&mut self, o: ObjId, size: u64) {
        let escape = self.shallow.escape() as u64;
        let v = if size >= escape {
            self.big_sizes.push((o, size));
            escape as u32
        } else {
            size as u32
        };
        self.shallow.push(v);
    }

    /// Keeps the shallow sizes in two bytes each where that saves memory: sizes of 65,535
    /// or more go to `big_sizes` (12 bytes each, rare: object headers and small arrays
    /// are what heaps are made of). Called once the sizes are all in.
    pub fn compact_sizes(&mut self) {
        let CompactColumn::Wide(wide) = &self.shallow else {
            return;
        };
        let big = wide.iter().filter(|&&s| s >= u16::MAX as u32).count();
        if big.saturating_mul(16) >= wide.len().saturating_mul(2) {
            self.big_sizes.sort_unstable();
            return;
        }
        let mut narrow: Vec<u16> = crate::sys::huge::with_capacity(wide.len());
        let mut moved = Vec::with_capacity(big);
        for (o, &s) in wide.iter().enumerate() {
            if s >= u16::MAX as u32 {
                // Those at u32::MAX are in `big_sizes` already.
                if s != u32::MAX {
                    moved.push((o as ObjId, s as u64));
                }
                narrow.push(u16::MAX);
            } else {
                narrow.push(s as u16);
            }
        }
        self.shallow = CompactColumn::Narrow(narrow.into());
        self.big_sizes.extend(moved);
        self.big_sizes.sort_unstable();
        self.big_sizes.shrink_to_fit();
    }

    #[inline]
    pub fn edges(&self, o: ObjId) -> std::ops::Range<usize> {
        self.out_start.at(o as usize) as usize..self.out_start.at(o as usize + 1) as usize
    }

    /// The referrer CSR, built on first use (0.09 s for 21 M references on two cores);
    /// callers that wait for it concurrently all get the one build.
    #[inline]
    pub fn referrer_index(&self) -> &Referrers {
        self.referrer_index.get_or_init(|| Referrers::build(self))
    }

    /// Whether the referrers are best built beside the dominator pass's depth-first search
    /// (which needs only the references), on one core, rather than before it on every
    /// core. Not with one core, nor for a scattered graph ([`Graph::scattered`]) whose
    /// per-object counts outgrow the caches: there the build's scattered writes made it
    /// outlast the search by far (65 M V8 nodes: search 1.1 s, then 2.0 s more of the
    /// build, where the build on both cores took 0.9 s). A graph numbered with locality
    /// gains even then (50 M HPROF objects: 1.9 → 1.4 s for the two).
    pub fn referrers_beside_the_search(&self) -> bool {
        rayon::current_num_threads() >= 2 && (!self.scattered || self.len() <= 1 << 23)
    }

    /// [`Graph::referrer_index`], for a thread beside the dominator pass: built (if no one
    /// has begun to) on the calling thread alone, in one part, where
    /// [`Graph::referrers_beside_the_search`] says so (on every core would slow the search
    /// down, and each part's counts add to the peak); else as `referrer_index` builds them.
    pub fn referrer_index_beside_the_search(&self) -> &Referrers {
        if self.referrers_beside_the_search() {
            self.referrer_index
                .get_or_init(|| Referrers::build_in(self, 1))
        } else {
            self.referrer_index()
        }
    }

    /// Whether the referrers are built (or read from the cache) already.
    pub fn has_referrers(&self) -> bool {
        self.referrer_index.get().is_some()
    }

    #[inline]
    pub fn referrers(&self, o: ObjId) -> &[ObjId] {
        let r = self.referrer_index();
        &r.in_sources[r.range(o)]
    }

    /// The positions in `in_sources` of the referrers of `o` (for [`Graph::is_weak_referrer`]).
    #[inline]
    pub fn referrer_range(&self, o: ObjId) -> std::ops::Range<usize> {
        self.referrer_index().range(o)
    }

    /// Whether the reference at position `i` of `in_sources` is weak.
    #[inline]
    pub fn is_weak_referrer(&self, i: usize) -> bool {
        self.referrer_index().is_weak(i)
    }

    /// Sorts the roots by object, so that [`Graph::roots_of`] can binary-search them.
    /// Stable: the order in which a format listed the kinds of one object is kept.
    pub fn sort_roots(&mut self) {
        self.roots.sort_by_key(|r| r.obj);
    }

    /// The first instance of every class, in class order (`None` for a class without one).
    pub fn first_instances(&self) -> Vec<Option<ObjId>> {
        let mut first = vec![None; self.classes.len()];
        let mut left = first.len();
        for (o, c) in self.class_of.iter().enumerate() {
            if left == 0 {
                break;
            }
            if let Some(f @ None) = first.get_mut(c as usize) {
                *f = Some(o as ObjId);
                left -= 1;
            }
        }
        first
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
            + self.shallow.bytes() as u64
            + v(&self.big_sizes)
            + self.offset.bytes()
            + self.out_start.bytes()
            + c(&self.out_targets)
            + c(&self.weak)
            + self.referrer_index().bytes()
            + v(&self.roots)
            + self
                .classes
                .iter()
                .map(|c| (std::mem::size_of::<ClassInfo>() + c.name.capacity()) as u64)
                .sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_go_to_two_bytes_with_the_big_ones_aside() {
        let odd = [65_534u64, 65_535, 65_536, 70_000, u32::MAX as u64, 5 << 30];
        let mut g = Graph::default();
        let mut want = Vec::new();
        for o in 0..1000u32 {
            let s = odd.get(o as usize / 100).copied().filter(|_| o % 100 == 7);
            let s = s.unwrap_or(16 + o as u64 % 50);
            g.push_shallow(o, s);
            want.push(s);
        }
        assert!(!g.shallow.is_narrow());
        g.compact_sizes();
        assert!(g.shallow.is_narrow());
        assert_eq!(g.shallow.bytes(), 2000);
        // 65,534 fits; the other five are kept aside, sorted.
        assert_eq!(g.big_sizes.len(), 5);
        assert!(g.big_sizes.windows(2).all(|w| w[0].0 < w[1].0));
        for (o, &s) in want.iter().enumerate() {
            assert_eq!(g.shallow_size(o as ObjId), s, "object {o}");
        }
        // Once narrow, pushing more keeps the rule.
        g.push_shallow(1000, 1 << 20);
        assert_eq!(g.shallow_size(1000), 1 << 20);
        // Too many big sizes to pay: the column stays four bytes wide.
        let mut h = Graph::default();
        for o in 0..10u32 {
            h.push_shallow(o, 100_000 + o as u64);
        }
        h.compact_sizes();
        assert!(!h.shallow.is_narrow());
        assert_eq!(h.shallow_size(9), 100_009);
    }
}
