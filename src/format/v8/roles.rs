//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Roles, Snapshot};
use crate::heap::{ObjId, RootKind};

pub struct V8Roles;

impl Roles for V8Roles {
    fn pass_through(&self, snap: &Snapshot, o: ObjId, name: &str) -> bool {
        name == "(synthetic)"
            || name == "global"
            || name.starts_with("Window")
            || name == "system / Context"
            || name.starts_with("system / Context / ")
            || name.starts_with("system / NativeContext")
            || name == "(closure)"
            || name == "(object properties)"
            || snap
                .graph
                .roots_of(o)
                .iter()
                .any(|r| matches!(r.kind, RootKind::Synthetic | RootKind::GlobalObject))
    }

    fn internal(&self, name: &str) -> bool {
        (name.starts_with('(') && name != "(closure)") || name.starts_with("system / ")
    }

    fn is_structural(&self, name: &str) -> bool {
        name == "(array)"
            || name == "(object elements)"
            || name == "(object properties)"
            || name == "(system)"
            || name == "(object shape)"
            || name.starts_with("system / ")
    }

    fn is_collection(&self, name: &str) -> bool {
        matches!(name, "Map" | "Set" | "WeakMap" | "WeakSet" | "Array")
    }
}
