//! What indexing a dump of this format needs at most, before any of it is read beyond
//! its header (see [`crate::sys::memory`]).

use crate::sys::memory::Need;

/// Peak anonymous memory of indexing a file and building its dominator tree, per byte
/// of the (decompressed) file, as measured on large real files (`bench/README.md`):
/// 458 MB for 308 MB in `bench/run.sh`'s table of 2026-11-22 (before the smaller index
/// and dominator pass, so high); rounded up.
const PER_FILE_BYTE: f64 = 1.5;

/// A Go heap dump's need: its size times [`PER_FILE_BYTE`].
pub fn need(bytes: &[u8]) -> Option<Need> {
    Some(Need::per_file_byte(bytes.len() as u64, PER_FILE_BYTE))
}
