//! The memory check up front, before an index is built: a file whose index would not fit
//! in the memory this process may use is built on disk instead ([`crate::sys::spill`]:
//! the large arrays in unlinked spill files under the cache directory, which the kernel
//! writes back instead of killing the process), and refused (exit 2) with the figures
//! only when even that would not fit: less memory than [`on_disk_floor`], or too little
//! disk. Never killed by the kernel or out of memory half-way ([`crate::sys::alloc`] ends the
//! process cleanly then, but the work is lost). The memory left is the least of what the
//! kernel, the memory cgroup and the resource limits allow ([`super::budget`]), or
//! `HEAPTUI_MEMORY_LIMIT` (a whole number of bytes); `HEAPTUI_IGNORE_MEMORY=1` tries in
//! memory anyway; `HEAPTUI_ON_DISK=1` builds on disk whatever the budget.
//!
//! Where a format says up front how much its index will hold, the need is an upper bound
//! computed from those counts, checked against the bytes (a count the file could not hold
//! counts as what it could), at the peak bytes per object and per reference of indexing
//! and building the dominator tree:
//! - V8: the header's `node_count` and `edge_count` (`format/v8/need.rs`); the reader refuses a
//!   file with more nodes or edges than they say. The strings, which the header does not
//!   count, are bounded by half the file's double quotes;
//! - Dart: the header's object and reference counts (`format/dart/need.rs`); the reader reads
//!   no more objects than the count, and refuses more references;
//! - MoarVM format 3: the collectables and references of the snapshot opened, counted in
//!   its compressed columns before they are decoded (`format/moarvm/need.rs`, checked by the
//!   reader once it has listed the snapshots).
//!
//! Elsewhere (HPROF, Go, MoarVM format 2) nothing up front says how many objects there
//! are, and the need is the peak measured per byte of file on large real files
//! ([`Need::per_file_byte`]): an average, not a bound. A build in memory is therefore guarded
//! ([`guard`]): should the index take more than the budget, the rest goes to disk.

use std::path::Path;

use crate::error::{Error, Result};

/// What indexing a file needs at most, and how that was found (for the message).
#[derive(Debug, Clone)]
pub struct Need {
    pub bytes: u64,
    pub basis: String,
}

impl Need {
    /// `k` bytes per byte of a `len`-byte dump: the average measured on large dumps, for
    /// a format whose header does not count its objects.
    pub fn per_file_byte(len: u64, k: f64) -> Need {
        Need {
            bytes: (len as f64 * k) as u64,
            basis: format!("{k} bytes per byte of dump, as measured on large dumps"),
        }
    }
}

/// The memory this process may still use ([`super::budget`]).
pub fn available() -> Result<Option<super::budget::Budget>> {
    super::budget::budget()
}

/// The need [`check_need`] last passed, and the budget it was held to: what
/// [`check_more`] adds to.
static CHECKED: std::sync::Mutex<Option<(u64, super::budget::Budget)>> =
    std::sync::Mutex::new(None);

/// Memory a reader learns it needs beyond the estimate once it has read part of a file
/// (HPROF's classes, in small blocks the guard does not count and that cannot go to
/// disk): `extra` bytes for `what`. `Err` with the figures when that and the need already
/// checked pass the budget (unless `HEAPTUI_IGNORE_MEMORY=1`), so that the file is
/// refused with a message rather than the process killed by the kernel half-way.
pub fn check_more(extra: u64, what: &str) -> std::result::Result<(), String> {
    if super::env::flag("HEAPTUI_IGNORE_MEMORY") {
        return Ok(());
    }
    let checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    // A walk without the index (the quick histogram) checks no need first: the budget
    // alone, then.
    let (need, budget) = match checked {
        Some(c) => c,
        None => match available() {
            Ok(Some(b)) => (0, b),
            _ => return Ok(()),
        },
    };
    // On disk, the large blocks are the files'; what stays in memory is the floor.
    let base = if crate::sys::spill::on() {
        on_disk_floor(need)
    } else {
        need
    };
    let mb = |b: u64| b.div_ceil(1 << 20);
    if base.saturating_add(extra) <= budget.bytes {
        return Ok(());
    }
    Err(format!(
        "{what} need about {} MB of memory besides the {} MB the index was estimated at, \
         and only {} MB is available (from {}); free memory, raise the limit, or set \
         HEAPTUI_IGNORE_MEMORY=1 to try anyway",
        mb(extra),
        mb(base),
        mb(budget.bytes),
        budget.from
    ))
}

/// Refuses a file of `file_bytes` bytes (a `kind` dump: its format's title, for the
/// message) whose index needs `need`, when that is more than
/// the memory left and building it on disk would not fit either; builds it on disk
/// ([`crate::sys::spill`]) when only that fits, or when `HEAPTUI_ON_DISK=1` asks for it.
pub fn check_need(path: &Path, kind: &str, file_bytes: u64, need: Need) -> Result<()> {
    let budget = available()?;
    let forced = super::env::flag("HEAPTUI_ON_DISK");
    if crate::sys::spill::on() {
        return Ok(());
    }
    let mb = |b: u64| b.div_ceil(1 << 20);
    let ignore = super::env::flag("HEAPTUI_IGNORE_MEMORY");
    if let Some(b) = &budget {
        *CHECKED.lock().unwrap_or_else(|e| e.into_inner()) = Some((need.bytes, b.clone()));
    }
    let Some(budget) = budget.clone().filter(|b| need.bytes > b.bytes && !forced) else {
        if let Some(b) = budget.filter(|_| !forced && !ignore) {
            // In memory, as estimated; should the estimate be low, what goes past the
            // budget goes to disk rather than the process to the OOM killer.
            guard(path, &b);
        }
        if forced {
            let why = "HEAPTUI_ON_DISK=1 asks for it".to_string();
            on_disk(need.bytes, why).map_err(|e| {
                Error::Memory(format!(
                    "{}: HEAPTUI_ON_DISK=1 asks to build the index on disk, and {e}",
                    path.display()
                ))
            })?;
        }
        return Ok(());
    };
    if ignore {
        return Ok(());
    }
    let avail = budget.bytes;
    let short = format!(
        "{}: indexing this {} file of {} MB needs about {} MB of memory ({}), and only {} MB \
         is available (from {})",
        path.display(),
        kind,
        mb(file_bytes),
        mb(need.bytes),
        need.basis,
        mb(avail),
        budget.from
    );
    let floor = on_disk_floor(need.bytes);
    let why = if avail < floor {
        format!(
            "built on disk it would still need {} MB in memory (64 MiB and 10 % of the need)",
            mb(floor)
        )
    } else {
        match on_disk(need.bytes, format!("{short}: building it on disk")) {
            Ok(()) => return Ok(()),
            Err(e) => format!("it cannot be built on disk: {e}"),
        }
    };
    Err(Error::Memory(format!(
        "{short}; {why}; free memory, raise the limit, use a larger machine, or set \
         HEAPTUI_IGNORE_MEMORY=1 to try anyway"
    )))
}

/// Memory left for the binary, the stack and the small blocks, which the guard of a build
/// in memory does not count ([`guard`]).
const SMALL_BLOCKS: u64 = 64 << 20;

/// Arms the allocator's guard for a build in memory ([`crate::sys::spill::arm`]): the
/// large blocks stay within the budget less [`SMALL_BLOCKS`], and what would go past it
/// goes to spill files in the spill folder ([`crate::sys::files::spill_dir`]). Without
/// one, or with one on a memory-backed file system (where spilling relieves nothing),
/// the build goes on unguarded, as before.
fn guard(path: &Path, budget: &super::budget::Budget) {
    let Some(dir) = crate::sys::files::spill_dir() else {
        return;
    };
    if crate::sys::files::memory_backed(&dir).is_some() {
        return;
    }
    let limit = budget.bytes.saturating_sub(SMALL_BLOCKS);
    let why = format!(
        "{}: the index took more memory than estimated, and more than the {} MB available \
         (from {}): the rest of it is built on disk, in unlinked files under {} (slower; \
         the answers are the same)",
        path.display(),
        budget.bytes >> 20,
        budget.from,
        dir.display()
    );
    let _ = crate::sys::spill::arm(&dir, limit as usize, why);
}

/// Starts building on disk, in the spill folder ([`crate::sys::files::spill_dir`]), for an index that needs
/// `need` bytes of memory (as much disk, at most); `why` is kept for the user. The
/// reason when that cannot be done.
fn on_disk(need: u64, why: String) -> std::result::Result<(), String> {
    let Some(dir) = crate::sys::files::spill_dir() else {
        return Err("there is no cache directory to put its files in".into());
    };
    if let Some(kind) = crate::sys::files::memory_backed(&dir) {
        return Err(format!(
            "its spill folder {} is on a memory-backed file system ({kind}), where its \
             files would take memory too (set HEAPTUI_SPILL_DIR to a folder on a disk)",
            dir.display()
        ));
    }
    crate::sys::files::private_dir(&dir)
        .map_err(|e| format!("the cache directory {} cannot be made: {e}", dir.display()))?;
    crate::sys::files::check_room(&dir, 0, need).map_err(|room| {
        format!(
            "it would need about {} MB of disk, and {room} (set HEAPTUI_CACHE_DIR to a \
             directory on a larger disk)",
            need.div_ceil(1 << 20)
        )
    })?;
    let why = format!(
        "{why}, in unlinked files under {} (slower; the answers are the same)",
        dir.display()
    );
    crate::sys::spill::start(&dir, why)
        .map_err(|e| format!("{} cannot hold its files: {e}", dir.display()))?;
    // The pool's anonymous pages go back: from now on large blocks come from the files.
    crate::sys::alloc::release();
    Ok(())
}

/// Memory that building an index on disk still needs, for an index that needs `bytes` in
/// memory: the small blocks that stay in anonymous memory and the pages the passes touch
/// at once, which the kernel must hold while it writes the others back: 64 MiB and 10 %
/// of the need. Measured with `bench/capped.sh` (`bench/README.md`): the 50 M-object
/// HPROF dump (need 2,725 MB, floor 336 MB) finished capped at 1,159, 580 and 150 MiB in
/// 1.2–2×, 1.8–4× and 5× the uncapped time, at 80 MiB in 27× (its depth-first search
/// thrashing); the 6 M-node V8 snapshot (need 1,028 MB, an upper bound, floor 167 MB) at
/// 245 MiB in 1.4–2.2×, at 123 MiB in 51×. Below the floor a dump is refused up front.
pub fn on_disk_floor(bytes: u64) -> u64 {
    (64 << 20) + bytes / 10
}
