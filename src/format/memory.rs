//! The memory check up front, before an index is built: a file whose index would not fit
//! in the memory this process may use is built on disk instead ([`crate::alloc::disk`]:
//! the large arrays in unlinked spill files under the cache directory, which the kernel
//! writes back instead of killing the process), and refused (exit 2) with the figures
//! only when even that would not fit: less memory than [`on_disk_floor`], or too little
//! disk. Never killed by the kernel or out of memory half-way ([`crate::alloc`] ends the
//! process cleanly then, but the work is lost). The memory left is the least of what the
//! kernel, the memory cgroup and the resource limits allow ([`super::budget`]), or
//! `HEAPTUI_MEMORY_LIMIT` (a whole number of bytes); `HEAPTUI_IGNORE_MEMORY=1` tries in
//! memory anyway; `HEAPTUI_ON_DISK=1` builds on disk whatever the budget.
//!
//! Where a format says up front how much its index will hold, the need is an upper bound
//! computed from those counts, checked against the bytes (a count the file could not hold
//! counts as what it could), at the peak bytes per object and per reference of indexing
//! and building the dominator tree:
//! - V8: the header's `node_count` and `edge_count` ([`v8_need`]); the reader refuses a
//!   file with more nodes or edges than they say. The strings, which the header does not
//!   count, are bounded by half the file's double quotes;
//! - Dart: the header's object and reference counts ([`dart_need`]); the reader reads
//!   no more objects than the count, and refuses more references;
//! - MoarVM format 3: the collectables and references of the snapshot opened, counted in
//!   its compressed columns before they are decoded ([`moarvm_need`], checked by the
//!   reader once it has listed the snapshots).
//!
//! Elsewhere (HPROF, Go, MoarVM format 2) nothing up front says how many objects there
//! are, and the need is the peak measured per byte of file on large real files
//! ([`per_file_byte`]): an average, not a bound. A build in memory is therefore guarded
//! ([`guard`]): should the index take more than the budget, the rest goes to disk.

use std::path::Path;

use super::Format;
use crate::error::{Error, Result};

/// Peak anonymous memory of indexing a file and building its dominator tree, per byte
/// of the (decompressed) file, as measured on large real files (`bench/README.md`):
/// HPROF 2,410 MB for 2,381 MB (50 M objects), 3,031 MB for 3,064 MB and 259 MB for
/// 245 MB (at most 1.06 per byte), V8 355 MB for 507 MB (0.70), in `bench/run.sh`'s
/// table of 2026-11-24 00:07; Go 458 MB for 308 MB and Dart 4,299 MB for 966 MB (17.4
/// file bytes per object: LEB128 is compact) in that of 2026-11-22 (before the smaller
/// index and dominator pass, so high); MoarVM format 2 411 MB for 436 MB (4.28 M
/// collectables, `gen-large-moarvm.sh` with NODES=400000, 2026-11-24 00:40); rounded up.
/// V8 and Dart use them only when their header is unreadable ([`need`]). `None` for
/// MoarVM's format 3, which compresses its tables with zstd, so that its bytes say
/// little about the index: its reader checks the counts instead ([`moarvm_need`])
/// (`first` is the file's first bytes).
fn per_file_byte(format: Format, first: &[u8]) -> Option<f64> {
    match format {
        Format::Hprof => Some(1.2),
        Format::V8 => Some(0.8),
        Format::Go => Some(1.5),
        Format::Dart => Some(4.5),
        Format::MoarVm if first.starts_with(b"MoarHeapDumpv002") => Some(1.0),
        Format::MoarVm => None,
    }
}

/// What indexing a file needs at most, and how that was found (for the message).
#[derive(Debug, Clone)]
pub struct Need {
    pub bytes: u64,
    pub basis: String,
}

/// MoarVM format 3: peak bytes per collectable and per reference of the index and the
/// dominator tree. Measured on generated snapshots (release build, peak RSS less the
/// process's 10 MB and the file): 4 M collectables with 10 references 181 MB (43 bytes
/// each), 200,000 with 4 M references 100 MB (19 bytes a reference), 2 M with 6 M 230 MB
/// (predicted 248 MB); rounded up by a quarter.
const MOAR_PER_COLLECTABLE: u64 = 56;
const MOAR_PER_REFERENCE: u64 = 24;

/// What a MoarVM format 3 snapshot of `collectables` and `references` needs at most.
pub fn moarvm_need(collectables: u64, references: u64) -> Need {
    Need {
        bytes: collectables
            .saturating_mul(MOAR_PER_COLLECTABLE)
            .saturating_add(references.saturating_mul(MOAR_PER_REFERENCE)),
        basis: format!(
            "{collectables} collectables at {MOAR_PER_COLLECTABLE} bytes and {references} references at {MOAR_PER_REFERENCE}"
        ),
    }
}

/// V8: peak bytes per node and per edge of the index and the dominator tree, measured on
/// generated snapshots of minimal records (five one-digit fields a node: the most
/// nodes a byte of file can hold) in `tests/hostile_memory.rs`: 1 M unreachable nodes
/// 28.8 MB (2.9 bytes per byte of file, against 0.8 estimated before), 300,000 nodes
/// each reached by an edge 19.6 MB, 100,000 nodes and 1 M edges 29.7 MB; rounded up.
/// Real files need less (355 MB for a 507 MB Node snapshot): this is a bound.
const V8_PER_NODE: u64 = 64;
const V8_PER_EDGE: u64 = 32;
/// V8: peak bytes per string: its offset (8) and its slot in the tables that name the
/// classes of objects and native nodes, detached or not (4 each); rounded up.
const V8_PER_STRING: u64 = 32;

/// What a V8 snapshot whose header says `declared` needs at most, in a file of `len`
/// bytes with `quotes` double quotes: a count is taken as no more than the file could
/// hold (each integer takes two bytes with its comma), and a count the header leaves out
/// as that much. The header does not count the strings: every string has two quotes, so
/// half the quotes bound them.
pub fn v8_need(d: &super::v8::Declared, len: u64, quotes: u64) -> Need {
    let fits = |fields: usize| len / (2 * fields.max(1) as u64);
    let nodes = d.nodes.unwrap_or(u64::MAX).min(fits(d.node_fields));
    let edges = d.edges.unwrap_or(u64::MAX).min(fits(d.edge_fields));
    let strings = quotes / 2;
    let said = if d.nodes.is_some() && d.edges.is_some() {
        "as its header says"
    } else {
        "as many as its bytes could hold where its header does not say"
    };
    Need {
        bytes: nodes * V8_PER_NODE + edges * V8_PER_EDGE + strings * V8_PER_STRING,
        basis: format!(
            "{nodes} nodes at {V8_PER_NODE} bytes and {edges} edges at {V8_PER_EDGE}, {said}, and at most {strings} strings at {V8_PER_STRING}"
        ),
    }
}

/// Dart: peak bytes per object and per reference, measured as for V8 (objects of four
/// one-byte values, references of one byte): 1 M objects 32.4 MB, 20,000 objects with
/// 4 M references 33.2 MB (8.1 bytes per byte of file, against 4.5 estimated before);
/// rounded up.
const DART_PER_OBJECT: u64 = 40;
const DART_PER_REFERENCE: u64 = 10;

/// What a Dart snapshot of `objects` and `references` (its header's counts) needs at
/// most, with `room` bytes for the objects: an object takes at least four, a reference
/// one.
pub fn dart_need(objects: u64, references: u64, room: u64) -> Need {
    let objects = objects.min(room / 4);
    let references = references.min(room);
    Need {
        bytes: objects * DART_PER_OBJECT + references * DART_PER_REFERENCE,
        basis: format!(
            "{objects} objects at {DART_PER_OBJECT} bytes and {references} references at {DART_PER_REFERENCE}, as its header says"
        ),
    }
}

/// What indexing `bytes` (of `format`) needs, found before any of it is read beyond
/// a header; `None` for MoarVM format 3 (its reader checks, [`moarvm_need`]).
pub fn need(format: Format, bytes: &[u8]) -> Option<Need> {
    let len = bytes.len() as u64;
    match format {
        Format::V8 => {
            // Without a header up front (the first key), as many nodes as the bytes
            // could hold: five fields (the fewest the reader takes) of one digit each.
            let d = super::v8::declared(bytes).unwrap_or(super::v8::Declared {
                nodes: None,
                edges: None,
                node_fields: 5,
                edge_fields: 5,
            });
            let quotes = memchr::memchr_iter(b'"', bytes).count() as u64;
            return Some(v8_need(&d, len, quotes));
        }
        Format::Dart => {
            if let Ok(h) = super::dart::header(bytes) {
                let room = len - h.objects_at as u64;
                return Some(dart_need(h.object_count, h.reference_count, room));
            }
        }
        _ => {}
    }
    // An unreadable header is refused by the reader; until then, the average.
    let k = per_file_byte(format, &bytes[..bytes.len().min(16)])?;
    Some(Need {
        bytes: (len as f64 * k) as u64,
        basis: format!("{k} bytes per byte of dump, as measured on large dumps"),
    })
}

/// The memory this process may still use ([`super::budget`]).
fn available() -> Result<Option<super::budget::Budget>> {
    super::budget::budget()
}

/// Refuses, before any index is built, a file (`bytes`, of `format`) whose index would
/// not fit in the memory left ([`need`]). MoarVM format 3 is left to its reader, which
/// knows its counts once it has listed the snapshots ([`check_need`]).
pub fn check(path: &Path, format: Format, bytes: &[u8]) -> Result<()> {
    available()?;
    match need(format, bytes) {
        Some(n) => check_need(path, format, bytes.len() as u64, n),
        None => Ok(()),
    }
}

/// Refuses a file of `file_bytes` bytes whose index needs `need`, when that is more than
/// the memory left and building it on disk would not fit either; builds it on disk
/// ([`crate::alloc::disk`]) when only that fits, or when `HEAPTUI_ON_DISK=1` asks for it.
pub fn check_need(path: &Path, format: Format, file_bytes: u64, need: Need) -> Result<()> {
    let budget = available()?;
    let forced = std::env::var_os("HEAPTUI_ON_DISK").is_some_and(|v| v == "1");
    if crate::alloc::disk::on() {
        return Ok(());
    }
    let mb = |b: u64| b.div_ceil(1 << 20);
    let ignore = std::env::var_os("HEAPTUI_IGNORE_MEMORY").is_some();
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
        format.title(),
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

/// Arms the allocator's guard for a build in memory ([`crate::alloc::disk::arm`]): the
/// large blocks stay within the budget less [`SMALL_BLOCKS`], and what would go past it
/// goes to spill files in the cache directory's `spill/`. Without a cache directory the
/// build goes on unguarded, as before.
fn guard(path: &Path, budget: &super::budget::Budget) {
    let Some(dir) = crate::source::cache_dir().map(|d| d.join("spill")) else {
        return;
    };
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
    let _ = crate::alloc::disk::arm(&dir, limit as usize, why);
}

/// Starts building on disk, in the cache directory's `spill/`, for an index that needs
/// `need` bytes of memory (as much disk, at most); `why` is kept for the user. The
/// reason when that cannot be done.
fn on_disk(need: u64, why: String) -> std::result::Result<(), String> {
    let Some(dir) = crate::source::cache_dir().map(|d| d.join("spill")) else {
        return Err("there is no cache directory to put its files in".into());
    };
    crate::source::private_dir(&dir)
        .map_err(|e| format!("the cache directory {} cannot be made: {e}", dir.display()))?;
    crate::source::check_room(&dir, 0, need).map_err(|room| {
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
    crate::alloc::disk::start(&dir, why)
        .map_err(|e| format!("{} cannot hold its files: {e}", dir.display()))
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
