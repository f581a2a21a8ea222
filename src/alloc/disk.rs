//! On-disk mode: large blocks backed by files on disk instead of anonymous memory, for
//! a dump whose index and dominator pass would not fit in the memory this process may use
//! (issue 27: a memory cgroup far below the machine's).
//!
//! Once [`start`]ed, every fresh page of a large block ([`super::MIN`] bytes or more: the
//! index's columns, the CSRs, the dominator pass's arrays) is a page of an unlinked file
//! in the cache directory's `spill/`, mapped shared. The kernel counts such pages against
//! the cgroup as page cache, which it may write back to the file and drop when the cgroup
//! is at its limit, instead of killing the process; the program runs on unchanged, at
//! the speed of the pages it must read back. The files have no name (`O_TMPFILE`), so
//! nothing is left on disk whatever ends the process; their blocks are allocated when
//! mapped (`fallocate`), so a full disk is an allocation failure (exit 2 with a message,
//! [`super::out_of_memory`]), never a `SIGBUS` on a page written later. Freed blocks go
//! back at once (no pool: in this mode memory, not page faults, is what is short).
//!
//! Anonymous memory is left to small blocks (under [`super::MIN`]), whose total is a few
//! percent of the index.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

/// Whether large blocks go to disk.
static ON: AtomicBool = AtomicBool::new(false);
/// The spill directory, opened (`O_PATH`) when the mode starts.
static DIR: AtomicI32 = AtomicI32::new(-1);
/// Bytes of files mapped so far (never decreased: a figure for the user, not a gauge).
static MAPPED: AtomicU64 = AtomicU64::new(0);
/// Why the mode started, in words (for `summary`, the CLI's stderr and the TUI).
static WHY: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Why large blocks go to disk, in words; `None` when they do not.
pub fn why() -> Option<String> {
    on().then(|| WHY.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Whether large blocks go to disk.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Bytes of spill files mapped since the mode started.
pub fn mapped() -> u64 {
    MAPPED.load(Ordering::Relaxed)
}

/// Sends large blocks to unlinked files in `dir` (made `0700` when missing) from now on,
/// and gives the pool's anonymous pages back; `why` says why, for the user. Fails, with
/// nothing changed, when `dir` cannot hold such files (`O_TMPFILE` unsupported there, no
/// permission).
#[cfg(target_os = "linux")]
pub fn start(dir: &Path, why: String) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    crate::source::private_dir(dir)?;
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
    *WHY.lock().unwrap_or_else(|e| e.into_inner()) = why;
    ON.store(true, Ordering::Release);
    super::release();
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn start(_dir: &Path, _why: String) -> std::io::Result<()> {
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
/// made or its blocks allocated (the disk is full). Allocates no memory.
#[cfg(target_os = "linux")]
pub(super) fn map_fresh(addr: usize, len: usize) -> bool {
    if len == 0 {
        return true;
    }
    let fd = tmpfile(DIR.load(Ordering::Acquire));
    if fd < 0 {
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
        sized && {
            let p = libc::mmap(
                addr as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                fd,
                0,
            );
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
