//! Dart VM heap snapshots written by a real Dart 3.7 VM (`fixtures/dart`), checked
//! against what the runtime and the program said around them (`expected.json`):
//! `getAllocationProfile(gc: true)` and `getMemoryUsage` with the isolate paused, the
//! identity hash codes that `evaluate` reported for chosen objects, and the program's
//! own counts. Cut and hash-less files are cut from the real bytes; the edge cases that
//! the real files cannot show (a 64-bit VM's Smis, a hostile count) are hand-built
//! streams, in `dart_hand_built.rs`.

use crate::common;

use common::*;
use heaptui::sys::progress::Progress;
use serde_json::Value;

const APP: &str = "package:heapshape/model.dart::";

fn expected() -> Value {
    fixture_json("dart/expected.json")
}

fn snap_path(name: &str) -> String {
    fixture_arg(&format!("dart/{name}.dartheap.gz"))
}

/// `diff --json --owners N` from the `before` snapshot to the `after` one.
fn diff_owners(n: &str) -> Value {
    json_of(&heaptui(&[
        "diff",
        &snap_path("before"),
        &snap_path("after"),
        "--json",
        "--owners",
        n,
    ]))
}

fn real(name: &str) -> Vec<u8> {
    std::fs::read(gunzipped(&format!("dart/{name}.dartheap.gz"))).unwrap()
}

/// The leading integer of a summary detail ("6066176 bytes ...").
fn detail_number(s: &Value, key: &str) -> u64 {
    let v = s["details"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key}"));
    v.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn app_classes_equal_get_allocation_profile_and_the_programs_counts() {
    let e = expected();
    for which in ["before", "after"] {
        let truth = &e["snapshots"][which];
        assert_eq!(truth["app_classes_unchanged_after_snapshot"], true);
        let h = json_of(&heaptui(&["histogram", &snap_path(which), "--json"]));
        let rows = h["classes"].as_array().unwrap();
        let ours = |class: &str| {
            rows.iter().find(|r| r["class"] == class).map(|r| {
                (
                    r["count"].as_u64().unwrap(),
                    r["shallow_bytes"].as_u64().unwrap(),
                )
            })
        };
        let mut checked = 0;
        for r in truth["allocation_profile"].as_array().unwrap() {
            let class = r["class"].as_str().unwrap();
            if !class.starts_with(APP) {
                continue;
            }
            let want = (
                r["instances"].as_u64().unwrap(),
                r["bytes"].as_u64().unwrap(),
            );
            assert_eq!(ours(class), Some(want), "{which}: {class}");
            checked += 1;
        }
        assert!(checked >= 4, "{which}: {checked} app classes");
        // The program's own counts, the same way.
        let p = &e["program"];
        let state = if which == "before" {
            &p["ready"]
        } else {
            &p["grown"]
        };
        assert_eq!(ours(&format!("{APP}Order")).unwrap().0, state["orders"]);
        assert_eq!(
            ours(&format!("{APP}LineItem")).unwrap().0,
            state["line_items"]
        );
        assert_eq!(
            ours(&format!("{APP}Customer")).unwrap().0,
            p["ready"]["customers"]
        );
        assert_eq!(ours(&format!("{APP}Link")).unwrap().0, p["ready"]["links"]);
        // The dropped Scraps were collected by the profile's GC: none in the file.
        assert_eq!(ours(&format!("{APP}Scrap")), None);
        if which == "after" {
            assert_eq!(
                ours(&format!("{APP}Growth")).unwrap().0,
                p["grown"]["growth"]
            );
        } else {
            assert_eq!(ours(&format!("{APP}Growth")), None);
        }
    }
}

#[test]
fn capacity_and_external_size_equal_get_memory_usage() {
    let e = expected();
    for which in ["before", "after"] {
        let mem = &e["snapshots"][which]["memory_usage"];
        let s = summary_json(&snap_path(which));
        assert_eq!(s["format"], "dart");
        assert!(s["truncated"].is_null());
        assert_eq!(s["details"]["isolate"], "main");
        assert_eq!(detail_number(&s, "heap capacity"), mem["heapCapacity"]);
        assert_eq!(detail_number(&s, "external size"), mem["externalUsage"]);
        // The header's shallowSize is the heap usage at the moment of writing, a few
        // hundred bytes from getMemoryUsage (NOTES §6b); it is not the objects' sum.
        let used = detail_number(&s, "heap used") as i64;
        let want = mem["heapUsage"].as_i64().unwrap();
        assert!((used - want).abs() < 4096, "{which}: {used} vs {want}");
        // Unreachable objects are kept and counted beside the reachable figures.
        let unreachable = detail_number(&s, "unreachable");
        assert_eq!(
            s["reachable_objects"].as_u64().unwrap() + unreachable,
            s["objects"].as_u64().unwrap()
        );
        assert!(
            unreachable > 0,
            "{which}: the VM always leaves some garbage"
        );
        assert_eq!(s["roots"], 3, "Root, Read-Only Pages, Isolate");
    }
}

/// Object of `snap` whose identity hash is `hash` (exactly one).
fn by_hash(snap: &heaptui::Snapshot, hash: u64) -> u32 {
    let (kind, ids) = snap.persistent_ids().expect("identity hashes");
    assert_eq!(kind, "identity hash");
    let hits: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == hash).collect();
    assert_eq!(hits.len(), 1, "hash {hash}");
    hits[0] as u32
}

fn field_value(snap: &heaptui::Snapshot, o: u32, name: &str) -> heaptui::format::Value {
    let ins = snap.inspect(o);
    ins.fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name} in {:?}", ins.fields))
        .value
        .clone()
}

#[test]
fn objects_named_by_evaluate_are_found_by_identity_hash_with_their_values() {
    use heaptui::format::Value;
    let e = expected();
    let p = &e["program"]["ready"];
    let path = gunzipped("dart/before.dartheap.gz");
    let snap = heaptui::open(&path, &Progress::new()).unwrap();
    let probes = &e["snapshots"]["before"]["probes"];
    let obj = |ex: &str| {
        let pr = &probes[ex];
        let o = by_hash(&snap, pr["identityHashCode"].as_u64().unwrap());
        assert_eq!(
            snap.class_name(o),
            format!("{APP}{}", pr["class"].as_str().unwrap()),
            "{ex}"
        );
        o
    };
    // orders.first: id 0, and its note is the long Latin-1 string, cut by the snapshot.
    let first = obj("orders.first");
    assert_eq!(field_value(&snap, first, "id"), Value::Int(0));
    let Value::Object(note) = field_value(&snap, first, "note") else {
        panic!("note is not an object");
    };
    assert_eq!(snap.class_name(note), "dart:core::_OneByteString");
    let ins = snap.inspect(note);
    assert_eq!(ins.length, Some(p["long_text_length"].as_u64().unwrap()));
    let pre = ins.preview.unwrap();
    assert!(
        pre.starts_with("segment-0|segment-1|") && pre.ends_with('…'),
        "{pre}"
    );
    assert_eq!(
        pre.chars().count(),
        129,
        "128 kept code units and the ellipsis"
    );
    // orders[1]: a long UTF-16 string, cut too.
    let Value::Object(n1) = field_value(&snap, obj("orders[1]"), "note") else {
        panic!()
    };
    assert_eq!(snap.class_name(n1), "dart:core::_TwoByteString");
    let ins = snap.inspect(n1);
    assert_eq!(ins.length, Some(p["long_utf16_length"].as_u64().unwrap()));
    assert!(ins
        .preview
        .unwrap()
        .starts_with(p["long_utf16_prefix"].as_str().unwrap()));
    // orders[2]: a boxed double.
    assert_eq!(
        field_value(&snap, obj("orders[2]"), "note"),
        Value::Float(p["note_double"].as_f64().unwrap())
    );
    // customers.first: a negative Smi and a negative Mint.
    let c0 = obj("customers.first");
    assert_eq!(
        field_value(&snap, c0, "balance"),
        Value::Int(p["negative_balance"].as_i64().unwrap())
    );
    assert_eq!(
        field_value(&snap, c0, "debt"),
        Value::Int(p["mint_debt"].as_i64().unwrap())
    );
    // customers[3]: a short UTF-16 name, whole.
    let Value::Object(name) = field_value(&snap, obj("customers[3]"), "name") else {
        panic!()
    };
    assert_eq!(snap.class_name(name), "dart:core::_TwoByteString");
    assert_eq!(
        snap.inspect(name).preview.as_deref(),
        p["utf16_customer"].as_str()
    );
    let want_label = format!("{:?}", p["utf16_customer"].as_str().unwrap());
    assert_eq!(snap.label(name), Some(want_label));
    // The chain: the path from the root runs through the isolate's static `chain` and
    // two `next` fields, named from the classes' field lists.
    let deep = obj("chain!.next!.next");
    let head = obj("chain");
    assert_eq!(field_value(&snap, head, "depth"), Value::Int(1));
    let v = path_json(path.to_str().unwrap(), &snap.object_name(deep));
    let steps = v["paths"][0].as_array().unwrap();
    let edges: Vec<&str> = steps.iter().filter_map(|s| s["edge"].as_str()).collect();
    assert_eq!(edges[edges.len() - 3..], ["chain", "next", "next"]);
    assert_eq!(steps[0]["root"], "synthetic root");
    assert_eq!(steps[steps.len() - 3]["object"], snap.object_name(head));
}

#[test]
fn inspect_through_the_cli_shows_values_and_external_sizes() {
    let e = expected();
    let path = gunzipped("dart/before.dartheap.gz");
    let snap = heaptui::open(&path, &Progress::new()).unwrap();
    let c0 = by_hash(
        &snap,
        e["snapshots"]["before"]["probes"]["customers.first"]["identityHashCode"]
            .as_u64()
            .unwrap(),
    );
    let v = inspect_json(path.to_str().unwrap(), &snap.object_name(c0));
    assert_eq!(v["class"], format!("{APP}Customer"));
    assert_eq!(
        field(&v, "balance")["value"],
        e["program"]["ready"]["negative_balance"]
    );
    assert_eq!(field(&v, "balance")["type"], "int");
    assert_eq!(
        field(&v, "debt")["value"],
        e["program"]["ready"]["mint_debt"]
    );
    assert_eq!(
        v["facts"]["identity hash"],
        e["snapshots"]["before"]["probes"]["customers.first"]["identityHashCode"].to_string()
    );
    assert!(v["facts"]["external size"]
        .as_str()
        .unwrap()
        .starts_with("0 bytes (shallow 16 bytes)"));
    // `--class` names the largest Order; #1 is the root.
    let root = inspect_json(path.to_str().unwrap(), "#1");
    assert_eq!(root["class"], "Root");
    let missing = heaptui(&["inspect", path.to_str().unwrap(), "#99999999"]);
    assert_eq!(missing.status.code(), Some(3));
    // Issue 26: a bare number is the object `#N` names (Dart objects are named `#N`).
    let name = snap.object_name(c0);
    let bare = name.strip_prefix('#').unwrap();
    let by_bare = inspect_json(path.to_str().unwrap(), bare);
    assert_eq!(by_bare, v);
    let missing = heaptui(&["inspect", path.to_str().unwrap(), "99999999"]);
    assert_eq!(missing.status.code(), Some(3));
}

#[test]
fn diff_matches_objects_by_identity_hash() {
    let e = expected();
    let p = &e["program"];
    let v = json_of(&heaptui(&[
        "diff",
        &snap_path("before"),
        &snap_path("after"),
        "--json",
    ]));
    assert_eq!(v["objects"]["matched_by"], "identity hash");
    let row = |c: &str| {
        v["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["class"] == format!("{APP}{c}"))
            .unwrap_or_else(|| panic!("{c}"))
            .clone()
    };
    let grow = p["grow"].as_u64().unwrap();
    let g = row("Growth");
    assert_eq!(g["new_count"], grow);
    assert_eq!(g["delta_count"], grow);
    let o = row("Order");
    assert_eq!(o["new_count"], grow);
    assert_eq!(o["gone_count"], 0);
    let items =
        p["grown"]["line_items"].as_u64().unwrap() - p["ready"]["line_items"].as_u64().unwrap();
    assert_eq!(row("LineItem")["new_count"], items);
    for c in ["Customer", "Link"] {
        assert_eq!(row(c)["new_count"], 0, "{c}");
        assert_eq!(row(c)["gone_count"], 0, "{c}");
    }
    // The probes' hashes: the same objects in both snapshots, the new ones only after.
    let before = heaptui::open(&gunzipped("dart/before.dartheap.gz"), &Progress::new()).unwrap();
    let after = heaptui::open(&gunzipped("dart/after.dartheap.gz"), &Progress::new()).unwrap();
    let pb = &e["snapshots"]["before"]["probes"];
    let pa = &e["snapshots"]["after"]["probes"];
    for ex in ["orders.first", "customers[3]", "chain"] {
        assert_eq!(pb[ex]["identityHashCode"], pa[ex]["identityHashCode"]);
        let h = pa[ex]["identityHashCode"].as_u64().unwrap();
        assert_eq!(
            before.class_name(by_hash(&before, h)),
            after.class_name(by_hash(&after, h))
        );
    }
    // Objects without a hash (id 0) are neither new nor kept: new + kept = hashed objects.
    let hashed = |s: &heaptui::Snapshot| {
        s.persistent_ids()
            .unwrap()
            .1
            .iter()
            .filter(|&&h| h != 0)
            .count() as u64
    };
    let o = &v["objects"];
    assert_eq!(
        o["new"].as_u64().unwrap() + o["kept"].as_u64().unwrap(),
        hashed(&after)
    );
    assert!(o["gone"].as_u64().unwrap() <= hashed(&before));
    // leaks (baseline, target, final = after): every Growth is new and still there.
    let l = json_of(&heaptui(&[
        "leaks",
        &snap_path("before"),
        &snap_path("after"),
        &snap_path("after"),
        "--json",
    ]));
    let growth: u64 = l["leaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["class"] == format!("{APP}Growth"))
        .map(|g| g["count"].as_u64().unwrap())
        .sum();
    assert_eq!(growth, grow);
    let new_order = &pa[format!("orders[{}]", p["ready"]["orders"]).as_str()];
    let h = new_order["identityHashCode"].as_u64().unwrap();
    by_hash(&after, h);
    assert!(!before.persistent_ids().unwrap().1.contains(&h));
}

#[test]
fn the_grown_list_is_an_owner_with_its_entries() {
    // Between the snapshots the program appended `grow` orders to its top-level list
    // `orders` (1,234 → 1,555: expected.json). The owners are matched by their path from
    // the roots, the list named by its field and its own length, not by its storage.
    let e = expected();
    let d = diff_owners("10");
    let owner = owner_ending(&d, "→ orders dart:core::_GrowableList");
    assert_eq!(
        owner["base_entries"], e["program"]["ready"]["orders"],
        "{owner}"
    );
    assert_eq!(
        owner["target_entries"], e["program"]["grown"]["orders"],
        "{owner}"
    );
    assert_eq!(owner["delta_entries"], e["program"]["grow"], "{owner}");
    // Its storage is not listed again beside it.
    assert!(
        items(&d, "owners").iter().all(|o| !o["owner"]
            .as_str()
            .unwrap()
            .contains("→ orders dart:core::_GrowableList →")),
        "{}",
        d["owners"]
    );
}

#[test]
fn group_by_package_groups_by_library() {
    let v = json_of(&heaptui(&[
        "histogram",
        &snap_path("before"),
        "--group-by",
        "package",
        "--json",
    ]));
    let rows = v["classes"].as_array().unwrap();
    let lib = rows
        .iter()
        .find(|r| r["class"] == "package:heapshape/model.dart")
        .expect("the app's library");
    let e = expected();
    let want: u64 = e["snapshots"]["before"]["allocation_profile"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["class"].as_str().unwrap().starts_with(APP))
        .map(|r| r["instances"].as_u64().unwrap())
        .sum();
    assert_eq!(lib["count"], want);
    assert!(rows.iter().any(|r| r["class"] == "dart:core"));
}

#[test]
fn dominators_run_over_the_real_graph() {
    let v = json_of(&heaptui(&[
        "dominators",
        &snap_path("after"),
        "--json",
        "--top",
        "5",
    ]));
    let objs = v["objects"].as_array().unwrap();
    assert!(!objs.is_empty());
    let s = summary_json(&snap_path("after"));
    let top: u64 = objs
        .iter()
        .map(|o| o["retained_bytes"].as_u64().unwrap())
        .sum();
    assert!(top <= s["reachable_bytes"].as_u64().unwrap());
}

#[test]
fn a_snapshot_without_identity_hash_codes_reads_whole() {
    let full = real("before");
    let at = heaptui::format::dart::hash_codes_offset(&full).unwrap();
    assert!(at < full.len());
    let cut = &full[..at];
    let whole = open_bytes(&full).unwrap();
    let s = open_bytes(cut).unwrap();
    assert!(s.truncated.is_none(), "{:?}", s.warnings);
    assert!(s.persistent_ids().is_none());
    assert_eq!(s.graph.len(), whole.graph.len());
    assert_eq!(s.graph.edge_count(), whole.graph.edge_count());
    let h = s
        .facts
        .iter()
        .find(|f| f.0 == "identity hash codes")
        .unwrap();
    assert!(h.1.starts_with("absent"), "{}", h.1);
    // The diff still counts classes, with no object matching.
    let p = scratch().join("nohash.dartheap");
    std::fs::write(&p, cut).unwrap();
    let v = json_of(&heaptui(&[
        "diff",
        p.to_str().unwrap(),
        &snap_path("after"),
        "--json",
    ]));
    assert!(v["objects"].is_null());
    // Half the hashes: cut, so truncated, but every object is there.
    let s = open_bytes(&full[..at + (full.len() - at) / 2]).unwrap();
    assert!(s.truncated.is_some());
    assert_eq!(s.graph.len(), whole.graph.len());
}

#[test]
fn a_cut_snapshot_opens_as_far_as_its_objects_are_whole() {
    let full = real("after");
    let whole = open_bytes(&full).unwrap();
    let n = whole.graph.len();
    let mut x: u64 = 0x2545f4914f6cdd1d;
    let mut opened = 0;
    for k in 0..40 {
        xorshift(&mut x);
        let cut = if k < 8 {
            k * 3
        } else {
            (x % full.len() as u64) as usize
        };
        match open_bytes(&full[..cut]) {
            Ok(s) => {
                opened += 1;
                let t = s.truncated.expect("cut, so truncated");
                assert!(t <= cut as u64);
                assert!(s.graph.len() <= n);
                assert!(s.warnings[0].starts_with("truncated at byte offset"));
                assert!(s.graph.index_bytes() <= 64 * cut as u64 + (1 << 20));
                // Every edge points at an object that is there.
                assert!(s
                    .graph
                    .out_targets
                    .iter()
                    .all(|&t| (t as usize) < s.graph.len()));
                for o in (0..s.graph.len() as u32).step_by(997) {
                    s.inspect(o);
                    s.label(o);
                }
            }
            Err(e) => {
                // Only a cut in the header or the class table is an error.
                assert!(e.offset <= cut as u64 && cut < 200_000, "cut at {cut}: {e}");
            }
        }
    }
    assert!(opened >= 20);
    let cut = scratch().join("cut.dartheap");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let out = heaptui(&["summary", cut.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated at byte offset"));
    let v = json_of(&out);
    assert!(v["truncated"].as_u64().unwrap() <= full.len() as u64 / 2);
}

#[test]
fn corrupted_bytes_never_panic() {
    let full = real("before");
    let mut x: u64 = 99;
    for _ in 0..20 {
        let bad = scribbled(&full, 8, &mut x);
        if let Ok(s) = open_bytes(&bad) {
            for o in (0..s.graph.len() as u32).step_by(331) {
                s.inspect(o);
                s.label(o);
                for &t in s.graph.out_targets[s.graph.edges(o)].iter().take(3) {
                    s.edge_label(o, t);
                }
            }
            s.persistent_ids();
        }
    }
}

/// Issue 26: the diff's owners never lump two owners under one row. Every name in the
/// owner map of both real snapshots stands for one object (a row used to sum all the
/// objects under the virtual root with the same class: `[held by several roots]
/// dart:typed_data::_Uint32List`, 4 objects), and the typed-data lists that grew are
/// separate rows, each named by its own path from the roots.
#[test]
fn every_owner_that_grew_is_one_object_with_its_own_path() {
    for name in ["before", "after"] {
        let snap = heaptui::open(
            &gunzipped(&format!("dart/{name}.dartheap.gz")),
            &Progress::new(),
        )
        .unwrap();
        let d = heaptui::heap::dominators::compute(&snap.graph, &Progress::new());
        let owners = heaptui::diff::owner_map(&snap, &d);
        assert!(owners.len() > 20, "{name}: {} owners", owners.len());
        for (k, f) in &owners {
            assert_eq!(f.nodes.len(), 1, "{name}: `{k}` stands for {:?}", f.nodes);
            assert_eq!(f.retained, d.retained(f.nodes[0]).unwrap(), "{name}: {k}");
        }
        let mut nodes: Vec<u32> = owners.values().map(|f| f.nodes[0]).collect();
        nodes.sort_unstable();
        nodes.dedup();
        assert_eq!(nodes.len(), owners.len(), "{name}: one name per object");
    }
    let d = diff_owners("20");
    let lists: Vec<&str> = items(&d, "owners")
        .iter()
        .map(|o| o["owner"].as_str().unwrap())
        .filter(|o| o.starts_with("[held by several roots]") && o.ends_with("_Uint32List"))
        .collect();
    assert!(lists.len() >= 2, "{}", d["owners"]);
    for l in &lists {
        // A path: the root's object, then at least one reference to the list.
        assert!(l.contains(" → "), "{l}");
    }
    let mut distinct = lists.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), lists.len(), "{lists:?}");
}
