//! When an allocation fails: the process ends at once (exit 2), with the terminal put
//! back when the TUI has it ([`on_failure`]), saying what ran out (memory, the address
//! space, or the disk of an index built on disk) and which file was being read
//! ([`reading`]). Everything here runs inside the failed allocation: it allocates
//! nothing and waits for no lock.

use std::sync::Mutex;

use super::spill;

/// The file being read, for the message of an allocation failure: a copy of its path
/// (at most 1 KiB, control characters as `?`) and its length.
static READING: Mutex<([u8; 1024], usize)> = Mutex::new(([0; 1024], 0));

/// Notes the file being read, for the message if memory runs out while it is.
pub fn reading(path: &std::path::Path) {
    let name = path.as_os_str().as_encoded_bytes();
    let mut r = READING.lock().unwrap_or_else(|e| e.into_inner());
    let n = name.len().min(r.0.len());
    for (to, &c) in r.0.iter_mut().zip(&name[..n]) {
        *to = if c < 0x20 || c == 0x7f { b'?' } else { c };
    }
    r.1 = n;
}

/// Ends the process (exit 2, the terminal put back) after an allocation of `size` bytes
/// failed, saying so. Allocates nothing.
#[cold]
pub(super) fn out_of_memory(size: usize) -> ! {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = size;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Never wait for the lock: the failure may have happened while it was held.
    let r = READING.try_lock();
    let name: &[u8] = match &r {
        Ok(r) if r.1 > 0 => &r.0[..r.1],
        _ => b"",
    };
    let sep: &[u8] = if name.is_empty() { b"" } else { b": " };
    let exit = match FAILURE_EXIT.get() {
        Some(f) => *f,
        None => plain_exit,
    };
    let cause = what_ran_out(spill::on(), spill::failed(), address_limited());
    if cause == RanOut::Disk {
        exit(&[
            b"heaptui: ",
            name,
            sep,
            b"out of disk: a spill file of ",
            &digits[at..],
            b" bytes could not be made in the cache directory (free space on its disk, or \
set HEAPTUI_CACHE_DIR to a directory on a larger one)",
        ]);
    }
    exit(&[
        b"heaptui: ",
        name,
        sep,
        b"out of memory",
        if cause == RanOut::AddressSpace {
            b" (address-space limit)"
        } else {
            b""
        },
        b": an allocation of ",
        &digits[at..],
        b" bytes failed; this file needs more memory than this process may use \
(free memory, raise the limit, or use a larger machine)",
    ]);
}

/// What an allocation that failed ran out of, for its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RanOut {
    Memory,
    AddressSpace,
    Disk,
}

/// What ran out when an allocation failed: the disk only when the build was on disk and
/// a spill file could not be made or sized (`spill_failed` is [`spill::failed`]); a
/// failed mapping or reservation is the address space where `RLIMIT_AS` is set
/// (`ulimit -v`, `prlimit --as`: issue 40 found it called "out of disk"), else memory.
fn what_ran_out(spilling: bool, spill_failed: u8, address_limited: bool) -> RanOut {
    match (spilling && spill_failed == spill::DISK, address_limited) {
        (true, _) => RanOut::Disk,
        (false, true) => RanOut::AddressSpace,
        (false, false) => RanOut::Memory,
    }
}

/// Whether `RLIMIT_AS` limits this process (what a failed mapping then ran into).
/// Allocates nothing.
fn address_limited() -> bool {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives on this stack.
    unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) == 0 && r.rlim_cur != libc::RLIM_INFINITY }
}

/// How the process ends when an allocation fails: set by `main` to the TUI's
/// `ui::terminal::emergency_exit`, which also puts the terminal back (the allocator
/// knows no terminal).
static FAILURE_EXIT: std::sync::OnceLock<fn(&[&[u8]]) -> !> = std::sync::OnceLock::new();

/// Sets how the process ends when an allocation fails (see [`FAILURE_EXIT`]).
pub fn on_failure(exit: fn(&[&[u8]]) -> !) {
    let _ = FAILURE_EXIT.set(exit);
}

/// The message on stderr and exit status 2, with nothing else touched: async-signal-safe
/// calls only, no allocation.
fn plain_exit(message: &[&[u8]]) -> ! {
    // SAFETY: `write` and `_exit` are async-signal-safe and allocate nothing.
    unsafe {
        for part in message {
            libc::write(2, part.as_ptr().cast(), part.len());
        }
        libc::write(2, b"\n".as_ptr().cast(), 1);
        libc::_exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Out of disk" only for a spill file that could not be made or sized.
    #[test]
    fn a_failed_mapping_is_not_out_of_disk() {
        use RanOut::*;
        assert_eq!(what_ran_out(true, spill::DISK, false), Disk);
        assert_eq!(what_ran_out(true, spill::DISK, true), Disk);
        assert_eq!(what_ran_out(true, spill::MAP, true), AddressSpace);
        assert_eq!(what_ran_out(true, 0, true), AddressSpace);
        assert_eq!(what_ran_out(true, spill::MAP, false), Memory);
        assert_eq!(what_ran_out(false, 0, false), Memory);
    }
}
