//! Issue 41: every table of `heaptui query`, on the real fixtures of the five formats,
//! against the runtimes' own figures (jcmd's histogram, the programs' counts and field
//! rules, Go's MemStats, MoarVM's snapmeta, Dart's allocation profile, Node's counts) and
//! against heaptui's own `suspects`, `waste`, `summary`, `threads` and `diff`; the shipped
//! queries; two snapshots as `base.` and `target.`; Parquet read back by pyarrow.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{fixture, fixture_json, gunzipped, heaptui, parse_jcmd_histogram};
use crate::query::json;

fn file(rel: &str) -> String {
    gunzipped(rel).to_str().unwrap().to_string()
}

/// The rows of `SQL` over `file`.
fn rows(file: &str, sql: &str) -> Vec<Vec<Value>> {
    rows_of(&json(&["query", file, sql, "--json"]))
}

/// The rows of a `query --json` document.
fn rows_of(v: &Value) -> Vec<Vec<Value>> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().clone())
        .collect()
}

/// The one number `SQL` answers.
fn number(file: &str, sql: &str) -> u64 {
    let r = rows(file, sql);
    assert_eq!(r.len(), 1, "{sql}");
    r[0][0]
        .as_u64()
        .unwrap_or_else(|| panic!("{sql}: {:?}", r[0][0]))
}

/// Class → its `N` figures, from rows of (class, figure, …): the counts of the query's
/// answer, a command's JSON or a runtime's, keyed alike to be compared.
fn per_class<const N: usize>(r: &[Vec<Value>]) -> BTreeMap<String, [u64; N]> {
    r.iter()
        .map(|r| {
            let class = r[0].as_str().unwrap().to_string();
            (class, std::array::from_fn(|i| r[i + 1].as_u64().unwrap()))
        })
        .collect()
}

const EVERY_FORMAT: &[&str] = &[
    "java/coops/heap-live-jvmgz.hprof.gz",
    "node/baseline.heapsnapshot.gz",
    "go/heap.dump.gz",
    "moarvm/app-v2.mvmheap.gz",
    "moarvm/app-v3.mvmheap.gz",
    "dart/after.dartheap.gz",
];

#[test]
fn java_sql_equals_jcmds_histogram_and_the_programs_field_rules() {
    let f = file("java/coops/heap-live-jvmgz.hprof.gz");
    let text = std::fs::read_to_string(fixture("java/coops/histo-live-after-jvmgz.txt")).unwrap();
    let mut jvm: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for (name, n, b) in parse_jcmd_histogram(&text) {
        let e = jvm.entry(name).or_default();
        e[0] += n;
        e[1] += b;
    }
    let sql = per_class::<2>(&rows(
        &f,
        "SELECT class, count(*), sum(shallow) FROM objects GROUP BY class",
    ));
    let mut same = 0;
    for (class, want) in &jvm {
        // The classes hprof_jvm.rs names, whose count in a live dump may differ from a
        // histogram taken after it.
        if crate::hprof_jvm::count_may_differ(class, sql.get(class).map_or(0, |x| x[0]), want[0]) {
            continue;
        }
        assert_eq!(sql.get(class), Some(want), "{class}: SQL against jcmd");
        same += 1;
    }
    assert!(same > 200, "{same} classes compared");

    // Fields of a whole class, typed: the program's rules for its 311 customers
    // (active = i % 3 != 0, tier = i % 4) and 777 orders (qty = 1 + i % 9).
    let e = fixture_json("java/expected.json");
    let customers = e["roots_and_structures"]["customers"]["count"]
        .as_u64()
        .unwrap();
    let active = (0..customers).filter(|i| i % 3 != 0).count() as u64;
    assert_eq!(
        number(
            &f,
            "SELECT count(*) FROM fields('dev.heaptui.fixture.Customer') WHERE active = true"
        ),
        active
    );
    assert_eq!(
        number(
            &f,
            "SELECT CAST(sum(tier) AS BIGINT UNSIGNED) FROM fields('dev.heaptui.fixture.Customer')"
        ),
        (0..customers).map(|i| i % 4).sum::<u64>()
    );
    let orders = e["roots_and_structures"]["orders"]["count"]
        .as_u64()
        .unwrap();
    assert_eq!(
        number(
            &f,
            "SELECT CAST(sum(field(id, 'qty')) AS BIGINT UNSIGNED) FROM objects \
             WHERE class = 'dev.heaptui.fixture.Order'"
        ),
        (0..orders).map(|i| 1 + i % 9).sum::<u64>()
    );
    // Strings' text in both of Java's encodings: 41 Latin-1 and 41 UTF-16 strings.
    let s = &e["roots_and_structures"]["strings"];
    assert_eq!(
        number(
            &f,
            "SELECT count(*) FROM strings WHERE regexp_like(text, '^latin1-[0-9]+-café-naïve$')"
        ),
        s["latin1"].as_u64().unwrap()
    );
    assert_eq!(
        number(
            &f,
            "SELECT count(*) FROM strings WHERE regexp_like(text, '^utf16-[0-9]+-€-日本$')"
        ),
        s["utf16"].as_u64().unwrap()
    );
    // Subclasses: every HashMap is an AbstractMap, and no Session is one.
    assert_eq!(
        number(
            &f,
            "SELECT count(*) FROM objects WHERE class = 'java.util.HashMap' \
             AND NOT is_instance_of(id, 'java.util.AbstractMap')"
        ),
        0
    );
    assert_eq!(
        number(
            &f,
            "SELECT count(*) FROM objects WHERE is_instance_of(id, 'java.util.AbstractMap') \
             AND class = 'dev.heaptui.fixture.Session'"
        ),
        0
    );
    // The chain's depths: 0 at CHAIN_ROOT, 502 at the tail.
    assert_eq!(
        number(
            &f,
            "SELECT CAST(max(depth) - min(depth) AS BIGINT UNSIGNED) FROM fields('dev.heaptui.fixture.ChainNode')"
        ),
        502
    );
}

#[test]
fn node_go_moarvm_and_dart_sql_equals_the_runtimes_figures() {
    // Node: the counts program.js printed for its baseline snapshot.
    let e = fixture_json("node/expected.json");
    let f = file("node/baseline.heapsnapshot.gz");
    let got = per_class::<1>(&rows(
        &f,
        "SELECT class, count(*) FROM objects WHERE class LIKE 'Heaptui%' GROUP BY class",
    ));
    for (class, n) in e["snapshots"][0]["counts"].as_object().unwrap() {
        assert_eq!(
            got.get(class).map_or(0, |x| x[0]),
            n.as_u64().unwrap(),
            "{class}"
        );
    }
    // Go: runtime.ReadMemStats beside the dump.
    let e = fixture_json("go/expected.json");
    let f = file("go/heap.dump.gz");
    let r = rows(&f, "SELECT count(*), sum(shallow) FROM objects");
    assert_eq!(r[0][0], e["memstats_before"]["HeapObjects"]);
    assert_eq!(r[0][1], e["memstats_before"]["HeapAlloc"]);
    // MoarVM v3: each snapshot (FILE#N) against the file's own snapmeta.
    let e = fixture_json("moarvm/expected.json");
    let f = file("moarvm/app-v3.mvmheap.gz");
    for (i, s) in e["v3"]["runtime"]["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let m = &s["snapmeta"];
        let at = format!("{f}#{i}");
        assert_eq!(
            number(&at, "SELECT sum(shallow) FROM objects"),
            m["total_heap_size"].as_u64().unwrap(),
            "snapshot {i}"
        );
        assert_eq!(
            number(&at, "SELECT count(*) FROM refs"),
            m["total_refs"].as_u64().unwrap(),
            "snapshot {i}"
        );
    }
    // Dart: getAllocationProfile's instances and bytes of the app's classes.
    let e = fixture_json("dart/expected.json");
    let f = file("dart/after.dartheap.gz");
    let got = per_class::<2>(&rows(
        &f,
        "SELECT class, count(*), sum(shallow) FROM objects \
         WHERE class LIKE 'package:heapshape/model.dart::%' GROUP BY class",
    ));
    let mut checked = 0;
    for r in e["snapshots"]["after"]["allocation_profile"]
        .as_array()
        .unwrap()
    {
        let class = r["class"].as_str().unwrap();
        if class.starts_with("package:heapshape/model.dart::") {
            let want = [
                r["instances"].as_u64().unwrap(),
                r["bytes"].as_u64().unwrap(),
            ];
            assert_eq!(got.get(class), Some(&want), "{class}");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
}

/// Every bundled dump whose name ends in one of `ends` (its path under fixtures/).
fn dumps(ends: &[&str]) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = fixture("");
    let mut all = Vec::new();
    walk(&root, &mut all);
    let mut out: Vec<String> = all
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| ends.iter().any(|e| p.ends_with(e)))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{ends:?}");
    out
}

/// `objects`, `refs`, `roots`, `threads`, `frames`, `locals`, `suspects` and `waste` of
/// the fixture `rel` against `summary`, `threads`, `suspects` and `waste`.
fn tables_equal_the_commands(rel: &str) {
    let f = file(rel);
    let s = json(&["summary", &f, "--json"]);
    let one = |sql: &str| number(&f, sql);
    assert_eq!(
        Some(one("SELECT count(*) FROM objects")),
        s["objects"].as_u64(),
        "{rel}"
    );
    assert_eq!(
        Some(one("SELECT count(*) FROM refs")),
        s["edges"].as_u64(),
        "{rel}"
    );
    assert_eq!(
        Some(one("SELECT count(*) FROM roots")),
        s["roots"].as_u64(),
        "{rel}"
    );
    assert_eq!(
        Some(one("SELECT count(*) FROM objects WHERE reachable")),
        s["reachable_objects"].as_u64(),
        "{rel}"
    );
    assert_eq!(
        Some(one("SELECT count(*) FROM threads")),
        s["threads"].as_u64(),
        "{rel}"
    );
    // Threads, frames and locals: the threads command's.
    let t = json(&["threads", &f, "--json"]);
    let threads = t["threads"].as_array().unwrap();
    let frames: usize = threads
        .iter()
        .map(|t| t["frames"].as_array().unwrap().len())
        .sum();
    assert_eq!(one("SELECT count(*) FROM frames") as usize, frames, "{rel}");
    let locals: usize = threads
        .iter()
        .map(|t| {
            t["held"].as_array().unwrap().len()
                + t["frames"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["locals"].as_array().unwrap().len())
                    .sum::<usize>()
        })
        .sum();
    assert_eq!(one("SELECT count(*) FROM locals") as usize, locals, "{rel}");
    // Suspects: the command's, row for row.
    let cmd = json(&["suspects", &f, "--json", "--top", "100"]);
    let want: Vec<Vec<Value>> = cmd["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            [
                "rank",
                "kind",
                "object",
                "class",
                "retained_bytes",
                "holder",
            ]
            .iter()
            .map(|k| x[*k].clone())
            .collect()
        })
        .collect();
    assert_eq!(
        rows(
            &f,
            "SELECT rank, kind, object, class, retained, holder FROM suspects ORDER BY rank"
        ),
        want,
        "{rel}: suspects"
    );
    // Waste: the command's three lists.
    let w = json(&["waste", &f, "--json", "--top", "1000"]);
    let list = |key: &str, fields: &[&str]| -> Vec<Vec<Value>> {
        w[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| fields.iter().map(|k| x[*k].clone()).collect())
            .collect()
    };
    assert_eq!(
        rows(
            &f,
            "SELECT text, count, wasted, example FROM waste WHERE kind = 'duplicate string'"
        ),
        list(
            "duplicate_strings",
            &["text", "count", "wasted_bytes", "example"]
        ),
        "{rel}: duplicate strings"
    );
    assert_eq!(
        rows(
            &f,
            "SELECT class, count, wasted, example FROM waste WHERE kind = 'duplicate array'"
        ),
        list(
            "duplicate_arrays",
            &["class", "count", "wasted_bytes", "example"]
        ),
        "{rel}: duplicate arrays"
    );
    assert_eq!(
        rows(&f, "SELECT class, holder, count, wasted, example FROM waste WHERE kind = 'sparse collection'"),
        list("sparse_collections", &["class", "holder", "count", "wasted_bytes", "example"]),
        "{rel}: sparse collections"
    );
}

#[test]
fn the_tables_equal_the_commands_on_every_hprof_fixture() {
    for rel in dumps(&[".hprof.gz"]) {
        tables_equal_the_commands(&rel);
    }
}

#[test]
fn the_tables_equal_the_commands_on_every_v8_fixture() {
    for rel in dumps(&[".heapsnapshot.gz"]) {
        tables_equal_the_commands(&rel);
    }
}

#[test]
fn the_tables_equal_the_commands_on_every_go_fixture() {
    for rel in dumps(&[".dump.gz"]) {
        tables_equal_the_commands(&rel);
    }
}

#[test]
fn the_tables_equal_the_commands_on_every_moarvm_fixture() {
    for rel in dumps(&[".mvmheap.gz"]) {
        tables_equal_the_commands(&rel);
    }
}

#[test]
fn the_tables_equal_the_commands_on_every_dart_fixture() {
    for rel in dumps(&[".dartheap.gz"]) {
        tables_equal_the_commands(&rel);
    }
}

#[test]
fn every_shipped_query_is_listed_and_runs() {
    let out = heaptui(&["query", &file(EVERY_FORMAT[0]), "--list"]);
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    let mut shipped = Vec::new();
    for entry in std::fs::read_dir(crate::common::root().join("docs/queries")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "sql") {
            shipped.push(p.file_stem().unwrap().to_string_lossy().to_string());
        }
    }
    assert!(shipped.len() >= 8, "{shipped:?}");
    let java = file("java/coops/heap-live-jvmgz.hprof.gz");
    let (base, target) = (
        file("java/growth/base.hprof.gz"),
        file("java/growth/target.hprof.gz"),
    );
    for name in &shipped {
        assert!(
            listed.contains(&format!(":{name} ")),
            "{name} not in --list:\n{listed}"
        );
        let named = format!(":{name}");
        let args: Vec<&str> = if name == "growth" {
            vec!["query", &target, &named, "--base", &base, "--json"]
        } else {
            vec!["query", &java, &named, "--json"]
        };
        let v = json(&args);
        assert!(
            v["columns"].as_array().is_some_and(|c| !c.is_empty()),
            "{name}"
        );
        if name == "growth" {
            assert!(!v["rows"].as_array().unwrap().is_empty(), "{v}");
        }
    }
    // The Java fixture's one HashMap of more than 1,000 entries is its 1,237 sessions'.
    let v = json(&["query", &java, ":big-maps", "--json"]);
    assert_eq!(v["rows"][0][1], 1237, "{v}");
    assert!(
        v["rows"][0][3]
            .as_str()
            .unwrap()
            .contains("static sessions"),
        "{v}"
    );
    let out = heaptui(&["query", &java, ":no-such-query"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(":top-retained"));
}

#[test]
fn two_snapshots_are_base_and_target_with_the_diffs_classes() {
    let a = file("node/baseline.heapsnapshot.gz");
    let b = file("node/target.heapsnapshot.gz");
    let sa = json(&["summary", &a, "--json"]);
    let sb = json(&["summary", &b, "--json"]);
    let v = json(&[
        "query",
        &b,
        "--base",
        &a,
        "SELECT (SELECT count(*) FROM base.objects) AS a, (SELECT count(*) FROM target.objects) AS b, \
         (SELECT count(*) FROM objects) AS c",
        "--json",
    ]);
    assert_eq!(
        v["rows"][0],
        serde_json::json!([sa["objects"], sb["objects"], sb["objects"]])
    );
    // The diff table is the diff command's classes.
    let d = json(&["diff", &a, &b, "--json", "--top", "100000"]);
    let want: Vec<Vec<Value>> = d["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            ["class", "base_count", "target_count"]
                .iter()
                .map(|k| c[*k].clone())
                .collect()
        })
        .collect();
    let v = json(&[
        "query",
        &b,
        "--base",
        &a,
        "SELECT class, base_count, target_count FROM diff WHERE delta_count <> 0",
        "--json",
    ]);
    let got = per_class::<2>(&rows_of(&v));
    let want: BTreeMap<_, _> = per_class::<2>(&want)
        .into_iter()
        .filter(|(_, [x, y])| x != y)
        .collect();
    assert!(want.len() > 5, "{}", want.len());
    assert_eq!(got, want);
    // Without --base there is no base schema: the engine says so, exit 1.
    let out = heaptui(&["query", &b, "SELECT count(*) FROM base.objects"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("base.objects"));
}

#[test]
fn parquet_export_reads_back_in_pyarrow_with_the_same_counts() {
    let have = std::process::Command::new("python3")
        .args(["-c", "import pyarrow.parquet"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        assert!(
            std::env::var_os("REQUIRE_PYARROW").is_none(),
            "python3 cannot import pyarrow, and REQUIRE_PYARROW is set (.ci/run installs it)"
        );
        eprintln!("skipped: python3 cannot import pyarrow (pip install pyarrow; .ci/run does)");
        return;
    }
    for rel in [
        "java/coops/heap-live-jvmgz.hprof.gz",
        "node/baseline.heapsnapshot.gz",
    ] {
        let f = file(rel);
        let dir = crate::common::scratch().join(format!("parquet-{}", rel.replace('/', "_")));
        let _ = std::fs::remove_dir_all(&dir);
        let out = heaptui(&["export", &f, "--parquet", dir.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // pyarrow's own reader: rows per table, objects per class, the identity columns.
        let script = r#"
import json, sys, collections
import pyarrow.parquet as pq
d = sys.argv[1]
out = {}
for t in ["objects", "classes", "refs", "roots", "strings", "threads", "frames", "locals", "suspects", "waste"]:
    out[t] = pq.read_table(f"{d}/{t}.parquet").num_rows
o = pq.read_table(f"{d}/objects.parquet", columns=["class", "shallow", "dump", "format"]).to_pydict()
per = collections.defaultdict(lambda: [0, 0])
for c, s in zip(o["class"], o["shallow"]):
    per[c][0] += 1
    per[c][1] += s
out["per_class"] = per
out["dumps"] = sorted(set(o["dump"]))
out["formats"] = sorted(set(o["format"]))
print(json.dumps(out))
"#;
        let py = std::process::Command::new("python3")
            .args(["-c", script, dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            py.status.success(),
            "{}",
            String::from_utf8_lossy(&py.stderr)
        );
        let got: Value = serde_json::from_slice(&py.stdout).unwrap();
        let s = json(&["summary", &f, "--json"]);
        assert_eq!(got["objects"], s["objects"], "{rel}");
        assert_eq!(got["refs"], s["edges"], "{rel}");
        assert_eq!(got["threads"], s["threads"], "{rel}");
        assert_eq!(
            got["dumps"][0],
            std::path::Path::new(&f)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
        );
        assert_eq!(got["formats"][0], s["format"]);
        let h = json(&["histogram", &f, "--json"]);
        for c in h["classes"].as_array().unwrap() {
            let name = c["class"].as_str().unwrap();
            assert_eq!(
                got["per_class"][name],
                serde_json::json!([c["count"], c["shallow_bytes"]]),
                "{rel}: {name}"
            );
        }
        let cmd = json(&["suspects", &f, "--json", "--top", "100"]);
        assert_eq!(
            got["suspects"].as_u64().unwrap() as usize,
            cmd["suspects"].as_array().unwrap().len()
        );
    }
}

#[test]
fn a_query_whose_stop_flag_is_set_ends_as_cancelled_and_a_bound_ends_early() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let path = gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let snap = heaptui::open(&path, &heaptui::sys::progress::Progress::new()).unwrap();
    let inputs = heaptui::query::Inputs::one(snap.snapshot().clone(), None);
    let stop = Arc::new(AtomicBool::new(true));
    let r = heaptui::query::run_until(&inputs, "SELECT count(*) FROM objects a, objects b", &stop);
    assert_eq!(r, Err(heaptui::query::CANCELLED.to_string()));
    // Rows come a batch at a time, and the caller may stop reading: one batch is made.
    let mut batches = 0;
    heaptui::query::run_each(
        &inputs,
        "SELECT id, label FROM objects",
        &Arc::default(),
        |_| {},
        |rows| {
            batches += 1;
            assert!(!rows.is_empty());
            false
        },
    )
    .unwrap();
    assert_eq!(batches, 1);
}

#[test]
fn a_query_over_a_cut_dump_says_which_tables_are_partial() {
    let whole = std::fs::read(gunzipped("java/coops/heap-live-jvmgz.hprof.gz")).unwrap();
    let cut = crate::common::scratch().join("query-cut.hprof");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let cut = cut.to_str().unwrap();
    let out = heaptui(&["query", cut, "SELECT count(*) FROM objects", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cut short at byte") && err.contains("objects, classes, refs"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = json(&["summary", cut, "--json"]);
    assert_eq!(v["rows"][0][0], s["objects"]);
    assert!(
        s["objects"].as_u64().unwrap()
            < json(&[
                "summary",
                &file("java/coops/heap-live-jvmgz.hprof.gz"),
                "--json"
            ])["objects"]
                .as_u64()
                .unwrap()
    );
}
