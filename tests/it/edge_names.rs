//! Issue 41's small gaps: an object that refers to one target several times (an array
//! holding it at `[0]` and `[3]`, two fields of an instance, two properties) names each
//! reference by its own place, in every format's decoder, in the `refs` table and in the
//! views that list the pair once (`[0], [3]`). Each was named by the first place.

use std::collections::BTreeMap;

use heaptui::format::Value;
use heaptui::heap::ObjId;
use heaptui::Snapshot;

use crate::common::open_fixture;

/// Every object of `snap` that refers to one target more than once: the object, and
/// each such target with how many times.
fn repeated(snap: &Snapshot) -> Vec<(ObjId, BTreeMap<ObjId, usize>)> {
    let g = &snap.graph;
    let mut out = Vec::new();
    for o in 0..g.len() as ObjId {
        let mut times: BTreeMap<ObjId, usize> = BTreeMap::new();
        for e in g.edges(o) {
            *times.entry(g.out_targets[e]).or_default() += 1;
        }
        times.retain(|_, n| *n > 1);
        if !times.is_empty() {
            out.push((o, times));
        }
    }
    out
}

/// The names of the fields and elements of `o`'s whole inspection (every page) that
/// hold `t`, sorted: the inspector names each by its own place. (A Go pointer into the
/// middle of `t` is shown as its address, `= t + 0x10`.)
fn inspected(snap: &Snapshot, o: ObjId, t: ObjId) -> Vec<String> {
    let inside = format!("= {} + ", snap.object_name(t));
    let mut out = Vec::new();
    let mut from = 0;
    loop {
        let ins = snap.inspect_from(o, from);
        out.extend(
            ins.fields
                .iter()
                .filter(|f| match &f.value {
                    Value::Object(x) => *x == t,
                    Value::Text(s) => s.contains(&inside),
                    _ => false,
                })
                .map(|f| f.name.clone()),
        );
        if ins.more_elements == 0 || ins.fields.is_empty() {
            break;
        }
        from = ins.next_from;
    }
    out.sort();
    out
}

/// For every object of `rel` that refers to one target more than once: the names of its
/// references to it, asked for as the `refs` table asks (all of the object's references,
/// in the index's order), are the names its inspection gives the places that hold it,
/// one for one (two fields of one name, a class's and its superclass's `parent`, are two
/// `parent`s). Returns how many such references there were, or the first that is not
/// named as its place.
fn each_named_by_its_place(rel: &str, snap: &Snapshot) -> Result<usize, String> {
    let g = &snap.graph;
    let mut seen = 0;
    for (o, times) in repeated(snap) {
        let targets: Vec<ObjId> = g.edges(o).map(|e| g.out_targets[e]).collect();
        let names = snap.edge_labels(o, &targets);
        for &t in times.keys() {
            let mut named: Vec<String> = targets
                .iter()
                .zip(&names)
                .filter(|(&x, _)| x == t)
                .map(|(_, l)| l.clone().unwrap_or_default())
                // What no field holds (an object's class, a loader's classes), and the
                // words a name adds to the field's (`static`, a Go pointer's offset).
                .filter(|l| l != "<class>" && l != "<defined class>")
                .map(|l| {
                    let l = l.strip_prefix("static ").unwrap_or(&l);
                    l.split(" (→").next().unwrap().to_string()
                })
                .collect();
            named.sort();
            let want = inspected(snap, o, t);
            if want.is_empty() {
                // A target the inspection shows as its value, not as a reference (a Dart
                // `null`, `true` or small integer): nothing to hold the names against.
                continue;
            }
            if named != want {
                let few = |v: &[String]| format!("{} names: {:?}", v.len(), &v[..v.len().min(6)]);
                return Err(format!(
                    "{rel}: {} to {}: the references' {}, the places' holding it {}",
                    snap.object_name(o),
                    snap.object_name(t),
                    few(&named),
                    few(&want)
                ));
            }
            seen += named.len();
        }
    }
    Ok(seen)
}

/// On the Java leak fixture: object arrays that hold one object at several indexes (an
/// empty map's table shared by many slots) name each reference `[i]` by an index that
/// holds it; instances whose fields share one object (a `ModuleDescriptor`'s empty
/// sets) name each reference by a field that holds it; the views that list a target
/// once name all of its references.
#[test]
fn hprof_names_each_reference_to_one_target_by_its_own_slot() {
    let rel = "java/leak/heap-live.hprof.gz";
    let (_, session) = open_fixture(rel);
    let snap = session.snapshot();
    let g = &snap.graph;
    let (mut arrays, mut instances) = (0, 0);
    for (o, times) in repeated(snap) {
        let targets: Vec<ObjId> = g.edges(o).map(|e| g.out_targets[e]).collect();
        let names = snap.edge_labels(o, &targets);
        let ins = snap.inspect(o);
        for (&t, &n) in &times {
            let named: Vec<&str> = targets
                .iter()
                .zip(&names)
                .filter(|(&x, _)| x == t)
                .map(|(_, l)| l.as_deref().unwrap())
                .collect();
            for name in &named {
                // The place named holds the target: an element read at its index, or a
                // field of that name.
                let holds = match name.strip_prefix('[') {
                    Some(i) => {
                        let i: u64 = i.trim_end_matches(']').parse().unwrap();
                        arrays += 1;
                        snap.inspect_from(o, i).fields[0].value == Value::Object(t)
                    }
                    None if *name == "<class>" => g.class_of.get(o as usize) != u32::MAX,
                    None => {
                        instances += 1;
                        let bare = name.trim_start_matches("static ");
                        ins.fields
                            .iter()
                            .any(|f| f.name == bare && f.value == Value::Object(t))
                    }
                };
                assert!(
                    holds,
                    "{} names its reference to {} {name}, which does not hold it ({named:?})",
                    snap.object_name(o),
                    snap.object_name(t)
                );
            }
            // The views that list each target once (the referrer tree, the inspector)
            // name every reference.
            assert_eq!(snap.edge_name(o, t), Some(named.join(", ")));
            assert_eq!(named.len(), n);
        }
    }
    assert!(arrays > 100 && instances > 10, "{arrays} {instances}");
    assert!(each_named_by_its_place(rel, snap).unwrap() > 100);
}

/// The other formats' decoders name each of an object's references to one target by
/// its own place too (a V8 node's two properties, a Go object's two pointer slots, a
/// MoarVM or Dart object's two references), as their inspections name those places.
#[test]
fn every_format_names_each_reference_to_one_target_apart() {
    let (mut seen, mut wrong) = (BTreeMap::new(), Vec::new());
    for rel in [
        "node/baseline.heapsnapshot.gz",
        "go/heap.dump.gz",
        "moarvm/app-v2.mvmheap.gz",
        "moarvm/app-v3.mvmheap.gz",
        "dart/after.dartheap.gz",
    ] {
        let (_, session) = open_fixture(rel);
        match each_named_by_its_place(rel, session.snapshot()) {
            Ok(n) => {
                seen.insert(rel, n);
            }
            Err(e) => wrong.push(e),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Each fixture has such references to check (34 in the Go dump, thousands in the
    // others).
    for (rel, n) in &seen {
        assert!(*n >= 30, "{rel}: only {n} repeated references checked");
    }
}

/// The `refs` table: no two rows from one array to one target share an index.
#[cfg(feature = "sql")]
#[test]
fn the_refs_table_names_each_reference_to_one_target_apart() {
    let (_, session) = open_fixture("java/leak/heap-live.hprof.gz");
    let r = heaptui::query::run(
        session.snapshot().clone(),
        None,
        "SELECT count(*) AS n, count(DISTINCT name) AS names FROM refs \
         WHERE name LIKE '[%' GROUP BY src_n, dst_n HAVING count(*) > 1",
    )
    .unwrap();
    assert!(r.rows.len() > 100, "{}", r.rows.len());
    for row in &r.rows {
        assert_eq!(row[0], row[1], "{row:?}");
    }
}
