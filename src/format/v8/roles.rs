//! How the leak suspects read this runtime's classes ([`crate::format::Roles`]): which
//! objects the descent passes through, which are the runtime's own, which are a
//! collection's plumbing and which are collections.

use crate::format::{Reference, Roles, Snapshot};
use crate::heap::{ObjId, RootKind};

pub struct V8Roles;

impl Roles for V8Roles {
    fn pass_through(&self, snap: &Snapshot, o: ObjId, name: &str) -> bool {
        name == "(synthetic)"
            || name == "global"
            || name.starts_with("Window")
            || is_context(name)
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

    fn climbs_past_internal(&self) -> bool {
        true
    }

    fn is_closure(&self, name: &str) -> bool {
        is_context(name) || name == "(closure)"
    }

    fn reference_words(&self, r: &Reference) -> Option<(String, bool)> {
        let (label, fc) = (r.label, r.from_class);
        let (snap, path, i) = (r.snap, r.path, r.i);
        let from = path[i - 1];
        if is_context(fc) {
            // The function whose context it is, when the path came through it.
            let f = (i >= 2 && snap.class_name(path[i - 2]) == "(closure)")
                .then(|| snap.label(path[i - 2]))
                .flatten();
            return Some((
                match f {
                    Some(f) => format!("closure variable {label} of {f}"),
                    None => format!("closure variable {label}"),
                },
                true,
            ));
        }
        Some((
            if fc == "global" || fc.starts_with("Window") {
                format!("global {label}")
            } else if fc == "(synthetic)" {
                // The synthetic root's own words, else its name (`(Global handles)`, a
                // C++ root list).
                let roots = snap.describe_roots(from);
                let root = if roots.is_empty() {
                    snap.label(from)
                        .filter(|l| !l.is_empty())
                        .unwrap_or_else(|| "a synthetic root".to_string())
                } else {
                    roots
                };
                format!("{label} of {root}")
            } else if fc == "(closure)" {
                match snap.label(from) {
                    Some(f) => format!("property {label} of {f}"),
                    None => format!("property {label} of (closure)"),
                }
            } else {
                format!("property {label} of {fc}")
            },
            false,
        ))
    }

    fn says_its_root(&self, _name: &str) -> bool {
        false
    }

    fn part_of_holder(&self, name: &str) -> bool {
        name == "Object"
    }
}

/// A closure's context: `system / Context`, or as newer V8 names one,
/// `system / Context / scope @N`.
fn is_context(name: &str) -> bool {
    name == "system / Context" || name.starts_with("system / Context / ")
}
