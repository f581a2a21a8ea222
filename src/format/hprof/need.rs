//! What indexing a dump of this format needs at most, before any of it is read beyond
//! its header (see [`crate::sys::memory`]).

use crate::sys::memory::Need;

/// Peak anonymous memory of indexing a file and building its dominator tree, per byte
/// of the (decompressed) file, as measured on large real files (`bench/README.md`):
/// 2,410 MB for 2,381 MB (50 M objects), 3,031 MB for 3,064 MB and 259 MB for 245 MB
/// (at most 1.06 per byte), in `bench/run.sh`'s table of 2026-11-24 00:07; rounded up.
const PER_FILE_BYTE: f64 = 1.2;

/// An HPROF dump's need: its size times [`PER_FILE_BYTE`] (its records do not count the
/// objects up front).
pub fn need(bytes: &[u8]) -> Option<Need> {
    Some(Need::per_file_byte(bytes.len() as u64, PER_FILE_BYTE))
}
