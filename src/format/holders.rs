//! Holders in words: the reference that keeps an object, named as a user reads it
//! (`static SESSIONS of com.example.SessionCache`, `property _events.tick of EventBus`,
//! `java.util.ArrayList in static MAPS of holdout.SparseIndex`), from the last steps of
//! its path. The leak suspects (`crate::suspects`) and the waste report
//! (`crate::waste`) both name holders with it, so that they say the same words.

use super::{Reference, Snapshot};
use crate::heap::waste::cut as short;
use crate::heap::{ObjId, RootKind};

fn is_structural(snap: &Snapshot, name: &str) -> bool {
    snap.format.roles().is_structural(name)
}

fn is_collection(snap: &Snapshot, name: &str) -> bool {
    snap.format.roles().is_collection(name)
}

/// The reference that keeps `o`, in words, from the last steps of its path. An object
/// inside a collection's plumbing (the `Object[]` of an `ArrayList`, a `HashMap$Node`,
/// V8's `(object elements)`) is named by the collection and what holds it: `java.util.
/// ArrayList in static MAPS of holdout.SparseIndex`, as the collection's own suspect
/// says. The waste report names its sparse collections with it too.
pub fn holder_words(snap: &Snapshot, path: &[ObjId], o: ObjId) -> String {
    holder_words_from(snap, path, o, true)
}

/// [`holder_words`] over a chain of referrers that need not start at a GC root (the
/// waste report's first strong referrers): the chain's first object is not said to be
/// a root.
pub fn holder_words_in_chain(snap: &Snapshot, chain: &[ObjId], o: ObjId) -> String {
    holder_words_from(snap, chain, o, false)
}

/// The index of the container that holds `path`'s last object through plumbing: the
/// collection above the plumbing, or the plumbing's topmost object when what holds it
/// is no collection (a field of a plain object, a static). `None` when the last
/// reference is no plumbing's or says all itself (V8's closure contexts).
fn container_of(snap: &Snapshot, path: &[ObjId]) -> Option<usize> {
    let n = path.len().checked_sub(1)?;
    if n < 2 {
        return None;
    }
    let class = |k: usize| snap.class_name(path[k]);
    let structural = |k: usize| is_structural(snap, class(k));
    if !structural(n - 1) {
        return None;
    }
    let label = short(
        &snap
            .edge_label(path[n - 1], path[n])
            .unwrap_or_else(|| "?".into()),
        60,
    );
    let fc = short(class(n - 1), 60);
    let stops = snap
        .format
        .roles()
        .reference_words(&Reference {
            snap,
            path,
            i: n,
            label: &label,
            from_class: &fc,
        })
        .is_some_and(|(_, stop)| stop);
    if stops {
        return None;
    }
    // path[k] is the topmost plumbing, path[k - 1] what holds it.
    let mut k = n - 1;
    while k >= 1 && structural(k - 1) {
        k -= 1;
    }
    if k == 0 {
        return None;
    }
    Some(if is_collection(snap, class(k - 1)) {
        k - 1
    } else {
        k
    })
}

fn holder_words_from(snap: &Snapshot, path: &[ObjId], o: ObjId, roots: bool) -> String {
    if path.len() < 2 {
        if let Some(r) = snap
            .graph
            .roots_of(o)
            .iter()
            .find(|r| matches!(r.kind, RootKind::DataSegment | RootKind::BssSegment))
        {
            let seg = if r.kind == RootKind::BssSegment {
                "bss"
            } else {
                "data"
            };
            return format!("global variable at {seg} +0x{:x}", r.frame);
        }
        let roots = snap.describe_roots(o);
        return if roots.is_empty() {
            "no path from a GC root".to_string()
        } else {
            format!("GC root ({roots})")
        };
    }
    if snap.format.roles().names_by_lexicals() {
        if let Some(w) = lexical(snap, o) {
            return w;
        }
    }
    if let Some(c) = container_of(snap, path) {
        let inner = holder_words_from(snap, &path[..=c], path[c], roots);
        return crate::heap::waste::in_container(snap.class_name(path[c]), &inner);
    }
    let mut words = Vec::new();
    let mut i = path.len() - 1;
    // Up to three references, while the holder is plumbing (an array, an entry).
    while i >= 1 && words.len() < 3 {
        let (from, to) = (path[i - 1], path[i]);
        let label = short(&snap.edge_label(from, to).unwrap_or_else(|| "?".into()), 60);
        let fc = short(snap.class_name(from), 60);
        let fc = if fc.is_empty() {
            snap.describe_roots(from)
        } else {
            fc
        };
        let fc = fc.as_str();
        let roles = snap.format.roles();
        let (w, stop) = if fc.is_empty() {
            (label.clone(), false)
        } else {
            roles
                .reference_words(&Reference {
                    snap,
                    path,
                    i,
                    label: &label,
                    from_class: fc,
                })
                .unwrap_or_else(|| (format!("{label} of {fc}"), false))
        };
        if stop {
            words.push(w);
            break;
        }
        let done = !(is_structural(snap, fc) || roles.part_of_holder(fc)) || i == 1;
        words.push(w);
        if done {
            break;
        }
        i -= 1;
    }
    if roots && i == 1 && words.len() < 3 {
        let first = path[0];
        let fc = snap.class_name(first);
        // Rooted directly: say by what, unless the holder already names it.
        if snap.format.roles().says_its_root(fc) {
            let roots = snap.describe_roots(first);
            if !roots.is_empty() {
                words.push(format!("GC root ({roots})"));
            }
        }
    }
    // V8: `property tick of Object in property _events of EventBus` reads as
    // `property _events.tick of EventBus`.
    let mut merged: Vec<String> = Vec::new();
    for w in words {
        if let Some(prev) = merged.last_mut() {
            if let (Some(inner), Some(outer)) = (
                prev.strip_prefix("property ")
                    .and_then(|p| p.strip_suffix(" of Object")),
                w.strip_prefix("property "),
            ) {
                if let Some((name, owner)) = outer.split_once(" of ") {
                    *prev = format!("property {name}.{inner} of {owner}");
                    continue;
                }
            }
        }
        merged.push(w);
    }
    merged.join(" in ")
}

/// MoarVM writes most references without a name; a frame's lexical (`%SESSIONS`,
/// `$BUS`) is the name a user knows the object by, wherever it lies on the paths.
fn lexical(snap: &Snapshot, o: ObjId) -> Option<String> {
    let refs = snap.graph.referrers(o);
    for &r in refs.iter().take(256) {
        let Some(label) = snap.edge_label(r, o) else {
            continue;
        };
        if label.starts_with(['%', '@', '$', '&']) && label.len() > 1 {
            return Some(format!("lexical {label} of {}", snap.class_name(r)));
        }
    }
    None
}
