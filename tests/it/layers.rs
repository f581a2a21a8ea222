//! The import layers (issue 29): `main → cli | ui → (findings, diff, present) → heap ←
//! cache ← format`. Read from the sources' own `crate::` paths: a top-level module may
//! only name the modules its layer allows, so that neither the CLI nor the TUI imports
//! the other, the model knows no format, and the cache knows no format either (a sixth
//! format touches only `src/format/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level module a source file belongs to (`src/ui/panes/tree.rs` → `ui`).
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_string()
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// For each top-level module, the top-level modules its code names as `crate::X`.
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let from = module_of(rel);
        if from == "main" || from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != from {
                    out.entry(from.clone()).or_default().insert(name);
                }
            }
        }
    }
    out
}

#[test]
fn imports_flow_one_way() {
    let uses = uses();
    // What each layer must not name.
    let forbidden: &[(&str, &[&str])] = &[
        ("cli", &["ui"]),
        ("ui", &["cli"]),
        (
            "heap",
            &[
                "format", "cli", "ui", "cache", "suspects", "waste", "leaks", "present", "diff",
            ],
        ),
        (
            "format",
            &["cli", "ui", "suspects", "waste", "leaks", "present", "diff"],
        ),
        (
            "cache",
            &[
                "format", "cli", "ui", "suspects", "waste", "leaks", "present", "diff",
            ],
        ),
        ("suspects", &["cli", "ui"]),
        ("waste", &["cli", "ui"]),
        ("leaks", &["cli", "ui"]),
        ("present", &["cli", "ui"]),
        ("diff", &["cli", "ui"]),
        ("text", &["cli", "ui", "format", "heap"]),
    ];
    let mut wrong = Vec::new();
    for (from, bad) in forbidden {
        for to in uses.get(*from).into_iter().flatten() {
            if bad.contains(&to.as_str()) {
                wrong.push(format!("{from} → {to}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers: {wrong:?}\nall: {uses:#?}"
    );
    // The scan sees the imports it is about.
    assert!(
        uses["cli"].contains("format")
            && uses["ui"].contains("heap")
            && uses["format"].contains("cache")
            && uses["cache"].contains("heap"),
        "{uses:#?}"
    );
}

#[test]
fn no_two_top_level_modules_import_each_other() {
    let uses = uses();
    let mut both = Vec::new();
    for (a, tos) in &uses {
        for b in tos {
            if a < b && uses.get(b).is_some_and(|t| t.contains(a)) {
                both.push(format!("{a} ↔ {b}"));
            }
        }
    }
    assert!(both.is_empty(), "modules importing each other: {both:?}");
}

#[test]
fn no_source_file_is_over_800_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 800).then(|| format!("{} ({n})", f.display()))
        })
        .collect();
    assert!(files.len() > 50, "{files:?}");
    assert!(long.is_empty(), "split by concept: {long:?}");
}

/// A sixth format touches only `src/format/<new>/` and the listings in
/// `src/format/mod.rs`: no other source file names one format (`Format::Hprof`, …) to
/// branch on it; what differs between runtimes is asked of the format (its `roles.rs`,
/// its `need.rs`).
#[test]
fn only_the_formats_and_their_listing_name_a_format() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let formats = ["Hprof", "V8", "Go", "MoarVm", "Dart"];
    let mut naming = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        // src/format/mod.rs lists them; src/format/<fmt>/… is the format itself.
        if parts[0] == "format" && (parts.len() > 2 || parts[1] == "mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if formats
                .iter()
                .any(|x| line.contains(&format!("Format::{x}")))
            {
                naming.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(files.len() > 50, "{files:?}");
    assert!(
        naming.is_empty(),
        "formats named outside src/format: {naming:#?}"
    );
}

/// The top-level `fn` items of a Rust source, as (name, is a test, body).
fn functions(text: &str) -> Vec<(String, bool, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(rest) = lines[i].strip_prefix("fn ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let test = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
                .any(|l| l.starts_with("#[test]"));
            let end = (i..lines.len())
                .find(|&j| lines[j] == "}")
                .unwrap_or(lines.len() - 1);
            out.push((name, test, lines[i..=end].join("\n")));
            i = end;
        }
        i += 1;
    }
    out
}

/// The test binaries as Cargo finds them: `tests/NAME.rs`, and `tests/NAME/main.rs` with
/// its modules (every `.rs` file under `tests/NAME/`); each with its files.
fn test_binaries() -> Vec<(String, Vec<PathBuf>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if p.join("main.rs").exists() {
                let mut files = Vec::new();
                sources(&p, &mut files);
                files.sort();
                out.push((name, files));
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((name, vec![p]));
        }
    }
    out.sort();
    out
}

/// The DESIGN's habit (ripgrep's `tests/tests.rs`): a few test binaries with modules,
/// not one per file, each of which links the whole crate (35 of them took 1.4 GB of
/// test executables, and a CI run ran out of disk). A file directly in `tests/` is a
/// binary of its own only when it installs its own `#[global_allocator]` (one per
/// binary, and its measurements take a gate). And since the tests of one binary share
/// the process's environment (the programs they run inherit it), only the binaries made
/// for it set `HEAPTUI_*` variables in the process: `tests/cache/`, `tests/no_cache/`
/// and the counting binaries; never the plain ones (`it`, `tui`) nor their helpers.
#[test]
fn the_tests_are_a_few_binaries() {
    let bins = test_binaries();
    let names: Vec<&str> = bins.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"it") && names.contains(&"tui") && bins.len() <= 8,
        "{names:?}"
    );
    // Spelt in two parts, so that this file does not name them.
    let sets = |t: &str| {
        ["set", "remove"]
            .iter()
            .any(|x| t.contains(&format!("env::{x}_var(")))
    };
    let mut alone = Vec::new();
    let mut setting = Vec::new();
    for (name, files) in &bins {
        let text = |f: &PathBuf| std::fs::read_to_string(f).unwrap();
        if files.len() == 1
            && !text(&files[0])
                .lines()
                .any(|l| l.starts_with("#[global_allocator]"))
        {
            alone.push(name.clone());
        }
        if name == "it" || name == "tui" {
            for f in files {
                if sets(&text(f)) {
                    setting.push(f.display().to_string());
                }
            }
        }
    }
    let common = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common");
    let mut helpers = Vec::new();
    sources(&common, &mut helpers);
    assert!(helpers.len() >= 4, "{helpers:?}");
    for f in helpers {
        let t = std::fs::read_to_string(&f).unwrap();
        if sets(&t) {
            setting.push(f.display().to_string());
        }
    }
    assert!(
        alone.is_empty(),
        "test files that are binaries of their own without a global allocator (make \
         them modules of tests/it/ or tests/tui/): {alone:?}"
    );
    assert!(
        setting.is_empty(),
        "tests that set the shared process's environment: {setting:?}"
    );
}

/// A test binary that counts allocations (`tests/common/counting.rs`) measures one call
/// at a time, and every other test of it must hold the gate meanwhile, or what it
/// allocates is counted in the measurement: the V8 bound test that read three snapshots
/// without it made the HPROF segments' measurement fail one run in eight. Every test of
/// such a binary takes `shared()` or `measure(…)`, directly or through a helper of the
/// same file that does.
#[test]
fn every_test_of_a_counting_binary_holds_the_gate() {
    let mut counting = 0;
    let mut ungated = Vec::new();
    for (_, files) in test_binaries() {
        let texts: Vec<(PathBuf, String)> = files
            .iter()
            .map(|f| (f.clone(), std::fs::read_to_string(f).unwrap()))
            .collect();
        if !texts.iter().any(|(_, text)| {
            text.lines()
                .any(|l| l.starts_with("static ALLOC: Counting"))
        }) {
            continue;
        }
        counting += 1;
        // The helpers of every file of the binary (a test may call one of another module).
        let fns: Vec<(PathBuf, (String, bool, String))> = texts
            .iter()
            .flat_map(|(f, text)| functions(text).into_iter().map(move |x| (f.clone(), x)))
            .collect();
        let mut gates: Vec<String> = vec!["shared()".into(), "measure(".into()];
        // Helpers that take the gate, and helpers of those.
        loop {
            let more: Vec<String> = fns
                .iter()
                .filter(|(_, (n, t, body))| {
                    !t && !gates.contains(&format!("{n}("))
                        && gates.iter().any(|g| body.contains(g.as_str()))
                })
                .map(|(_, (n, _, _))| format!("{n}("))
                .collect();
            if more.is_empty() {
                break;
            }
            gates.extend(more);
        }
        for (f, (n, test, body)) in &fns {
            if *test && !gates.iter().any(|g| body.contains(g.as_str())) {
                ungated.push(format!("{}: {n}", f.display()));
            }
        }
    }
    assert!(counting >= 2, "no counting test binaries found");
    assert!(ungated.is_empty(), "tests without the gate: {ungated:#?}");
}
