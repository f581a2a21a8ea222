//! The files heaptui has mapped, for the SIGBUS handler: a read of a map whose file was
//! cut short under it faults, and the message must name *that* file — the dump, its
//! decompressed copy, or an index cache entry — not always "the dump" (issue 40, defect
//! 10). A fixed table of slots written before the map is read and read by the handler
//! with atomic loads only: nothing here allocates or locks on the handler's side.
//!
//! A slot is never freed: a map dropped leaves its slot, and a later map that reuses the
//! addresses is registered later and wins the lookup ([`find`] takes the newest slot
//! that holds the address). The table holds the last [`SLOTS`] maps; the path of each is
//! kept for the life of the process (a few hundred bytes per map opened).

use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};

/// What a mapped file is, for the words of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// The dump the user named (or its decompressed copy).
    Dump = 1,
    /// An index cache entry or its kept tree.
    CacheEntry = 2,
}

const SLOTS: usize = 64;

struct Slot {
    /// The map's first byte; 0 while the slot is being written.
    start: AtomicUsize,
    len: AtomicUsize,
    path: AtomicPtr<u8>,
    path_len: AtomicUsize,
    kind: AtomicU8,
    /// When it was registered (larger is newer).
    seq: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    path: AtomicPtr::new(std::ptr::null_mut()),
    path_len: AtomicUsize::new(0),
    kind: AtomicU8::new(0),
    seq: AtomicU64::new(0),
};

static TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];
static NEXT: AtomicU64 = AtomicU64::new(1);

/// Notes that `map` (its first byte and length) is the file at `path`.
pub fn register(map: &[u8], path: &Path, kind: Kind) {
    if map.is_empty() {
        return;
    }
    let seq = NEXT.fetch_add(1, Ordering::Relaxed);
    let slot = &TABLE[(seq as usize) % SLOTS];
    let name: &'static [u8] = Box::leak(
        path.as_os_str()
            .as_encoded_bytes()
            .to_vec()
            .into_boxed_slice(),
    );
    slot.start.store(0, Ordering::Release);
    slot.len.store(map.len(), Ordering::Relaxed);
    slot.path.store(name.as_ptr() as *mut u8, Ordering::Relaxed);
    slot.path_len.store(name.len(), Ordering::Relaxed);
    slot.kind.store(kind as u8, Ordering::Relaxed);
    slot.seq.store(seq, Ordering::Relaxed);
    slot.start.store(map.as_ptr() as usize, Ordering::Release);
}

/// The file mapped at `addr` and what it is, the newest map that holds it. Async-signal
/// safe: atomic loads only.
pub fn find(addr: usize) -> Option<(&'static [u8], Kind)> {
    let mut best: Option<(u64, &'static [u8], Kind)> = None;
    for slot in &TABLE {
        let start = slot.start.load(Ordering::Acquire);
        if start == 0 || addr < start || addr - start >= slot.len.load(Ordering::Relaxed) {
            continue;
        }
        let seq = slot.seq.load(Ordering::Relaxed);
        if best.is_some_and(|b| b.0 > seq) {
            continue;
        }
        let ptr = slot.path.load(Ordering::Relaxed);
        let len = slot.path_len.load(Ordering::Relaxed);
        let kind = match slot.kind.load(Ordering::Relaxed) {
            2 => Kind::CacheEntry,
            _ => Kind::Dump,
        };
        // SAFETY: the path was leaked by `register` and is never freed; `len` is its
        // length, stored before `start` was published.
        let name = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
        best = Some((seq, name, kind));
    }
    best.map(|b| (b.1, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_map_holding_an_address_is_found() {
        let a = vec![0u8; 4096];
        let b = vec![0u8; 4096];
        register(&a, Path::new("/x/dump.hprof"), Kind::Dump);
        register(&b, Path::new("/c/index/0123"), Kind::CacheEntry);
        let at = |v: &Vec<u8>, i: usize| v.as_ptr() as usize + i;
        assert_eq!(find(at(&a, 10)), Some((&b"/x/dump.hprof"[..], Kind::Dump)));
        assert_eq!(
            find(at(&b, 4095)),
            Some((&b"/c/index/0123"[..], Kind::CacheEntry))
        );
        // Past the end of either: not one of ours (unless the allocator put them next to
        // each other, which the lengths rule out for the byte after `b`'s end only when
        // `a` is not there).
        if at(&b, 4096) != at(&a, 0) {
            assert_eq!(find(at(&b, 4096)).map(|x| x.0), None);
        }
        // The same addresses mapped again later: the newer name wins.
        register(&a, Path::new("/x/again.hprof"), Kind::Dump);
        assert_eq!(find(at(&a, 0)).unwrap().0, b"/x/again.hprof");
    }
}
