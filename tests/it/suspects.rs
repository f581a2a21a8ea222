//! Leak suspects and waste on the leak fixtures of every runtime (`fixtures/<runtime>/leak`):
//! each planted problem is its own suspect or waste finding in the top 5, named by its
//! holder, with the retained size the runtime (or the peer tool) measured; and on the
//! Java and Node fixtures, the peers' own reports (hprof-analyzer 0.3.2, memlab 2.0.5)
//! agree. Ground truth is each fixture's `truth.json` (the program's and the runtime's
//! own figures) and the peers' saved reports, never heaptui's output.

use crate::common;

use common::*;
use heaptui::heap::dominators::Dominators;
use heaptui::suspects::{Report, Suspect};
use heaptui::sys::progress::Progress;
use heaptui::{Session, Snapshot};
use serde_json::Value;

fn open(rel: &str) -> (Session, Dominators) {
    let (_, snap) = open_fixture(rel);
    let d = dominators_of(&snap);
    (snap, d)
}

fn truth(rel: &str) -> Value {
    fixture_json(rel)
}

/// The leak fixture `fixtures/<runtime>/leak/<dump>` and its top 10 suspects, checked by
/// [`check_report`]; and the fixture's `truth.json`.
fn checked_report(runtime: &str, dump: &str) -> (Value, Session, Report) {
    let t = truth(&format!("{runtime}/leak/truth.json"));
    let (snap, d) = open(&format!("{runtime}/leak/{dump}"));
    let r = heaptui::suspects::find(&snap, &d, 10);
    check_report(&snap, &d, &r);
    (t, snap, r)
}

/// What holds for every report: suspects are disjoint, their sizes the dominator tree's,
/// their paths lead to them, and none is a class loader, a class object, a global object
/// or a synthetic root.
fn check_report(snap: &Snapshot, d: &Dominators, r: &Report) {
    assert!(!r.suspects.is_empty());
    for (i, a) in r.suspects.iter().enumerate() {
        if a.objects == 1 {
            assert_eq!(Some(a.retained), d.retained(a.object), "{}", a.title);
        }
        let class = snap.class_name(a.object);
        assert!(
            !class.ends_with("ClassLoader")
                && class != "java.lang.Class"
                && class != "global"
                && class != "(synthetic)"
                && !class.starts_with("Window"),
            "{class} is a suspect: {}",
            a.title
        );
        if let Some(&last) = a.path.last() {
            assert_eq!(last, a.object);
            assert!(snap.graph.is_root(a.path[0]), "{}", a.title);
        }
        for (j, b) in r.suspects.iter().enumerate() {
            if i != j {
                assert!(
                    !d.dominator_chain(b.object).contains(&a.object),
                    "{} lies inside {}",
                    b.title,
                    a.title
                );
            }
        }
        if i > 0 {
            assert!(r.suspects[i - 1].retained >= a.retained, "largest first");
        }
    }
}

/// The one suspect among the top 5 whose holder contains `holder`.
fn suspect<'a>(r: &'a Report, holder: &str) -> &'a Suspect {
    let found: Vec<&Suspect> = r
        .suspects
        .iter()
        .take(5)
        .filter(|s| s.holder.contains(holder))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one suspect held by {holder:?} in the top 5: {:#?}",
        r.suspects
            .iter()
            .map(|s| (&s.title, &s.holder))
            .collect::<Vec<_>>()
    );
    found[0]
}

fn member_count(snap: &Snapshot, s: &Suspect, class: &str) -> u64 {
    s.members
        .iter()
        .find(|m| snap.graph.classes[m.class as usize].name == class)
        .map_or(0, |m| m.count)
}

#[test]
fn java_planted_leaks_are_suspects_and_waste() {
    let (t, snap, r) = checked_report("java", "heap-live.hprof.gz");
    let p = &t["plants"];

    // (a) The map in SessionCache.SESSIONS, not the loader nor the class above it.
    // The holder as CLI.md words it; the title names the field by its qualified name.
    let a = suspect(&r, "static SESSIONS of com.example.SessionCache");
    assert!(
        a.title
            .starts_with("java.util.HashMap in static com.example.SessionCache.SESSIONS holds"),
        "{}",
        a.title
    );
    // Its members are what it holds, the sessions first, not the map or its table.
    assert_eq!(
        snap.graph.classes[a.members[0].class as usize].name,
        "com.example.Session"
    );
    assert_eq!(snap.class_name(a.object), "java.util.HashMap");
    assert_eq!(a.kind, "collection");
    assert_eq!(
        a.retained,
        p["session_cache"]["retained_bytes"].as_u64().unwrap()
    );
    assert_eq!(
        member_count(&snap, a, "com.example.Session"),
        p["session_cache"]["count"].as_u64().unwrap()
    );
    assert!(
        a.title.contains("holds 12,000 com.example.Session"),
        "{}",
        a.title
    );
    let acc = a.accumulation.expect("the table");
    assert_eq!(snap.class_name(acc.0), "java.util.HashMap$Node[]");

    // (b) The listener list of the EventBus.
    let b = suspect(&r, "field listeners of com.example.EventBus");
    assert_eq!(b.kind, "listeners");
    assert_eq!(
        b.retained,
        p["listeners"]["list_retained_bytes"].as_u64().unwrap()
    );
    assert_eq!(member_count(&snap, b, "com.example.Listener"), 3000);

    // (d1) The thread-local value of the pooled thread.
    let tl = &p["thread_local"];
    let c = suspect(&r, "thread-local");
    assert_eq!(c.kind, "thread-local");
    assert!(
        c.holder.contains(tl["thread"].as_str().unwrap()),
        "{}",
        c.holder
    );
    assert_eq!(snap.class_name(c.object), "byte[]");
    assert_eq!(c.retained, tl["value_shallow_bytes"].as_u64().unwrap());

    // The 1,000 indexes' list is a suspect by its size (46 %).
    let sp = &p["sparse_maps"];
    let e = suspect(&r, "static INDEXES of com.example.Catalog");
    assert_eq!(e.retained, sp["list_retained_bytes"].as_u64().unwrap());

    // (c) and (d2) in the waste report.
    let w = heaptui::waste::find(&snap, 5);
    let ds = &p["duplicate_strings"];
    let top = &w.strings[0];
    assert_eq!(top.text, ds["text"].as_str().unwrap());
    assert_eq!(top.count, ds["count"].as_u64().unwrap());
    assert_eq!(
        top.bytes_each,
        ds["string_shallow_bytes"].as_u64().unwrap() + ds["value_shallow_bytes"].as_u64().unwrap()
    );
    assert_eq!(top.wasted_bytes(), ds["wasted_bytes"].as_u64().unwrap());
    // The strings' value arrays are not counted again as duplicate arrays.
    assert!(
        !w.arrays
            .iter()
            .any(|a| a.count == ds["count"].as_u64().unwrap()),
        "{:?}",
        w.arrays
    );
    let sparse = &w.sparse[0];
    assert_eq!(sparse.class, "java.util.HashMap");
    assert_eq!(sparse.holder, "field byName of com.example.Index");
    assert_eq!(sparse.count, sp["count"].as_u64().unwrap());
    assert_eq!(sparse.size, sp["count"].as_u64().unwrap());
    assert_eq!(
        sparse.capacity,
        sp["count"].as_u64().unwrap() * sp["table_length"].as_u64().unwrap()
    );
    assert_eq!(
        sparse.wasted_bytes,
        sp["empty_slot_bytes"].as_u64().unwrap()
    );
}

#[test]
fn java_suspects_agree_with_hprof_analyzer() {
    let report: Value = {
        let gz = std::fs::read(fixture("java/leak/hprof-analyzer-report.json.gz")).unwrap();
        let mut s = String::new();
        use std::io::Read;
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut s)
            .unwrap();
        serde_json::from_str(&s).unwrap()
    };
    let (snap, d) = open("java/leak/heap-live.hprof.gz");
    let r = heaptui::suspects::find(&snap, &d, 10);
    let heap = report["leaks"]["total_shallow"].as_u64().unwrap() as f64;
    let mut checked = 0;
    for s in report["leaks"]["suspects"].as_array().unwrap() {
        for dom in s["dominated"].as_array().unwrap() {
            let retained = dom["retained"].as_u64().unwrap() as f64;
            if retained < heap * 0.05 {
                continue;
            }
            // A class object (its statics): the collection in its static field.
            let class = dom["display_class"].as_str().unwrap();
            let ours = r
                .suspects
                .iter()
                .find(|x| {
                    (x.holder.starts_with("static ") && x.holder.ends_with(&format!(" of {class}")))
                        || snap.class_name(x.object) == class
                })
                .unwrap_or_else(|| panic!("{class} ({retained} B) is no suspect"));
            let diff = (ours.retained as f64 - retained).abs() / retained;
            assert!(
                diff <= 0.005,
                "{class}: {} against {retained}",
                ours.retained
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 2, "Catalog and SessionCache are over 5 %");
    // Its duplicate strings, ours.
    let w = heaptui::waste::find(&snap, 10);
    let theirs = &report["overview"]["duplicate_strings"]["top_duplicated"][0];
    let ours = w
        .strings
        .iter()
        .find(|s| s.text == theirs["text"].as_str().unwrap())
        .unwrap();
    assert_eq!(ours.count, theirs["count"].as_u64().unwrap());
}

#[test]
fn node_planted_leaks_agree_with_memlab() {
    let (t, snap, r) = checked_report("node", "leak.heapsnapshot.gz");
    let ids = &t["ids"];
    let at = |k: &str| format!("@{}", ids[k]["id"].as_u64().unwrap());
    let retained = &t["fromSnapshotFile"]["retainedSize"];

    let a = suspect(&r, "SESSIONS");
    assert_eq!(snap.object_name(a.object), at("sessionsMap"));
    assert_eq!(a.kind, "collection");
    assert_eq!(a.retained, retained["sessionsMap"].as_u64().unwrap());
    assert_eq!(member_count(&snap, a, "Session"), 12000);

    let b = suspect(&r, "_events.tick of EventBus");
    assert_eq!(b.kind, "listeners");
    assert_eq!(snap.object_name(b.object), at("tickListenersArray"));
    assert_eq!(b.retained, retained["tickListenersArray"].as_u64().unwrap());

    let c = suspect(&r, "closure variable buffer of reportMetrics()");
    assert_eq!(c.kind, "closure");
    assert_eq!(c.retained, retained["reporterBuffer"].as_u64().unwrap());

    let e = suspect(&r, "global DUPLICATES");
    assert_eq!(snap.object_name(e.object), at("duplicatesArray"));

    // memlab's `analyze object-size` top 3 are our top 3, in order.
    let memlab = std::fs::read_to_string(fixture("node/leak/memlab-object-size.txt")).unwrap();
    let theirs: Vec<&str> = memlab
        .lines()
        .filter_map(|l| l.strip_prefix("· "))
        .filter_map(|l| l.split(' ').next())
        .take(3)
        .collect();
    let ours: Vec<String> = r
        .suspects
        .iter()
        .take(3)
        .map(|s| snap.object_name(s.object))
        .collect();
    assert_eq!(ours, theirs);

    // memlab's `analyze string`: the top duplicated string and its count.
    let w = heaptui::waste::find(&snap, 5);
    let strings = std::fs::read_to_string(fixture("node/leak/memlab-string.txt")).unwrap();
    let line = strings
        .lines()
        .skip_while(|l| !l.starts_with("Top duplicated strings in count"))
        .nth(1)
        .unwrap();
    let count: u64 = line
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(w.strings[0].count, count);
    assert_eq!(
        w.strings[0].count,
        t["duplicates"]["count"].as_u64().unwrap()
    );
    assert_eq!(w.strings[0].text, t["duplicates"]["text"].as_str().unwrap());
}

#[test]
fn go_planted_leaks_are_suspects_and_waste() {
    let (t, snap, r) = checked_report("go", "heap.dump.gz");
    let pl = &t["planted"];
    let g = &t["globals"];
    let at = |name: &str| format!("bss +{}", g[name]["segment_offset"].as_str().unwrap());

    let a = suspect(&r, &at("main.SESSIONS"));
    assert_eq!(
        snap.object_name(a.object),
        pl["a_sessions"]["hmap_address"].as_str().unwrap()
    );
    assert_eq!(
        a.retained,
        pl["a_sessions"]["expected_retained_by_hmap"]
            .as_u64()
            .unwrap()
    );
    let session = t["holder_alloc_sites"]["sessions_hmap"].as_str().unwrap();
    assert_eq!(snap.class_name(a.object), session);

    let b = suspect(&r, &at("main.Bus"));
    assert_eq!(b.kind, "listeners");
    assert_eq!(
        b.retained,
        pl["b_listeners"]["expected_retained_by_eventbus"]
            .as_u64()
            .unwrap()
    );

    let c = suspect(&r, &at("main.DUPLICATES"));
    assert_eq!(
        c.retained,
        pl["c_duplicates"]["expected_retained_by_backing"]
            .as_u64()
            .unwrap()
    );

    let goroutine = pl["d_goroutine_local"]["goroutine_id"].as_u64().unwrap();
    let e = suspect(&r, &format!("goroutine {goroutine},"));
    assert_eq!(e.kind, "goroutine");
    assert_eq!(
        e.retained,
        pl["d_goroutine_local"]["expected_retained_by_backing"]
            .as_u64()
            .unwrap()
    );

    // Go objects carry no type: the equal strings are equal pointer-free objects.
    let w = heaptui::waste::find(&snap, 5);
    let dup = &w.arrays[0];
    assert_eq!(
        dup.count,
        pl["c_duplicates"]["equal_to_text"].as_u64().unwrap()
    );
    assert_eq!(
        dup.wasted_bytes(),
        pl["c_duplicates"]["wasted_bytes_if_deduped"]
            .as_u64()
            .unwrap()
    );
    assert!(dup
        .preview
        .as_deref()
        .unwrap_or("")
        .contains(pl["c_duplicates"]["text"].as_str().unwrap()));
}

#[test]
fn moarvm_planted_leaks_are_suspects() {
    let (t, snap, r) = checked_report("moarvm", "leak.mvmheap.gz");
    let pl = &t["planted"];

    let a = suspect(&r, "%SESSIONS");
    assert_eq!(a.kind, "collection");
    assert_eq!(snap.class_name(a.object), "Hash");
    assert_eq!(
        member_count(&snap, a, "Session"),
        pl["unbounded_cache"]["count"].as_u64().unwrap()
    );

    let b = suspect(&r, "of EventBus");
    assert_eq!(b.kind, "listeners");
    assert_eq!(
        member_count(&snap, b, "Listener"),
        pl["growing_listeners"]["count"].as_u64().unwrap()
    );

    // The 10,000 strings' array: MoarVM snapshots keep no string text, so the duplicates
    // show as a suspect holding 10,000 Str, not in the waste report.
    let count = pl["duplicate_strings"]["count"].as_u64().unwrap();
    let c = r
        .suspects
        .iter()
        .take(5)
        .find(|s| {
            snap.class_name(s.object) == "Array" && member_count(&snap, s, "Str") >= count - 1
        })
        .expect("the duplicates' array");
    assert_ne!(c.object, b.object);
    assert!(heaptui::waste::find(&snap, 5).strings.is_empty());
}

#[test]
fn dart_planted_leaks_are_suspects_and_waste() {
    let (t, snap, r) = checked_report("dart", "leak.dartheap.gz");
    let h = &t["holders"];

    let a = suspect(&r, "static SESSIONS");
    assert_eq!(a.kind, "collection");
    assert_eq!(
        a.retained,
        h["sessions_map"]["retainedSize"].as_u64().unwrap()
    );
    assert_eq!(
        member_count(&snap, a, "package:leakshape/leaks.dart::Session"),
        t["program"]["sessions"].as_u64().unwrap()
    );

    let b = suspect(
        &r,
        "field listeners of package:leakshape/leaks.dart::EventBus",
    );
    assert_eq!(b.kind, "listeners");
    assert_eq!(
        b.retained,
        h["bus_listeners"]["retainedSize"].as_u64().unwrap()
    );

    let c = suspect(&r, "static DUPLICATES");
    assert_eq!(
        c.retained,
        h["duplicates"]["retainedSize"].as_u64().unwrap()
    );

    let w = heaptui::waste::find(&snap, 5);
    assert_eq!(
        w.strings[0].text,
        t["program"]["duplicate_text"].as_str().unwrap()
    );
    assert_eq!(
        w.strings[0].count,
        t["program"]["duplicates"].as_u64().unwrap()
    );
}

#[test]
fn the_cli_prints_the_contract_s_documents() {
    let f = fixture("java/leak/heap-live.hprof.gz");
    let out = heaptui(&["suspects", f.to_str().unwrap(), "--json", "--top", "3"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["heap_bytes"].as_u64().unwrap() > 30_000_000);
    let s = v["suspects"].as_array().unwrap();
    assert_eq!(s.len(), 3);
    for (i, x) in s.iter().enumerate() {
        assert_eq!(x["rank"], i + 1);
        for k in [
            "kind",
            "title",
            "object",
            "class",
            "retained_bytes",
            "share",
            "holder",
            "path",
            "accumulation",
            "members",
        ] {
            assert!(x.get(k).is_some(), "{k} missing in {x}");
        }
        assert!(x["object"].as_str().unwrap().starts_with("0x"));
        let path = x["path"].as_array().unwrap();
        assert!(path[0]["root"].is_string());
        // The path as `path` prints it.
        let obj = x["object"].as_str().unwrap();
        let out = heaptui(&["path", f.to_str().unwrap(), obj, "--json"]);
        let p: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(&p["paths"][0], &x["path"], "{obj}");
    }
    // `summary` leads with the top suspect: the largest plant, the 1,000 indexes' list
    // (truth.json), in the suspect's own words.
    let t = truth("java/leak/truth.json");
    let out = heaptui(&["summary", f.to_str().unwrap(), "--json"]);
    let sum: Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = sum["top_suspect"].as_str().unwrap();
    assert!(top.starts_with(s[0]["title"].as_str().unwrap()), "{top}");
    let list = t["plants"]["sparse_maps"]["list_retained_bytes"]
        .as_u64()
        .unwrap();
    assert_eq!(s[0]["retained_bytes"], list);
    assert!(top.contains("Catalog.INDEXES"), "{top}");
    let out = heaptui(&["waste", f.to_str().unwrap(), "--json", "--top", "2"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "duplicate_strings",
        "duplicate_arrays",
        "sparse_collections",
    ] {
        assert!(v[k].as_array().unwrap().len() <= 2, "{k}");
    }
    assert_eq!(v["duplicate_strings"][0]["count"], 10000);
    assert_eq!(v["sparse_collections"][0]["count"], 1000);
    // The text tables at 80 columns: the first suspect's line names its holder.
    let out = heaptui(&["suspects", f.to_str().unwrap(), "--top", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("static com.example.Catalog.INDEXES"),
        "{text}"
    );
}

#[test]
fn a_cut_file_gives_suspects_over_what_is_whole_and_garbage_exits_2() {
    // The Java fixture cut in the middle of its heap dump segment.
    let whole = std::fs::read(gunzipped("java/leak/heap-live.hprof.gz")).unwrap();
    let cut = scratch().join("leak-cut.hprof");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let out = heaptui(&["suspects", cut.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated"));
    // HotSpot writes the GC roots last: the cut keeps none, and the objects nothing
    // references stand in for them.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let heap = v["heap_bytes"].as_u64().unwrap();
    for s in v["suspects"].as_array().unwrap() {
        assert!(s["retained_bytes"].as_u64().unwrap() <= heap);
    }
    // The session cache lies mostly in the whole half: found as in the whole file, with
    // the size the JVM's agent measured but for the few objects past the cut (0.1 %).
    let t = truth("java/leak/truth.json");
    let sessions = v["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["holder"] == "static SESSIONS of com.example.SessionCache")
        .unwrap_or_else(|| panic!("the session cache in {v}"));
    let got = sessions["retained_bytes"].as_u64().unwrap() as f64;
    let want = t["plants"]["session_cache"]["retained_bytes"]
        .as_u64()
        .unwrap() as f64;
    assert!((got - want).abs() <= want * 0.005, "{got} against {want}");
    let out = heaptui(&["waste", cut.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Not a heap snapshot at all.
    let junk = scratch().join("junk.bin");
    std::fs::write(&junk, b"JAVA PROFILE 9.9\0garbage").unwrap();
    for cmd in ["suspects", "waste"] {
        let out = heaptui(&[cmd, junk.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("junk.bin"));
    }
}

/// The waste report made without the index (`src/format/hprof/quick_waste.rs`, what
/// `waste` runs on an HPROF file with no index cache entry) is the index's, examples
/// and holders included, on every HPROF fixture and corpus file: JDK 17 with and
/// without compressed oops, JDK 8/6/5 and the JVMTI agent (strings of `char[]`), and
/// Android and strings with `offset`/`count` (left to the index).
#[test]
fn waste_without_the_index_is_the_index_s_answer() {
    let mut files: Vec<std::path::PathBuf> = [
        "java/leak/heap-live.hprof.gz",
        "java/growth/base.hprof.gz",
        "java/nocoops/heap-live.hprof.gz",
        "java/coops/heap-live-jvmgz.hprof.gz",
    ]
    .iter()
    .map(|r| gunzipped(r))
    .collect();
    for c in [
        "hprof/RI.hprof",
        "hprof/sun_jdk5_64bit.hprof",
        "hprof/sun_jdk6_18_x32.hprof",
        "hprof/jdk8u-jhat-hprof-32.bin",
        "android/leak_service_binder.hprof",
    ] {
        files.extend(corpus(c));
    }
    let mut walked = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let q = heaptui::format::hprof::quick_waste(&bytes, &Progress::new(), 50).unwrap();
        let Some(q) = q else {
            // ART and strings with `offset`/`count` (JDK 5 and 6) are left to the index.
            assert!(
                f.to_string_lossy().contains("corpus"),
                "{f:?} left to the index"
            );
            continue;
        };
        walked += 1;
        let snap = heaptui::open(&f, &Progress::new()).unwrap();
        let w = heaptui::waste::find(&snap, 50);
        let name = |o| q.names[o as usize].0.clone();
        let class = |o| q.names[o as usize].1.clone();
        assert_eq!(q.waste.strings.len(), w.strings.len(), "{f:?}");
        for (a, b) in q.waste.strings.iter().zip(&w.strings) {
            assert_eq!(
                (&a.text, a.count, a.bytes_each, name(a.example)),
                (&b.text, b.count, b.bytes_each, snap.object_name(b.example)),
                "{f:?}"
            );
        }
        assert_eq!(q.waste.arrays.len(), w.arrays.len(), "{f:?}");
        for (a, b) in q.waste.arrays.iter().zip(&w.arrays) {
            assert_eq!(
                (
                    a.length,
                    a.count,
                    a.bytes_each,
                    name(a.example),
                    class(a.example)
                ),
                (
                    b.length,
                    b.count,
                    b.bytes_each,
                    snap.object_name(b.example),
                    snap.class_name(b.example).to_string()
                ),
                "{f:?}"
            );
        }
        assert_eq!(q.waste.sparse.len(), w.sparse.len(), "{f:?}");
        for (a, b) in q.waste.sparse.iter().zip(&w.sparse) {
            assert_eq!(
                (
                    &a.class,
                    &a.holder,
                    a.count,
                    a.size,
                    a.capacity,
                    a.wasted_bytes
                ),
                (
                    &b.class,
                    &b.holder,
                    b.count,
                    b.size,
                    b.capacity,
                    b.wasted_bytes
                ),
                "{f:?}"
            );
            assert_eq!(name(a.example), snap.object_name(b.example), "{f:?}");
        }
    }
    assert!(walked >= 4);
}

/// Detached DOM trees are suspects whatever their size, each named by the object that
/// keeps it: on the Chromium fixture, the four holders the page made
/// (`fixtures/chromium/expected.json`: the objects' ids as DevTools gave them, and the
/// page's own count of the detached elements by tag).
#[test]
fn detached_dom_trees_are_suspects_named_by_their_holders() {
    let t = truth("chromium/expected.json");
    let (snap, d) = open("chromium/detached.heapsnapshot.gz");
    let r = heaptui::suspects::find(&snap, &d, 10);
    check_report(&snap, &d, &r);
    let by_tag = &t["page"]["detached"]["all"]["byTag"];
    let cases = [
        // (the expected object, its holder, a tag it holds)
        ("detached_cards_array", "global heaptuiDetachedCards", "div"),
        (
            "detached_section",
            "closure variable section of keepSection()",
            "span",
        ),
        ("detached_table", "global heaptuiDetachedTable", "td"),
        ("detached_article", "global heaptuiDetachedArticle", "p"),
    ];
    for (id, holder, tag) in cases {
        let s = r
            .suspects
            .iter()
            .find(|s| s.holder == holder)
            .unwrap_or_else(|| panic!("{holder}: {:#?}", r.suspects));
        assert_eq!(s.kind, "detached DOM", "{}", s.title);
        let want = t["object_ids"][id]["heapSnapshotObjectId"]
            .as_u64()
            .unwrap();
        assert_eq!(
            snap.object_name(s.object),
            format!("@{want}"),
            "{}",
            s.title
        );
        assert_eq!(
            member_count(&snap, s, &format!("Detached <{tag}>")),
            by_tag[tag].as_u64().unwrap(),
            "{}",
            s.title
        );
    }
}

/// A hostile HPROF file where a string's `value` is a sparse `ArrayList`, at a lower
/// address than the object whose field holds the list: the walk without the index
/// leaves the strings out of its second reading unless a value is a collection, and
/// then names the same holder as the index (the string, the first referrer).
#[test]
fn a_string_whose_value_is_a_sparse_collection_is_its_holder_without_the_index_too() {
    let mut h = hostile::Hprof::new(8);
    let (string, list, holder, objects) = (0x100, 0x200, 0x300, 0x400);
    h.named_class(1, string, 1, b"java.lang.String");
    h.named_class(2, list, 2, b"java.util.ArrayList");
    h.named_class(3, holder, 3, b"Holder");
    h.named_class(4, objects, 4, b"java.lang.Object[]");
    for (id, name) in [
        (10, "value"),
        (11, "coder"),
        (12, "elementData"),
        (13, "size"),
    ] {
        h.utf8(id, name.as_bytes());
    }
    h.utf8(14, b"list");
    h.class_dump(string, 0, &[(10, 2), (11, 8)]);
    h.class_dump(list, 0, &[(12, 2), (13, 10)]);
    h.class_dump(holder, 0, &[(14, 2)]);
    h.class_dump(objects, 0, &[]);
    // The string at 0x1000 whose value is the list at 0x3000; the holder at 0x2000.
    let mut s = h.idb(0x3000);
    s.push(0);
    h.instance(0x1000, string, &s);
    h.instance_refs(0x2000, holder, &[0x3000]);
    let mut l = h.idb(0x4000);
    l.extend_from_slice(&1u32.to_be_bytes());
    h.instance(0x3000, list, &l);
    // Its elementData: 64 slots, one used.
    let mut a = vec![0x22];
    a.extend(h.idb(0x4000));
    a.extend_from_slice(&0u32.to_be_bytes());
    a.extend_from_slice(&64u32.to_be_bytes());
    a.extend(h.idb(objects));
    a.extend(h.idb(0x2000));
    a.extend(vec![0; 63 * 8]);
    h.heap.extend(a);
    h.jni_global(0x1000);
    h.jni_global(0x2000);
    let bytes = h.finish();
    let q = heaptui::format::hprof::quick_waste(&bytes, &Progress::new(), 10)
        .unwrap()
        .expect("walked without the index");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("string-holds-list.hprof");
    std::fs::write(&f, &bytes).unwrap();
    let snap = heaptui::open(&f, &Progress::new()).unwrap();
    let w = heaptui::waste::find(&snap, 10);
    assert_eq!(w.sparse.len(), 1, "{w:?}");
    assert!(w.sparse[0].holder.contains("java.lang.String"), "{w:?}");
    let key =
        |s: &heaptui::heap::waste::Sparse| (s.class.clone(), s.holder.clone(), s.capacity, s.size);
    assert_eq!(
        q.waste.sparse.iter().map(key).collect::<Vec<_>>(),
        w.sparse.iter().map(key).collect::<Vec<_>>()
    );
}

/// The `maps …` and `lists …` lines of the holders fixture's `stdout.txt` (what the
/// program read back from its own objects): holder, count, entries, slots.
fn holders_truth(what: &str) -> (String, u64, u64, u64) {
    let text = std::fs::read_to_string(fixture("java/holders/stdout.txt")).unwrap();
    let get = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{what} {key} ")))
            .unwrap_or_else(|| panic!("{what} {key} in stdout.txt"))
            .to_string()
    };
    let n = |key: &str| get(key).parse::<u64>().unwrap();
    (get("holder"), n("count"), n("entries"), n("slots"))
}

/// Issue 39, bug 5: a sparse collection held through another collection's backing array
/// or entries (500 `HashMap`s in the `ArrayList` `static SparseIndex.MAPS`, 300
/// `ArrayList`s as values of the `HashMap` `static SparseIndex.LISTS`) is named by that
/// collection and what holds it, in the suspects' words, in the library, the JSON (made
/// without the index, then with it) and the text; never `elements of java.lang.Object[]`.
#[test]
fn sparse_collections_are_named_by_the_holder_of_the_collection_they_are_in() {
    let rel = "java/holders/heap-live.hprof.gz";
    let (snap, d) = open(rel);
    let w = heaptui::waste::find(&snap, 10);
    let r = heaptui::suspects::find(&snap, &d, 10);
    for (what, class, container) in [
        ("maps", "java.util.HashMap", "java.util.ArrayList"),
        ("lists", "java.util.ArrayList", "java.util.HashMap"),
    ] {
        let (holder, count, entries, slots) = holders_truth(what);
        // `static holdout.SparseIndex.MAPS` as the suspects say it: `static MAPS of
        // holdout.SparseIndex`.
        let (owner, field) = holder
            .strip_prefix("static ")
            .unwrap()
            .rsplit_once('.')
            .unwrap();
        let want = format!("{container} in static {field} of {owner}");
        let s = w
            .sparse
            .iter()
            .find(|s| s.class == class && s.count == count)
            .unwrap_or_else(|| panic!("{what}: {:#?}", w.sparse));
        assert_eq!(s.holder, want, "{what}");
        assert_eq!((s.size, s.capacity), (entries, slots), "{what}");
        // The collection's own suspect, where it is one, says the same.
        if let Some(sus) = r
            .suspects
            .iter()
            .find(|x| snap.class_name(x.object) == container && x.holder.contains(field))
        {
            assert_eq!(
                format!("{} in {}", container, sus.holder),
                want,
                "{}",
                sus.title
            );
        }
        // The CLI: JSON and text, without the index (the first run) and with it.
        let dir = tempfile::tempdir().unwrap();
        let f = fixture_arg(rel);
        for _ in 0..2 {
            let out = heaptui_command(&["waste", &f, "--json"])
                .env("HEAPTUI_CACHE_DIR", dir.path())
                .output()
                .unwrap();
            let v = json_of(&out);
            let row = items(&v, "sparse_collections")
                .iter()
                .find(|c| c["class"] == class && c["count"] == count)
                .unwrap_or_else(|| panic!("{what}: {v}"));
            assert_eq!(row["holder"], want.as_str(), "{what}");
            let _ = heaptui_command(&["summary", &f])
                .env("HEAPTUI_CACHE_DIR", dir.path())
                .output()
                .unwrap();
        }
        let text = stdout_of(heaptui(&["waste", &f]));
        let line = line_with(&text, &format!("{count} × {class} in"));
        assert!(
            line.contains(&format!("in {container} in {holder}:")),
            "{line}"
        );
    }
}

/// Issue 39, bug 9: nothing wasted is no finding. Chromium's snapshot has equal strings
/// of size 0 (`"0"` four times): neither the JSON, the text nor the library lists a
/// finding that wastes 0 bytes, in any list.
#[test]
fn findings_that_waste_nothing_are_not_listed() {
    let rel = "chromium/detached.heapsnapshot.gz";
    let (snap, _) = open(rel);
    let w = heaptui::waste::find(&snap, 1000);
    let none: Vec<&str> = w
        .strings
        .iter()
        .filter(|s| s.wasted_bytes() == 0)
        .map(|s| s.text.as_str())
        .take(5)
        .collect();
    assert!(none.is_empty(), "strings that waste nothing: {none:?}");
    assert!(
        w.arrays.iter().all(|a| a.wasted_bytes() > 0),
        "{:?}",
        w.arrays
    );
    assert!(
        w.sparse.iter().all(|c| c.wasted_bytes > 0),
        "{:?}",
        w.sparse
    );
    let f = fixture_arg(rel);
    let v = json_of(&heaptui(&["waste", &f, "--json", "--top", "1000"]));
    for list in [
        "duplicate_strings",
        "duplicate_arrays",
        "sparse_collections",
    ] {
        for row in items(&v, list) {
            assert!(row["wasted_bytes"].as_u64().unwrap() > 0, "{list}: {row}");
        }
    }
    let text = stdout_of(heaptui(&["waste", &f, "--top", "1000"]));
    assert!(!text.contains(" 0 B wasted"), "{text}");
}

/// Issue 39, bug 6: a listener suspect counts the listeners its array holds, not every
/// closure it retains. `fixtures/node/listeners`: the `_events.tick` Array holds 2,000
/// closures (`truth.json`: the program's `listenerCount`, the array's length) and
/// retains one more, a helper in the context they share.
#[test]
fn a_listener_suspect_counts_the_elements_of_its_array() {
    let t = truth("node/listeners/truth.json");
    let n = t["arrayLength"].as_u64().unwrap();
    assert_eq!(t["listenerCount"].as_u64(), Some(n));
    assert_eq!(t["distinctListeners"].as_u64(), Some(n));
    let (snap, d) = open("node/listeners/listeners.heapsnapshot.gz");
    let r = heaptui::suspects::find(&snap, &d, 10);
    let s = r
        .suspects
        .iter()
        .find(|s| s.kind == "listeners" && s.holder.contains("_events.tick"))
        .unwrap_or_else(|| panic!("{:#?}", r.suspects));
    assert_eq!(member_count(&snap, s, "(closure)"), n, "{}", s.title);
    assert!(
        s.title
            .contains(&format!("holds {} (closure)", with_commas(n as usize))),
        "{}",
        s.title
    );
    // Each listener holds its own Tick: counted as before, below the elements.
    assert_eq!(member_count(&snap, s, "Tick"), t["ticks"].as_u64().unwrap());
}

/// The ChainNode of the Java fixture that no other ChainNode holds: the list's head.
fn chain_head(snap: &Snapshot) -> u32 {
    let g = &snap.graph;
    let class = |o: u32| snap.class_name(o);
    let heads: Vec<u32> = (0..g.len() as u32)
        .filter(|&o| class(o) == "dev.heaptui.fixture.ChainNode")
        .filter(|&o| {
            !g.referrers(o)
                .iter()
                .any(|&r| class(r) == "dev.heaptui.fixture.ChainNode")
        })
        .collect();
    assert_eq!(heads.len(), 1, "{heads:?}");
    heads[0]
}

/// Bug 8 of issue 39: a linked list's suspect is named at its head (what holds the
/// list: `static CHAIN_ROOT of Main`), not 10,000 links down, and says how long the
/// list is, as the fixture's truth file counts it.
#[test]
fn a_linked_list_is_named_at_its_head_with_its_length() {
    let t = fixture_json("java/expected.json");
    let length = t["roots_and_structures"]["chain"]["length"]
        .as_u64()
        .unwrap();
    assert_eq!(length, 503);
    let (snap, d) = open("java/coops/heap-live-jvmgz.hprof.gz");
    let head = chain_head(&snap);
    let heap = d.reach.reachable_bytes + d.reach.orphan_bytes;
    let s = heaptui::suspects::describe(&snap, &d, head, heap);
    assert_eq!(s.object, head, "{}", s.title);
    assert_eq!(s.holder, "static CHAIN_ROOT of dev.heaptui.fixture.Main");
    assert_eq!(s.kind, "linked list");
    assert!(
        s.title.starts_with(&format!(
            "linked list of {} × dev.heaptui.fixture.ChainNode via next",
            with_commas(length as usize)
        )),
        "{}",
        s.title
    );
    let list = s.list.as_ref().expect("the list");
    assert_eq!(list.length, length);
    assert_eq!(list.via, "next");
    assert_eq!(s.path.last(), Some(&head));
    assert!(s.path.len() <= 3, "{:?}", s.path);
    // The JSON says it too.
    let entry = heaptui::results::suspects::SuspectEntry::of(&snap, &s, 1);
    let v = serde_json::to_value(&entry).unwrap();
    assert_eq!(v["linked_list"]["length"], length);
    assert_eq!(v["linked_list"]["via"], "next");
    assert_eq!(v["linked_list"]["class"], "dev.heaptui.fixture.ChainNode");
}
