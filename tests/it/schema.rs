//! The JSON Schemas of the `--json` documents (issue 38): generated from the result
//! types (`heaptui::results::schemas`), committed as `docs/schema/<command>.json`, and
//! every command's output on every fixture valid against the committed ones.
//!
//! After changing a result type: `HEAPTUI_BLESS=1 cargo test --test schema` writes the
//! schemas again (review the diff: a changed key or type is a change of the contract).

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn schema_dir() -> PathBuf {
    root().join("docs").join("schema")
}

fn schema_text(schema: &Value) -> String {
    serde_json::to_string_pretty(schema).unwrap() + "\n"
}

#[test]
fn the_committed_schemas_are_the_ones_the_types_give() {
    let dir = schema_dir();
    let bless = std::env::var_os("HEAPTUI_BLESS").is_some();
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let schemas = heaptui::results::schemas();
    let mut stale = Vec::new();
    for (name, schema) in &schemas {
        let path = dir.join(format!("{name}.json"));
        let want = schema_text(schema);
        if bless {
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "schemas that differ from the result types: {stale:?}\n\
         run `HEAPTUI_BLESS=1 cargo test --test schema` and review the diff"
    );
    // No schema of a command that is gone.
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    let mut names: Vec<String> = schemas.iter().map(|(n, _)| format!("{n}.json")).collect();
    names.sort();
    assert_eq!(files, names);
    // Every command of the contract with a JSON document has one.
    for c in [
        "summary",
        "histogram",
        "dominators",
        "path",
        "inspect",
        "threads",
        "diff",
        "leaks",
        "suspects",
        "waste",
    ] {
        assert!(names.contains(&format!("{c}.json")), "{c}");
    }
}

/// The committed schema of `command`, compiled.
fn validator(command: &str) -> jsonschema::Validator {
    let path = schema_dir().join(format!("{command}.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What is wrong with `doc` as a `command` document, if anything.
fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| {
            // A message may quote the whole document: its start is enough.
            let m = e.to_string();
            let short: String = m.chars().take(200).collect();
            let cut = if short.len() < m.len() { "…" } else { "" };
            format!("at {:?}: {short}{cut}", e.instance_path().as_str())
        })
        .take(5)
        .collect()
}

/// The dumps under `fixtures/`, as `bench/same-outputs.sh` finds them.
fn dumps() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                if [
                    ".hprof",
                    ".heapsnapshot",
                    ".dump.gz",
                    ".mvmheap",
                    ".dartheap",
                ]
                .iter()
                .any(|x| n.contains(x))
                {
                    out.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("fixtures"), &mut out);
    out.sort();
    out
}

/// One run: the command line and what it printed, or why it printed no document.
struct Run {
    args: Vec<String>,
    doc: Result<Value, String>,
}

fn run(args: &[String]) -> Run {
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.push("--json");
    let out = heaptui(&all);
    let doc = if out.status.code() == Some(0) {
        serde_json::from_slice(&out.stdout).map_err(|e| format!("not JSON: {e}"))
    } else {
        Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    };
    Run {
        args: args.to_vec(),
        doc,
    }
}

/// Every command, with the options that change its document's shape, on one dump.
fn runs_of(dump: &Path) -> Vec<Run> {
    let f = dump.to_str().unwrap().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut runs: Vec<Run> = [
        s(&["summary", &f]),
        s(&["histogram", &f]),
        s(&["histogram", &f, "--group-by", "package"]),
        s(&["histogram", &f, "--no-retained", "--top", "20"]),
        s(&["dominators", &f, "--depth", "3", "--top", "3"]),
        s(&["dominators", &f, "--flat", "--top", "10"]),
        s(&["threads", &f]),
        s(&["suspects", &f]),
        s(&["waste", &f]),
    ]
    .iter()
    .map(|a| run(a))
    .collect();
    // `path` and `inspect` on the top object of the tree and on one below it.
    let mut objects = Vec::new();
    if let Ok(d) = &runs[4].doc {
        if let Some(top) = d["objects"].get(0) {
            objects.extend(top["object"].as_str().map(String::from));
            objects.extend(top["children"][0]["object"].as_str().map(String::from));
        }
    }
    for o in objects {
        runs.push(run(&s(&["path", &f, &o])));
        runs.push(run(&s(&["inspect", &f, &o])));
    }
    runs
}

/// The commands compared across snapshots, on the fixtures' pairs and triples.
fn comparisons() -> Vec<Vec<String>> {
    let f = |r: &str| fixture(r).to_str().unwrap().to_string();
    let mut out = Vec::new();
    for (a, b) in [
        ("java/growth/base.hprof.gz", "java/growth/target.hprof.gz"),
        (
            "node/baseline.heapsnapshot.gz",
            "node/target.heapsnapshot.gz",
        ),
        ("dart/before.dartheap.gz", "dart/after.dartheap.gz"),
        ("go/heap.dump.gz", "go/leak/heap.dump.gz"),
    ] {
        out.push(vec!["diff".into(), f(a), f(b)]);
        out.push(vec![
            "diff".into(),
            f(a),
            f(b),
            "--owners".into(),
            "5".into(),
            "--sort".into(),
            "delta-retained".into(),
        ]);
    }
    for (a, b, c) in [
        (
            "node/baseline.heapsnapshot.gz",
            "node/target.heapsnapshot.gz",
            "node/final.heapsnapshot.gz",
        ),
        (
            "java/growth/base.hprof.gz",
            "java/growth/target.hprof.gz",
            "java/growth/target.hprof.gz",
        ),
    ] {
        out.push(vec!["leaks".into(), f(a), f(b), f(c)]);
    }
    out
}

#[test]
fn every_commands_output_on_every_fixture_is_valid_against_its_schema() {
    let dumps = dumps();
    assert!(dumps.len() >= 15, "{dumps:?}");
    // Two at a time: each run is a process, and the machine has two cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs: Vec<Run> = std::thread::scope(|s| {
        let work = || {
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Some(d) = dumps.get(i) {
                    mine.extend(runs_of(d));
                } else if let Some(c) = comparisons().get(i - dumps.len()) {
                    mine.push(run(c));
                } else {
                    return mine;
                }
            }
        };
        let a = s.spawn(work);
        let b = s.spawn(work);
        let mut all = a.join().unwrap();
        all.extend(b.join().unwrap());
        all
    });
    let mut validators = std::collections::HashMap::new();
    let (mut valid, mut invalid, mut failed) = (0, Vec::new(), Vec::new());
    let mut commands = std::collections::BTreeSet::new();
    for r in &runs {
        let command = r.args[0].clone();
        let doc = match &r.doc {
            Ok(d) => d,
            Err(e) => {
                failed.push(format!("{}: {e}", r.args.join(" ")));
                continue;
            }
        };
        assert_eq!(doc["schema_version"], 1, "{}", r.args.join(" "));
        let v = validators
            .entry(command.clone())
            .or_insert_with(|| validator(&command));
        let wrong = errors(v, doc);
        if wrong.is_empty() {
            valid += 1;
            commands.insert(command);
        } else {
            invalid.push(format!("{}: {wrong:?}", r.args.join(" ")));
        }
    }
    assert!(
        invalid.is_empty(),
        "documents against their schema: {invalid:#?}"
    );
    // The one dump that is not a heap snapshot (a zstd bomb) is refused: every other
    // run printed a document.
    assert!(
        failed.iter().all(|f| f.contains("zstd-bomb")),
        "runs that printed no document: {failed:#?}"
    );
    assert!(valid >= 200, "{valid} documents checked");
    let all: Vec<&str> = commands.iter().map(String::as_str).collect();
    assert_eq!(
        all,
        [
            "diff",
            "dominators",
            "histogram",
            "inspect",
            "leaks",
            "path",
            "summary",
            "suspects",
            "threads",
            "waste"
        ]
    );
    eprintln!("{valid} documents valid against their schemas");
}

/// What a broken document lacks, and how it is broken.
type Breakage = (&'static str, fn(&mut Value));

#[test]
fn documents_that_break_the_schema_fail_validation() {
    let f = fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let f = f.to_str().unwrap();
    let check = |command: &str, args: &[&str], breaks: &[Breakage]| {
        let v = validator(command);
        let doc = json_of(&heaptui(args));
        assert_eq!(
            errors(&v, &doc),
            Vec::<String>::new(),
            "{command} as printed"
        );
        for (what, break_it) in breaks {
            let mut bad = doc.clone();
            break_it(&mut bad);
            assert_ne!(bad, doc, "{command}: {what} changed nothing");
            assert!(
                !errors(&v, &bad).is_empty(),
                "{command} with {what} passed validation"
            );
        }
    };
    check(
        "histogram",
        &["histogram", f, "--json", "--top", "3"],
        &[
            ("another schema_version", |d| d["schema_version"] = 2.into()),
            ("no schema_version", |d| {
                d.as_object_mut().unwrap().remove("schema_version");
            }),
            ("a count as text", |d| {
                d["classes"][0]["count"] = "12".into()
            }),
            ("a negative count", |d| d["total"]["count"] = (-1).into()),
            ("no total", |d| {
                d.as_object_mut().unwrap().remove("total");
            }),
            ("an unknown key", |d| {
                d["classes"][1]["colour"] = "red".into()
            }),
            ("a row without its class", |d| {
                d["classes"][2].as_object_mut().unwrap().remove("class");
            }),
        ],
    );
    check(
        "dominators",
        &["dominators", f, "--json", "--depth", "3", "--top", "2"],
        &[
            ("a child without its retained size", |d| {
                d["objects"][0]["children"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("retained_bytes");
            }),
            ("children that are no list", |d| {
                d["objects"][0]["children"] = "none".into()
            }),
        ],
    );
    check(
        "summary",
        &["summary", f, "--json"],
        &[
            ("an unknown memory mode", |d| {
                d["memory_mode"] = serde_json::json!({"mode": "swap"})
            }),
            ("a float id size", |d| d["id_size"] = 4.5.into()),
        ],
    );
}
