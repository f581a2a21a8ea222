//! On-disk mode: large blocks backed by files on disk instead of anonymous memory, for
//! a dump whose index and dominator pass would not fit in the memory this process may use
//! (issue 27: a memory cgroup far below the machine's).
//!
//! Once [`start`]ed, every fresh page of a large block (`alloc::MIN` bytes or more: the
//! index's columns, the CSRs, the dominator pass's arrays) is a page of an unlinked file
//! in the cache directory's `spill/`, mapped shared. The kernel counts such pages against
//! the cgroup as page cache, which it may write back to the file and drop when the cgroup
//! is at its limit, instead of killing the process; the program runs on unchanged, at
//! the speed of the pages it must read back. The files have no name (`O_TMPFILE`), so
//! nothing is left on disk whatever ends the process; their blocks are allocated when
//! mapped (`fallocate`), so a full disk is an allocation failure (exit 2 with a message,
//! `out_of_memory` in `alloc.rs`), never a `SIGBUS` on a page written later. Freed blocks go
//! back at once (no pool: in this mode memory, not page faults, is what is short).
//!
//! Anonymous memory is left to small blocks (under `alloc::MIN`), whose total is a few
//! percent of the index.
//!
//! A build in memory is guarded ([`arm`]): the estimate of what an index needs is an
//! upper bound for V8, Dart and MoarVM format 3, but an average per byte of file for
//! HPROF, Go and MoarVM format 2, which a crafted file can beat (1.7–3.4 bytes per byte
//! against 1.2). The guard counts the anonymous bytes of the large blocks and the pool,
//! and sends the fresh part of a block that would go past the budget to a spill file, as
//! above: the process stays within its cgroup whatever the estimate said.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicU8, Ordering};

/// Whether large blocks go to disk.
static ON: AtomicBool = AtomicBool::new(false);
/// The spill directory, opened (`O_PATH`) when the mode starts.
static DIR: AtomicI32 = AtomicI32::new(-1);
/// Bytes of files mapped so far (never decreased: a figure for the user, not a gauge).
static MAPPED: AtomicU64 = AtomicU64::new(0);
/// Why the last spill file could not be had: [`DISK`] (no file could be made, or its
/// blocks not allocated) or [`MAP`] (it could not be mapped: the address space), or 0.
static FAILED: AtomicU8 = AtomicU8::new(0);
/// [`FAILED`]'s values.
pub const DISK: u8 = 1;
pub const MAP: u8 = 2;

/// Why the last spill file could not be had ([`DISK`], [`MAP`]), or 0 when none failed:
/// the allocator's failure message says "out of disk" only for the first.
pub fn failed() -> u8 {
    FAILED.load(Ordering::Relaxed)
}
/// Why the mode started, in words (for `summary`, the CLI's stderr and the TUI).
static WHY: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Why large blocks go to disk, in words; `None` when none has.
pub fn why() -> Option<String> {
    spilling().then(|| WHY.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Whether large blocks go, or some went, to disk: all of them ([`start`]), or those
/// beyond the budget the guard was armed with ([`arm`]).
pub fn spilling() -> bool {
    on() || guard().spilled
}

/// The guard of a build in memory ([`arm`]): the large blocks' anonymous bytes, so that
/// they stay within the budget even when the estimate of what the index needs was low
/// (for HPROF and Go it is an average per byte of file, not a bound); the fresh part of a
/// block that would go past it goes to a spill file instead.
struct Guard {
    armed: bool,
    /// Anonymous bytes that live large blocks and the allocator's pool may hold.
    limit: usize,
    /// Anonymous bytes of the live large blocks in `blocks`.
    live: usize,
    /// Live large blocks made since the guard was armed: base address, anonymous bytes.
    blocks: [(usize, usize); 1024],
    len: usize,
    /// Whether a block went (in part) to disk.
    spilled: bool,
}

static GUARD: std::sync::Mutex<Guard> = std::sync::Mutex::new(Guard {
    armed: false,
    limit: 0,
    live: 0,
    blocks: [(0, 0); 1024],
    len: 0,
    spilled: false,
});

fn guard() -> std::sync::MutexGuard<'static, Guard> {
    GUARD.lock().unwrap_or_else(|e| e.into_inner())
}

impl Guard {
    /// Removes the block at `base`, giving its anonymous bytes; `None` when it is not one.
    fn take(&mut self, base: usize) -> Option<usize> {
        let i = self.blocks[..self.len].iter().position(|b| b.0 == base)?;
        let bytes = self.blocks[i].1;
        self.len -= 1;
        self.blocks[i] = self.blocks[self.len];
        self.live -= bytes;
        Some(bytes)
    }
}

/// Whether the guard is armed (and the mode not on: then everything goes to disk).
pub(super) fn guarded() -> bool {
    !on() && guard().armed
}

/// A block at `base` was assembled from the pages of the block at `old` (when grown),
/// `from_pool` pooled bytes, and is about to get `fresh` bytes more, while the pool holds
/// `pooled`: whether the fresh bytes stay anonymous (else they go to a spill file, and
/// the block is noted as not wholly anonymous). Allocates nothing.
pub(super) fn assembled(
    base: usize,
    old: Option<usize>,
    from_pool: usize,
    fresh: usize,
    pooled: usize,
) -> bool {
    let mut g = guard();
    let mut anon = old.and_then(|o| g.take(o)).unwrap_or(0) + from_pool;
    let fits = g.len < g.blocks.len() && g.live + anon + pooled + fresh <= g.limit;
    if fits {
        anon += fresh;
    } else if fresh > 0 {
        g.spilled = true;
    }
    if g.len < g.blocks.len() {
        let i = g.len;
        g.blocks[i] = (base, anon);
        g.len += 1;
        g.live += anon;
    }
    fits
}

/// A block (or the tail of one) at `addr` of `len` bytes is freed: whether it may go to
/// the pool (a whole block that is wholly anonymous); its bytes leave the guard's count.
pub(super) fn freed(addr: usize, len: usize) -> bool {
    guard().take(addr) == Some(len)
}

/// Whether large blocks go to disk.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Bytes of spill files mapped since the mode started.
pub fn mapped() -> u64 {
    MAPPED.load(Ordering::Relaxed)
}

/// Sends large blocks to unlinked files in `dir` (made `0700` when missing) from now on
/// (the caller gives the pool's anonymous pages back: [`super::alloc::release`]); `why`
/// says why, for the user. Fails, with
/// nothing changed, when `dir` cannot hold such files (`O_TMPFILE` unsupported there, no
/// permission).
pub fn start(dir: &Path, why: String) -> std::io::Result<()> {
    open_dir(dir)?;
    *WHY.lock().unwrap_or_else(|e| e.into_inner()) = why;
    ON.store(true, Ordering::Release);
    Ok(())
}

/// Arms the guard of a build in memory: from now on, the large blocks and the pool hold
/// at most `limit` anonymous bytes, and what would go past it goes to unlinked files in
/// `dir`, as with [`start`]; `why` says so, for the user, if it happens. Fails, with
/// nothing changed, as [`start`] does.
pub fn arm(dir: &Path, limit: usize, why: String) -> std::io::Result<()> {
    open_dir(dir)?;
    *WHY.lock().unwrap_or_else(|e| e.into_inner()) = why;
    let mut g = guard();
    g.limit = limit;
    g.armed = true;
    Ok(())
}

/// Opens `dir` (made `0700` when missing) as the spill directory, after checking that it
/// takes unlinked files.
#[cfg(target_os = "linux")]
fn open_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    crate::sys::files::private_dir(dir)?;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other("a NUL byte in the cache directory's path"))?;
    // SAFETY: `c` is a NUL-terminated path; the descriptor is kept for the process's life.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // One file made and dropped at once: the directory takes unlinked files.
    let probe = tmpfile(fd);
    if probe < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: `fd` was opened above and is not used elsewhere.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    // SAFETY: `probe` was opened just above.
    unsafe { libc::close(probe) };
    let old = DIR.swap(fd, Ordering::AcqRel);
    if old >= 0 {
        // SAFETY: the previous directory's descriptor, no longer used once swapped out.
        unsafe { libc::close(old) };
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn open_dir(_dir: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other("on-disk mode needs Linux"))
}

/// An unlinked file in the directory `dir`, open for reading and writing, or -1.
#[cfg(target_os = "linux")]
fn tmpfile(dir: i32) -> i32 {
    // SAFETY: `dir` is an open directory descriptor and "." a NUL-terminated path.
    unsafe {
        libc::openat(
            dir,
            c".".as_ptr(),
            libc::O_TMPFILE | libc::O_RDWR | libc::O_CLOEXEC,
            0o600,
        )
    }
}

/// Maps `len` bytes (page-aligned) of a fresh unlinked file at `addr`, replacing what is
/// mapped there (address space this allocator reserved). False when no file could be
/// made or its blocks allocated (the disk is full), or it could not be mapped ([`failed`]
/// says which). Allocates no memory.
#[cfg(target_os = "linux")]
pub(super) fn map_fresh(addr: usize, len: usize) -> bool {
    if len == 0 {
        return true;
    }
    let fd = tmpfile(DIR.load(Ordering::Acquire));
    if fd < 0 {
        FAILED.store(DISK, Ordering::Relaxed);
        return false;
    }
    // SAFETY: `fd` is the file just made; the mapping replaces only the reserved range
    // `addr .. addr + len`, which belongs to the block being assembled.
    let ok = unsafe {
        let sized = match libc::fallocate(fd, 0, 0, len as libc::off_t) {
            0 => true,
            // A file system without fallocate: sparse, as the next best.
            _ if *libc::__errno_location() == libc::EOPNOTSUPP => {
                libc::ftruncate(fd, len as libc::off_t) == 0
            }
            _ => false,
        };
        if !sized {
            FAILED.store(DISK, Ordering::Relaxed);
        }
        sized && {
            let p = libc::mmap(
                addr as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                fd,
                0,
            );
            if p as usize != addr {
                FAILED.store(MAP, Ordering::Relaxed);
            }
            p as usize == addr
        }
    };
    // SAFETY: the mapping keeps the file; the descriptor is not needed any more.
    unsafe { libc::close(fd) };
    if ok {
        MAPPED.fetch_add(len as u64, Ordering::Relaxed);
    }
    ok
}

#[cfg(not(target_os = "linux"))]
pub(super) fn map_fresh(_addr: usize, _len: usize) -> bool {
    false
}
