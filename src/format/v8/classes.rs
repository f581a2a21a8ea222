//! How V8 nodes are grouped into classes, as DevTools' Summary groups them: the class key
//! of a node (type, name, detached), DOM elements by their tag ([`dom_tag`]), and
//! DevTools' propagation of the DOM state to nodes without a wrapper
//! ([`propagate_dom_state`]). The names themselves are read in the parent module.

use std::collections::HashMap;

use super::owned::EdgeStarts;
use super::{json, Cols, EdgeCols, NodeCols};

/// DevTools groups by type, and by name only for objects and native nodes.
pub(super) fn class_key(cols: &Cols, ty: i64, name: i64, detached: bool) -> (u32, u32, bool) {
    let tname = cols
        .node_types
        .get(ty as usize)
        .map(String::as_str)
        .unwrap_or("");
    let named = matches!(tname, "object" | "native");
    let ty = match tname {
        // Every kind of string is one "(string)" group.
        "concatenated string" | "sliced string" => cols
            .node_types
            .iter()
            .position(|t| t == "string")
            .map_or(ty, |p| p as i64),
        _ => ty,
    };
    (
        ty.clamp(0, u32::MAX as i64) as u32,
        if named {
            name.clamp(0, u32::MAX as i64) as u32
        } else {
            u32::MAX
        },
        detached,
    )
}

/// The tag a DOM element's name is grouped under, as DevTools' Summary groups it: the
/// name up to its first space, closed (`<div class="card" data-index="3">` is `<div>`); a
/// name without attributes (`<div>`) is its own tag. `None` for a name that does not start
/// with `<` (a constructor, `Text`, `HTMLDocument`). The attributes stay in the node's
/// name, which is its label.
pub fn dom_tag(name: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !name.starts_with('<') {
        return None;
    }
    Some(match name.find(' ') {
        Some(k) => format!("{}>", &name[..k]).into(),
        None => name.into(),
    })
}

/// The class key's name of DOM elements: the first string (by index) whose [`dom_tag`]
/// is the element's, so that `<div id="a">` and `<div class="b">` share one class (one
/// histogram row, `<div>` or `Detached <div>`) while each node keeps its own name.
#[derive(Default)]
pub(super) struct DomTags(HashMap<String, u32>);

impl DomTags {
    /// The string index that stands for the tag of the name at `name`, or `name` itself
    /// when it is not a DOM element's name. Only called once per distinct name.
    pub(super) fn canonical(&mut self, b: &[u8], strings: &[u64], name: i64) -> i64 {
        let Some(&off) = usize::try_from(name).ok().and_then(|i| strings.get(i)) else {
            return name;
        };
        // `off` is the string's opening quote.
        if b.get(off as usize + 1) != Some(&b'<') {
            return name;
        }
        let (text, _) = json::decode_string(b, off as usize, 256);
        match dom_tag(&text) {
            Some(tag) => *self.0.entry(tag.into_owned()).or_insert(name as u32) as i64,
            None => name,
        }
    }
}

/// The histogram name of a class key, as DevTools' Summary names it: DOM elements by
/// their tag ([`dom_tag`]), `Detached ` before those that are detached. `name` gives the
/// text of a string index, `None` for one past the strings (a cut file): `<string N>`.
pub fn class_name(
    cols: &Cols,
    key: (u32, u32, bool),
    name: impl FnOnce(u32) -> Option<String>,
) -> String {
    let (ty, n, detached) = key;
    let tname = cols.node_types.get(ty as usize).map(String::as_str);
    let base = match tname {
        Some("hidden") => "(system)".to_string(),
        Some("object") | Some("native") => match name(n) {
            None => format!("<string {n}>"),
            Some(s) if s.is_empty() => format!("({})", tname.unwrap_or("object")),
            Some(s) => match dom_tag(&s) {
                Some(tag) => tag.into_owned(),
                None => s,
            },
        },
        Some("code") => "(compiled code)".to_string(),
        Some(t) => format!("({t})"),
        None => format!("(node type {ty})"),
    };
    if detached {
        format!("Detached {base}")
    } else {
        base
    }
}

/// DevTools' `propagateDOMState`: Blink writes `detachedness` only for DOM nodes that
/// have a JavaScript wrapper, so a detached `<p>` made by the parser and never touched
/// from JavaScript says 0 (unknown). DevTools spreads the known states along the edges
/// between native nodes (not hidden or weak ones; any other node stops it): "attached"
/// first, then "detached". Nodes that become detached move to the `Detached <name>`
/// class. Returns how many native nodes are detached in the end.
pub(super) fn propagate_dom_state(cols: &Cols, nodes: &mut NodeCols, edges: &EdgeCols) -> u64 {
    let n = nodes.count;
    if nodes.detached.len() != n || !nodes.detached.iter().any(|&d| d != 0) {
        return 0;
    }
    let Some(native) = cols.node_types.iter().position(|t| t == "native") else {
        return 0;
    };
    let hidden = cols.edge_type("hidden");
    let weak = cols.edge_type("weak");
    let is_native =
        |nodes: &NodeCols, i: usize| nodes.keys[nodes.class_key[i] as usize].0 as usize == native;
    let starts = EdgeStarts::new(nodes, edges);
    let mut queue: Vec<usize> = Vec::new();
    for state in [1u8, 2] {
        queue.extend((0..n).filter(|&i| nodes.detached[i] == state && is_native(nodes, i)));
        while let Some(x) = queue.pop() {
            for k in starts.range(x) {
                let ty = Some(edges.ty[k] as i64);
                if ty == hidden || ty == weak {
                    continue;
                }
                let t = edges.target[k] as usize;
                if t < n && nodes.detached[t] == 0 && is_native(nodes, t) {
                    nodes.detached[t] = state;
                    queue.push(t);
                }
            }
        }
    }
    // Re-class the nodes that became detached.
    let mut interned: HashMap<(u32, u32, bool), u32> = nodes
        .keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    let mut count = 0;
    for i in 0..n {
        if nodes.detached[i] == 2 && is_native(nodes, i) {
            count += 1;
            let (t, name, d) = nodes.keys[nodes.class_key[i] as usize];
            if !d {
                let key = (t, name, true);
                let next = nodes.keys.len() as u32;
                let c = *interned.entry(key).or_insert(next);
                if c == next {
                    nodes.keys.push(key);
                }
                nodes.class_key[i] = c;
            }
        }
    }
    count
}
