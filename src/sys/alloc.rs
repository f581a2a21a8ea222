//! The memory allocator of the binary: the system allocator, except that the pages of
//! large blocks are kept when freed and moved (not copied) into the next large blocks.
//!
//! Why. The index is built in phases, each of which allocates arrays of hundreds of MB
//! and frees others: the record list, the address index, the edge arrays, then the
//! dominator pass's working state and its results. Handed back to the kernel and asked
//! for again, every such page is faulted and zeroed anew; on this project's benchmark
//! machine (a VM) first touch runs at 0.35–2.9 GB/s, and clearing fresh pages took
//! 36–49 % of the CPU time of building a 50 M-object dump's tree (`bench/README.md`). Moving pages between blocks with `mremap` costs
//! a page-table update, so a freed block's pages serve the next block, whatever its size.
//!
//! How. A block of [`MIN`] bytes or more gets its own mapping, aligned to and rounded
//! up to [`UNIT`] (2 MiB, so that transparent huge pages survive the moves), and, up to
//! [`HUGE_MAX`], asks for huge pages ([`crate::sys::huge`]): the readers fill their
//! columns front to back, and one fault per 2 MiB instead of per 4 KiB took 0.04 s
//! (13 %) off reading the nodes and edges of a 6 M-node V8 snapshot, for 5 MB more at the
//! peak. When freed, its pages go to a pool of spans instead of back to the kernel, up
//! to the last page it ever touched (`mincore`; beyond it there is only address space,
//! which would otherwise be handed to the next block in place of resident freed pages).
//! A new large block reserves fresh address space, then moves spans from the pool into
//! it until it is full or the pool is empty; the rest is ordinary fresh memory. Growing
//! a block moves its own pages first; shrinking one pools its tail. Memory held by the
//! process therefore never exceeds its peak of live memory, and [`release`] gives the
//! pool back to the kernel (the TUI calls it once the index and the dominator tree are
//! built, and from then on whenever browsing has freed a large block). [`prefault`] lets
//! an idle core fill the pool ahead of a phase that needs fresh memory (the V8 reader's
//! second core, for the referrers, while the first walks what the page owns). Smaller
//! blocks, and every block on other systems, go to the system allocator unchanged.
//!
//! When memory runs out. An allocation the system refuses would make Rust's runtime print
//! "memory allocation of N bytes failed" and abort (exit 134), leaving the TUI's terminal
//! in raw mode on the alternate screen. [`Global`] instead ends the process itself
//! ([`super::oom`]), with the terminal put back, a message naming the file being read and
//! what ran out, and exit status 2 (the file cannot be read here), through the exit
//! `main` sets (the TUI's `emergency_exit`); the readers check counts against the bytes
//! and the memory estimate before reading, so this is the last line, not the way. (The
//! standard library's hook for this, `set_alloc_error_hook`, is not stable.) A fallible
//! allocation (`try_reserve`) that fails ends the process the same way.

use std::alloc::{GlobalAlloc, Layout};

/// The allocator of the blocks under [`MIN`]: the system's. (mimalloc in its place was
/// measured by `bench/tricks.sh`: 18 % slower on the 50 M-object HPROF dump's dominator
/// tree, 5 % on the 6 M-node V8 snapshot's, and a higher peak: not taken.)
use std::alloc::System as Small;
use std::sync::Mutex;

use super::spill;

/// Blocks at least this large are handled here.
pub const MIN: usize = 8 << 20;
/// Alignment and granularity of those blocks.
pub const UNIT: usize = 2 << 20;
/// Fresh blocks up to this size ask for huge pages. Larger ones did worse with them here:
/// reading the nodes and edges of a 65 M-node V8 snapshot (columns of 215 to 860 MB) took
/// 3.35–3.98 s with, 2.58–3.02 s without, where the 6 M-node one's (21 to 84 MB) went
/// from 0.31 to 0.27 s. The arrays that the graph passes index at random ask for them
/// whatever their size ([`crate::sys::huge`]).
pub const HUGE_MAX: usize = 128 << 20;
/// Spans the pool holds at most (beyond, freed spans go back to the kernel).
const SLOTS: usize = 1024;

struct Pool {
    spans: [(usize, usize); SLOTS],
    len: usize,
    bytes: usize,
}

/// A pool of freed pages and the allocator that uses it. The binary's allocator is
/// [`Global`], over one static `Recycler`; tests make their own.
pub struct Recycler {
    pool: Mutex<Pool>,
    /// Whether it follows the process's on-disk mode and guard ([`disk`]): the
    /// binary's allocator does; the pools tests make do not.
    spills: bool,
}

impl Default for Recycler {
    fn default() -> Self {
        Self::new()
    }
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            pool: Mutex::new(Pool {
                spans: [(0, 0); SLOTS],
                len: 0,
                bytes: 0,
            }),
            spills: false,
        }
    }

    /// The binary's pool, which follows the on-disk mode and guard ([`disk`]).
    const fn spilling() -> Self {
        let mut r = Self::new();
        r.spills = true;
        r
    }

    fn disk_on(&self) -> bool {
        self.spills && spill::on()
    }

    fn guarded(&self) -> bool {
        self.spills && spill::guarded()
    }

    /// Bytes of freed pages the pool holds.
    pub fn pooled(&self) -> usize {
        self.lock().bytes
    }

    /// Bytes of the pool's spans that are resident (touched before they were freed;
    /// the rest is address space that was never used). One `mincore` call per span.
    pub fn pooled_resident(&self) -> usize {
        let p = self.lock();
        let mut resident = 0;
        for &(a, l) in &p.spans[..p.len] {
            resident += resident_bytes(a, l);
        }
        resident
    }

    /// Gives every pooled page back to the kernel.
    pub fn release(&self) {
        let mut p = self.lock();
        for i in 0..p.len {
            let (a, l) = p.spans[i];
            unmap(a, l);
        }
        p.len = 0;
        p.bytes = 0;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        // A panic cannot happen while the lock is held (no allocation, no indexing out of
        // bounds); if one did, the pool is still consistent span by span.
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn give(&self, addr: usize, len: usize) {
        let whole_anonymous = !self.guarded() || spill::freed(addr, len);
        if self.disk_on() || !whole_anonymous || !RECYCLE.load(std::sync::atomic::Ordering::Relaxed)
        {
            // Given back at once (see `disk`; `HEAPTUI_NO_RECYCLE`).
            unmap(addr, len);
            return;
        }
        // Only up to the last page ever touched (rounded up to a unit): the rest is
        // address space that holds no memory (a vector reserved for a bound it never
        // reached, such as the edge arrays' reservation, or the never-written tail that
        // `shrink_to_fit` gives back). Pooled, it would be handed to the next blocks in
        // place of freed pages that are resident, and those would sit idle in the pool
        // while the new blocks fault in fresh ones.
        let keep = round(resident_end(addr, len)).min(len);
        unmap(addr + keep, len - keep);
        let len = keep;
        if len == 0 {
            return;
        }
        let mut p = self.lock();
        if p.len == SLOTS {
            drop(p);
            unmap(addr, len);
            return;
        }
        let i = p.len;
        p.spans[i] = (addr, len);
        p.len += 1;
        p.bytes += len;
    }

    /// A new block of `len` bytes (a multiple of [`UNIT`]): the pages of `keep` (a block
    /// being grown, which is moved to the start) first, then pooled pages, then fresh
    /// ones. With `zero`, pooled pages are cleared (fresh ones are zero already; `keep`'s
    /// are the block's contents). Null when the kernel refuses the address space.
    fn assemble(&self, len: usize, keep: Option<(usize, usize)>, zero: bool) -> *mut u8 {
        let Some(base) = reserve(len) else {
            return std::ptr::null_mut();
        };
        let mut off = 0;
        // The old block's pages, moved; or, where the kernel will not move them in one
        // call (a block of several mappings, such as pieces of spill files, before Linux
        // 6.17), copied once the new block is whole.
        let mut copy = None;
        if let Some((old, old_len)) = keep {
            if move_pages(old, old_len, base) {
                off = old_len;
            } else {
                copy = Some((old, old_len));
            }
        }
        let reused_from = off;
        let pooled;
        {
            let mut p = self.lock();
            while off < len && p.len > 0 {
                let (a, l) = p.spans[p.len - 1];
                let take = l.min(len - off);
                if move_pages(a, take, base + off) {
                    off += take;
                    if take < l {
                        let last = p.len - 1;
                        p.spans[last] = (a + take, l - take);
                    } else {
                        p.len -= 1;
                    }
                    p.bytes -= take;
                } else {
                    // The kernel would not move it (too many mappings?): let it go.
                    p.len -= 1;
                    p.bytes -= l;
                    unmap(a, l);
                }
            }
            pooled = p.bytes;
        }
        // Fresh pages from a spill file: all of them on disk, those past the budget
        // when the guard is armed (see `disk`).
        let to_disk = self.disk_on()
            || (self.guarded()
                && !spill::assembled(
                    base,
                    keep.map(|k| k.0),
                    off - reused_from,
                    len - off,
                    pooled,
                ));
        if off < len && to_disk && !spill::map_fresh(base + off, len - off) {
            unmap(base, len);
            return std::ptr::null_mut();
        }
        if zero && off > reused_from {
            // SAFETY: `base + reused_from .. base + off` is mapped, writable and ours.
            unsafe { std::ptr::write_bytes((base + reused_from) as *mut u8, 0, off - reused_from) };
        }
        if let Some((old, old_len)) = copy {
            // SAFETY: the old block (`old_len` bytes, being reallocated, not in use) and the
            // new one (`len` > `old_len` bytes, all mapped now) are distinct mappings.
            unsafe { std::ptr::copy_nonoverlapping(old as *const u8, base as *mut u8, old_len) };
            unmap(old, old_len);
        }
        base as *mut u8
    }
}

fn ours(layout: &Layout) -> bool {
    cfg!(target_os = "linux") && layout.size() >= MIN && layout.align() <= UNIT
}

fn round(size: usize) -> usize {
    size.div_ceil(UNIT) * UNIT
}

/// Fresh, aligned address space of `len` bytes (a multiple of [`UNIT`]).
#[cfg(target_os = "linux")]
fn reserve(len: usize) -> Option<usize> {
    let over = len.checked_add(UNIT)?;
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let raw = raw as usize;
    let base = raw.div_ceil(UNIT) * UNIT;
    unmap(raw, base - raw);
    unmap(base + len, raw + over - (base + len));
    if len <= HUGE_MAX && !spill::on() && super::huge::wanted() {
        // SAFETY: the range is the mapping just made; MADV_HUGEPAGE changes how its pages
        // are backed, never their contents.
        unsafe { libc::madvise(base as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
    Some(base)
}

#[cfg(not(target_os = "linux"))]
fn reserve(_len: usize) -> Option<usize> {
    None
}

/// Moves the pages of `from .. from + len` to `to`, replacing what was mapped there.
#[cfg(target_os = "linux")]
fn move_pages(from: usize, len: usize, to: usize) -> bool {
    if len == 0 {
        return true;
    }
    // SAFETY: both ranges are page-aligned mappings owned by this allocator; the source
    // is not in use (a pooled span, or a block being reallocated).
    let r = unsafe {
        libc::mremap(
            from as *mut libc::c_void,
            len,
            len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            to as *mut libc::c_void,
        )
    };
    r as usize == to
}

#[cfg(not(target_os = "linux"))]
fn move_pages(_from: usize, _len: usize, _to: usize) -> bool {
    false
}

/// Calls `f(offset, residency)` for each batch of pages of the mapped range `addr ..
/// addr + len` (page-aligned): the batch's offset in the range and one byte per page,
/// bit 0 set when the page is resident. False when the kernel cannot say (or on other
/// systems).
fn residency(addr: usize, len: usize, mut f: impl FnMut(usize, &[u8])) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        const BATCH: usize = 1 << 16;
        let mut vec = [0u8; BATCH];
        let mut at = addr;
        while at < addr + len {
            let pages = ((addr + len - at) / PAGE).min(BATCH);
            // SAFETY: the range is mapped (a pooled span or a block being freed) and
            // `vec` holds `pages` bytes.
            let r =
                unsafe { libc::mincore(at as *mut libc::c_void, pages * PAGE, vec.as_mut_ptr()) };
            if r != 0 {
                return false;
            }
            f(at - addr, &vec[..pages]);
            at += pages * PAGE;
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (addr, len, &mut f);
        false
    }
}

const PAGE: usize = 4096;

/// Resident bytes of the mapped range `addr .. addr + len` (page-aligned).
fn resident_bytes(addr: usize, len: usize) -> usize {
    let mut count = 0;
    residency(addr, len, |_, v| {
        count += v.iter().filter(|&&x| x & 1 == 1).count()
    });
    count * PAGE
}

/// The offset just past the last resident page of `addr .. addr + len` (page-aligned),
/// 0 when none is; `len` where residency cannot be asked.
fn resident_end(addr: usize, len: usize) -> usize {
    let mut end = 0;
    let known = residency(addr, len, |off, v| {
        if let Some(last) = v.iter().rposition(|&x| x & 1 == 1) {
            end = off + (last + 1) * PAGE;
        }
    });
    if known {
        end
    } else {
        len
    }
}

fn unmap(addr: usize, len: usize) {
    #[cfg(target_os = "linux")]
    if len > 0 {
        // SAFETY: a range this allocator mapped and nothing refers to any more.
        unsafe {
            libc::munmap(addr as *mut libc::c_void, len);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (addr, len);
}

// SAFETY: large blocks are distinct mappings handed out once until freed; everything else
// is the system allocator's. Whether a block is large is decided by its layout, which the
// caller passes unchanged to `dealloc` and `realloc`.
unsafe impl GlobalAlloc for Recycler {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !ours(&layout) {
            return Small.alloc(layout);
        }
        self.assemble(round(layout.size()), None, false)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !ours(&layout) {
            return Small.alloc_zeroed(layout);
        }
        self.assemble(round(layout.size()), None, true)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !ours(&layout) {
            return Small.dealloc(ptr, layout);
        }
        self.give(ptr as usize, round(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (ours(&layout), ours(&new)) {
            (false, false) => Small.realloc(ptr, layout, new_size),
            (true, true) => {
                let (old_len, new_len) = (round(layout.size()), round(new_size));
                if new_len <= old_len {
                    self.give(ptr as usize + new_len, old_len - new_len);
                    ptr
                } else {
                    self.assemble(new_len, Some((ptr as usize, old_len)), false)
                }
            }
            _ => {
                let p = self.alloc(new);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                p
            }
        }
    }
}

static POOL: Recycler = Recycler::spilling();

/// Whether freed large blocks are pooled (off with `HEAPTUI_NO_RECYCLE=1`, read by
/// [`configure`]: for benchmarks that measure what the pool is worth).
static RECYCLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Reads the allocator's settings from the environment (`HEAPTUI_NO_RECYCLE=1` gives
/// freed large blocks back to the kernel at once); `main` calls it first.
pub fn configure() {
    if super::env::flag("HEAPTUI_NO_RECYCLE") {
        RECYCLE.store(false, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether [`Global`] has handed out a large block: whether it is the allocator.
static ACTIVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The binary's allocator (`#[global_allocator]` in `main.rs`): [`Recycler`] over one
/// process-wide pool.
pub struct Global;

// SAFETY: delegates to `POOL`; a null answer ends the process instead of being returned.
unsafe impl GlobalAlloc for Global {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ours(&layout) {
            ACTIVE.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        granted(POOL.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ours(&layout) {
            ACTIVE.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        granted(POOL.alloc_zeroed(layout), layout.size())
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        POOL.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        granted(POOL.realloc(ptr, layout, new_size), new_size)
    }
}

/// `p`, unless it is null: then memory has run out ([`super::oom::out_of_memory`]).
#[inline]
fn granted(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        super::oom::out_of_memory(size);
    }
    p
}

/// Gives the process-wide pool's pages back to the kernel (a no-op where [`Global`] is
/// not the allocator).
pub fn release() {
    POOL.release();
}

/// Work for an idle core: faults in up to `more` bytes of fresh memory and leaves it in
/// the process-wide pool, for a phase that is about to ask for at least that much more
/// than the pool holds. On this project's VM the first touch of fresh memory runs at
/// 0.35–2.9 GB/s (`bench/README.md`), and whichever thread touches a page first pays.
/// Stops early once `stop` is set (the pool keeps what was touched); a no-op where
/// [`Global`] is not the allocator, or for less than [`MIN`].
///
/// The caller must not ask for more than the coming phase takes from the pool: the
/// rest would stay in it, resident, and add to the process's peak.
pub fn prefault(more: usize, stop: &std::sync::atomic::AtomicBool) {
    if ACTIVE.load(std::sync::atomic::Ordering::Relaxed) {
        POOL.prefault(more, stop);
    }
}

impl Recycler {
    /// [`prefault`] for this pool.
    pub fn prefault(&self, more: usize, stop: &std::sync::atomic::AtomicBool) {
        use std::sync::atomic::Ordering;
        if more < MIN || stop.load(Ordering::Relaxed) || self.disk_on() {
            return;
        }
        // The block takes the pool's pages first (already resident: touching them costs
        // nothing) and fresh ones for the rest; freed, all of them go back to the pool.
        let Ok(layout) = Layout::from_size_align(round(self.pooled() + more), UNIT) else {
            return;
        };
        // SAFETY: a large layout (this pool's own block); the block is written only
        // inside its length and freed with the same layout.
        unsafe {
            let p = self.alloc(layout);
            if p.is_null() {
                return;
            }
            for page in (0..layout.size()).step_by(4096) {
                if page % UNIT == 0 && stop.load(Ordering::Relaxed) {
                    break;
                }
                std::ptr::write_volatile(p.add(page), 0);
            }
            self.dealloc(p, layout);
        }
    }
}

/// Bytes the process-wide pool holds.
pub fn pooled() -> usize {
    POOL.pooled()
}

/// Resident bytes the process-wide pool holds (for the timing lines).
pub fn pooled_resident() -> usize {
    POOL.pooled_resident()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn fill(p: *mut u8, len: usize, seed: u8) {
        for i in (0..len).step_by(4096) {
            // SAFETY: `p .. p + len` is a live block.
            unsafe { *p.add(i) = seed.wrapping_add((i / 4096) as u8) };
        }
    }

    fn check(p: *mut u8, len: usize, seed: u8) {
        for i in (0..len).step_by(4096) {
            // SAFETY: as above.
            let v = unsafe { *p.add(i) };
            assert_eq!(v, seed.wrapping_add((i / 4096) as u8), "byte {i}");
        }
    }

    #[test]
    fn freed_pages_serve_the_next_block_and_are_zeroed_when_asked() {
        let r = Recycler::new();
        let a = Layout::from_size_align(20 << 20, 8).unwrap();
        // SAFETY: layouts are non-zero; every block is freed with its own layout.
        unsafe {
            let p = r.alloc(a);
            assert_eq!(p as usize % UNIT, 0);
            fill(p, a.size(), 7);
            r.dealloc(p, a);
            assert_eq!(r.pooled(), round(a.size()));
            // A larger block takes all of it, and the rest fresh.
            let b = Layout::from_size_align(50 << 20, 8).unwrap();
            let q = r.alloc_zeroed(b);
            assert_eq!(r.pooled(), 0);
            for i in (0..b.size()).step_by(4096) {
                assert_eq!(*q.add(i), 0, "byte {i} of a zeroed block");
            }
            fill(q, b.size(), 5);
            r.dealloc(q, b);
            // A smaller one takes part and leaves the rest.
            let c = Layout::from_size_align(10 << 20, 8).unwrap();
            let s = r.alloc(c);
            assert_eq!(r.pooled(), round(b.size()) - round(c.size()));
            fill(s, c.size(), 1);
            check(s, c.size(), 1);
            r.dealloc(s, c);
            r.release();
            assert_eq!(r.pooled(), 0);
        }
    }

    #[test]
    fn realloc_keeps_contents_across_every_size_class() {
        let r = Recycler::new();
        // Pool something, so that growth takes pooled pages too.
        let junk = Layout::from_size_align(30 << 20, 8).unwrap();
        // SAFETY: as above; each realloc's result replaces the pointer and layout.
        unsafe {
            let j = r.alloc(junk);
            fill(j, junk.size(), 99);
            r.dealloc(j, junk);
            let sizes = [
                1 << 20,
                (9 << 20) + 123,
                64 << 20,
                (12 << 20) + 1,
                40 << 20,
                3 << 20,
                100,
            ];
            let mut l = Layout::from_size_align(4096, 8).unwrap();
            let mut p = r.alloc(l);
            fill(p, l.size(), 3);
            for &n in &sizes {
                let keep = l.size().min(n);
                p = r.realloc(p, l, n);
                assert!(!p.is_null());
                check(p, keep, 3);
                l = Layout::from_size_align(n, 8).unwrap();
                fill(p, n, 3);
            }
            r.dealloc(p, l);
            r.release();
        }
    }

    #[test]
    fn the_pool_keeps_no_more_than_its_slots() {
        let r = Recycler::new();
        let l = Layout::from_size_align(MIN, 8).unwrap();
        // SAFETY: as above.
        unsafe {
            let blocks: Vec<*mut u8> = (0..SLOTS + 3).map(|_| r.alloc(l)).collect();
            for &b in &blocks {
                assert!(!b.is_null());
                // The last page: the whole block counts as used.
                *b.add(l.size() - 1) = 1;
                r.dealloc(b, l);
            }
        }
        assert_eq!(r.pooled(), SLOTS * round(MIN));
        r.release();
    }

    #[test]
    fn prefaulting_leaves_touched_pages_in_the_pool_until_told_to_stop() {
        use std::sync::atomic::AtomicBool;
        let r = Recycler::new();
        let go = AtomicBool::new(false);
        r.prefault(MIN - 1, &go);
        assert_eq!(r.pooled(), 0, "less than a large block: nothing");
        r.prefault(24 << 20, &go);
        assert_eq!(r.pooled_resident(), 24 << 20);
        // On top of what the pool holds.
        r.prefault(16 << 20, &go);
        assert_eq!(r.pooled_resident(), 40 << 20);
        // Told to stop: nothing more.
        let stop = AtomicBool::new(true);
        r.prefault(64 << 20, &stop);
        assert_eq!(r.pooled_resident(), 40 << 20);
        // The pooled pages serve the next block.
        let layout = Layout::from_size_align(40 << 20, UNIT).unwrap();
        // SAFETY: a block of this layout, allocated and freed by this recycler only.
        unsafe {
            let p = r.alloc(layout);
            assert_eq!(r.pooled(), 0);
            r.dealloc(p, layout);
        }
        r.release();
    }

    #[test]
    fn pages_never_touched_are_not_pooled() {
        let r = Recycler::new();
        // SAFETY: as above.
        unsafe {
            // A block reserved for 64 MiB of which the first 5 MiB were written: the pool
            // keeps them, rounded up to a unit (6 MiB), and nothing of the rest.
            let l = Layout::from_size_align(64 << 20, 8).unwrap();
            let p = r.alloc(l);
            fill(p, 5 << 20, 2);
            r.dealloc(p, l);
            assert_eq!(r.pooled(), 6 << 20);
            // A block that touches nothing itself keeps only the pages it was given.
            let q = r.alloc(l);
            assert_eq!(r.pooled(), 0);
            r.dealloc(q, l);
            assert_eq!(r.pooled(), 6 << 20);
            r.release();
            // A shrink gives back an untouched tail without pooling it.
            let s = r.alloc(l);
            fill(s, 3 << 20, 4);
            let s = r.realloc(s, l, 20 << 20);
            assert_eq!(r.pooled(), 0);
            check(s, 3 << 20, 4);
            r.dealloc(s, Layout::from_size_align(20 << 20, 8).unwrap());
            assert_eq!(r.pooled(), 4 << 20);
            r.release();
        }
    }
}
