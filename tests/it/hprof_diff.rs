//! `diff` on the real JDK 17 pair of `fixtures/java/growth`: one JVM dumped twice while
//! the static map `Cache.entries` grew from 2,000 to 5,000 entries. Every expected figure
//! comes from the program (`stdout.txt`) and `jcmd GC.class_histogram`
//! (`expected.json`), never from heaptui.

use crate::common;

use common::*;
use serde_json::Value;

fn expected() -> Value {
    fixture_json("java/growth/expected.json")
}

fn pair() -> (String, String) {
    let f = |n: &str| {
        fixture(&format!("java/growth/{n}.hprof.gz"))
            .to_str()
            .unwrap()
            .to_string()
    };
    (f("base"), f("target"))
}

#[test]
fn the_grown_map_is_the_top_owner_with_its_growth_in_entries() {
    let e = expected();
    let g = &e["grown"];
    let (base, target) = pair();
    let d = json_of(&heaptui(&[
        "diff", &base, &target, "--json", "--owners", "5",
    ]));
    let top = &d["owners"][0];
    let owner = top["owner"].as_str().unwrap();
    // Named by the class that holds it, its field and its own class.
    let step = format!(
        "{} → static {} {}",
        g["holder_class"].as_str().unwrap(),
        g["field"].as_str().unwrap(),
        g["collection_class"].as_str().unwrap()
    );
    assert!(owner.ends_with(&step), "{owner} should end with {step}");
    assert_eq!(top["base_entries"], g["entries_base"], "{top}");
    assert_eq!(top["target_entries"], g["entries_target"], "{top}");
    assert_eq!(top["delta_entries"], g["delta_entries"], "{top}");
    // Retained growth as the program's entries and the JVM's object sizes give it.
    assert_eq!(
        top["delta_retained_bytes"], g["derived_retained_growth_bytes"],
        "{top}"
    );
    assert_eq!(
        top["base_retained_bytes"], g["derived_retained_bytes_base"],
        "{top}"
    );
    let objs = g["derived_retained_objects_target"].as_i64().unwrap()
        - g["derived_retained_objects_base"].as_i64().unwrap();
    assert_eq!(top["delta_objects"].as_i64(), Some(objs), "{top}");
    // Each growth is named once: the map's table and the classes above it are not
    // listed again beside it.
    for o in d["owners"].as_array().unwrap().iter().skip(1) {
        let other = o["owner"].as_str().unwrap();
        assert!(
            !other.starts_with(owner) && !owner.starts_with(other),
            "{other} repeats {owner}"
        );
    }
}

#[test]
fn class_deltas_equal_the_program_and_the_jvm_histograms() {
    let e = expected();
    let (base, target) = pair();
    let d = json_of(&heaptui(&["diff", &base, &target, "--json"]));
    let classes = d["classes"].as_array().unwrap();
    let row = |c: &str| classes.iter().find(|r| r["class"] == c);
    for (class, n) in e["instances"]["target"].as_object().unwrap() {
        let b = e["instances"]["base"][class].as_u64().unwrap();
        let t = n.as_u64().unwrap();
        match row(class) {
            Some(r) => {
                assert_eq!(r["base_count"].as_u64(), Some(b), "{class}");
                assert_eq!(r["target_count"].as_u64(), Some(t), "{class}");
            }
            // Garbage the program dropped is in neither live dump.
            None => assert_eq!((b, t), (0, 0), "{class} missing"),
        }
    }
    // The program's own classes, against jcmd's histograms right before each dump.
    for (side, key) in [("base", "base_count"), ("target", "target_count")] {
        let text =
            std::fs::read_to_string(fixture(&format!("java/growth/histo-{side}.txt"))).unwrap();
        for (name, n, _) in parse_jcmd_histogram(&text) {
            if !name.starts_with("dev.heaptui.growth.") || name.contains("GrowthMain") {
                continue;
            }
            let r = row(&name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(r[key].as_u64(), Some(n), "{name} {side}");
        }
    }
    // The shrunk list's elements went down by what the program removed.
    let s = &e["shrunk"];
    let r = row(s["element_class"].as_str().unwrap()).unwrap();
    assert_eq!(r["delta_count"], s["delta"]);
    // No object ids survive between HPROF dumps: nothing is called new or gone.
    assert!(d["objects"].is_null());
}

#[test]
fn different_formats_are_compared_by_class_with_a_warning() {
    let (base, _) = pair();
    let v8 = fixture("node/target.heapsnapshot.gz");
    let d = json_of(&heaptui(&["diff", &base, v8.to_str().unwrap(), "--json"]));
    let w = d["warnings"][0].as_str().unwrap_or_default();
    assert!(w.contains("different formats"), "{}", d["warnings"]);
    assert!(d["objects"].is_null());
    // Every class is on one side only.
    for r in d["classes"].as_array().unwrap() {
        assert!(r["base_count"] == 0 || r["target_count"] == 0, "{r}");
    }
    // Two snapshots of one format and process carry no warning.
    let (base, target) = pair();
    let d = json_of(&heaptui(&["diff", &base, &target, "--json"]));
    assert_eq!(d["warnings"], serde_json::json!([]));
}

#[test]
fn leaks_without_ids_are_the_owners_that_grew_and_stayed_grown() {
    // Only two dumps exist: base → target → target (the growth stays: a leak) and
    // base → target → base (it went away again: no leak).
    let e = expected();
    let g = &e["grown"];
    let (base, target) = pair();
    let v = json_of(&heaptui(&["leaks", &base, &target, &target, "--json"]));
    let top = &v["leaks"][0];
    assert!(
        top["owner"].as_str().unwrap().ends_with(&format!(
            "static {} {}",
            g["field"].as_str().unwrap(),
            g["collection_class"].as_str().unwrap()
        )),
        "{top}"
    );
    assert_eq!(top["class"], g["collection_class"], "{top}");
    assert_eq!(
        top["retained_bytes"], g["derived_retained_growth_bytes"],
        "{top}"
    );
    assert_eq!(top["delta_entries"], g["delta_entries"], "{top}");
    // The example's path in the final dump runs through the holder's static field.
    let path = top["path"].as_array().unwrap();
    assert!(
        path.iter()
            .any(|s| s["edge"] == format!("static {}", g["field"].as_str().unwrap())),
        "{top}"
    );
    let v = json_of(&heaptui(&["leaks", &base, &target, &base, "--json"]));
    assert!(
        v["leaks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| !l["owner"].as_str().unwrap().contains("static entries")),
        "{v}"
    );
}

#[test]
fn leaks_over_snapshots_of_different_formats_warn() {
    // Issue 40, defect 11: `diff` warns when its two snapshots are of different formats;
    // `leaks` over three said nothing and answered as if they could be matched.
    let (base, target) = pair();
    let node = fixture_arg("node/final.heapsnapshot.gz");
    let out = heaptui(&["leaks", &base, &target, &node]);
    assert_ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("HPROF, HPROF, V8 heap") && err.contains("different formats"),
        "{err}"
    );
    // One format: no such warning.
    let out = heaptui(&["leaks", &base, &target, &target]);
    assert_ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("different formats"), "{err}");
}

/// The object at an owner's path on the other side (what the TUI's diff opens on a side
/// whose owners do not list it): from the target's grown map, the base's map at the same
/// path, and back, each with the program's own entry counts (expected.json).
#[test]
fn the_same_path_on_the_other_side_finds_the_grown_map() {
    let e = expected();
    let g = &e["grown"];
    let (_, a) = open_fixture("java/growth/base.hprof.gz");
    let (_, b) = open_fixture("java/growth/target.hprof.gz");
    let (da, db) = (dominators_of(&a), dominators_of(&b));
    let owners = heaptui::diff::owner_deltas(&a, &da, &b, &db, 5);
    let top = &owners[0];
    let in_target = top.target.nodes[0];
    assert_eq!(
        heaptui::diff::entries(&b, in_target),
        g["entries_target"].as_u64()
    );
    let in_base = heaptui::diff::same_path(&b, in_target, &a).expect("the map in the base");
    assert_eq!(
        a.class_name(in_base),
        g["collection_class"].as_str().unwrap()
    );
    assert_eq!(
        heaptui::diff::entries(&a, in_base),
        g["entries_base"].as_u64()
    );
    assert!(top.base.nodes.contains(&in_base), "{:?}", top.base.nodes);
    assert_eq!(heaptui::diff::same_path(&a, in_base, &b), Some(in_target));
}
