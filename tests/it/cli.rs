//! The command line as `../shared/CLI.md` specifies it: JSON shapes, options, exit codes.

use crate::common;

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
    let classes = items(&v, "classes");
    assert_eq!(classes.len(), 5);
    for c in classes {
        assert!(c["class"].is_string() && c["count"].is_u64() && c["shallow_bytes"].is_u64());
        assert!(c["retained_bytes"].is_u64(), "{c}");
    }
    let counts: Vec<u64> = classes.iter().map(count).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    // The total covers every class, not only the top 5.
    let all = json_of(&heaptui(&["histogram", &dump(), "--json"]));
    let sum: u64 = items(&all, "classes").iter().map(count).sum();
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
    let want: u64 = items(&all, "classes").iter().map(count).sum();
    let g = json_of(&heaptui(&[
        "histogram",
        &dump(),
        "--json",
        "--group-by",
        "package",
    ]));
    let pkg = item(&g, "classes", "package", "dev.heaptui.fixture");
    assert_eq!(count(pkg), want);
}

#[test]
fn text_output_fits_80_columns_for_the_numbers() {
    let out = heaptui(&["histogram", &dump(), "--top", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("COUNT") && lines[0].contains("CLASS"));
    // Header, 3 rows, total, and the footnote of the † marks: byte[] has instances no
    // GC root reaches.
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines[1].ends_with("byte[]  †"), "{text}");
    assert!(
        lines[5].starts_with("† ") && lines[5].contains(" unreachable"),
        "{text}"
    );
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
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
    let err = summary_refused(
        "nometa.heapsnapshot",
        b"{\"snapshot\":{\"meta\":{}},\"nodes\":[],\"edges\":[],\"strings\":[]}",
    );
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
    let text = stdout_of(out);
    assert!(text.contains("evilRed"), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    let v = json_of(&heaptui(&["histogram", p.to_str().unwrap(), "--json"]));
    let names = common::histogram_classes(&v);
    assert!(names.contains(&name), "{names:?}");
    let s = summary_json(p.to_str().unwrap());
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
    for c in items(&v, "classes") {
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
    let util = item(&packages, "classes", "package", "java.util");
    let sum: u64 = items(&classes, "classes")
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

/// Issue 26: usage errors say what was meant. A misspelt command; three snapshots, which
/// the `leaks` command takes; `--class` with a class named without its package, checked
/// for every class the fixture program declares (`fixtures/java/leak/src`) against the
/// classes the JVM's own histogram lists (`histo-live-after.txt`): the one class whose
/// name ends in it is suggested, several are listed, none gives no guess.
#[test]
fn usage_errors_suggest_what_was_meant() {
    for (typo, meant) in [
        ("histgram", "histogram"),
        ("sumary", "summary"),
        ("lekas", "leaks"),
    ] {
        let err = stderr_of(&heaptui(&[typo, "f"]), 1);
        assert!(
            err.contains(&format!("did you mean `{meant}`?")),
            "{typo}: {err}"
        );
    }
    // With a command's flag after it, which clap alone would complain about.
    let err = stderr_of(&heaptui(&["histgram", "f", "--json"]), 1);
    assert!(err.contains("did you mean `histogram`?"), "{err}");
    let err = stderr_of(&heaptui(&["a.hprof", "b.hprof", "c.hprof"]), 1);
    assert!(err.contains("heaptui leaks BASELINE TARGET FINAL"), "{err}");

    let jvm: Vec<String> = parse_jcmd_histogram(
        &std::fs::read_to_string(fixture("java/leak/histo-live-after.txt")).unwrap(),
    )
    .into_iter()
    .map(|(name, _, _)| name)
    .collect();
    let dump = &fixture_arg("java/leak/heap-live.hprof.gz");
    let mut suggested = 0;
    let src = fixture("java/leak/src/com/example");
    for entry in std::fs::read_dir(src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let declared = text
            .split("class ")
            .skip(1)
            .filter_map(|rest| rest.split(|c: char| !c.is_alphanumeric()).next())
            .filter(|n| n.starts_with(char::is_uppercase));
        for short in declared {
            let ends: Vec<&String> = jvm
                .iter()
                .filter(|n| n.ends_with(&format!(".{short}")) || n.ends_with(&format!("${short}")))
                .collect();
            let err = stderr_of(&heaptui(&["inspect", dump, "--class", short]), 3);
            match ends.as_slice() {
                // Named, alone or among the classes without instances that end so
                // too (HPROF's class objects make them targets).
                [one] => {
                    assert!(err.contains(&format!("`{one}`")), "{short}: {err}");
                    suggested += usize::from(err.contains(&format!("did you mean `{one}`?")));
                }
                // No instance: HPROF's class objects make every class a target (its
                // statics), so the program's own class may be meant, none else.
                [] if err.contains("did you mean") => assert!(
                    err.contains(&format!("did you mean `com.example.{short}`?")),
                    "{short}: {err}"
                ),
                [] => {}
                several => {
                    for n in several {
                        assert!(err.contains(&format!("`{n}`")), "{short}: {err}");
                    }
                }
            }
        }
    }
    // Session, Listener, Index, EventBus and WorkerPool$Named have instances.
    assert!(suggested >= 5, "{suggested}");
}

/// Issue 26: `--group-by package` heads its column PACKAGE, and `leaks --help` describes
/// every argument and flag.
#[test]
fn package_rows_are_headed_package_and_leaks_help_describes_every_flag() {
    let out = heaptui(&["histogram", &dump(), "--group-by", "package", "--top", "3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let head = text.lines().next().unwrap();
    assert!(head.ends_with("  PACKAGE"), "{head}");
    let out = heaptui(&["histogram", &dump(), "--top", "3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().next().unwrap().ends_with("  CLASS"));

    let out = heaptui(&["leaks", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    let mut entries = 0;
    let mut section = "";
    for line in help.lines() {
        if line.ends_with(':') && !line.starts_with(' ') {
            section = line;
            continue;
        }
        if !matches!(section, "Arguments:" | "Options:") || line.trim().is_empty() {
            continue;
        }
        // `  <FINAL>  The snapshot …`, `      --json  Print …`: a name, then words.
        let item = line.trim_start();
        let name_end = item.find("  ").unwrap_or(item.len());
        let words = item[name_end..].trim();
        assert!(!words.is_empty(), "undescribed in leaks --help: {line}");
        entries += 1;
    }
    for name in [
        "<BASELINE>",
        "<TARGET>",
        "<FINAL>",
        "--json",
        "--top",
        "--internal",
    ] {
        assert!(help.contains(name), "{name} in\n{help}");
    }
    assert!(entries >= 7, "{help}");
}

/// Issue 39, bug 9: no `--help` says a default twice (`(default 50) [default: 50]`):
/// every command's help, the commands read from `heaptui --help`.
#[test]
fn no_help_says_a_default_twice() {
    let top = String::from_utf8(heaptui(&["--help"]).stdout).unwrap();
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 10, "{top}");
    let mut twice = Vec::new();
    for c in std::iter::once(None).chain(commands.iter().map(Some)) {
        let mut args: Vec<&str> = c.iter().map(|c| c.as_str()).collect();
        args.push("--help");
        let out = heaptui(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            if line.to_ascii_lowercase().matches("default").count() > 1 {
                twice.push(format!("{c:?}: {line}"));
            }
        }
    }
    assert!(twice.is_empty(), "{twice:#?}");
}

/// Issue 39, bug 9: a class name with one letter wrong (`LeakyEntyr`) gets a "did you
/// mean", by edit distance as cargo and git do: for every class the leak fixture's
/// program declares (`fixtures/java/leak/src`) that the JVM's histogram lists, its simple
/// name and its full name with the last two letters swapped.
#[test]
fn a_class_name_one_letter_off_gets_a_did_you_mean() {
    let jvm: Vec<String> = parse_jcmd_histogram(
        &std::fs::read_to_string(fixture("java/leak/histo-live-after.txt")).unwrap(),
    )
    .into_iter()
    .map(|(name, _, _)| name)
    .filter(|n| n.starts_with("com.example.") && !n.contains('$'))
    .collect();
    assert!(jvm.len() >= 4, "{jvm:?}");
    let dump = &fixture_arg("java/leak/heap-live.hprof.gz");
    let swap = |s: &str| {
        let mut c: Vec<char> = s.chars().collect();
        let n = c.len();
        c.swap(n - 1, n - 2);
        c.into_iter().collect::<String>()
    };
    for full in &jvm {
        let short = full.rsplit('.').next().unwrap();
        for typo in [swap(short), swap(full)] {
            let err = stderr_of(&heaptui(&["inspect", dump, "--class", &typo]), 3);
            assert!(
                err.contains("did you mean") && err.contains(&format!("`{full}`")),
                "{typo}: {err}"
            );
        }
    }
}

/// Issue 39, bug 9: `inspect --class` on a class with no instances shows its class
/// object (its static fields), as MAT does, and says on stderr that there is no
/// instance; exit 0. Truth: `fixtures/java/holders/stdout.txt` (what the program set the
/// statics of `holdout.Registry` to, read back by itself) and its histogram (0
/// instances).
#[test]
fn inspect_class_without_instances_shows_its_static_fields() {
    let truth = std::fs::read_to_string(fixture("java/holders/stdout.txt")).unwrap();
    let want = |k: &str| {
        truth
            .lines()
            .find_map(|l| l.strip_prefix(&format!("registry {k} ")))
            .unwrap()
            .to_string()
    };
    assert!(truth.lines().any(|l| l == "count holdout.Registry 0"));
    let dump = &fixture_arg("java/holders/heap-live.hprof.gz");
    let out = heaptui(&["inspect", dump, "--class", "holdout.Registry", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("no instances"), "{err}");
    let v = json_of(&out);
    assert_eq!(v["class"], "java.lang.Class", "{v}");
    for k in ["generation", "createdAt"] {
        assert_eq!(field(&v, k)["value"].to_string(), want(k), "{k}: {v}");
    }
    assert!(field(&v, "nothing")["value"].is_null(), "{v}");
    let name = field(&v, "NAME")["value"].as_str().unwrap().to_string();
    assert_eq!(
        inspect_json(dump, &name)["preview"].as_str(),
        Some(want("NAME").as_str())
    );
    let text = stdout_of(heaptui(&["inspect", dump, "--class", "holdout.Registry"]));
    assert!(text.contains("class holdout.Registry"), "{text}");
    assert!(
        line_with(&text, "generation").contains(&want("generation")),
        "{text}"
    );
}

/// Issue 39, bug 7: `TERM=dumb` (no cursor addressing) gets no TUI: a message that
/// points at the batch commands, exit 2, as `less` and `htop` refuse it.
#[test]
fn term_dumb_is_refused_with_the_batch_commands_named() {
    let dump = fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    let out = heaptui_command(&[&dump])
        .env("TERM", "dumb")
        .output()
        .unwrap();
    let err = stderr_of(&out, 2);
    assert!(err.contains("TERM=dumb"), "{err}");
    assert!(err.contains("heaptui summary FILE"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Issue 39, friction 3: `--goto` with a value that is neither an object, a class nor a
/// view is a usage error (exit 1) naming what it takes, before any terminal is needed.
#[test]
fn goto_with_a_bad_value_is_a_usage_error() {
    let dump = fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    for bad in ["view:nope", "HashMap", "class:"] {
        let err = stderr_of(&heaptui(&[&dump, "--goto", bad]), 1);
        assert!(err.contains("--goto"), "{bad}: {err}");
    }
    let err = stderr_of(&heaptui(&[&dump, "--goto", "view:nope"]), 1);
    assert!(
        err.contains("view:suspects") && err.contains("view:waste"),
        "{err}"
    );
    let err = stderr_of(&heaptui(&[&dump, &dump, "--goto", "@1"]), 1);
    assert!(err.contains("one snapshot"), "{err}");
}
