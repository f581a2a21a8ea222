//! Dominators, retained sizes, paths to GC roots and inspection on the real JDK 17 dumps
//! of `fixtures/java`, checked against what the JVM itself reported (`jcmd
//! GC.class_histogram` right after the dump) and what the fixture program built
//! (`fixtures/java/expected.json`, `Main.java`). Both object layouts (compressed oops and
//! not) run every check.

use crate::common;

use common::*;
use serde_json::Value;

const DUMPS: &[(&str, &str)] = &[
    (
        "java/coops/heap-live-jvmgz.hprof.gz",
        "java/coops/histo-live-after-jvmgz.txt",
    ),
    (
        "java/nocoops/heap-live.hprof.gz",
        "java/nocoops/histo-live-after.txt",
    ),
];

fn run_json(args: &[&str]) -> Value {
    json_of(&heaptui(args))
}

/// (instances, bytes) of a class in the JVM's own histogram.
fn jvm_row(histo: &str, class: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(fixture(histo)).unwrap();
    parse_jcmd_histogram(&text)
        .into_iter()
        .filter(|(n, _, _)| n == class)
        .fold((0, 0), |a, (_, n, b)| (a.0 + n, a.1 + b))
}

#[test]
fn the_blob_holder_retains_exactly_its_array_and_itself() {
    for &(dump, histo) in DUMPS {
        let f = &fixture_arg(dump);
        let holder = class_json("inspect", f, "dev.heaptui.fixture.BlobHolder");
        let blob_name = field(&holder, "blob")["value"]
            .as_str()
            .unwrap()
            .to_string();
        let blob = inspect_json(f, &blob_name);
        assert_eq!(blob["class"], "byte[]");
        assert_eq!(blob["length"], 3_000_000);
        // Sizes from the JVM: the holder's instance size from its histogram line, and
        // byte[] sizes summed over the whole heap equal to the JVM's total for byte[], so
        // the array's size is the JVM's too.
        let (n, bytes) = jvm_row(histo, "dev.heaptui.fixture.BlobHolder");
        assert_eq!(n, 1);
        assert_eq!(holder["shallow_bytes"], bytes, "{dump}");
        let hist = run_json(&["histogram", f, "--json", "--filter", "byte[]"]);
        let ours_bytes: u64 = items(&hist, "classes")
            .iter()
            .filter(|c| c["class"] == "byte[]")
            .map(|c| c["shallow_bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(
            ours_bytes,
            jvm_row(histo, "byte[]").1,
            "{dump}: byte[] bytes"
        );
        let blob_size = blob["shallow_bytes"].as_u64().unwrap();
        // An array header of 16 (compressed class pointers) or 24 bytes.
        assert!((3_000_016..=3_000_024).contains(&blob_size), "{blob_size}");
        assert_eq!(blob["retained_bytes"], blob_size);
        assert_eq!(holder["retained_bytes"], bytes + blob_size, "{dump}");
        // The holder is the blob's immediate dominator.
        assert_eq!(blob["dominator"], holder["object"]);
    }
}

#[test]
fn a_linked_chain_is_retained_once_per_class_by_mats_rule() {
    for &(dump, histo) in DUMPS {
        let f = &fixture_arg(dump);
        let (n, bytes) = jvm_row(histo, "dev.heaptui.fixture.ChainNode");
        assert_eq!(n, 503);
        let hist = run_json(&["histogram", f, "--json", "--sort", "retained"]);
        let classes = hist["classes"].as_array().unwrap();
        let row = classes
            .iter()
            .find(|c| c["class"] == "dev.heaptui.fixture.ChainNode")
            .unwrap();
        // Every node is dominated by the one before it: the class retains the chain
        // once, which is the JVM's byte count for the class, not 503 overlapping sums.
        assert_eq!(row["retained_bytes"], bytes, "{dump}");
        let head = class_json("inspect", f, "dev.heaptui.fixture.ChainNode");
        assert_eq!(head["retained_bytes"], bytes);
        assert_eq!(field(&head, "depth")["value"], 0);
        // Sorted by retained size, largest first.
        let r: Vec<u64> = classes
            .iter()
            .map(|c| c["retained_bytes"].as_u64().unwrap())
            .collect();
        assert!(r.windows(2).all(|w| w[0] >= w[1]));
    }
}

/// The steps of a path as (class, edge, label).
fn steps(path: &Value) -> Vec<(String, String, String)> {
    path.as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["class"].as_str().unwrap().to_string(),
                s["edge"].as_str().unwrap_or("").to_string(),
                s["label"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The node of `class dev.heaptui.fixture.Main` near the top of the dominator tree of
/// `f`, with its children `depth` levels down.
fn main_class(f: &str, depth: &str) -> Value {
    let d = run_json(&["dominators", f, "--json", "--top", "50", "--depth", depth]);
    item(&d, "objects", "label", "class dev.heaptui.fixture.Main").clone()
}

#[test]
fn the_path_from_the_static_orders_list_is_named_field_by_field() {
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        // Main.ORDERS[5] is held by the list only (orders 0 and 1 are thread locals too).
        let main = main_class(f, "3");
        let orders_list = item(&main, "children", "class", "java.util.ArrayList");
        let elements = &orders_list["children"][0];
        assert_eq!(elements["class"], "java.lang.Object[]");
        let arr = inspect_json(f, elements["object"].as_str().unwrap());
        let order5 = arr["fields"][5]["value"].as_str().unwrap().to_string();
        let order = inspect_json(f, &order5);
        assert_eq!(order["class"], "dev.heaptui.fixture.Order");
        let i = 5; // qty = 1 + i % 9
        assert_eq!(field(&order, "qty")["value"], 1 + i % 9);
        assert_eq!(field(&order, "price")["value"], 10.0 + 5.0 * 0.5);

        let p = run_json(&["path", f, &order5, "--json", "--max", "5"]);
        let paths = p["paths"].as_array().unwrap();
        assert!(!paths.is_empty());
        let lens: Vec<usize> = paths.iter().map(|p| p.as_array().unwrap().len()).collect();
        assert!(
            lens.windows(2).all(|w| w[0] <= w[1]),
            "shortest first: {lens:?}"
        );
        let found = paths.iter().any(|path| {
            let s = steps(path);
            let n = s.len();
            n >= 4
                && s[n - 4].0 == "java.lang.Class"
                && s[n - 4].2 == "class dev.heaptui.fixture.Main"
                && s[n - 3]
                    == (
                        "java.util.ArrayList".into(),
                        "static ORDERS".into(),
                        "".into(),
                    )
                && s[n - 2].0 == "java.lang.Object[]"
                && s[n - 2].1 == "elementData"
                && s[n - 1].0 == "dev.heaptui.fixture.Order"
                && s[n - 1].1 == "[5]"
        });
        assert!(found, "{dump}: no path through Main.ORDERS: {p}");
        for path in paths {
            let first = &path[0];
            assert!(
                first["root"].is_string() && first["edge"].is_null(),
                "{first}"
            );
        }
    }
}

#[test]
fn a_session_path_runs_through_the_store_map_to_a_known_entry() {
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        let p = class_json("path", f, "dev.heaptui.fixture.Session");
        let path = &p["paths"][0];
        let s = steps(path);
        let n = s.len();
        let at = s
            .iter()
            .position(|x| x.1 == "static sessions")
            .unwrap_or_else(|| panic!("no static sessions step: {p}"));
        assert_eq!(s[at].0, "java.util.HashMap");
        assert_eq!(s[at - 1].0, "java.lang.Class");
        assert_eq!(s[at - 1].2, "class dev.heaptui.fixture.SessionStore");
        assert_eq!(s[at + 1].0, "java.util.HashMap$Node[]");
        assert_eq!(s[at + 1].1, "table");
        // table[i] is a bucket; the entry may be further down the bucket's chain.
        assert_eq!(s[at + 2].0, "java.util.HashMap$Node");
        assert!(s[at + 2].1.starts_with('[') && s[at + 2].1.ends_with(']'));
        for x in &s[at + 3..n - 1] {
            assert_eq!(
                (x.0.as_str(), x.1.as_str()),
                ("java.util.HashMap$Node", "next")
            );
        }
        assert_eq!(s[n - 1].0, "dev.heaptui.fixture.Session");
        assert_eq!(s[n - 1].1, "value");
        let session = inspect_json(f, path[n - 1]["object"].as_str().unwrap());
        let id = field(&session, "id")["value"].as_i64().unwrap();
        assert!((100_000..101_237).contains(&id), "{id}");
    }
}

#[test]
fn a_threads_local_is_the_root_of_its_own_path() {
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        // The 13 Temps are held only by the waiter thread's local ArrayList.
        let p = class_json("path", f, "dev.heaptui.fixture.Temp");
        let paths = p["paths"].as_array().unwrap();
        assert_eq!(paths.len(), 1, "{p}");
        let first = &paths[0][0];
        assert_eq!(first["class"], "java.util.ArrayList");
        assert_eq!(first["root"], "Java frame");
        assert!(
            first["root_detail"]
                .as_str()
                .unwrap()
                .contains("fixture-waiter"),
            "{first}"
        );
        // Order 0 is a local of the parked thread and also in Main.ORDERS: its first
        // path is itself, a Java frame root of that thread; the static list comes after.
        let o = class_json("inspect", f, "dev.heaptui.fixture.Order");
        assert!(o["roots"][0].as_str().unwrap().starts_with("Java frame"));
        let p = path_json(f, o["object"].as_str().unwrap());
        assert_java_frame_root(&p, "fixture-parked");
        assert!(
            items(&p, "paths").len() >= 2,
            "the static list holds it too: {p}"
        );
    }
}

#[test]
fn weak_and_soft_references_keep_nothing_unless_asked() {
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        // The SoftTarget is held only through SoftReference.referent.
        let t = class_json("inspect", f, "dev.heaptui.fixture.SoftTarget");
        let name = t["object"].as_str().unwrap();
        let strong = path_json(f, name);
        assert!(strong["paths"].as_array().unwrap().is_empty(), "{strong}");
        let weak = run_json(&["path", f, name, "--json", "--include-weak"]);
        let s = steps(&weak["paths"][0]);
        assert_eq!(s.last().unwrap().1, "referent");
        assert_eq!(s[s.len() - 2].0, "java.lang.ref.SoftReference");
        // It is weakly reachable: its own owner at the top of the dominator tree, and
        // not part of what the WeakHolder retains.
        assert_eq!(t["dominator"], "(virtual root)");
        let holder = class_json("inspect", f, "dev.heaptui.fixture.WeakHolder");
        let target_retained = t["retained_bytes"].as_u64().unwrap();
        assert!(target_retained > 19 * 8, "SoftTarget retains its long[19]");
        assert!(holder["retained_bytes"].as_u64().unwrap() < 200, "{holder}");
    }
}

#[test]
fn strings_decode_in_both_coders_and_arrays_show_their_elements() {
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        let main = main_class(f, "2");
        let cls = inspect_json(f, main["object"].as_str().unwrap());
        let strings = field(&cls, "STRINGS");
        assert_eq!(strings["type"], "object");
        assert_eq!(strings["static"], true);
        let arr = inspect_json(f, strings["value"].as_str().unwrap());
        assert_eq!(arr["class"], "java.lang.String[]");
        assert_eq!(arr["length"], 82);
        for i in [0usize, 7, 40, 41, 60, 81] {
            let s = inspect_json(f, arr["fields"][i]["value"].as_str().unwrap());
            let want = if i < 41 {
                format!("latin1-{i}-café-naïve")
            } else {
                format!("utf16-{}-€-日本", i - 41)
            };
            assert_eq!(s["preview"], want.as_str(), "STRINGS[{i}]");
            assert_eq!(s["length"], want.encode_utf16().count());
            assert_eq!(s["label"], format!("{want:?}"));
            assert_eq!(field(&s, "coder")["value"], if i < 41 { 0 } else { 1 });
        }
        // A primitive array: the blob's first bytes are 0xB1, 0.
        let holder = class_json("inspect", f, "dev.heaptui.fixture.BlobHolder");
        let blob = inspect_json(f, field(&holder, "blob")["value"].as_str().unwrap());
        assert_eq!(blob["fields"][0]["value"], -79); // (byte) 0xB1
        assert_eq!(blob["fields"][1]["value"], 0);
        assert_eq!(blob["fields"].as_array().unwrap().len(), 100);
        assert_eq!(blob["more_elements"], 3_000_000 - 100);
        assert!(blob["preview"].as_str().unwrap().starts_with("[-79, 0, 0"));
        // A Customer: every primitive type decodes (name = "customer-" + i, tier = i % 4,
        // active = i % 3 != 0, grade = 'A' + i % 5, region = i % 13 - 6, score = i / 4).
        let refs = blob["referrers"].as_array().unwrap();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0]["edge"], "blob");
        let order = class_json("inspect", f, "dev.heaptui.fixture.Order");
        let c = inspect_json(f, field(&order, "customer")["value"].as_str().unwrap());
        let name = inspect_json(f, field(&c, "name")["value"].as_str().unwrap());
        let i: i64 = name["preview"]
            .as_str()
            .unwrap()
            .strip_prefix("customer-")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(field(&c, "tier")["value"], i % 4);
        assert_eq!(field(&c, "active")["value"], i % 3 != 0);
        assert_eq!(
            field(&c, "grade")["value"],
            char::from(b'A' + (i % 5) as u8).to_string()
        );
        assert_eq!(field(&c, "region")["value"], i % 13 - 6);
        assert_eq!(field(&c, "score")["value"], 0.25 * i as f64);
        assert_eq!(field(&c, "grade")["type"], "char");
        assert_eq!(field(&c, "score")["type"], "float");
    }
}

#[test]
fn unknown_objects_and_classes_exit_3_and_ambiguity_is_a_usage_error() {
    let f = &fixture_arg(DUMPS[0].0);
    let out = heaptui(&["inspect", f, "0x1"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no object 0x1"));
    let out = heaptui(&["path", f, "--class", "no.such.Class"]);
    assert_eq!(out.status.code(), Some(3));
    let out = heaptui(&["inspect", f, "0x1", "--class", "dev.heaptui.fixture.Order"]);
    assert_eq!(out.status.code(), Some(1));
    let out = heaptui(&["inspect", f]);
    assert_eq!(out.status.code(), Some(1));
    let out = heaptui(&["inspect", f, "not-an-address"]);
    assert_eq!(out.status.code(), Some(3));
    // A bare number is no HPROF object (they are named by address); the error says so.
    let out = heaptui(&["inspect", f, "12345"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("named by their address here: 0x"), "{err}");
}

#[test]
fn dominators_json_follows_the_contract() {
    let f = &fixture_arg(DUMPS[0].0);
    let d = run_json(&["dominators", f, "--json", "--top", "5", "--depth", "2"]);
    let objs = d["objects"].as_array().unwrap();
    assert_eq!(objs.len(), 5);
    let mut last = u64::MAX;
    for o in objs {
        let r = o["retained_bytes"].as_u64().unwrap();
        assert!(r <= last);
        last = r;
        assert!(o["object"].as_str().unwrap().starts_with("0x"));
        assert!(o["shallow_bytes"].as_u64().unwrap() <= r);
        let kids = o["children"].as_array().unwrap();
        let sum: u64 = kids
            .iter()
            .map(|k| k["retained_bytes"].as_u64().unwrap())
            .sum();
        assert!(sum + o["shallow_bytes"].as_u64().unwrap() <= r);
        for k in kids {
            assert!(k.get("children").is_none(), "--depth 2 stops there");
        }
    }
    // The virtual root retains every reachable byte: the summary's reachable bytes plus
    // what only weak references hold.
    let s = summary_json(f);
    assert!(d["total_retained_bytes"].as_u64().unwrap() >= s["reachable_bytes"].as_u64().unwrap());
    assert_eq!(d["reachable_objects"], s["reachable_objects"]);
}

/// The id of the class object of `name` (`java/lang/Double`): the LOAD CLASS record whose
/// UTF8 name is `name`, read from the top-level records of the plain dump.
fn class_object_id(dump: &std::path::Path, name: &str) -> u64 {
    let b = std::fs::read(dump).unwrap();
    let mut i = b.iter().position(|&c| c == 0).unwrap() + 1;
    let id = u32::from_be_bytes(b[i..i + 4].try_into().unwrap()) as usize;
    i += 12;
    let read_id = |at: usize| b[at..at + id].iter().fold(0u64, |a, &c| a << 8 | c as u64);
    let mut names = std::collections::HashMap::new();
    let mut classes = Vec::new();
    while i + 9 <= b.len() {
        let len = u32::from_be_bytes(b[i + 5..i + 9].try_into().unwrap()) as usize;
        let body = i + 9;
        match b[i] {
            0x01 => {
                names.insert(read_id(body), &b[body + id..body + len]);
            }
            0x02 => classes.push((read_id(body + 4), read_id(body + 8 + id))),
            _ => {}
        }
        i = body + len;
    }
    classes
        .iter()
        .find(|(_, n)| names.get(n).is_some_and(|t| *t == name.as_bytes()))
        .unwrap_or_else(|| panic!("no class {name}"))
        .0
}

/// Issue 26: doubles printed in full (`Double.MAX_VALUE` as 309 digits). The JDK's own
/// constants, the statics of `java.lang.Double` and `java.lang.Float` in the dump, print
/// in their shortest round-trip form, in the text, in JSON and in the inspector's words.
#[test]
fn floats_print_in_their_shortest_round_trip_form() {
    let p = gunzipped("java/nocoops/heap-live.hprof.gz");
    let f = p.to_str().unwrap();
    // (class, static, the JDK's value, its shortest round-trip text)
    let cases: &[(&str, &str, f64, &str)] = &[
        (
            "java/lang/Double",
            "MAX_VALUE",
            f64::MAX,
            "1.7976931348623157e308",
        ),
        ("java/lang/Double", "MIN_VALUE", 4.9e-324, "5e-324"),
        (
            "java/lang/Double",
            "MIN_NORMAL",
            f64::MIN_POSITIVE,
            "2.2250738585072014e-308",
        ),
        (
            "java/lang/Float",
            "MAX_VALUE",
            f32::MAX as f64,
            "3.4028235e38",
        ),
        ("java/lang/Float", "MIN_VALUE", 1.4e-45f32 as f64, "1e-45"),
        (
            "java/lang/Float",
            "MIN_NORMAL",
            f32::MIN_POSITIVE as f64,
            "1.1754944e-38",
        ),
    ];
    for class in ["java/lang/Double", "java/lang/Float"] {
        let obj = format!("0x{:x}", class_object_id(&p, class));
        let out = heaptui(&["inspect", f, &obj]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let json = inspect_json(f, &obj);
        let json_text = String::from_utf8(heaptui(&["inspect", f, &obj, "--json"]).stdout).unwrap();
        for &(_, name, value, shortest) in cases.iter().filter(|c| c.0 == class) {
            let line = text
                .lines()
                .find(|l| l.split_whitespace().nth(2) == Some(name))
                .unwrap_or_else(|| panic!("{class}.{name} in\n{text}"));
            let shown = line.split_whitespace().nth(3).unwrap();
            assert_eq!(shown, shortest, "{class}.{name}: {line}");
            if class == "java/lang/Double" {
                assert_eq!(shown.parse::<f64>().unwrap(), value, "round trip");
            } else {
                assert_eq!(shown.parse::<f32>().unwrap() as f64, value, "round trip");
            }
            // The number as written in the JSON text (serde_json's own reading may be
            // a unit in the last place off): `"value":1e-45`.
            let raw = json_text
                .split(&format!("\"name\":\"{name}\""))
                .nth(1)
                .and_then(|r| r.split("\"value\":").nth(1))
                .and_then(|r| r.split('}').next())
                .unwrap_or_else(|| panic!("{name} in {json_text}"));
            assert_eq!(
                raw.parse::<f64>().unwrap(),
                shortest.parse::<f64>().unwrap(),
                "{class}.{name}: {raw}"
            );
        }
        // Infinities and NaN are strings in JSON, in the same words as the text.
        assert_eq!(field(&json, "POSITIVE_INFINITY")["value"], "inf");
        assert_eq!(field(&json, "NaN")["value"], "NaN");
    }
    // The text every view (CLI and the TUI's inspector) uses for a value.
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).unwrap();
    let v = |x| heaptui::cli::value_text(&snap, &heaptui::format::Value::Float(x));
    assert_eq!(v(1.5e300), "1.5e300");
    assert_eq!(v(-2.5e-7), "-2.5e-7");
    assert_eq!(v(0.1), "0.1");
    assert_eq!(v(1234.5), "1234.5");
}

/// The instance lists' Value column reads an HPROF instance's first two primitive
/// fields by its class's cached field list; it says what a whole inspection says, for
/// every object of the JDK 17 fixture.
#[test]
fn first_fields_read_in_place_equal_the_inspection_s() {
    let snap = heaptui::open(
        &gunzipped("java/coops/heap-live-jvmgz.hprof.gz"),
        &heaptui::sys::progress::Progress::new(),
    )
    .unwrap();
    let mut with_fields = 0;
    for o in 0..snap.graph.len() as u32 {
        // What the whole inspection says, by the rule the Value column states.
        let want = heaptui::format::first_fields_of(&snap.inspect(o), |s| snap.string_word(s));
        with_fields += !want.is_empty() as usize;
        assert_eq!(snap.first_fields(o), want, "object {}", snap.object_name(o));
    }
    assert!(with_fields > 10_000, "{with_fields}");
}

/// Bug 8 of issue 39: the path of the last node of the fixture's linked list (503 nodes
/// held by `static Main.CHAIN_ROOT`, `expected.json`) is not listed step by step: the
/// run of `next` is folded but for its ends (`… 492 more ChainNode via next …`), in
/// the text and in the JSON, which says how many steps it folded; the steps still add
/// up to the whole path (the steps down to the head, then 502 links).
#[test]
fn the_path_down_a_linked_list_is_folded() {
    let t = fixture_json("java/expected.json");
    let length = t["roots_and_structures"]["chain"]["length"]
        .as_u64()
        .unwrap() as usize;
    for &(dump, _) in DUMPS {
        let f = &fixture_arg(dump);
        let (_, snap) = open_fixture(dump);
        let g = &snap.graph;
        let chain = |o: u32| snap.class_name(o) == "dev.heaptui.fixture.ChainNode";
        let tail = (0..g.len() as u32)
            .find(|&o| chain(o) && !g.edges(o).any(|e| chain(g.out_targets[e])))
            .unwrap();
        let tail = snap.object_name(tail);

        let p = run_json(&["path", f, &tail, "--json", "--max", "1"]);
        let listed = p["paths"][0].as_array().unwrap();
        assert!(listed.len() <= 40, "{}", listed.len());
        // The steps down to the head (held by CHAIN_ROOT), then one per link.
        let head = listed
            .iter()
            .position(|s| s["edge"] == "static CHAIN_ROOT")
            .unwrap();
        let steps = head + length;
        let total: u64 = listed
            .iter()
            .map(|s| s["folded"]["steps"].as_u64().unwrap_or(1))
            .sum();
        assert_eq!(total as usize, steps);
        let fold: Vec<&Value> = listed.iter().filter(|s| s["folded"].is_object()).collect();
        assert_eq!(fold.len(), 1);
        assert_eq!(fold[0]["folded"]["class"], "dev.heaptui.fixture.ChainNode");
        assert_eq!(fold[0]["folded"]["edge"], "next");
        assert_eq!(fold[0]["edge"], "next");
        assert_eq!(listed.last().unwrap()["object"], tail.as_str());

        let out = heaptui(&["path", f, &tail, "--max", "1"]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() <= 41, "{} lines:\n{text}", lines.len());
        assert!(
            lines[0].starts_with(&format!("path 1 of 1 ({} steps)", with_commas(steps))),
            "{}",
            lines[0]
        );
        assert!(lines[1 + head].contains("static CHAIN_ROOT → "), "{text}");
        let shown = lines.len() - 2;
        let folded = format!(
            "… {} more dev.heaptui.fixture.ChainNode via next …",
            with_commas(steps - shown)
        );
        assert!(
            lines.iter().any(|l| l.trim() == folded),
            "{folded}:\n{text}"
        );
        assert!(lines.last().unwrap().contains(&tail));
    }
}
