//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Roles, Snapshot};
use crate::heap::ObjId;

pub struct HprofRoles;

impl Roles for HprofRoles {
    fn pass_through(&self, _snap: &Snapshot, _o: ObjId, name: &str) -> bool {
        name == "java.lang.Class"
            || name == "java.lang.Module"
            || name == "java.lang.ref.Finalizer"
            || is_class_loader(name)
    }

    fn internal(&self, _name: &str) -> bool {
        false
    }

    fn is_structural(&self, name: &str) -> bool {
        name.ends_with("[]")
            || name.ends_with("$Node")
            || name.ends_with("$TreeNode")
            || name.ends_with("$Entry")
            || name.ends_with("$TreeBin")
            || name.ends_with("$ForwardingNode")
            || name.ends_with("$LinkedHashMap$Entry")
            || name == "java.lang.Object"
    }

    fn sparse_classes(&self) -> &'static [&'static str] {
        &crate::heap::waste::SPARSE_CLASSES
    }

    fn is_collection(&self, name: &str) -> bool {
        let last = name.rsplit('.').next().unwrap_or(name);
        [
            "Map",
            "Set",
            "List",
            "Deque",
            "Queue",
            "Vector",
            "Hashtable",
            "Stack",
            "Bag",
            "Cache",
        ]
        .iter()
        .any(|k| last.ends_with(k))
    }
}

fn is_class_loader(name: &str) -> bool {
    let last = name.rsplit(['.', '$']).next().unwrap_or(name);
    last.ends_with("ClassLoader") || name == "java.lang.ClassLoader"
}
