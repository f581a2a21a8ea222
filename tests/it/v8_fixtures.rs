//! V8 heap snapshots written by the real runtimes (`fixtures/node`: Node 20's
//! `v8.writeHeapSnapshot`; `fixtures/chromium`: Chromium 156 over the DevTools
//! protocol), checked against what the programs themselves created and reported
//! (`expected.json`: counts, texts, and snapshot ids from `HeapProfiler.getHeapObjectId`
//! in the same process).

use crate::common;

use std::collections::BTreeMap;

use common::*;
use serde_json::Value;

fn expected(dir: &str) -> Value {
    fixture_json(&format!("{dir}/expected.json"))
}

/// The Node baseline snapshot's path, and how to name an object the program recorded
/// in it (`@` and the id `expected.json` gives for it).
fn node_baseline(e: &Value) -> (&'static str, impl Fn(&str) -> String + '_) {
    static FILE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let ids = &e["ids"]["fromBaseline"];
    (
        FILE.get_or_init(|| node_file("baseline")),
        move |k: &str| format!("@{}", ids[k]["id"]),
    )
}

fn run_json(args: &[&str]) -> Value {
    json_of(&heaptui(args))
}

fn counts(file: &str) -> BTreeMap<String, u64> {
    let v = run_json(&["histogram", &fixture_arg(file), "--json", "--no-retained"]);
    by_class(&v, count)
}

/// `diff --json` from the Node baseline snapshot to the target one, with `more` options.
fn baseline_to_target(more: &[&str]) -> Value {
    let (b, t) = (node_file("baseline"), node_file("target"));
    let mut args = vec!["diff", &b, &t, "--json"];
    args.extend_from_slice(more);
    run_json(&args)
}

/// The path of the Node snapshot `node/<name>.heapsnapshot.gz`.
fn node_file(name: &str) -> String {
    fixture_arg(&format!("node/{name}.heapsnapshot.gz"))
}

#[test]
fn node_counts_per_constructor_equal_what_the_program_created() {
    let e = expected("node");
    for snap in e["snapshots"].as_array().unwrap() {
        let file = format!("node/{}.gz", snap["file"].as_str().unwrap());
        let ours = counts(&file);
        for (class, n) in snap["counts"].as_object().unwrap() {
            let got = ours.get(class).copied().unwrap_or(0);
            assert_eq!(got, n.as_u64().unwrap(), "{file}: {class}");
        }
        // The program's 91 closures, grouped as DevTools groups them.
        assert!(ours["(closure)"] >= 91);
        assert!(ours.contains_key("(string)") && ours.contains_key("(array)"));
    }
}

#[test]
fn node_ids_from_the_inspector_name_the_same_objects() {
    let e = expected("node");
    let f = &node_file("baseline");
    for (what, obj) in e["ids"]["fromBaseline"].as_object().unwrap() {
        let id = format!("@{}", obj["id"]);
        let v = inspect_json(f, &id);
        assert_eq!(v["object"], id.as_str());
        let name = obj["name"].as_str().unwrap();
        let want = match obj["type"].as_str().unwrap() {
            "object" => name.to_string(),
            "closure" => "(closure)".to_string(),
            t => format!("({t})"),
        };
        assert_eq!(v["class"], want.as_str(), "{what} {id}");
        assert_eq!(v["facts"]["id"], id.as_str());
    }
    // Leaked objects exist in target; the released one is gone from final.
    let t = &e["ids"]["fromTarget"];
    let released = format!("@{}", t["leakReleased"]["id"]);
    let v = inspect_json(&node_file("target"), &released);
    assert_eq!(v["class"], "HeaptuiLeak");
    let gone = heaptui(&["inspect", &node_file("final"), &released, "--json"]);
    assert_eq!(gone.status.code(), Some(3));
}

#[test]
fn node_strings_arrays_closures_and_the_blob() {
    let e = expected("node");
    let (f, id) = node_baseline(&e);
    // Strings: one-byte, two-byte, concatenated (joined from its parts), sliced (the
    // parent's text: V8 does not record where a slice starts).
    let holder = inspect_json(f, &id("stringHolder"));
    let text = |prop: &str| {
        let s = inspect_json(f, field(&holder, prop)["value"].as_str().unwrap());
        (s["preview"].as_str().unwrap().to_string(), s)
    };
    let strings = &e["strings"];
    for prop in ["oneByte", "twoByte", "cons"] {
        let (t, s) = text(prop);
        assert_eq!(t, strings[prop]["text"].as_str().unwrap(), "{prop}");
        assert_eq!(s["length"], strings[prop]["length"], "{prop}");
        assert_eq!(s["class"], "(string)");
    }
    let (t, s) = text("sliced");
    assert_eq!(t, strings["sliced"]["parent"].as_str().unwrap());
    assert!(t.contains(strings["sliced"]["text"].as_str().unwrap()));
    assert!(s["facts"]["slice"].is_string());
    // V8 cuts characters above U+FFFF to 16 bits (NOTES §3a): U+1F600 is written as
    // \uF600, and that is what the file says.
    let (t, _) = text("astral");
    assert_eq!(t, "heaptui-astral:\u{F600}-end");

    // The blob: holder → Uint8Array → ArrayBuffer → native backing store of the
    // program's 3,000,000 bytes, all retained by the holder alone.
    let blob_len = e["population"]["blob"]["byteLength"].as_u64().unwrap();
    let h = inspect_json(f, &id("blobHolder"));
    let arr = inspect_json(f, &id("blobArray"));
    let buf = inspect_json(f, &id("blobBuffer"));
    let r = |v: &Value| v["retained_bytes"].as_u64().unwrap();
    let s = |v: &Value| v["shallow_bytes"].as_u64().unwrap();
    // (The holder and the array also own small internal arrays of their own.)
    assert!(
        r(&h) >= s(&h) + r(&arr) && r(&h) < s(&h) + r(&arr) + 1024,
        "{h}"
    );
    assert!(r(&arr) >= s(&arr) + r(&buf) && r(&arr) < s(&arr) + r(&buf) + 1024);
    assert!(
        r(&buf) >= blob_len && r(&buf) < blob_len + 1024,
        "{}",
        r(&buf)
    );
    assert_eq!(arr["dominator"], id("blobHolder").as_str());

    // A closure shows the variable its context captured.
    let c = inspect_json(f, &id("firstClosure"));
    let captured = field(&c, "captured");
    assert_eq!(captured["type"], "context variable");
    let a = inspect_json(f, captured["value"].as_str().unwrap());
    assert_eq!(a["class"], "Array");

    // An array: the orders, 777 elements (V8 shows a JS array's elements as the
    // array's own element edges).
    let orders = inspect_json(f, &id("ordersArray"));
    assert_eq!(orders["length"], 777);
    assert_eq!(field(&orders, "[0]")["value"], id("firstOrder").as_str());
    assert!(orders["preview"]
        .as_str()
        .unwrap()
        .starts_with(&format!("[{}, ", id("firstOrder"))));
}

#[test]
fn node_paths_name_properties_and_skip_weak_edges() {
    let e = expected("node");
    let (f, id) = node_baseline(&e);
    let p = path_json(f, &id("chosenSession"));
    let path = p["paths"][0].as_array().unwrap();
    let edges: Vec<&str> = path
        .iter()
        .map(|s| s["edge"].as_str().unwrap_or(""))
        .collect();
    let classes: Vec<&str> = path.iter().map(|s| s["class"].as_str().unwrap()).collect();
    assert_eq!(path[0]["root"], "global object", "{p}");
    assert_eq!(&edges[1..3], &["heaptuiStore", "sessions"], "{p}");
    assert_eq!(&classes[1..3], &["HeaptuiStore", "Map"]);
    assert_eq!(edges[3], "table");
    assert_eq!(*classes.last().unwrap(), "HeaptuiSession");
    // The live WeakRef target is held strongly too: its shortest strong path does not
    // use the WeakRef's weak "target" edge, which only --include-weak follows.
    let target = id("weakRefLiveTarget");
    let strong = run_json(&["path", f, &target, "--json", "--max", "20"]);
    for path in strong["paths"].as_array().unwrap() {
        for s in path.as_array().unwrap() {
            assert_ne!(s["class"], "WeakRef", "{strong}");
        }
    }
    // The WeakRef's edge to it is a weak one, and the WeakRef does not dominate it.
    let wr = inspect_json(f, &id("weakRefLive"));
    let t = field(&wr, "target");
    assert_eq!(
        (t["type"].as_str(), t["value"].as_str()),
        (Some("weak"), Some(target.as_str()))
    );
    let tv = inspect_json(f, &target);
    assert_ne!(tv["dominator"], id("weakRefLive").as_str());
    // The collected WeakRef target left no edge at all.
    let dead = inspect_json(f, &id("weakRef"));
    assert!(items(&dead, "fields").iter().all(|x| x["name"] != "target"));
}

#[test]
fn chromium_detached_dom_is_counted_and_labelled_as_the_page_made_it() {
    let e = expected("chromium");
    let ours = counts("chromium/detached.heapsnapshot.gz");
    let page = &e["page"];
    for (class, n) in page["classes"].as_object().unwrap() {
        assert_eq!(
            ours.get(class).copied().unwrap_or(0),
            n.as_u64().unwrap(),
            "{class}"
        );
    }
    // Detached elements by tag and class, as the page built them (after DevTools'
    // propagation of the DOM state to nodes without a JS wrapper).
    let detached = &page["detached"]["all"];
    let mut by_tag: BTreeMap<String, u64> = BTreeMap::new();
    let mut elements = 0;
    for (class, &n) in &ours {
        if let Some(rest) = class.strip_prefix("Detached <") {
            let tag: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            *by_tag.entry(tag).or_default() += n;
            elements += n;
        }
    }
    for (tag, n) in detached["byTag"].as_object().unwrap() {
        assert_eq!(
            by_tag.get(tag).copied().unwrap_or(0),
            n.as_u64().unwrap(),
            "<{tag}>"
        );
    }
    assert_eq!(elements, detached["elements"].as_u64().unwrap());
    assert_eq!(
        ours["Detached Text"],
        detached["textNodes"].as_u64().unwrap()
    );
    // Elements are grouped by tag, as DevTools' Summary groups them: one row per tag.
    for (tag, n) in detached["byTag"].as_object().unwrap() {
        assert_eq!(
            ours[&format!("Detached <{tag}>")],
            n.as_u64().unwrap(),
            "<{tag}>"
        );
    }
    // Attached elements are not "Detached".
    assert_eq!(
        ours["<li>"],
        page["attached"]["byTag"]["li"].as_u64().unwrap()
    );
    // The id the page's inspector gave card 0 names a detached div in the snapshot.
    let card = format!(
        "@{}",
        e["object_ids"]["detached_card_0"]["heapSnapshotObjectId"]
    );
    let f = fixture("chromium/detached.heapsnapshot.gz");
    let v = inspect_json(f.to_str().unwrap(), &card);
    assert_eq!(v["class"], "Detached <div>");
    assert_eq!(
        v["label"],
        "<div class=\"detached-card\" data-kind=\"card\">"
    );
    assert_eq!(v["facts"]["detachedness"], "detached");
}

/// The Chromium snapshot with each of the 40 detached cards given a name of its own,
/// `<div class="detached-card" data-index="i">` (a page whose divs differ by an attribute,
/// as issue 26's did), written to the scratch folder: the node's name is all that changes.
fn chromium_cards_with_own_names() -> std::path::PathBuf {
    let raw = std::fs::read(gunzipped("chromium/detached.heapsnapshot.gz")).unwrap();
    let mut v: Value = serde_json::from_slice(&raw).unwrap();
    let card = "<div class=\"detached-card\" data-kind=\"card\">";
    let meta = &v["snapshot"]["meta"];
    let fields: Vec<&str> = meta["node_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let (nf, name_at) = (
        fields.len(),
        fields.iter().position(|&f| f == "name").unwrap(),
    );
    let mut strings: Vec<Value> = v["strings"].as_array().unwrap().clone();
    let card_index = strings.iter().position(|s| s == card).unwrap() as u64;
    let nodes = v["nodes"].as_array_mut().unwrap();
    let mut renamed = 0;
    for rec in nodes.chunks_mut(nf) {
        if rec[name_at] == card_index {
            rec[name_at] = (strings.len() as u64).into();
            strings.push(format!("<div class=\"detached-card\" data-index=\"{renamed}\">").into());
            renamed += 1;
        }
    }
    assert_eq!(renamed, 40, "the page's 40 cards");
    v["strings"] = strings.into();
    // In the file's own key order (serde_json's map sorts its keys).
    let order = [
        "snapshot",
        "nodes",
        "edges",
        "trace_function_infos",
        "trace_tree",
        "samples",
        "locations",
        "scopes",
        "scope_context_vars",
        "scope_uses",
        "strings",
    ];
    let obj = v.as_object().unwrap();
    assert!(
        obj.keys().all(|k| order.contains(&k.as_str())),
        "{:?}",
        obj.keys()
    );
    let body: Vec<String> = order
        .iter()
        .filter_map(|k| obj.get(*k).map(|x| format!("{k:?}:{x}")))
        .collect();
    let out = scratch().join("chromium-cards-with-own-names.heapsnapshot");
    std::fs::write(&out, format!("{{{}}}", body.join(","))).unwrap();
    out
}

/// Issue 26: detached DOM nodes are grouped by tag as DevTools' Summary counts them
/// (`Detached <div>`, 40 as the page counted), not one row per distinct name with count
/// 1; each instance keeps its attributes as its label, in the CLI, in the instance
/// lists and in the inspector.
#[test]
fn detached_elements_group_by_tag_and_keep_their_attributes_per_instance() {
    let e = expected("chromium");
    let by_tag = &e["page"]["detached"]["all"]["byTag"];
    let p = chromium_cards_with_own_names();
    let f = p.to_str().unwrap();
    let v = run_json(&["histogram", f, "--json", "--no-retained"]);
    let rows = by_class(&v, count);
    for (tag, n) in by_tag.as_object().unwrap() {
        assert_eq!(
            rows[&format!("Detached <{tag}>")],
            n.as_u64().unwrap(),
            "<{tag}>"
        );
    }
    // No row is named with attributes, and no div row has a count of 1.
    for class in rows.keys() {
        let dom = class.strip_prefix("Detached ").unwrap_or(class);
        assert!(!(dom.starts_with('<') && dom.contains(' ')), "{class}");
    }
    assert_eq!(
        rows.keys().filter(|c| c.contains("<div")).count(),
        2,
        "Detached <div> and the attached <div>: {rows:?}"
    );
    // Each card keeps its own name as its label: the inspector and the instance lists.
    let card = format!(
        "@{}",
        e["object_ids"]["detached_card_0"]["heapSnapshotObjectId"]
    );
    let ins = inspect_json(f, &card);
    assert_eq!(ins["class"], "Detached <div>");
    let label = ins["label"].as_str().unwrap();
    assert!(
        label.starts_with("<div class=\"detached-card\" data-index=\""),
        "{label}"
    );
    let text = String::from_utf8(heaptui(&["inspect", f, &card]).stdout).unwrap();
    assert!(text.contains(&format!("label         {label}")), "{text}");
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).unwrap();
    let mut labels: Vec<String> = (0..snap.graph.len() as u32)
        .filter(|&o| snap.class_name(o) == "Detached <div>")
        .map(|o| snap.label(o).unwrap())
        .collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), 40, "one label per card: {labels:?}");
    assert!(labels.iter().all(|l| l.contains("data-index=")));
}

/// Issue 26: a bare number names the object whose node id it is, the object `@N` names
/// (V8 names objects `@N`): checked on the ids the runtimes themselves gave for chosen
/// objects (Node's inspector, Chromium's `HeapProfiler.getHeapObjectId`), by `inspect` and
/// `path`. A number that is no node's id is no object, whatever node index it could be.
#[test]
fn a_bare_number_names_the_same_object_as_at_n() {
    let node = expected("node");
    let chromium = expected("chromium");
    let cases = [
        (
            "node/baseline.heapsnapshot.gz",
            ["store", "chainHead", "firstOrder"]
                .map(|k| node["ids"]["fromBaseline"][k]["id"].clone()),
        ),
        (
            "chromium/detached.heapsnapshot.gz",
            ["detached_card_0", "detached_table", "attached_li_0"]
                .map(|k| chromium["object_ids"][k]["heapSnapshotObjectId"].clone()),
        ),
    ];
    for (file, ids) in cases {
        let f = &fixture_arg(file);
        for id in &ids {
            let id = id.as_u64().unwrap().to_string();
            let at = inspect_json(f, &format!("@{id}"));
            let bare = inspect_json(f, &id);
            assert_eq!(bare["object"], format!("@{id}"), "{file} {id}");
            assert_eq!(bare, at, "{file} {id}");
        }
        let id = ids[0].as_u64().unwrap().to_string();
        let at = path_json(f, &format!("@{id}"));
        assert_eq!(path_json(f, &id), at, "{file} path {id}");
    }
    // Node 2 exists (the snapshot has 47,416) but no node has the id 2: V8 hands out odd
    // ids to heap objects and address-like even ones to native nodes.
    let out = heaptui(&["inspect", &node_file("baseline"), "2"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn diff_counts_the_leak_and_matches_objects_by_node_id() {
    let e = expected("node");
    let class = |v: &Value, name: &str| item(v, "classes", "class", name).clone();
    let d = baseline_to_target(&["--sort", "delta-count"]);
    let leaks = e["population"]["leaks"]["created"].as_u64().unwrap();
    let leak = class(&d, "HeaptuiLeak");
    assert_eq!(leak["base_count"], 0);
    assert_eq!(leak["target_count"], leaks);
    assert_eq!(leak["delta_count"], leaks);
    assert_eq!(leak["new_count"], leaks, "every leak is a new node id");
    assert_eq!(d["objects"]["matched_by"], "node id");
    assert!(d["objects"]["new"].as_u64().unwrap() >= leaks);
    // The sessions did not change: same ids, nothing new, nothing gone.
    let s = class(&d, "HeaptuiSession");
    assert_eq!(
        (
            s["delta_count"].as_i64(),
            s["new_count"].as_u64(),
            s["gone_count"].as_u64()
        ),
        (Some(0), Some(0), Some(0))
    );
    // Cleanup released 150 of them: gone, by id.
    let d = run_json(&["diff", &node_file("target"), &node_file("final"), "--json"]);
    let released = e["population"]["leaks"]["released"].as_u64().unwrap();
    let leak = class(&d, "HeaptuiLeak");
    assert_eq!(leak["delta_count"], -(released as i64));
    assert_eq!(leak["gone_count"], released);
    assert_eq!(leak["new_count"], 0);
    // HPROF addresses do not survive between dumps: no object matching.
    let j = &fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    let d = run_json(&["diff", j, j, "--json"]);
    assert!(d["objects"].is_null());
    assert!(items(&d, "classes").iter().all(|c| c["delta_count"] == 0));
}

#[test]
fn leaks_finds_what_the_action_left_behind_grouped_by_retainer_path() {
    let e = expected("node");
    let v = run_json(&[
        "leaks",
        &node_file("baseline"),
        &node_file("target"),
        &node_file("final"),
        "--json",
    ]);
    let kept = e["population"]["leaks"]["keptAfterCleanup"]
        .as_u64()
        .unwrap();
    let g = item(&v, "leaks", "class", "HeaptuiLeak");
    assert_eq!(
        g["count"], kept,
        "one group for every kept leak, whatever its index"
    );
    let path: Vec<&str> = items(g, "path")
        .iter()
        .filter_map(|s| s["edge"].as_str())
        .collect();
    assert!(path.contains(&"heaptuiLeaks"), "{path:?}");
    // Of the program's own classes only the kept leaks: the sessions existed at the
    // baseline, the 600 temps and the 150 released leaks were dropped before the final
    // snapshot (expected.json), so none of them is reported.
    let own: Vec<(&str, u64)> = items(&v, "leaks")
        .iter()
        .filter(|l| l["class"].as_str().unwrap().starts_with("Heaptui"))
        .map(|l| (l["class"].as_str().unwrap(), l["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(own, vec![("HeaptuiLeak", kept)], "{own:?}");
    // --top: at most N clusters. The engine's own objects held by a leaked object of the
    // program's are folded into it unless --internal asks for them; the count stays.
    let top = run_json(&[
        "leaks",
        &node_file("baseline"),
        &node_file("target"),
        &node_file("final"),
        "--json",
        "--top",
        "2",
    ]);
    assert_eq!(top["leaks"].as_array().unwrap().len(), 2);
    assert_eq!(top["leaks"][0], v["leaks"][0]);
    let (b, t, fi) = (
        node_file("baseline"),
        node_file("target"),
        node_file("final"),
    );
    let every = |extra: &[&str]| {
        let mut args = vec!["leaks", &b, &t, &fi, "--json", "--top", "100000"];
        args.extend_from_slice(extra);
        run_json(&args)
    };
    let all = every(&["--internal"]);
    let v = every(&[]);
    assert_eq!(all["objects"], v["objects"]);
    assert_eq!(all["folded_internal"], 0);
    let folded = v["folded_internal"].as_u64().unwrap();
    let leaked = |d: &Value| -> u64 { items(d, "leaks").iter().map(count).sum() };
    assert_eq!(
        leaked(&all),
        leaked(&v) + folded,
        "folded ones are listed with --internal"
    );
    // Formats whose ids do not survive between snapshots are compared by owner: one
    // dump three times grew nothing.
    let j = &fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    let v = run_json(&["leaks", j, j, j, "--json"]);
    assert_eq!(v["matched_by"], "owner path from the GC roots");
    assert_eq!(v["leaks"], serde_json::json!([]));
}

#[test]
fn diff_names_the_owner_that_grew_by_its_path_from_the_roots() {
    let e = expected("node");
    let d = baseline_to_target(&["--owners", "10"]);
    let created = e["population"]["leaks"]["created"].as_u64().unwrap();
    let owner = owner_ending(&d, "→ heaptuiLeaks Array");
    // Every leak, and the note string each one holds, is new under that array.
    assert!(
        owner["delta_objects"].as_i64().unwrap() >= 2 * created as i64,
        "{owner}"
    );
    assert!(owner["delta_retained_bytes"].as_i64().unwrap() > 0);
    // The same dump against itself: no owner changes.
    let j = &fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    let d = run_json(&["diff", j, j, "--json", "--owners", "5"]);
    assert!(items(&d, "owners")
        .iter()
        .all(|o| o["delta_retained_bytes"] == 0));
}

#[test]
fn the_dominator_tree_agrees_with_memlab_on_its_edge_cases() {
    // tests/data/v8-edge-cases.heapsnapshot: a 17-node graph written by
    // bench/v8-edge-cases.js with every case where dominator semantics differ between
    // tools (page ownership, weak-only subtrees, unreachable cycles, an orphan with a
    // child, a self-reference, a node only a non-root shortcut refers to). The expected
    // (dominator, retained) pairs are memlab 2.0.5's, recorded in the script's header.
    let f = root().join("tests/data/v8-edge-cases.heapsnapshot");
    let f = f.to_str().unwrap();
    let memlab: &[(u32, Option<u32>, u64)] = &[
        (3, None, 313),
        (7, Some(3), 313),
        (9, Some(7), 210),
        (13, Some(9), 106),
        (5, None, 102),
        (11, None, 320),
        (15, Some(11), 215),
        (17, Some(15), 108),
        (19, None, 109),
        (21, None, 110),
        (23, None, 111),
        (25, None, 225),
        (27, Some(25), 113),
        (29, None, 114),
        (31, None, 231),
        (33, Some(31), 116),
    ];
    for &(id, dom, retained) in memlab {
        let v = inspect_json(f, &format!("@{id}"));
        let want_dom = match dom {
            Some(d) => format!("@{d}"),
            None => "(virtual root)".to_string(),
        };
        assert_eq!(v["dominator"], want_dom.as_str(), "@{id}");
        assert_eq!(v["retained_bytes"], retained, "@{id}");
    }
    // memlab's root retains every self size: 1635.
    let d = run_json(&["dominators", f, "--json", "--top", "1"]);
    assert_eq!(d["total_retained_bytes"], 1635);
}

/// What the instance filter matches, `name_and_label` (the V8 decoder reads the record
/// once for both), is the name and label the lists show, for every node of the Node and
/// Chromium snapshots; and the program's strings are found by their text, the
/// concatenated one joined from its parts.
#[test]
fn the_filter_text_is_each_nodes_name_and_label() {
    let e = expected("node");
    let (f, id) = node_baseline(&e);
    let progress = heaptui::sys::progress::Progress::new();
    for file in [
        "node/baseline.heapsnapshot.gz",
        "chromium/detached.heapsnapshot.gz",
    ] {
        let snap = heaptui::open(&gunzipped(file), &progress).unwrap();
        for o in 0..snap.graph.len() as u32 {
            let want = format!(
                "{} {}",
                snap.object_name(o),
                snap.label(o).unwrap_or_default()
            );
            assert_eq!(snap.name_and_label(o), want, "{file} node {o}");
        }
    }
    let snap = heaptui::open(&gunzipped("node/baseline.heapsnapshot.gz"), &progress).unwrap();
    let holder = inspect_json(f, &id("stringHolder"));
    for prop in ["oneByte", "twoByte", "cons"] {
        let name = field(&holder, prop)["value"].as_str().unwrap();
        let o = snap.find_object(name).unwrap();
        let text: String = e["strings"][prop]["text"]
            .as_str()
            .unwrap()
            .chars()
            .take(64)
            .collect();
        let got = snap.name_and_label(o);
        assert!(got.starts_with(&format!("{name} \"")), "{prop}: {got}");
        assert!(got.contains(&text), "{prop}: {got}");
    }
}
