//! What indexing a dump of this format needs at most, before any of it is read beyond
//! its header (see [`crate::sys::memory`]).

use crate::sys::memory::Need;

/// MoarVM format 3: peak bytes per collectable and per reference of the index and the
/// dominator tree. Measured on generated snapshots (release build, peak RSS less the
/// process's 10 MB and the file): 4 M collectables with 10 references 181 MB (43 bytes
/// each), 200,000 with 4 M references 100 MB (19 bytes a reference), 2 M with 6 M 230 MB
/// (predicted 248 MB); rounded up by a quarter.
const MOAR_PER_COLLECTABLE: u64 = 56;
const MOAR_PER_REFERENCE: u64 = 24;

/// What a MoarVM format 3 snapshot of `collectables` and `references` needs at most.
pub fn counted_need(collectables: u64, references: u64) -> Need {
    Need {
        bytes: collectables
            .saturating_mul(MOAR_PER_COLLECTABLE)
            .saturating_add(references.saturating_mul(MOAR_PER_REFERENCE)),
        basis: format!(
            "{collectables} collectables at {MOAR_PER_COLLECTABLE} bytes and {references} references at {MOAR_PER_REFERENCE}"
        ),
    }
}

/// Peak anonymous memory of indexing a file and building its dominator tree, per byte
/// of the (decompressed) file, as measured on large real files (`bench/README.md`):
/// 411 MB for 436 MB for format 2 (4.28 M collectables, `gen-large-moarvm.sh` with
/// NODES=400000, 2026-11-24 00:40); rounded up.
const PER_FILE_BYTE: f64 = 1.0;

/// A MoarVM format 2 snapshot's need: its size times [`PER_FILE_BYTE`]. `None` for
/// format 3, which compresses its tables with zstd, so that its bytes say little about
/// the index: its reader checks the counts instead ([`counted_need`]).
pub fn need(bytes: &[u8]) -> Option<Need> {
    bytes
        .starts_with(b"MoarHeapDumpv002")
        .then(|| Need::per_file_byte(bytes.len() as u64, PER_FILE_BYTE))
}
