//! What indexing a dump of this format needs at most, before any of it is read beyond
//! its header (see [`crate::sys::memory`]).

use crate::sys::memory::Need;

/// Dart: peak bytes per object and per reference, measured as for V8 (objects of four
/// one-byte values, references of one byte): 1 M objects 32.4 MB, 20,000 objects with
/// 4 M references 33.2 MB (8.1 bytes per byte of file, against 4.5 estimated before);
/// rounded up.
const DART_PER_OBJECT: u64 = 40;
const DART_PER_REFERENCE: u64 = 10;

/// What a Dart snapshot of `objects` and `references` (its header's counts) needs at
/// most, with `room` bytes for the objects: an object takes at least four, a reference
/// one.
fn counted_need(objects: u64, references: u64, room: u64) -> Need {
    let objects = objects.min(room / 4);
    let references = references.min(room);
    Need {
        bytes: objects * DART_PER_OBJECT + references * DART_PER_REFERENCE,
        basis: format!(
            "{objects} objects at {DART_PER_OBJECT} bytes and {references} references at {DART_PER_REFERENCE}, as its header says"
        ),
    }
}

/// Peak anonymous memory of indexing a file and building its dominator tree, per byte
/// of the (decompressed) file, as measured on large real files (`bench/README.md`):
/// 4,299 MB for 966 MB (17.4 file bytes per object: LEB128 is compact) in
/// `bench/run.sh`'s table of 2026-11-22 (before the smaller index and dominator pass, so
/// high); rounded up. Used only when the header is unreadable (the reader refuses the
/// file then).
const PER_FILE_BYTE: f64 = 4.5;

/// A Dart snapshot's need from its header's counts ([`counted_need`]), else the average.
pub fn need(bytes: &[u8]) -> Option<Need> {
    let len = bytes.len() as u64;
    Some(match super::header(bytes) {
        Ok(h) => counted_need(h.object_count, h.reference_count, len - h.objects_at as u64),
        Err(_) => Need::per_file_byte(len, PER_FILE_BYTE),
    })
}
