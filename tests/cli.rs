//! The command line as `../shared/CLI.md` specifies it: JSON shapes, options, exit codes.

mod common;

use common::*;

const DUMP: &str = "java/coops/heap-live-jvmgz.hprof.gz";

fn dump() -> String {
    fixture(DUMP).to_str().unwrap().to_string()
}

#[test]
fn histogram_json_shape_sort_top_filter() {
    let v = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--sort",
        "count",
        "--top",
        "5",
    ]));
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 5);
    for c in classes {
        assert!(c["class"].is_string() && c["count"].is_u64() && c["shallow_bytes"].is_u64());
        assert!(c["retained_bytes"].is_u64(), "{c}");
    }
    let counts: Vec<u64> = classes
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    // The total covers every class, not only the top 5.
    let all = json_of(&heaptui(&["histogram", &dump(), "--json"]));
    let sum: u64 = all["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    assert_eq!(v["total"]["count"].as_u64().unwrap(), sum);

    let f = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--filter",
        "HEAPTUI.FIXTURE",
    ]));
    let names = common::histogram_classes(&f);
    assert!(names.contains(&"dev.heaptui.fixture.Session"));
    assert!(
        names.iter().all(|n| n.starts_with("dev.heaptui.fixture.")),
        "{names:?}"
    );
    // Sorted by shallow bytes by default: BlobHolder's 3 MB byte[] makes byte[] first.
    assert_eq!(all["classes"][0]["class"], "byte[]");
}

#[test]
fn group_by_package_sums_the_classes() {
    let all = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--filter",
        "dev.heaptui.fixture",
    ]));
    let want: u64 = all["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    let g = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--group-by",
        "package",
    ]));
    let pkg = g["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["package"] == "dev.heaptui.fixture")
        .expect("package row");
    assert_eq!(pkg["count"].as_u64().unwrap(), want);
}

#[test]
fn text_output_fits_80_columns_for_the_numbers() {
    let out = heaptui(&["histogram", &dump(), "--top", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("COUNT") && lines[0].contains("CLASS"));
    assert_eq!(lines.len(), 5, "header, 3 rows, total");
    assert!(lines[1].ends_with("byte[]"));
    let s = heaptui(&["summary", &dump()]);
    let text = String::from_utf8(s.stdout).unwrap();
    assert!(text.contains("objects") && text.contains("hprof"));
}

#[test]
fn exit_codes() {
    // 1: usage errors (clap's own would be 2, which the contract gives to bad files).
    assert_eq!(
        heaptui(&["histogram", &dump(), "--sort", "bogus"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(heaptui(&["summary"]).status.code(), Some(1));
    assert_eq!(
        heaptui(&["histogram", &dump(), "--sort", "retained", "--no-retained"])
            .status
            .code(),
        Some(1)
    );
    // 0: help.
    assert_eq!(heaptui(&["--help"]).status.code(), Some(0));
    // The TUI refuses to start without a terminal, as a usage error.
    assert_eq!(heaptui(&[&dump()]).status.code(), Some(1));
}

#[test]
fn a_v8_header_without_its_fields_exits_2_naming_what_is_missing() {
    let p = scratch().join("nometa.heapsnapshot");
    std::fs::write(
        &p,
        b"{\"snapshot\":{\"meta\":{}},\"nodes\":[],\"edges\":[],\"strings\":[]}",
    )
    .unwrap();
    let out = heaptui(&["summary", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("meta.node_fields") && err.contains("byte offset 12"),
        "{err}"
    );
}

#[test]
fn class_names_with_escape_sequences_are_cleaned_in_text_output() {
    // A hand-made HPROF whose only class name carries an OSC 52 clipboard write and a
    // colour change: the text table must not pass them to the terminal; JSON keeps the
    // exact name, escaped by JSON.
    let p = evil_hprof();
    let name = EVIL_CLASS;
    let out = heaptui(&["histogram", p.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("evilRed"), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    let v = json_of(&heaptui(&["histogram", p.to_str().unwrap(), "--json"]));
    let names = common::histogram_classes(&v);
    assert!(names.contains(&name), "{names:?}");
    let s = json_of(&heaptui(&["summary", p.to_str().unwrap(), "--json"]));
    assert_eq!(s["objects"], 2);
    assert_eq!(s["roots"], 1);
    assert!(s["truncated"].is_null());
}

#[test]
fn no_retained_skips_the_dominator_tree() {
    let v = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--no-retained",
        "--sort",
        "count",
        "--top",
        "3",
    ]));
    for c in v["classes"].as_array().unwrap() {
        assert!(c["retained_bytes"].is_null(), "{c}");
    }
    // Package rows get retained sizes by the same rule as classes, over the package
    // grouping: never more than the classes' sum (a HashMap and the HashMap$Nodes it
    // retains are both java.util, and are counted once).
    let classes = json_of(&heaptui(&["histogram", &dump(), "--json"]));
    let packages = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--group-by",
        "package",
    ]));
    let util = packages["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["package"] == "java.util")
        .unwrap();
    let sum: u64 = classes["classes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            heaptui::heap::histogram::package_of(c["class"].as_str().unwrap()) == "java.util"
        })
        .map(|c| c["retained_bytes"].as_u64().unwrap())
        .sum();
    let pr = util["retained_bytes"].as_u64().unwrap();
    assert!(pr >= util["shallow_bytes"].as_u64().unwrap());
    assert!(pr < sum, "package {pr} vs classes' sum {sum}");
}
