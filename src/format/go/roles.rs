//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Roles, Snapshot};
use crate::heap::ObjId;

pub struct GoRoles;

impl Roles for GoRoles {
    fn pass_through(&self, _snap: &Snapshot, _o: ObjId, _name: &str) -> bool {
        false
    }

    fn internal(&self, _name: &str) -> bool {
        false
    }

    fn is_structural(&self, name: &str) -> bool {
        name.starts_with("runtime.")
    }

    fn strings_note(&self) -> Option<&'static str> {
        Some(
            " (Go heap dumps keep no types: equal pointer-free objects, string bytes \
             among them, are listed with the arrays)",
        )
    }

    fn is_collection(&self, _name: &str) -> bool {
        false
    }

    fn untyped(&self) -> bool {
        true
    }

    /// `(example.com/app/cache.go:24)` → `(cache.go:24)`.
    fn brief_word(&self, w: &str) -> String {
        match (w.strip_prefix('('), w.rfind('/')) {
            (Some(_), Some(i)) => format!("({}", &w[i + 1..]),
            _ => w.to_string(),
        }
    }
}
