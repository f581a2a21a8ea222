//! Suspects in words: the title, the kind and holder, the holder's reference named as a
//! user reads it, and short names.

use super::*;

/// The member the title names: the largest that is not the object's own class nor its
/// plumbing.
pub(super) fn headline_member<'a>(snap: &Snapshot, s: &'a Suspect) -> Option<&'a Member> {
    let own = snap.graph.class_of.get(s.object as usize);
    let acc = s
        .accumulation
        .map(|(a, _)| snap.graph.class_of.get(a as usize));
    s.members.iter().find(|m| {
        m.class != own
            && Some(m.class) != acc
            && !is_structural(snap.format, &snap.graph.classes[m.class as usize].name)
    })
}

pub(super) use crate::text::thousands;

/// The suspect in words: `CLASS in HOLDER holds COUNT MEMBER`, or for several of one
/// shape `N × CLASS in HOLDER hold COUNT MEMBER`.
pub(super) fn title(snap: &Snapshot, s: &Suspect) -> String {
    let class = short(snap.class_name(s.object), 60);
    // A list by its nodes: `linked list of 503 × ChainNode via next`.
    let class = match &s.list {
        Some(l) => format!(
            "linked list of {} × {class} via {}",
            thousands(l.length),
            short(&l.via, 60)
        ),
        None => class,
    };
    let (mut t, verb) = if s.objects > 1 {
        let n = thousands(s.objects);
        let holder = in_title(&shape_of(&s.holder));
        (format!("{n} × {class} in {holder}"), "hold")
    } else {
        (format!("{class} in {}", in_title(&s.holder)), "holds")
    };
    if let Some(m) = headline_member(snap, s) {
        t.push_str(&format!(
            " {verb} {} {}",
            thousands(m.count),
            short(&snap.graph.classes[m.class as usize].name, 60)
        ));
    }
    t
}

/// A holder as a title says it: a Java static field by its qualified name
/// (`static SESSIONS of com.example.SessionCache` → `static
/// com.example.SessionCache.SESSIONS`), the rest as the holder says it. The waste
/// report's lines say their holders so too.
pub fn in_title(holder: &str) -> String {
    holder
        .split(" in ")
        .map(|part| {
            match part
                .strip_prefix("static ")
                .and_then(|p| p.split_once(" of "))
            {
                Some((field, class)) => format!("static {class}.{field}"),
                None => part.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" in ")
}

/// The suspect's kind in a word and its holder in words.
pub(super) fn kind_and_holder(
    snap: &Snapshot,
    d: &Dominators,
    o: ObjId,
    path: &[ObjId],
    members: &[Member],
    has_backing: bool,
) -> (&'static str, String) {
    let name = snap.class_name(o);
    let chain = d.dominator_chain(o);
    // Java: a thread-local of a thread (the dominators above hold the map).
    if let Some((map, _)) = snap.format.roles().thread_locals() {
        if let Some(pos) = chain.iter().position(|&x| snap.class_name(x) == map) {
            let thread = chain[pos + 1..]
                .iter()
                .copied()
                .find(|&x| is_thread(snap, x))
                .or_else(|| {
                    let r = snap.graph.referrers(chain[pos]);
                    r.iter().copied().find(|&x| is_thread(snap, x))
                });
            let who = thread
                .and_then(|t| snap.label(t))
                .unwrap_or_else(|| "?".to_string());
            return ("thread-local", format!("thread-local of thread {who}"));
        }
    }
    let holder = holder_words(snap, path, o);
    if name.starts_with("Detached ") {
        return ("detached DOM", holder);
    }
    if is_thread(snap, o) {
        return ("thread", holder);
    }
    if path.len() == 1
        && snap
            .graph
            .roots_of(o)
            .iter()
            .any(|r| r.kind == RootKind::GoroutineFrame)
    {
        return ("goroutine", holder);
    }
    let listeners = holder.contains("_events")
        || holder.to_ascii_lowercase().contains("listener")
        || members.iter().take(4).any(|m| {
            let n = brief(snap.format, &snap.graph.classes[m.class as usize].name);
            n.contains("Listener") || n.contains("Callback") || n.contains("Handler")
        });
    let collectionish =
        has_backing || is_collection(snap.format, name) || is_structural(snap.format, name);
    if listeners && collectionish {
        return ("listeners", holder);
    }
    if is_collection(snap.format, name) && !name.ends_with("[]") && name != "Array" {
        return ("collection", holder);
    }
    let roles = snap.format.roles();
    let via_closure = path.len() >= 2 && roles.is_closure(snap.class_name(path[path.len() - 2]));
    if via_closure || (name == "(closure)" && roles.is_closure(name)) {
        return ("closure", holder);
    }
    if name.ends_with("[]") || name == "(array)" || name == "Array" {
        return ("array", holder);
    }
    ("object", holder)
}

pub(super) fn is_thread(snap: &Snapshot, o: ObjId) -> bool {
    let Some(thread) = snap.format.roles().thread_class() else {
        return false;
    };
    snap.graph
        .roots_of(o)
        .iter()
        .any(|r| r.kind == RootKind::ThreadObject)
        || snap.class_name(o) == thread
}

/// `s` cut to `max` characters, with `…` where it was cut.
pub(super) fn short(s: &str, max: usize) -> String {
    crate::heap::waste::cut(s, max)
}

/// `text` with the runtime's qualified names shortened to what a narrow screen needs:
/// Java packages (`com.example.SessionCache.SESSIONS` → `SessionCache.SESSIONS`), Dart
/// library URIs (`package:app/model.dart::Order` → `Order`), Go source directories
/// (`(example.com/app/cache.go:24)` → `(cache.go:24)`).
pub fn brief(format: Format, text: &str) -> String {
    let roles = format.roles();
    let words: Vec<String> = text.split(' ').map(|w| roles.brief_word(w)).collect();
    words.join(" ")
}
