//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Reference, Roles, Snapshot};
use crate::heap::ObjId;

pub struct DartRoles;

impl Roles for DartRoles {
    fn pass_through(&self, _snap: &Snapshot, _o: ObjId, name: &str) -> bool {
        let short = name.rsplit("::").next().unwrap_or(name);
        matches!(
            short,
            "Class"
                | "Library"
                | "Field"
                | "Script"
                | "Isolate"
                | "ObjectStore"
                | "Root"
                | "ClassTable"
                | "FieldTable"
                | "Namespace"
                | "Closure"
                | "Context"
                | "Function"
        ) || name.starts_with("Root")
    }

    fn internal(&self, name: &str) -> bool {
        !name.contains("::")
    }

    fn is_structural(&self, name: &str) -> bool {
        let short = name.rsplit("::").next().unwrap_or(name);
        matches!(
            short,
            "_List"
                | "_GrowableList"
                | "_ImmutableList"
                | "_Map"
                | "_Set"
                | "_HashMap"
                | "_HashSet"
                | "_LinkedHashMap"
                | "_InternalLinkedHashMap"
                | "_CompactLinkedHashSet"
                | "_Uint32List"
                | "Array"
                | "GrowableObjectArray"
                | "TypeArguments"
                | "_HashMapEntry"
        )
    }

    fn is_collection(&self, name: &str) -> bool {
        let short = name.rsplit("::").next().unwrap_or(name);
        short.contains("Map")
            || short.contains("Set")
            || short.contains("List")
            || short.contains("Queue")
    }

    fn reference_words(&self, r: &Reference) -> Option<(String, bool)> {
        let (label, from_class) = (r.label, r.from_class);
        Some(if from_class == "Isolate" {
            (format!("static {label}"), true)
        } else {
            (format!("field {label} of {from_class}"), false)
        })
    }

    fn says_its_root(&self, name: &str) -> bool {
        name != "Isolate"
    }

    /// `package:app/model.dart::Order` → `Order`.
    fn brief_word(&self, w: &str) -> String {
        match w.rfind("::") {
            Some(i) => w[i + 2..].to_string(),
            None => w.to_string(),
        }
    }
}
