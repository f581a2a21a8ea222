//! Which objects the descent passes through, which are the runtime's own, and which
//! classes are collections: each format says ([`crate::format::Roles`], in
//! `src/format/<format>/roles.rs`).

use super::*;

/// Whether an object only carries what it dominates: the descent looks below it.
pub fn pass_through(snap: &Snapshot, o: ObjId) -> bool {
    snap.format
        .roles()
        .pass_through(snap, o, snap.class_name(o))
}

/// A runtime's own object that a user does not allocate or fix (reported only from 10 %).
pub(super) fn internal(snap: &Snapshot, o: ObjId) -> bool {
    snap.format.roles().internal(snap.class_name(o))
}

/// A collection's plumbing: backing arrays and tables, entry nodes, runtime containers.
/// Neither the title's member nor (for an array) the object a fix touches.
pub fn is_structural(format: Format, name: &str) -> bool {
    format.roles().is_structural(name)
}

/// Whether an object is a collection (its class says so).
pub(super) fn is_collection(format: Format, name: &str) -> bool {
    format.roles().is_collection(name)
}
