//! Leak suspects: the few objects that hold a large share of the heap, each named by the
//! object a fix would touch (`heaptui suspects`, the TUI's Suspects pane, `summary`'s
//! first line).
//!
//! Eclipse MAT's Leak Suspects report is the model; the differences are where MAT stops
//! too high. The walk, for every format alike:
//!
//! 1. **Candidates.** A best-first descent of the dominator tree from the virtual root,
//!    largest retained size first. Objects that only *carry* what lies below them are
//!    passed through to their children: class loaders and `java.lang.Class` objects (an
//!    application class and its statics hang below its loader), V8's synthetic roots,
//!    global object and closure contexts, MoarVM's root sets and stashes, Dart's classes,
//!    libraries and fields ([`pass_through`]). Every other object reached is a candidate;
//!    the descent stops once `top` candidates are found or the next is below 1 % of the
//!    heap. A runtime-internal candidate (V8's `(array)`, `(compiled code)`, …) counts
//!    only from 10 % (MAT's threshold for a suspect) up.
//! 2. **Accumulation point** (MAT's term). From a candidate, down the dominator tree while
//!    one child retains at least 80 % of its parent; where it spreads, the size has
//!    accumulated. If that point is a collection's backing array or table
//!    (`HashMap$Node[]`, V8's `(object elements)`), the object a fix touches is its owner,
//!    the collection itself.
//! 3. **Naming.** The holder is the last reference of the shortest path from a GC root
//!    (a static field, a global, a property, a closure variable, a thread-local of a named
//!    thread, a root's own words); the members are the classes the object retains, counted
//!    and sized by MAT's rule (instances that no other instance of their class dominates),
//!    and the title names the first member that is not the collection's own plumbing.
//! 4. **Shapes.** Candidates of one class held by the same reference of one class (the 800
//!    maps of one field) are one suspect.
//!
//! The candidates are disjoint subtrees of the dominator tree, so no suspect lies inside
//! another's retained set. Needs a decoder (edge labels, class objects' names), so it
//! lives above `heap` as [`crate::diff`] does.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::format::{Format, Snapshot};
use crate::heap::dominators::{Dominators, VIRTUAL_ROOT};
use crate::heap::{ClassId, ObjId, RootKind};

mod classes;
mod words;
pub use crate::format::holders::{holder_words, holder_words_in_chain};
use classes::{internal, is_collection};
pub use classes::{is_structural, pass_through};
pub use words::{brief, in_title};
use words::{kind_and_holder, title};

/// MAT's threshold: a suspect holds at least this share of the heap, or is among the
/// largest below it.
pub const SUSPECT_SHARE: f64 = 0.10;
/// Below this share of the heap nothing is reported.
pub const FLOOR_SHARE: f64 = 0.01;
/// The descent follows a child that holds at least this share of its parent.
const DOMINANT_CHILD: f64 = 0.8;
/// At most this many members per suspect.
const MEMBERS: usize = 10;
/// A collection's headline count is recounted as its elements up to this count.
const ELEMENTS_WALKED: u64 = 1_000_000;

/// The descent stops at a linked list's head once it has gone this many links of one
/// class by one reference name.
const LIST_LINKS: usize = 4;

/// A linked list met by the descent: objects of one class each holding the next by
/// one reference name (`ChainNode.next`), named at its head.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkedList {
    pub class: ClassId,
    /// The name of the reference from a node to the next (untrusted text).
    pub via: String,
    /// Nodes from the head down the dominator tree, the head included.
    pub length: u64,
}

/// One class a suspect retains.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub class: ClassId,
    pub count: u64,
    /// Retained by the instances that no other instance of the class dominates.
    pub retained: u64,
}

/// One leak suspect.
#[derive(Clone, Debug)]
pub struct Suspect {
    /// `collection`, `array`, `object`, `thread`, `thread-local`, `listeners`,
    /// `closure`, `detached DOM`, `goroutine`.
    pub kind: &'static str,
    /// The suspect in words (untrusted text: sanitise before a terminal).
    pub title: String,
    /// The object a fix would touch (for a group: its largest).
    pub object: ObjId,
    /// Its retained size (for a group: the sum over the group).
    pub retained: u64,
    /// `retained` over the report's heap.
    pub share: f64,
    /// The named reference that keeps it.
    pub holder: String,
    /// The shortest path from a GC root to `object` (empty when none over strong
    /// references).
    pub path: Vec<ObjId>,
    /// Where the size accumulates below `object`, and its retained size; `None` where
    /// that is `object` itself.
    pub accumulation: Option<(ObjId, u64)>,
    pub members: Vec<Member>,
    /// How many objects of one shape this suspect stands for (1 for most).
    pub objects: u64,
    /// Where the descent met a linked list: `object` is its head.
    pub list: Option<LinkedList>,
}

/// The report: the heap the shares are of, and the suspects, largest first.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub heap_bytes: u64,
    pub suspects: Vec<Suspect>,
}

/// The leak suspects of a snapshot, at most `top`, largest first.
pub fn find(snap: &Snapshot, d: &Dominators, top: usize) -> Report {
    let heap_bytes = d.reach.reachable_bytes + d.reach.orphan_bytes;
    let mut report = Report {
        heap_bytes,
        suspects: Vec::new(),
    };
    if top == 0 || heap_bytes == 0 {
        return report;
    }
    let floor = ((heap_bytes as f64 * FLOOR_SHARE) as u64).max(1);
    let big = (heap_bytes as f64 * SUSPECT_SHARE) as u64;
    let size = |o: ObjId| d.retained(o).unwrap_or(0);
    let started = std::time::Instant::now();

    // 1. Candidates, best first. Each entry: (retained, object).
    let mut frontier: BinaryHeap<(u64, Reverse<ObjId>)> = BinaryHeap::new();
    for &c in d.children(VIRTUAL_ROOT) {
        let r = size(c);
        if r < floor {
            break;
        }
        frontier.push((r, Reverse(c)));
    }
    let mut candidates: Vec<ObjId> = Vec::new();
    // Bounded: every object is pushed at most once (children of a popped object).
    let mut steps = 0usize;
    while let Some((r, Reverse(o))) = frontier.pop() {
        steps += 1;
        if r < floor || candidates.len() >= top * 4 || steps > 1_000_000 {
            break;
        }
        if pass_through(snap, o) {
            for &c in d.children(o) {
                let rc = size(c);
                if rc < floor {
                    break;
                }
                frontier.push((rc, Reverse(c)));
            }
            continue;
        }
        if internal(snap, o) && r < big {
            continue;
        }
        candidates.push(o);
    }

    let timing = crate::sys::env::flag("HEAPTUI_TIMING");
    if timing {
        eprintln!(
            "timing: suspects: {} candidates in {:.3} s",
            candidates.len(),
            started.elapsed().as_secs_f64()
        );
    }
    // 2. and 3. for each candidate.
    let mut found: Vec<Suspect> = candidates
        .iter()
        .map(|&c| describe(snap, d, c, heap_bytes))
        .collect();
    // Detached DOM trees, whatever their size.
    for o in detached_holders(snap, d, &candidates) {
        found.push(detached_suspect(snap, d, o, heap_bytes));
    }
    if timing {
        eprintln!(
            "timing: suspects: described in {:.3} s",
            started.elapsed().as_secs_f64()
        );
    }

    // 4. One suspect per shape: same kind, class and holder.
    let mut by_shape: HashMap<(ClassId, String), usize> = HashMap::new();
    let mut merged: Vec<Suspect> = Vec::new();
    for s in found.drain(..) {
        // A linked list is its own suspect: its length is of its nodes alone.
        if s.holder.contains("unknown")
            || s.holder.contains('?')
            || s.path.len() < 2
            || s.list.is_some()
        {
            merged.push(s);
            continue;
        }
        let key = (
            snap.graph.class_of.get(s.object as usize),
            shape_of(&s.holder),
        );
        match by_shape.get(&key) {
            Some(&i) => {
                let m = &mut merged[i];
                m.retained += s.retained;
                m.objects += s.objects;
                m.share = m.retained as f64 / heap_bytes as f64;
                merge_members(&mut m.members, &s.members);
            }
            None => {
                by_shape.insert(key, merged.len());
                merged.push(s);
            }
        }
    }
    for s in &mut merged {
        if s.objects > 1 {
            s.title = title(snap, s);
        }
    }
    merged.sort_by(|a, b| b.retained.cmp(&a.retained).then(a.object.cmp(&b.object)));
    merged.truncate(top);
    report.suspects = merged;
    report
}

/// The holder with its indices and addresses taken out: `[17] of Object[]` and `[18] of
/// Object[]` are one shape.
fn shape_of(holder: &str) -> String {
    let mut out = String::with_capacity(holder.len());
    let mut in_index = false;
    for ch in holder.chars() {
        match ch {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(ch),
        }
    }
    out
}

fn merge_members(into: &mut Vec<Member>, more: &[Member]) {
    for m in more {
        match into.iter_mut().find(|x| x.class == m.class) {
            Some(x) => {
                x.count += m.count;
                x.retained += m.retained;
            }
            None => into.push(m.clone()),
        }
    }
    into.sort_by(|a, b| b.retained.cmp(&a.retained).then(a.class.cmp(&b.class)));
    into.truncate(MEMBERS);
}

/// Steps 2 and 3 for one candidate (`heap`: the bytes the share is of): the object a
/// fix would touch below it, named.
pub fn describe(snap: &Snapshot, d: &Dominators, candidate: ObjId, heap: u64) -> Suspect {
    let size = |o: ObjId| d.retained(o).unwrap_or(0);
    // The chain of dominant children, down to a linked list's head at most: a list
    // whose every node holds the rest is not walked node by node (MAT, memlab and
    // Shark show the head of such a chain).
    let mut chain = vec![candidate];
    let mut cur = candidate;
    let mut list = None;
    // The links at the chain's end of one class by one name: how many, and the name.
    let mut run: (usize, Option<String>) = (0, None);
    while chain.len() < 10_000 {
        let kids = d.children(cur);
        let Some(&first) = kids.first() else { break };
        if (size(first) as f64) < size(cur) as f64 * DOMINANT_CHILD {
            break;
        }
        chain.push(first);
        let same_class =
            snap.graph.class_of.get(first as usize) == snap.graph.class_of.get(cur as usize);
        let name = same_class.then(|| snap.edge_label(cur, first)).flatten();
        run = match (name, run) {
            (Some(n), (k, Some(m))) if n == m => (k + 1, Some(m)),
            (Some(n), _) => (1, Some(n)),
            (None, _) => (0, None),
        };
        cur = first;
        if run.0 >= LIST_LINKS {
            let head = chain[chain.len() - 1 - run.0];
            chain.truncate(chain.len() - run.0);
            let via = run.1.take().unwrap_or_default();
            list = Some(LinkedList {
                class: snap.graph.class_of.get(head as usize),
                length: list_length(snap, d, head, &via),
                via,
            });
            break;
        }
    }
    let point = *chain.last().unwrap_or(&candidate);
    let spreads = d.children(point).len() >= 2;
    let point_name = snap.class_name(point);
    let mut object = point;
    // Where objects carry no type (Go), a spreading object below another is taken for
    // the backing array of the slice or map that the one above it holds.
    let backing = is_structural(snap.format, point_name) || snap.format.roles().untyped();
    if spreads && chain.len() >= 2 && backing {
        // The owner of the backing array; past the owners that are plumbing too
        // (V8's Array above its `(object elements)`, a Java entry node).
        let mut i = chain.len() - 2;
        object = chain[i];
        while i > 0
            && is_structural(snap.format, snap.class_name(object))
            && !is_collection(snap.format, snap.class_name(object))
        {
            i -= 1;
            object = chain[i];
        }
    }
    // The user's object above the engine's own (V8: an `ArrayBuffer` above its
    // backing store).
    if snap.format.roles().climbs_past_internal() {
        let mut i = chain.iter().position(|&x| x == object).unwrap_or(0);
        while i > 0 && internal(snap, chain[i]) {
            i -= 1;
            object = chain[i];
        }
    }
    // A thread-local's value: the object under the map's entry.
    if let Some((_, entry)) = snap.format.roles().thread_locals() {
        if let Some(i) = chain.iter().position(|&x| snap.class_name(x) == entry) {
            if let Some(&value) = chain.get(i + 1) {
                object = value;
            }
        }
    }
    let retained = size(object);
    let accumulation = (point != object).then(|| (point, size(point)));
    let path = crate::heap::paths::to_roots(&snap.graph, object, 1, false)
        .into_iter()
        .next()
        .unwrap_or_default();
    let mut members = members(snap, d, object);
    let (mut kind, holder) = kind_and_holder(snap, d, object, &path, &members, point != object);
    if list.is_some() && object == point {
        kind = "linked list";
    } else {
        list = None;
    }
    if point != object || matches!(kind, "collection" | "listeners") {
        held_only(snap, object, accumulation, &mut members);
    }
    members.truncate(MEMBERS);
    let mut s = Suspect {
        kind,
        title: String::new(),
        object,
        retained,
        share: retained as f64 / heap as f64,
        holder,
        path,
        accumulation,
        members,
        objects: 1,
        list,
    };
    // The title's count of a collection is the number of its elements of that class.
    // (Up to ELEMENTS_WALKED members: the walk reads every entry of the collection, one
    // random read each; a map of millions keeps the subtree's count.)
    if matches!(kind, "collection" | "listeners") {
        if let Some(m) = words::headline_member(snap, &s).filter(|m| m.count <= ELEMENTS_WALKED) {
            let c = m.class;
            count_elements(snap, d, object, c, &mut s.members);
        }
    }
    s.title = title(snap, &s);
    s
}

/// How many nodes a linked list has from `head` down the dominator tree: each the child
/// of the one before of the head's class held by it through `via`. A link's name is
/// read only where its place among the node's references differs from the first
/// link's (reading it is decoding the node: two million of them took seconds).
fn list_length(snap: &Snapshot, d: &Dominators, head: ObjId, via: &str) -> u64 {
    let g = &snap.graph;
    let class = g.class_of.get(head as usize);
    let place = |from: ObjId, to: ObjId| g.edges(from).position(|e| g.out_targets[e] == to);
    let mut first_place: Option<usize> = None;
    let mut length = 1u64;
    let mut x = head;
    loop {
        let next = d.children(x).iter().copied().find(|&c| {
            if g.class_of.get(c as usize) != class {
                return false;
            }
            let Some(at) = place(x, c) else {
                return false;
            };
            if first_place == Some(at) {
                return true;
            }
            let named = snap.edge_label(x, c).as_deref() == Some(via);
            if named && first_place.is_none() {
                first_place = Some(at);
            }
            named
        });
        match next {
            Some(c) => {
                length += 1;
                x = c;
            }
            None => return length,
        }
    }
}

/// The objects that keep detached DOM trees (`Detached <div>`, V8 snapshots of a
/// page), one per holder, in the order met, none inside a candidate's retained set: the
/// JavaScript object above a tree's top node when it holds mostly detached nodes (the
/// array of 40 detached cards), else the top node itself (a tree held by a global or a
/// closure's variable, whose holder then names that reference).
fn detached_holders(snap: &Snapshot, d: &Dominators, candidates: &[ObjId]) -> Vec<ObjId> {
    use rayon::prelude::*;
    let g = &snap.graph;
    let detached: Vec<bool> = g
        .classes
        .iter()
        .map(|c| c.name.starts_with("Detached "))
        .collect();
    if !detached.contains(&true) {
        return Vec::new();
    }
    // Elements (`Detached <div>`) among them, which alone start a tree.
    let element: Vec<bool> = g
        .classes
        .iter()
        .map(|c| c.name.starts_with("Detached <"))
        .collect();
    let class = |o: ObjId| g.class_of.get(o as usize) as usize;
    let is_detached = |o: ObjId| (o as usize) < g.class_of.len() && detached[class(o)];
    // The top node of every detached tree, in id order: an element (`Detached <div>`),
    // not an embedder's detached native object (Node's `Detached Node / BindingData`).
    let n = g.class_of.len() as u32;
    let tops: Vec<ObjId> = (0..n)
        .into_par_iter()
        .filter(|&o| element[class(o)] && d.idom(o).is_some_and(|p| !is_detached(p)))
        .collect();
    // Per holder above a top: the bytes its detached trees retain.
    let mut under: HashMap<ObjId, u64> = HashMap::new();
    for &t in &tops {
        if let Some(p) = d.idom(t) {
            *under.entry(p).or_default() += d.retained(t).unwrap_or(0);
        }
    }
    let holds_mostly_trees = |p: ObjId| {
        p != VIRTUAL_ROOT
            && !pass_through(snap, p)
            && !internal(snap, p)
            && !snap.class_name(p).starts_with("system /")
            && d.retained(p).unwrap_or(0) <= 2 * under.get(&p).copied().unwrap_or(0)
    };
    let candidates: std::collections::HashSet<ObjId> = candidates.iter().copied().collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &t in &tops {
        let o = match d.idom(t) {
            Some(p) if holds_mostly_trees(p) => p,
            _ => t,
        };
        if !seen.insert(o) || candidates.contains(&o) {
            continue;
        }
        if d.dominator_chain(o).iter().any(|x| candidates.contains(x)) {
            continue;
        }
        out.push(o);
    }
    out
}

/// A detached DOM tree's holder as a suspect.
fn detached_suspect(snap: &Snapshot, d: &Dominators, o: ObjId, heap: u64) -> Suspect {
    let path = crate::heap::paths::to_roots(&snap.graph, o, 1, false)
        .into_iter()
        .next()
        .unwrap_or_default();
    let mut members = members(snap, d, o);
    if !snap.class_name(o).starts_with("Detached ") {
        held_only(snap, o, None, &mut members);
    }
    members.truncate(MEMBERS);
    let retained = d.retained(o).unwrap_or(0);
    let mut s = Suspect {
        kind: "detached DOM",
        title: String::new(),
        object: o,
        retained,
        share: retained as f64 / heap as f64,
        holder: holder_words(snap, &path, o),
        path,
        accumulation: None,
        members,
        objects: 1,
        list: None,
    };
    s.title = title(snap, &s);
    s
}

/// The count of member `class` of collection `o` as its elements of that class: the
/// objects it holds through its own plumbing alone (its backing array, entries, V8's
/// `(object elements)`), not every instance it retains. An array of 8,000 listeners whose
/// closures share a context holding one more closure holds 8,000 closures, as its
/// length says, where the subtree has 8,001. Unchanged when no element is of the class.
fn count_elements(
    snap: &Snapshot,
    d: &Dominators,
    o: ObjId,
    class_of_member: ClassId,
    members: &mut [Member],
) {
    let g = &snap.graph;
    let n = g.len();
    // (The virtual root, an idom above every GC root, lies beyond the objects.)
    let bit = |v: &Vec<u64>, x: ObjId| {
        v.get(x as usize / 64)
            .is_some_and(|w| w >> (x % 64) & 1 == 1)
    };
    let set = |v: &mut Vec<u64>, x: ObjId| v[x as usize / 64] |= 1 << (x % 64);
    let mut plumbing = vec![0u64; n.div_ceil(64)];
    let mut seen = vec![0u64; n.div_ceil(64)];
    let class = |x: ObjId| g.class_of.get(x as usize);
    let structural: Vec<bool> = g
        .classes
        .iter()
        .map(|c| is_structural(snap.format, &c.name))
        .collect();
    let mut count = 0u64;
    set(&mut plumbing, o);
    set(&mut seen, o);
    let mut stack = vec![o];
    while let Some(x) = stack.pop() {
        for e in g.edges(x) {
            if g.is_weak(e) {
                continue;
            }
            let Some(&y) = g.out_targets.get(e) else {
                continue;
            };
            if y as usize >= n || bit(&seen, y) {
                continue;
            }
            // Held by the collection alone, through its plumbing.
            if !d.idom(y).is_some_and(|p| bit(&plumbing, p)) {
                continue;
            }
            set(&mut seen, y);
            if structural.get(class(y) as usize).copied().unwrap_or(false) {
                set(&mut plumbing, y);
                stack.push(y);
            } else if class(y) == class_of_member {
                count += 1;
            }
        }
    }
    if count > 0 {
        for m in members.iter_mut().filter(|m| m.class == class_of_member) {
            m.count = count;
        }
    }
}

/// A collection's members as a user counts them: what it holds, not the collection
/// itself, its backing array or its entries (the plumbing `is_structural` names), unless
/// nothing else is left.
fn held_only(snap: &Snapshot, o: ObjId, acc: Option<(ObjId, u64)>, members: &mut Vec<Member>) {
    let class = |x: ObjId| snap.graph.class_of.get(x as usize);
    let own = class(o);
    let acc = acc.map(|(a, _)| class(a));
    let held = |m: &Member| {
        m.class != own
            && Some(m.class) != acc
            && !is_structural(snap.format, &snap.graph.classes[m.class as usize].name)
    };
    if members.iter().any(held) {
        members.retain(held);
    }
}

/// The classes `o` retains (itself included), largest first, by MAT's rule: a walk of
/// its dominator subtree, counting per class the instances met while no instance of
/// the class is on the path above them (whose retained sizes are summed). The subtree's
/// spine (while it does not branch) is walked first; the subtrees below it on every core.
pub fn members(snap: &Snapshot, d: &Dominators, o: ObjId) -> Vec<Member> {
    use rayon::prelude::*;
    let g = &snap.graph;
    let classes = g.classes.len();
    let class = |x: ObjId| g.class_of.get(x as usize) as usize;
    // Per class: count, retained, instances on the current path.
    type Counts = Vec<(u64, u64, u32)>;
    let enter = |x: ObjId, per: &mut Counts| {
        if let Some(e) = per.get_mut(class(x)) {
            e.0 += 1;
            if e.2 == 0 {
                e.1 += d.retained(x).unwrap_or(0);
            }
            e.2 += 1;
        }
    };
    let mut spine = vec![0u32; classes];
    let mut per: Counts = vec![(0, 0, 0); classes];
    let mut top = o;
    enter(o, &mut per);
    while let [only] = d.children(top) {
        top = *only;
        enter(top, &mut per);
    }
    for (i, e) in per.iter().enumerate() {
        spine[i] = e.2;
    }
    // The subtrees of `roots`, one after the other (each leaves the path as it found it).
    let walk = |roots: &[ObjId]| -> Counts {
        let mut per: Counts = spine.iter().map(|&a| (0, 0, a)).collect();
        let mut stack: Vec<(ObjId, usize)> = Vec::new();
        for &root in roots {
            enter(root, &mut per);
            stack.push((root, 0));
            while let Some(&mut (x, ref mut next)) = stack.last_mut() {
                let kids = d.children(x);
                if *next < kids.len() {
                    let k = kids[*next];
                    *next += 1;
                    enter(k, &mut per);
                    stack.push((k, 0));
                } else {
                    stack.pop();
                    if let Some(e) = per.get_mut(class(x)) {
                        e.2 -= 1;
                    }
                }
            }
        }
        per
    };
    let below = d.children(top);
    let add = |mut a: Counts, b: Counts| {
        for (x, y) in a.iter_mut().zip(b) {
            x.0 += y.0;
            x.1 += y.1;
        }
        a
    };
    let zero = || -> Counts { vec![(0, 0, 0); classes] };
    let sums = if below.len() >= 64 {
        below
            .par_chunks(below.len().div_ceil(64))
            .map(walk)
            .reduce(zero, add)
    } else {
        walk(below)
    };
    let per = add(per, sums);
    let mut out: Vec<Member> = per
        .into_iter()
        .enumerate()
        .filter(|(_, e)| e.0 > 0)
        .map(|(c, (count, retained, _))| Member {
            class: c as ClassId,
            count,
            retained,
        })
        .collect();
    out.sort_by(|a, b| b.retained.cmp(&a.retained).then(a.class.cmp(&b.class)));
    out
}
