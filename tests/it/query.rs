//! Issue 41, first step: `heaptui query` over the `objects` and `classes` tables, through
//! the real binary. The Java program's own counts of its classes (`expected.json`'s
//! `instances`) come back from SQL, and on a dump of every format the counts and shallow
//! sums per class from SQL are the histogram's.

use std::collections::BTreeMap;

use crate::common::{fixture, gunzipped, heaptui};

pub(crate) fn json(args: &[&str]) -> serde_json::Value {
    let out = heaptui(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Class → (count, shallow bytes) of `query --json`'s rows of (class, n, s).
fn per_class(v: &serde_json::Value) -> BTreeMap<String, (u64, u64)> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                (r[1].as_u64().unwrap(), r[2].as_u64().unwrap()),
            )
        })
        .collect()
}

#[test]
fn the_java_programs_counts_come_back_from_sql() {
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("java/expected.json")).unwrap())
            .unwrap();
    let file = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let file = file.to_str().unwrap();
    let v = json(&[
        "query",
        file,
        "SELECT class, count(*) AS n, sum(shallow) AS s FROM objects \
         WHERE class LIKE 'dev.heaptui.fixture.%' GROUP BY class",
        "--json",
    ]);
    assert_eq!(v["columns"], serde_json::json!(["class", "n", "s"]));
    let got = per_class(&v);
    let mut checked = 0;
    for (class, n) in truth["instances"].as_object().unwrap() {
        assert_eq!(
            got.get(class).map(|x| x.0),
            n.as_u64(),
            "{class}: SQL against the program's count"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn sql_counts_every_class_as_the_histogram_does_in_every_format() {
    for rel in [
        "java/coops/heap-live-jvmgz.hprof.gz",
        "node/baseline.heapsnapshot.gz",
        "go/heap.dump.gz",
        "moarvm/app-v2.mvmheap.gz",
        "moarvm/app-v3.mvmheap.gz",
        "dart/after.dartheap.gz",
    ] {
        let file = gunzipped(rel);
        let file = file.to_str().unwrap();
        let sql = json(&[
            "query",
            file,
            "SELECT class, count(*), sum(shallow) FROM objects GROUP BY class",
            "--json",
        ]);
        let hist = json(&["histogram", file, "--json"]);
        let want: BTreeMap<String, (u64, u64)> = hist["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["class"].as_str().unwrap().to_string(),
                    (
                        c["count"].as_u64().unwrap(),
                        c["shallow_bytes"].as_u64().unwrap(),
                    ),
                )
            })
            .collect();
        assert_eq!(per_class(&sql), want, "{rel}: objects");
        // The classes table is the histogram too.
        let classes = json(&[
            "query",
            file,
            "SELECT name, count, shallow FROM classes WHERE count > 0",
            "--json",
        ]);
        assert_eq!(per_class(&classes), want, "{rel}: classes");
    }
}

#[test]
fn a_bad_query_exits_1_with_the_engines_position() {
    let file = gunzipped("node/baseline.heapsnapshot.gz");
    let out = heaptui(&["query", file.to_str().unwrap(), "SELEC class FROM objects"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Line: 1, Column: 1"), "{err}");
    let out = heaptui(&["query", file.to_str().unwrap(), "SELECT nope FROM objects"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
}
