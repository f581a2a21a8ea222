//! Comparisons between two snapshots, shared by `heaptui diff`, `heaptui leaks` and the
//! TUI's diff view (`heaptui BASE TARGET`).
//!
//! Three levels, from the coarsest:
//! - per class: counts and bytes on each side and their deltas ([`class_deltas`]);
//! - per owner, for every format: dominator-tree nodes named by their path from the GC
//!   roots ([`owner_map`], [`owner_deltas`]). Addresses move between dumps; these paths
//!   do not, which is what lets two dumps without common ids say which owner grew;
//! - per object, where the format's ids survive between snapshots (V8 node ids):
//!   new, gone and kept objects ([`identity`]).
//!
//! Owners need a decoder (edge labels, class objects' names), so this lives above
//! `heap` beside the formats rather than in it.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::format::Snapshot;
use crate::heap::dominators::{Dominators, VIRTUAL_ROOT};
use crate::heap::ObjId;

/// The delta a diff is sorted by (largest growth first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffSort {
    DeltaCount,
    DeltaShallow,
    DeltaRetained,
}

impl DiffSort {
    pub fn name(self) -> &'static str {
        match self {
            DiffSort::DeltaCount => "Δ count",
            DiffSort::DeltaShallow => "Δ shallow size",
            DiffSort::DeltaRetained => "Δ retained size",
        }
    }

    /// The next sort, for a key that cycles through them.
    pub fn next(self) -> Self {
        match self {
            DiffSort::DeltaCount => DiffSort::DeltaShallow,
            DiffSort::DeltaShallow => DiffSort::DeltaRetained,
            DiffSort::DeltaRetained => DiffSort::DeltaCount,
        }
    }
}

/// One class on both sides. Retained figures are 0 without dominator trees; `new` and
/// `gone` are 0 without surviving ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassDelta {
    pub class: String,
    pub base_count: u64,
    pub target_count: u64,
    pub base_shallow: u64,
    pub target_shallow: u64,
    pub base_retained: u64,
    pub target_retained: u64,
    /// Objects of the class in TARGET whose id is not in BASE.
    pub new: u64,
    /// Objects of the class in BASE whose id is not in TARGET.
    pub gone: u64,
    /// Retained bytes in TARGET of the class's new objects, MAT's class rule: an object
    /// dominated by another new object of the same class is counted in that one.
    pub new_retained: u64,
}

impl ClassDelta {
    pub fn delta_count(&self) -> i64 {
        self.target_count as i64 - self.base_count as i64
    }
    pub fn delta_shallow(&self) -> i64 {
        self.target_shallow as i64 - self.base_shallow as i64
    }
    pub fn delta_retained(&self) -> i64 {
        self.target_retained as i64 - self.base_retained as i64
    }
    pub fn delta(&self, sort: DiffSort) -> i64 {
        match sort {
            DiffSort::DeltaCount => self.delta_count(),
            DiffSort::DeltaShallow => self.delta_shallow(),
            DiffSort::DeltaRetained => self.delta_retained(),
        }
    }
}

/// Which objects are new and gone, where ids survive between snapshots.
pub struct Identity {
    /// What the ids are ("V8 node id").
    pub kind: &'static str,
    /// Per TARGET object: its id is not in BASE.
    pub new_in_target: Vec<bool>,
    /// Per BASE object: its id is not in TARGET.
    pub gone_in_base: Vec<bool>,
    pub new: u64,
    pub gone: u64,
    pub kept: u64,
}

/// New, gone and kept objects, when both snapshots have ids that survive (the same
/// kind of id on both sides); `None` otherwise.
pub fn identity(a: &Snapshot, b: &Snapshot) -> Option<Identity> {
    let (kind, ia) = a.persistent_ids()?;
    let (kind_b, ib) = b.persistent_ids()?;
    if kind != kind_b {
        return None;
    }
    // Id 0 is "no id" (a Dart object without an identity hash): such objects are
    // neither new, gone nor kept.
    let sa: HashSet<u64> = ia.iter().copied().filter(|&id| id != 0).collect();
    let sb: HashSet<u64> = ib.iter().copied().filter(|&id| id != 0).collect();
    let new_in_target: Vec<bool> = ib.iter().map(|id| *id != 0 && !sa.contains(id)).collect();
    let gone_in_base: Vec<bool> = ia.iter().map(|id| *id != 0 && !sb.contains(id)).collect();
    let new = new_in_target.iter().filter(|&&x| x).count() as u64;
    let gone = gone_in_base.iter().filter(|&&x| x).count() as u64;
    let with_id = ib.iter().filter(|&&id| id != 0).count() as u64;
    Some(Identity {
        kind,
        kept: with_id - new,
        new_in_target,
        gone_in_base,
        new,
        gone,
    })
}

/// The warning for a comparison of three snapshots (`leaks`) that are not all of one
/// format: no object ids match across runtimes, and owners are matched by their paths
/// from the GC roots, which name different things in each; `None` when the formats agree.
pub fn mixed_formats(s: &[&Snapshot]) -> Option<String> {
    let first = s.first()?.format;
    if s.iter().all(|x| x.format == first) {
        return None;
    }
    let names: Vec<&str> = s.iter().map(|x| x.format.title()).collect();
    Some(format!(
        "{}: different formats; no object ids match across them, and owners are matched by their paths from the GC roots only",
        names.join(", ")
    ))
}

/// The ids to match objects by, and why the comparison is coarser than it could be:
/// snapshots of different formats are compared by class name only, and ids that match
/// nothing (two processes) are dropped. The warning is for the user.
pub fn identity_checked(a: &Snapshot, b: &Snapshot) -> (Option<Identity>, Option<String>) {
    if a.format != b.format {
        return (
            None,
            Some(format!(
                "{} against {}: different formats, compared by class name only",
                a.format.title(),
                b.format.title()
            )),
        );
    }
    match identity(a, b) {
        Some(i) if i.kept == 0 && !i.new_in_target.is_empty() => {
            let w = format!(
                "no {} is in both snapshots (not the same process?): compared by class only",
                i.kind
            );
            (None, Some(w))
        }
        other => (other, None),
    }
}

/// Per class, both sides' figures, in class-name order. Retained sizes follow MAT's rule
/// per side (`Dominators::class_retained`) where the dominator trees are given; `new`,
/// `gone` and `new_retained` where `ids` is.
pub fn class_deltas(
    a: &Snapshot,
    b: &Snapshot,
    doms: Option<(&Dominators, &Dominators)>,
    ids: Option<&Identity>,
) -> Vec<ClassDelta> {
    let mut rows: BTreeMap<String, ClassDelta> = BTreeMap::new();
    let mut count = |s: &Snapshot, dom: Option<&Dominators>, base: bool| {
        let per_class = dom.map(|d| d.class_retained(&s.graph));
        let mut counts = vec![(0u64, 0u64); s.graph.classes.len()];
        for (o, c) in s.graph.class_of.iter().enumerate() {
            counts[c as usize].0 += 1;
            counts[c as usize].1 += s.graph.shallow_size(o as ObjId);
        }
        for (c, info) in s.graph.classes.iter().enumerate() {
            let (n, bytes) = counts[c];
            if n == 0 {
                continue;
            }
            let r = rows.entry(info.name.clone()).or_insert_with(|| ClassDelta {
                class: info.name.clone(),
                ..Default::default()
            });
            let ret = per_class.as_ref().map_or(0, |p| p[c]);
            if base {
                r.base_count += n;
                r.base_shallow += bytes;
                r.base_retained += ret;
            } else {
                r.target_count += n;
                r.target_shallow += bytes;
                r.target_retained += ret;
            }
        }
    };
    count(a, doms.map(|d| d.0), true);
    count(b, doms.map(|d| d.1), false);
    if let Some(ids) = ids {
        for (o, _) in ids.new_in_target.iter().enumerate().filter(|x| *x.1) {
            if let Some(r) = rows.get_mut(b.class_name(o as ObjId)) {
                r.new += 1;
            }
        }
        // MAT's rule for a class's retained size, on the new objects: a new object's
        // retained size counts unless a new object of the same class dominates it.
        if let Some((_, db)) = doms {
            let mut per_class = vec![0u64; b.graph.classes.len()];
            // How many new objects of each class lie on the path from the root.
            let mut open = vec![0u32; b.graph.classes.len()];
            // (object, leaving): an object is pushed again to be left after its subtree.
            let mut stack: Vec<(ObjId, bool)> = db
                .children(VIRTUAL_ROOT)
                .iter()
                .map(|&c| (c, false))
                .collect();
            while let Some((o, leaving)) = stack.pop() {
                let c = b.graph.class_of.get(o as usize) as usize;
                let is_new = ids.new_in_target.get(o as usize) == Some(&true);
                if leaving {
                    open[c] -= 1;
                    continue;
                }
                if is_new {
                    if open[c] == 0 {
                        per_class[c] += db.retained(o).unwrap_or(0);
                    }
                    open[c] += 1;
                    stack.push((o, true));
                }
                for &k in db.children(o) {
                    stack.push((k, false));
                }
            }
            for (c, info) in b.graph.classes.iter().enumerate() {
                if per_class[c] > 0 {
                    if let Some(r) = rows.get_mut(&info.name) {
                        r.new_retained += per_class[c];
                    }
                }
            }
        }
        for (o, _) in ids.gone_in_base.iter().enumerate().filter(|x| *x.1) {
            if let Some(r) = rows.get_mut(a.class_name(o as ObjId)) {
                r.gone += 1;
            }
        }
    }
    rows.into_values().collect()
}

/// Largest growth first by `sort`, then by class name.
pub fn sort_deltas(rows: &mut [ClassDelta], sort: DiffSort) {
    rows.sort_by(|x, y| {
        y.delta(sort)
            .cmp(&x.delta(sort))
            .then_with(|| x.class.cmp(&y.class))
    });
}

/// Retained bytes and objects of one owner (or of all owners with the same path), and
/// the dominator-tree nodes it stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnerFigures {
    pub retained: u64,
    pub objects: u64,
    pub nodes: Vec<ObjId>,
    /// The class of the owner's nodes (of the first, where they differ).
    pub class: String,
}

/// How a step names an object: a class object by the class it stands for (every class
/// object is a `java.lang.Class`, so its own class would make all statics look alike),
/// anything else by its class.
fn owner_step_name(s: &Snapshot, o: ObjId) -> String {
    let class = s.class_name(o);
    if class == "java.lang.Class" {
        if let Some(l) = s.label(o) {
            return l;
        }
    }
    class.to_string()
}

/// How many entries a collection holds, as its runtime counts them: an array's or
/// string's length, or an integer field named `size`, `count`, `elementCount`, or
/// `length` (Java's collections, most hand-written ones).
pub fn entries(s: &Snapshot, o: ObjId) -> Option<u64> {
    let i = s.inspect(o);
    if i.length.is_some() {
        return i.length;
    }
    i.fields.iter().find_map(|f| {
        if f.is_static
            || !matches!(
                f.name.as_str(),
                "size" | "count" | "elementCount" | "length"
            )
        {
            return None;
        }
        match f.value {
            crate::format::Value::Int(n) if n >= 0 => Some(n as u64),
            _ => None,
        }
    })
}

/// An element index folded to `[*]`, so that an owner keeps its name when elements move;
/// any other reference name as it is.
fn fold_index(e: String) -> String {
    let bare = e.trim_start_matches('[').trim_end_matches(']');
    if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
        "[*]".to_string()
    } else {
        e
    }
}

/// Names that are unique among siblings: `items` are (node, name with indexes folded,
/// name with the real index), largest retained first. Siblings whose folded names are
/// the same take their real index (`[3]`); those still alike are told apart by their
/// rank, ` #2`, ` #3` after the largest, which keeps the plain name.
fn unique_names(items: Vec<(ObjId, String, String)>) -> Vec<(ObjId, String)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (_, folded, _) in &items {
        *seen.entry(folded.clone()).or_default() += 1;
    }
    let named: Vec<(ObjId, String)> = items
        .into_iter()
        .map(|(o, folded, exact)| {
            if seen[&folded] > 1 {
                (o, exact)
            } else {
                (o, folded)
            }
        })
        .collect();
    let mut rank: HashMap<String, usize> = HashMap::new();
    named
        .into_iter()
        .map(|(o, name)| {
            let k = rank.entry(name.clone()).or_default();
            *k += 1;
            if *k == 1 {
                (o, name)
            } else {
                (o, format!("{name} #{k}"))
            }
        })
        .collect()
}

/// The owners of a snapshot: dominator-tree nodes, each named by its path from the GC
/// roots. A node under the virtual root is named by its root's kind and its class, or,
/// when several roots hold it (it is no root itself), `[held by several roots]` and the
/// shortest path to it from a root (`[held by several roots] global → cache Array`), so
/// that two such arrays are two owners. Below, each step's reference name and class,
/// element indexes folded to `[*]` unless siblings would then share a name (see
/// [`unique_names`]; a name met twice all the same takes a rank, ` #2`): every name
/// stands for one node, never two owners summed. Nodes
/// below 0.05% of the heap, or deeper than 8 levels, are not named: they are part of
/// their owner's figures.
pub fn owner_map(s: &Snapshot, d: &Dominators) -> HashMap<String, OwnerFigures> {
    let total = d.total_bytes();
    let min = (total / 2000).max(1);
    let mut out: HashMap<String, OwnerFigures> = Default::default();
    let step = |from: ObjId, to: ObjId| -> (String, String) {
        let name = owner_step_name(s, to);
        match s.edge_label(from, to) {
            Some(e) => (
                format!("{} {name}", fold_index(e.clone())),
                format!("{e} {name}"),
            ),
            None => {
                let e = format!("(dominated) {name}");
                (e.clone(), e)
            }
        }
    };
    // The shortest path from the roots to every object, made once and only when a node
    // under the virtual root is held by several roots.
    let mut parents: Option<Vec<ObjId>> = None;
    let mut tops: Vec<(ObjId, String, String)> = Vec::new();
    for &top in d.children(VIRTUAL_ROOT) {
        if d.retained(top).unwrap_or(0) < min {
            break;
        }
        let mut kinds: Vec<&str> = s
            .graph
            .roots_of(top)
            .iter()
            .map(|r| r.kind.name())
            .collect();
        kinds.dedup();
        if !kinds.is_empty() {
            let name = format!("[{}] {}", kinds.join(", "), owner_step_name(s, top));
            tops.push((top, name.clone(), name));
            continue;
        }
        let parent =
            parents.get_or_insert_with(|| crate::heap::paths::parents_from_roots(&s.graph, false));
        let path = crate::heap::paths::path_by_parents(parent, top);
        let (mut folded, mut exact) = match path.first() {
            Some(&r) if path.len() > 1 => {
                let n = format!("[held by several roots] {}", owner_step_name(s, r));
                (n.clone(), n)
            }
            _ => {
                let n = format!("[held by several roots] {}", owner_step_name(s, top));
                (n.clone(), n)
            }
        };
        for w in path.windows(2) {
            let (f, e) = step(w[0], w[1]);
            folded = format!("{folded} → {f}");
            exact = format!("{exact} → {e}");
        }
        tops.push((top, folded, exact));
    }
    let mut stack: Vec<(ObjId, String, usize)> = unique_names(tops)
        .into_iter()
        .map(|(o, name)| (o, name, 0))
        .collect();
    while let Some((o, mut key, depth)) = stack.pop() {
        // A name already given to another node (a path-named node under the virtual root
        // can read like a node deeper in another one's tree) takes the next rank.
        if out.contains_key(&key) {
            let free = (2..)
                .map(|k| format!("{key} #{k}"))
                .find(|k| !out.contains_key(k));
            key = free.unwrap_or(key);
        }
        let e = out.entry(key.clone()).or_default();
        e.retained += d.retained(o).unwrap_or(0);
        e.objects += d.retained_count(o).unwrap_or(0) as u64;
        if e.nodes.len() < 64 {
            e.nodes.push(o);
        }
        if e.class.is_empty() {
            e.class = s.class_name(o).to_string();
        }
        if depth >= 8 {
            continue;
        }
        let kids: Vec<(ObjId, String, String)> = d
            .children(o)
            .iter()
            .take_while(|&&c| d.retained(c).unwrap_or(0) >= min)
            .map(|&c| {
                let (f, x) = step(o, c);
                (c, format!("{key} → {f}"), format!("{key} → {x}"))
            })
            .collect();
        for (c, name) in unique_names(kids) {
            stack.push((c, name, depth + 1));
        }
    }
    out
}

/// One owner on both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerDelta {
    pub owner: String,
    pub base: OwnerFigures,
    pub target: OwnerFigures,
    /// Entries of the owner on each side, where it is a collection ([`entries`]),
    /// summed over its nodes.
    pub base_entries: Option<u64>,
    pub target_entries: Option<u64>,
}

impl OwnerDelta {
    pub fn delta_retained(&self) -> i64 {
        self.target.retained as i64 - self.base.retained as i64
    }
    pub fn delta_objects(&self) -> i64 {
        self.target.objects as i64 - self.base.objects as i64
    }
    pub fn delta_entries(&self) -> Option<i64> {
        Some(self.target_entries? as i64 - self.base_entries? as i64)
    }
}

/// An owner's name with every element index folded to `[*]` and no ` #N` rank: what
/// stays the same when siblings come and go (see [`unique_names`]).
fn loose_name(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for step in key.split(" → ") {
        if !out.is_empty() {
            out.push_str(" → ");
        }
        let step = match step.rfind(" #") {
            Some(i) if step[i + 2..].bytes().all(|b| b.is_ascii_digit()) && i + 2 < step.len() => {
                &step[..i]
            }
            _ => step,
        };
        match step.split_once(' ') {
            Some((edge, rest)) => {
                out.push_str(&fold_index(edge.to_string()));
                out.push(' ');
                out.push_str(rest);
            }
            None => out.push_str(&fold_index(step.to_string())),
        }
    }
    out
}

/// An array class: the storage of a collection (Java's `T[]`, V8's `(array)` backing
/// stores, Dart's fixed-length lists behind a growable one, MoarVM's `BOOTArray`).
fn is_array_class(c: &str) -> bool {
    c.ends_with("[]")
        || matches!(
            c,
            "(array)" | "dart:core::_List" | "dart:core::_ImmutableList" | "BOOTArray"
        )
}

/// The `n` owners whose retained size grew most from `a` to `b`, each growth named
/// once (see below), with their entries where they are collections.
pub fn owner_deltas(
    a: &Snapshot,
    da: &Dominators,
    b: &Snapshot,
    db: &Dominators,
    n: usize,
) -> Vec<OwnerDelta> {
    let mut oa = owner_map(a, da);
    let mut ob = owner_map(b, db);
    // An owner named by a real index or a rank on one side only (its siblings were alike
    // there, not on the other) is matched by its name with every index folded and no
    // rank, largest with largest: the same owner, with one sibling more or less.
    let mut loose_a: HashMap<String, Vec<String>> = HashMap::new();
    for k in oa.keys().filter(|k| !ob.contains_key(*k)) {
        loose_a.entry(loose_name(k)).or_default().push(k.clone());
    }
    for v in loose_a.values_mut() {
        // Popped from the end: the largest first.
        v.sort_by_key(|k| (oa[k].retained, std::cmp::Reverse(k.clone())));
    }
    let mut only_b: Vec<String> = ob
        .keys()
        .filter(|k| !oa.contains_key(*k))
        .cloned()
        .collect();
    only_b.sort_by_key(|k| (std::cmp::Reverse(ob[k].retained), k.clone()));
    let mut renamed: Vec<(String, String)> = Vec::new();
    for k in only_b {
        if let Some(base_key) = loose_a.get_mut(&loose_name(&k)).and_then(|v| v.pop()) {
            renamed.push((base_key, k));
        }
    }
    for (from, to) in renamed {
        if let Some(f) = oa.remove(&from) {
            oa.insert(to, f);
        }
    }
    let mut keys: Vec<String> = oa.keys().chain(ob.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    let mut rows: Vec<OwnerDelta> = keys
        .into_iter()
        .map(|k| OwnerDelta {
            base: oa.remove(&k).unwrap_or_default(),
            target: ob.remove(&k).unwrap_or_default(),
            owner: k,
            base_entries: None,
            target_entries: None,
        })
        .collect();
    rows.sort_by(|x, y| {
        y.delta_retained()
            .cmp(&x.delta_retained())
            .then_with(|| x.owner.cmp(&y.owner))
    });
    // Growth only, each named once: an owner is dropped when one non-array owner below
    // it accounts for 90% of its growth (that one says more precisely where the growth
    // is), and an array is dropped when it accounts for 90% of its parent's growth (it
    // is the parent's storage: a map's table, a list's elements).
    rows.retain(|r| r.delta_retained() > 0);
    let growth: HashMap<&str, i64> = rows
        .iter()
        .map(|r| (r.owner.as_str(), r.delta_retained()))
        .collect();
    let parent_of = |k: &str| k.rfind(" → ").map(|i| k[..i].to_string());
    let mut dropped: HashSet<String> = HashSet::new();
    for r in &rows {
        let d = r.delta_retained();
        let array = is_array_class(&r.target.class) || is_array_class(&r.base.class);
        let mut p = parent_of(&r.owner);
        let mut first = true;
        while let Some(k) = p {
            if let Some(&pd) = growth.get(k.as_str()) {
                if d * 10 >= pd * 9 {
                    if array && first {
                        dropped.insert(r.owner.clone());
                    } else if !array {
                        dropped.insert(k.clone());
                    }
                }
            }
            first = false;
            p = parent_of(&k);
        }
    }
    let mut out: Vec<OwnerDelta> = rows
        .into_iter()
        .filter(|r| !dropped.contains(&r.owner))
        .take(n)
        .collect();
    for r in &mut out {
        let sum = |s: &Snapshot, nodes: &[ObjId]| -> Option<u64> {
            let v: Vec<u64> = nodes.iter().filter_map(|&o| entries(s, o)).collect();
            (!v.is_empty()).then(|| v.iter().sum())
        };
        r.base_entries = sum(a, &r.base.nodes);
        r.target_entries = sum(b, &r.target.nodes);
    }
    out
}

/// The object of `to` at the path that leads to `o` in `from`: `o`'s shortest path from
/// the GC roots in `from` (strong references), walked in `to` from a root of the same
/// kind, class and label, step by step along a reference of the same name to an object
/// of the same class (and label, where several are alike). What an owner is on the side whose owners did not list it (too
/// small there to be one): the array a leak fills, still empty in the base. `None` when
/// a step finds nothing to follow.
pub fn same_path(from: &Snapshot, o: ObjId, to: &Snapshot) -> Option<ObjId> {
    let path = crate::heap::paths::to_roots(&from.graph, o, 1, false)
        .into_iter()
        .next()?;
    let (&root, steps) = path.split_first()?;
    let kinds = |s: &Snapshot, r: ObjId| -> Vec<&'static str> {
        let mut k: Vec<&str> = s.graph.roots_of(r).iter().map(|r| r.kind.name()).collect();
        k.dedup();
        k
    };
    let (root_kinds, root_class, root_label) =
        (kinds(from, root), from.class_name(root), from.label(root));
    let mut seen = HashSet::new();
    let start = to.graph.roots.iter().map(|r| r.obj).find(|&r| {
        seen.insert(r)
            && to.class_name(r) == root_class
            && kinds(to, r) == root_kinds
            && to.label(r) == root_label
    })?;
    let mut at = start;
    let mut prev = root;
    for &next in steps {
        let label = from.edge_label(prev, next);
        let class = from.class_name(next);
        let g = &to.graph;
        let targets: Vec<ObjId> = g
            .edges(at)
            .filter(|&e| !g.is_weak(e))
            .map(|e| g.out_targets[e])
            .collect();
        let labels = to.edge_labels(at, &targets);
        let fits: Vec<ObjId> = targets
            .iter()
            .zip(labels)
            .filter(|(&t, l)| *l == label && to.class_name(t) == class)
            .map(|(&t, _)| t)
            .collect();
        // Of several alike (the classes a loader defines, all `java.lang.Class` by
        // `<defined class>`), the one with the same label (`class …Cache`).
        at = match fits.as_slice() {
            [] => return None,
            [one] => *one,
            _ => {
                let want = from.label(next);
                fits.iter()
                    .copied()
                    .find(|&t| to.label(t) == want)
                    .unwrap_or(fits[0])
            }
        };
        prev = next;
    }
    Some(at)
}
