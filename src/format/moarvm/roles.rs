//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Reference, Roles, Snapshot};
use crate::heap::{ObjId, RootKind};

pub struct MoarVmRoles;

impl Roles for MoarVmRoles {
    fn pass_through(&self, snap: &Snapshot, o: ObjId, name: &str) -> bool {
        snap.graph.roots_of(o).iter().any(|r| {
            matches!(
                r.kind,
                RootKind::MoarPermanent
                    | RootKind::MoarInstance
                    | RootKind::MoarCStack
                    | RootKind::MoarThread
                    | RootKind::MoarInterGen
                    | RootKind::MoarCallStack
            )
        }) || matches!(
            name,
            "Stash"
                | "GLOBAL"
                | "BOOTCode"
                | "Code"
                | "Sub"
                | "Method"
                | "Block"
                | "Routine"
                | "BOOTStaticFrame"
                | "BOOTCompUnit"
                | "BOOTContext"
                | "BOOTHash"
                | "Scalar"
                | "BOOTException"
        ) || name.starts_with("Permanent roots")
            || name.ends_with("roots")
            || name.contains("(Frame)")
            || name.starts_with("Frame")
            || is_frame(name)
    }

    fn internal(&self, name: &str) -> bool {
        name.ends_with("(STable)")
            || name.starts_with("NQP")
            || name.starts_with("Perl6::")
            || name.starts_with("QAST::")
            || name.starts_with("QRegex::")
            || name.starts_with("BOOT")
            || name == "SCRef"
    }

    fn is_structural(&self, name: &str) -> bool {
        matches!(
            name,
            "BOOTArray"
                | "BOOTHash"
                | "VMArray"
                | "Scalar"
                | "BOOTIntArray"
                | "BOOTStrArray"
                | "IterationBuffer"
        )
    }

    fn strings_note(&self) -> Option<&'static str> {
        Some(" (MoarVM snapshots keep no string text)")
    }

    fn is_collection(&self, name: &str) -> bool {
        matches!(name, "Hash" | "Array" | "List" | "Map" | "Set" | "Bag")
    }

    fn names_by_lexicals(&self) -> bool {
        true
    }

    fn reference_words(&self, r: &Reference) -> Option<(String, bool)> {
        let (label, from_class) = (r.label, r.from_class);
        (label == "unknown").then(|| (format!("an attribute of {from_class}"), false))
    }
}

/// A MoarVM call frame's class: `name (file:line)`.
pub fn is_frame(name: &str) -> bool {
    name.ends_with(')') && name.contains(" (") && name.contains(':')
}
