//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Reference, Roles, Snapshot};
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

    fn climbs_past_internal(&self) -> bool {
        false
    }

    fn thread_locals(&self) -> Option<(&'static str, &'static str)> {
        Some((
            "java.lang.ThreadLocal$ThreadLocalMap",
            "java.lang.ThreadLocal$ThreadLocalMap$Entry",
        ))
    }

    fn thread_class(&self) -> Option<&'static str> {
        Some("java.lang.Thread")
    }

    fn class_object_class(&self) -> Option<&'static str> {
        Some("java.lang.Class")
    }

    fn reference_words(&self, r: &Reference) -> Option<(String, bool)> {
        let (label, from_class) = (r.label, r.from_class);
        let (snap, path, i) = (r.snap, r.path, r.i);
        // A class's static, by the class the object stands for.
        let owner = (from_class == "java.lang.Class").then(|| {
            snap.label(path[i - 1])
                .map(|l| l.trim_start_matches("class ").to_string())
                .unwrap_or_else(|| from_class.to_string())
        });
        Some(crate::heap::waste::java_reference_words(
            from_class,
            label,
            owner.as_deref(),
        ))
    }

    fn says_its_root(&self, name: &str) -> bool {
        name != "java.lang.Class"
    }

    /// `com.example.SessionCache.SESSIONS` → `SessionCache.SESSIONS`.
    fn brief_word(&self, w: &str) -> String {
        let segs: Vec<&str> = w.split('.').collect();
        if segs.len() < 2 || !segs[0].starts_with(|c: char| c.is_ascii_lowercase()) {
            return w.to_string();
        }
        match segs
            .iter()
            .position(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            Some(i) => segs[i..].join("."),
            None => w.to_string(),
        }
    }
}

fn is_class_loader(name: &str) -> bool {
    let last = name.rsplit(['.', '$']).next().unwrap_or(name);
    last.ends_with("ClassLoader") || name == "java.lang.ClassLoader"
}
