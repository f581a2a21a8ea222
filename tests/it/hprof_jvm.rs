//! HPROF from a real JDK 17 (fixtures/java): the histogram against `jcmd
//! GC.class_histogram` taken right after each dump, and against the counts the fixture
//! program defines. Nothing here compares heaptui with its own earlier output.

use crate::common;

use std::collections::BTreeMap;

use common::*;

/// (variant dir, dump, ground-truth histogram)
const VARIANTS: &[(&str, &str, &str)] = &[
    (
        "coops",
        "java/coops/heap-live-jvmgz.hprof.gz",
        "java/coops/histo-live-after-jvmgz.txt",
    ),
    (
        "nocoops",
        "java/nocoops/heap-live.hprof.gz",
        "java/nocoops/histo-live-after.txt",
    ),
];

/// Classes whose count in a live dump legitimately differs from the histogram taken
/// after it:
/// - `java.lang.Class`: the histogram counts every mirror (array classes, hidden
///   classes without a CLASS DUMP), the dump has a CLASS DUMP per dumped class
///   (`specs/NOTES.md` §1, "Histogram vs. dump");
/// - cleaner references (`PhantomCleanableRef`): phantom-reachable, cleared by the full
///   GC the histogram runs after the dump, so the dump may hold more of them.
pub(crate) fn count_may_differ(class: &str, ours: u64, jvm: u64) -> bool {
    class == "java.lang.Class" || (class.ends_with("PhantomCleanableRef") && ours >= jvm)
}

fn ours(dump: &str) -> BTreeMap<String, (u64, u64)> {
    let out = heaptui(&["histogram", fixture(dump).to_str().unwrap(), "--json"]);
    let v = json_of(&out);
    let mut m = BTreeMap::new();
    for c in v["classes"].as_array().unwrap() {
        // Classes of the same name from different loaders are summed, as jcmd's lines
        // are summed below.
        let e = m
            .entry(c["class"].as_str().unwrap().to_string())
            .or_insert((0, 0));
        e.0 += c["count"].as_u64().unwrap();
        e.1 += c["shallow_bytes"].as_u64().unwrap();
    }
    m
}

/// The JVM's histogram, lines of the same class name summed.
fn jvm(histo: &str) -> BTreeMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(fixture(histo)).unwrap();
    let mut jvm: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (name, n, b) in parse_jcmd_histogram(&text) {
        let e = jvm.entry(name).or_insert((0, 0));
        e.0 += n;
        e.1 += b;
    }
    jvm
}

#[test]
fn every_jvm_class_has_the_jvms_instance_count() {
    for (variant, dump, histo) in VARIANTS {
        let ours = ours(dump);
        let jvm = jvm(histo);
        assert!(
            jvm.len() > 250,
            "{variant}: histogram parsed to {} classes",
            jvm.len()
        );
        let mut wrong = Vec::new();
        for (class, &(n, _)) in &jvm {
            let got = ours.get(class).map(|x| x.0).unwrap_or(0);
            if got != n && !count_may_differ(class, got, n) {
                wrong.push(format!("{class}: jvm {n}, heaptui {got}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "{variant}: instance counts differ:\n{}",
            wrong.join("\n")
        );
    }
}

#[test]
fn shallow_bytes_equal_the_jvms_for_99_percent_of_classes() {
    for (variant, dump, histo) in VARIANTS {
        let ours = ours(dump);
        let jvm = jvm(histo);
        let mut differ = Vec::new();
        let mut compared = 0;
        for (class, &(n, bytes)) in &jvm {
            let Some(&(got_n, got_b)) = ours.get(class) else {
                continue;
            };
            if got_n != n {
                continue; // counts are checked above; compare sizes where they agree
            }
            compared += 1;
            if got_b != bytes {
                differ.push(format!("{class}: jvm {bytes}, heaptui {got_b}"));
            }
        }
        eprintln!(
            "{variant}: {} of {compared} classes differ in bytes: {differ:?}",
            differ.len()
        );
        assert!(compared > 250);
        assert!(
            differ.len() * 100 <= compared,
            "{variant}: more than 1% of classes differ in shallow bytes:\n{}",
            differ.join("\n")
        );
    }
}

#[test]
fn the_programs_own_populations_are_found() {
    let expected = fixture_json("java/expected.json");
    for (variant, dump, _) in VARIANTS {
        let ours = ours(dump);
        for (class, n) in expected["instances"].as_object().unwrap() {
            assert_eq!(
                ours.get(class).map(|x| x.0),
                Some(n.as_u64().unwrap()),
                "{variant}: {class}"
            );
        }
        // The 3,000,000-byte array held by BlobHolder is one byte[] of that length.
        let (n, b) = ours["byte[]"];
        assert!(n > 1000 && b > 3_000_000, "{variant}: byte[] {n} {b}");
    }
}

#[test]
fn compressed_oops_are_inferred() {
    let coops = summary_json(&fixture_arg(VARIANTS[0].1));
    let nocoops = summary_json(&fixture_arg(VARIANTS[1].1));
    let layout =
        |v: &serde_json::Value| v["details"]["object layout"].as_str().unwrap().to_string();
    assert!(
        layout(&coops).starts_with("compressed oops, compressed class pointers"),
        "{}",
        layout(&coops)
    );
    assert!(
        layout(&nocoops).starts_with("uncompressed oops, uncompressed class pointers"),
        "{}",
        layout(&nocoops)
    );
}

#[test]
fn summary_reports_the_index() {
    let v = summary_json(&fixture_arg(VARIANTS[0].1));
    assert_eq!(v["format"], "hprof");
    assert_eq!(v["format_version"], "JAVA PROFILE 1.0.2");
    assert_eq!(v["id_size"], 8);
    assert_eq!(v["snapshot"], 0);
    assert!(v["truncated"].is_null());
    let objects = v["objects"].as_u64().unwrap();
    // jcmd's Total line counts every object, java.lang.Class mirrors included; the dump
    // has one CLASS DUMP per dumped class, so it can only have fewer.
    let text = std::fs::read_to_string(fixture(VARIANTS[0].2)).unwrap();
    let total: u64 = text
        .lines()
        .find(|l| l.starts_with("Total"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        objects <= total && objects > total * 9 / 10,
        "{objects} vs jcmd total {total}"
    );
    for key in ["classes", "edges", "roots", "threads", "index_bytes"] {
        assert!(v[key].as_u64().unwrap() > 0, "{key}");
    }
    // Thread.print lists the Java threads (those with a `#` number). HotSpot's dumper
    // gives the ones hidden from external view (compiler, sweeper, service and
    // notification threads) no ROOT THREAD OBJECT, but their Thread objects are in the
    // dump, and `summary` counts every thread the threads pane lists: all of them.
    let threads = std::fs::read_to_string(fixture("java/coops/threads.txt")).unwrap();
    let java_threads = threads
        .lines()
        .filter(|l| l.starts_with('"') && l.contains(" #"))
        .count();
    let t = v["threads"].as_u64().unwrap() as usize;
    assert_eq!(t, java_threads, "Thread.print lists {java_threads}");
    let bpo = v["index_bytes_per_object"].as_f64().unwrap();
    let idx = v["index_bytes"].as_f64().unwrap();
    assert!((bpo - idx / objects as f64).abs() < 0.1);
    assert!(v["reachable_objects"].as_u64().unwrap() <= objects);
    assert!(v["warnings"].is_array());
}

#[test]
fn multi_member_gzip_gives_the_whole_dump() {
    // The JVM's -gz output has one member per MiB: a single-member decoder would stop
    // after the first and miss most objects.
    let gz = summary_json(&fixture_arg(VARIANTS[0].1));
    let plain = gunzipped(VARIANTS[0].1);
    let p = summary_json(plain.to_str().unwrap());
    assert_eq!(gz["objects"], p["objects"]);
    assert_eq!(gz["edges"], p["edges"]);
    assert!(std::fs::metadata(&plain).unwrap().len() > 3 << 20);
    // The cached copy is reused on the second open (same answer).
    let again = summary_json(&fixture_arg(VARIANTS[0].1));
    assert_eq!(gz["objects"], again["objects"]);
}
