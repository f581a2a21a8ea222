//! Real HPROF variants from other projects (`../shared/corpus`): Android ART 1.0.3 and
//! older JVMs (1.0.1 single HEAP DUMP records, 4-byte ids, the JVMTI agent). They carry
//! no ground-truth histograms, so these tests check what their sources state (id size,
//! version, record counts) and that the counts are plausible. Skipped with a message when
//! `../shared` is absent.

use crate::common;

use common::*;

fn summary(p: &std::path::Path) -> serde_json::Value {
    summary_json(p.to_str().unwrap())
}

#[test]
fn android_dumps_open_with_plausible_counts() {
    for name in [
        "android/leak_service_binder.hprof",
        "android/leak_service_binder_ignored.hprof",
    ] {
        let Some(p) = corpus(name) else { return };
        let v = summary(&p);
        assert_eq!(v["format_version"], "JAVA PROFILE 1.0.3");
        assert_eq!(v["id_size"], 4);
        assert!(v["truncated"].is_null(), "{name}: {}", v["truncated"]);
        let objects = v["objects"].as_u64().unwrap();
        assert!(
            (30_000..100_000).contains(&objects),
            "{name}: {objects} objects in a 3.7 MB dump"
        );
        // ART makes every class a sticky root and interns thousands of strings.
        assert!(v["roots"].as_u64().unwrap() > 5_000);
        assert!(v["classes"].as_u64().unwrap() > 500);
        assert!(v["threads"].as_u64().unwrap() >= 1);
        assert_eq!(v["details"]["heaps"], "zygote, app");
        // ART's class dumps give real sizes: a 3.7 MB file holds a few MB of heap.
        let shallow = v["shallow_bytes"].as_u64().unwrap();
        assert!((1_000_000..8_000_000).contains(&shallow), "{shallow}");
        // Nearly everything in a heap dump is reachable from the roots.
        assert!(v["reachable_objects"].as_u64().unwrap() * 100 > objects * 95);

        let h = json_of(&heaptui(&[
            "histogram",
            p.to_str().unwrap(),
            "--json",
            "--sort",
            "count",
        ]));
        let classes = h["classes"].as_array().unwrap();
        let get = |n: &str| {
            classes
                .iter()
                .find(|c| c["class"] == n)
                .map(|c| c["count"].as_u64().unwrap())
        };
        // Pre-N strings: a String and its char[] (NOTES §2a: char[] is the largest array
        // population).
        let strings = get("java.lang.String").unwrap();
        let chars = get("char[]").unwrap();
        assert!(
            strings > 1_000 && chars >= strings / 2,
            "{strings} strings, {chars} char[]"
        );
        assert!(
            classes
                .iter()
                .all(|c| !c["class"].as_str().unwrap().contains('/')),
            "names are in Java form"
        );
    }
}

#[test]
fn old_jvm_dumps_open() {
    // (file, version, id size, class dumps stated by SOURCES.md or 0 when not stated)
    let cases = [
        ("hprof/sun_jdk6_18_x32.hprof", "JAVA PROFILE 1.0.1", 4, 0),
        ("hprof/sun_jdk5_64bit.hprof", "JAVA PROFILE 1.0.1", 8, 0),
        ("hprof/jdk8u-jhat-hprof-32.bin", "JAVA PROFILE 1.0.1", 4, 0),
        ("hprof/netbeans-heap_dump.bin", "JAVA PROFILE 1.0.1", 8, 474),
        ("hprof/RI.hprof", "JAVA PROFILE 1.0.2", 4, 0),
    ];
    for (name, version, id, class_dumps) in cases {
        let Some(p) = corpus(name) else { return };
        let v = summary(&p);
        assert_eq!(v["format_version"], version, "{name}");
        assert_eq!(v["id_size"], id, "{name}");
        assert!(v["truncated"].is_null(), "{name}");
        assert!(v["objects"].as_u64().unwrap() > 1_000, "{name}");
        assert!(
            v["edges"].as_u64().unwrap() > v["objects"].as_u64().unwrap() / 2,
            "{name}"
        );
        if class_dumps > 0 {
            assert_eq!(
                v["details"]["class dumps"],
                class_dumps.to_string(),
                "{name}"
            );
        }
        let warnings: Vec<String> = v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect();
        assert!(
            warnings.iter().all(|w| !w.contains("unreadable")),
            "{name}: {warnings:?}"
        );
    }
}

/// Follows static and instance fields by name from the class object of `class`, through
/// the library, and returns the preview of the object at the end.
fn preview_via(path: &std::path::Path, class: &str, fields: &[&str]) -> Option<String> {
    use heaptui::format::Value;
    let snap = heaptui::open(path, &heaptui::sys::progress::Progress::new()).unwrap();
    let want = format!("class {class}");
    let mut o = (0..snap.graph.len() as u32)
        .find(|&o| {
            snap.class_name(o) == "java.lang.Class" && snap.label(o).as_deref() == Some(&want)
        })
        .unwrap_or_else(|| panic!("no class object for {class}"));
    for f in fields {
        let ins = snap.inspect(o);
        assert!(ins.problems.is_empty(), "{:?}", ins.problems);
        o = match ins.fields.iter().find(|x| x.name == *f).map(|x| &x.value) {
            Some(Value::Object(next)) => *next,
            other => panic!("{class}: field {f} is {other:?}"),
        };
    }
    snap.inspect(o).preview
}

#[test]
fn strings_of_art_and_of_a_32_bit_jdk6_decode() {
    // ART (char[] values written by ART's hprof writer): libcore's time-zone table, whose
    // first entry is IANA zone.tab's first line.
    if let Some(p) = corpus("android/leak_service_binder.hprof") {
        let s = preview_via(&p, "libcore.util.ZoneInfoDB", &["DATA", "zoneTab"]).unwrap();
        assert!(s.starts_with("AD\t+4230+00131\tEurope/Andorra\n"), "{s:?}");
    }
    // JDK 6, 32-bit: String = char[] value + offset + count. EnvHelp's list of hidden
    // attributes is a literal in the JDK's source, starting with these two.
    if let Some(p) = corpus("hprof/sun_jdk6_18_x32.hprof") {
        let s = preview_via(
            &p,
            "com.sun.jmx.remote.util.EnvHelp",
            &["DEFAULT_HIDDEN_ATTRIBUTES"],
        )
        .unwrap();
        assert!(
            s.starts_with("java.naming.security.* jmx.remote.authenticator "),
            "{s:?}"
        );
    }
}
