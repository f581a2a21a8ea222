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

/// MAT's threshold: a suspect holds at least this share of the heap, or is among the
/// largest below it.
pub const SUSPECT_SHARE: f64 = 0.10;
/// Below this share of the heap nothing is reported.
pub const FLOOR_SHARE: f64 = 0.01;
/// The descent follows a child that holds at least this share of its parent.
const DOMINANT_CHILD: f64 = 0.8;
/// At most this many members per suspect.
const MEMBERS: usize = 10;

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
}

/// The report: the heap the shares are of, and the suspects, largest first.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub heap_bytes: u64,
    pub suspects: Vec<Suspect>,
}

/// The leak suspects of a snapshot, at most `top`, largest first.
pub fn find(snap: &Snapshot, d: &Dominators, top: usize) -> Report {
    let heap_bytes = d.reachable_bytes + d.orphan_bytes;
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

    let timing = std::env::var_os("HEAPTUI_TIMING").is_some();
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
        if s.holder.contains("unknown") || s.holder.contains('?') || s.path.len() < 2 {
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

/// Whether an object only carries what it dominates: the descent looks below it.
pub fn pass_through(snap: &Snapshot, o: ObjId) -> bool {
    let name = snap.class_name(o);
    match snap.format {
        Format::Hprof => {
            name == "java.lang.Class"
                || name == "java.lang.Module"
                || name == "java.lang.ref.Finalizer"
                || is_class_loader(name)
        }
        Format::V8 => {
            name == "(synthetic)"
                || name == "global"
                || name.starts_with("Window")
                || name == "system / Context"
                || name.starts_with("system / NativeContext")
                || name == "(closure)"
                || name == "(object properties)"
                || snap
                    .graph
                    .roots_of(o)
                    .iter()
                    .any(|r| matches!(r.kind, RootKind::Synthetic | RootKind::GlobalObject))
        }
        Format::MoarVm => {
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
                || is_moar_frame(name)
        }
        Format::Dart => {
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
        Format::Go => false,
    }
}

/// A MoarVM call frame's class: `name (file:line)`.
fn is_moar_frame(name: &str) -> bool {
    name.ends_with(')') && name.contains(" (") && name.contains(':')
}

fn is_class_loader(name: &str) -> bool {
    let last = name.rsplit(['.', '$']).next().unwrap_or(name);
    last.ends_with("ClassLoader") || name == "java.lang.ClassLoader"
}

/// A runtime's own object that a user does not allocate or fix (reported only from 10 %).
fn internal(snap: &Snapshot, o: ObjId) -> bool {
    let name = snap.class_name(o);
    match snap.format {
        Format::V8 => {
            (name.starts_with('(') && name != "(closure)") || name.starts_with("system / ")
        }
        // The compiler's and the VM's own objects.
        Format::MoarVm => {
            name.ends_with("(STable)")
                || name.starts_with("NQP")
                || name.starts_with("Perl6::")
                || name.starts_with("QAST::")
                || name.starts_with("QRegex::")
                || name.starts_with("BOOT")
                || name == "SCRef"
        }
        // The VM's own objects: no library in the name (`KernelProgramInfo`, `Code`).
        Format::Dart => !name.contains("::"),
        _ => false,
    }
}

/// A collection's plumbing: backing arrays and tables, entry nodes, runtime containers.
/// Neither the title's member nor (for an array) the object a fix touches.
pub fn is_structural(format: Format, name: &str) -> bool {
    match format {
        Format::Hprof => {
            name.ends_with("[]")
                || name.ends_with("$Node")
                || name.ends_with("$TreeNode")
                || name.ends_with("$Entry")
                || name.ends_with("$TreeBin")
                || name.ends_with("$ForwardingNode")
                || name.ends_with("$LinkedHashMap$Entry")
                || name == "java.lang.Object"
        }
        Format::V8 => {
            name == "(array)"
                || name == "(object elements)"
                || name == "(object properties)"
                || name == "(system)"
                || name == "(object shape)"
                || name.starts_with("system / ")
        }
        Format::MoarVm => matches!(
            name,
            "BOOTArray"
                | "BOOTHash"
                | "VMArray"
                | "Scalar"
                | "BOOTIntArray"
                | "BOOTStrArray"
                | "IterationBuffer"
        ),
        Format::Dart => {
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
        Format::Go => name.starts_with("runtime."),
    }
}

/// Whether an object is a collection (its class says so).
fn is_collection(format: Format, name: &str) -> bool {
    match format {
        Format::Hprof => {
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
        Format::V8 => matches!(name, "Map" | "Set" | "WeakMap" | "WeakSet" | "Array"),
        Format::MoarVm => matches!(name, "Hash" | "Array" | "List" | "Map" | "Set" | "Bag"),
        Format::Dart => {
            let short = name.rsplit("::").next().unwrap_or(name);
            short.contains("Map")
                || short.contains("Set")
                || short.contains("List")
                || short.contains("Queue")
        }
        Format::Go => false,
    }
}

/// Steps 2 and 3 for one candidate.
fn describe(snap: &Snapshot, d: &Dominators, candidate: ObjId, heap: u64) -> Suspect {
    let size = |o: ObjId| d.retained(o).unwrap_or(0);
    // The chain of dominant children.
    let mut chain = vec![candidate];
    let mut cur = candidate;
    while chain.len() < 10_000 {
        let kids = d.children(cur);
        let Some(&first) = kids.first() else { break };
        if (size(first) as f64) < size(cur) as f64 * DOMINANT_CHILD {
            break;
        }
        chain.push(first);
        cur = first;
    }
    let point = *chain.last().unwrap_or(&candidate);
    let spreads = d.children(point).len() >= 2;
    let point_name = snap.class_name(point);
    let mut object = point;
    // Go objects carry no type: a spreading object below another is taken for the
    // backing array of the slice or map that the one above it holds.
    let backing = is_structural(snap.format, point_name) || snap.format == Format::Go;
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
    // V8: the user's object above the engine's own (an `ArrayBuffer` above its
    // backing store).
    if snap.format == Format::V8 {
        let mut i = chain.iter().position(|&x| x == object).unwrap_or(0);
        while i > 0 && internal(snap, chain[i]) {
            i -= 1;
            object = chain[i];
        }
    }
    // A thread-local's value: the object under the map's entry.
    if snap.format == Format::Hprof {
        if let Some(i) = chain
            .iter()
            .position(|&x| snap.class_name(x) == "java.lang.ThreadLocal$ThreadLocalMap$Entry")
        {
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
    let members = members(snap, d, object);
    let (kind, holder) = kind_and_holder(snap, d, object, &path, &members, point != object);
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
    };
    s.title = title(snap, &s);
    s
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
    out.truncate(MEMBERS);
    out
}

/// The member the title names: the largest that is not the object's own class nor its
/// plumbing.
fn headline_member<'a>(snap: &Snapshot, s: &'a Suspect) -> Option<&'a Member> {
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

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The suspect in words: `CLASS in HOLDER holds COUNT MEMBER`, or for several of one
/// shape `N × CLASS in HOLDER hold COUNT MEMBER`.
fn title(snap: &Snapshot, s: &Suspect) -> String {
    let class = short(snap.class_name(s.object), 60);
    let (mut t, verb) = if s.objects > 1 {
        let n = thousands(s.objects);
        (format!("{n} × {class} in {}", shape_of(&s.holder)), "hold")
    } else {
        (format!("{class} in {}", s.holder), "holds")
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

/// The suspect's kind in a word and its holder in words.
fn kind_and_holder(
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
    if snap.format == Format::Hprof {
        if let Some(pos) = chain
            .iter()
            .position(|&x| snap.class_name(x) == "java.lang.ThreadLocal$ThreadLocalMap")
        {
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
    let via_context = path.len() >= 2
        && matches!(
            snap.class_name(path[path.len() - 2]),
            "system / Context" | "(closure)"
        );
    if via_context || name == "(closure)" {
        return ("closure", holder);
    }
    if name.ends_with("[]") || name == "(array)" || name == "Array" {
        return ("array", holder);
    }
    ("object", holder)
}

fn is_thread(snap: &Snapshot, o: ObjId) -> bool {
    if snap.format != Format::Hprof {
        return false;
    }
    snap.graph
        .roots_of(o)
        .iter()
        .any(|r| r.kind == RootKind::ThreadObject)
        || snap.class_name(o) == "java.lang.Thread"
}

/// The reference that keeps `o`, in words, from the last steps of its path.
pub fn holder_words(snap: &Snapshot, path: &[ObjId], o: ObjId) -> String {
    if path.len() < 2 {
        if snap.format == Format::Go {
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
        }
        let roots = snap.describe_roots(o);
        return if roots.is_empty() {
            "no path from a GC root".to_string()
        } else {
            format!("GC root ({roots})")
        };
    }
    if snap.format == Format::MoarVm {
        if let Some(w) = moar_lexical(snap, o) {
            return w;
        }
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
        if snap.format == Format::V8 && fc == "system / Context" {
            // The function whose context it is, when the path came through it.
            let f = (i >= 2 && snap.class_name(path[i - 2]) == "(closure)")
                .then(|| snap.label(path[i - 2]))
                .flatten();
            words.push(match f {
                Some(f) => format!("closure variable {label} of {f}"),
                None => format!("closure variable {label}"),
            });
            break;
        }
        let w = match snap.format {
            Format::Hprof if fc == "java.lang.Class" => {
                let class = snap
                    .label(from)
                    .map(|l| l.trim_start_matches("class ").to_string())
                    .unwrap_or_else(|| fc.to_string());
                format!("static {class}.{}", label.trim_start_matches("static "))
            }
            Format::Dart if fc == "Isolate" => format!("static {label}"),
            _ if fc.is_empty() => label.clone(),
            Format::V8 if fc == "global" || fc.starts_with("Window") => format!("global {label}"),
            Format::V8 if fc == "(synthetic)" => {
                format!("{label} of {}", snap.describe_roots(from))
            }
            Format::V8 if fc == "(closure)" => match snap.label(from) {
                Some(f) => format!("property {label} of {f}"),
                None => format!("property {label} of (closure)"),
            },
            Format::V8 => format!("property {label} of {fc}"),
            Format::Hprof | Format::Dart => format!("field {label} of {fc}"),
            Format::MoarVm if label == "unknown" => format!("an attribute of {fc}"),
            _ => format!("{label} of {fc}"),
        };
        // A V8 plain object on the way is a holder's part too (`_events` of an
        // EventEmitter).
        let plain = snap.format == Format::V8 && fc == "Object";
        let done = !(is_structural(snap.format, fc) || plain) || i == 1;
        words.push(w);
        if done {
            break;
        }
        i -= 1;
    }
    if i == 1 && words.len() < 3 {
        let first = path[0];
        let fc = snap.class_name(first);
        // Rooted directly: say by what, unless the holder already names it.
        if !matches!(
            fc,
            "java.lang.Class" | "global" | "Window" | "system / Context" | "Isolate"
        ) && snap.format != Format::V8
        {
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
fn moar_lexical(snap: &Snapshot, o: ObjId) -> Option<String> {
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

/// `s` cut to `max` characters, with `…` where it was cut.
fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `text` with the runtime's qualified names shortened to what a narrow screen needs:
/// Java packages (`com.example.SessionCache.SESSIONS` → `SessionCache.SESSIONS`), Dart
/// library URIs (`package:app/model.dart::Order` → `Order`), Go source directories
/// (`(example.com/app/cache.go:24)` → `(cache.go:24)`).
pub fn brief(format: Format, text: &str) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|w| match format {
            Format::Hprof => {
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
            Format::Dart => match w.rfind("::") {
                Some(i) => w[i + 2..].to_string(),
                None => w.to_string(),
            },
            Format::Go => match (w.strip_prefix('('), w.rfind('/')) {
                (Some(_), Some(i)) => format!("({}", &w[i + 1..]),
                _ => w.to_string(),
            },
            _ => w.to_string(),
        })
        .collect();
    words.join(" ")
}
