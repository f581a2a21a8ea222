//! The rooms of `src/` and the way imports run between them (issue 38; the picture in
//! `docs/architecture.md`). Read from the sources' own `crate::` paths (grouped ones,
//! `crate::{a, b}`, included): every top-level module has a rank, and may name only
//! modules of a lower rank, so that arrows only point down and no circle can form:
//!
//! | rank | modules |
//! |---|---|
//! | 0 | `error`, `text` (leaves) |
//! | 1 | `sys` (the floor) |
//! | 2 | `source`, `heap` |
//! | 3 | `cache` (stores and checks bytes) |
//! | 4 | `format` |
//! | 5 | `diff`, `leaks`, `suspects`, `waste` (the analyses) |
//! | 6 | `results` (every command's result as serde types), `session` (the one way from a path to an analysed snapshot) |
//! | 7 | `present` (what the front-ends both say), `query` (SQL over a snapshot: the engine the front-ends ask) |
//! | 8 | `cli`, `ui` (the front-ends) |
//!
//! Beside the ranks: the front-ends open dumps only through the session (they name
//! neither `cache` nor `source`) and name no format's own module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module's rank (see the module doc).
const RANKS: &[(&str, u8)] = &[
    ("error", 0),
    ("text", 0),
    ("sys", 1),
    ("source", 2),
    ("heap", 2),
    ("cache", 3),
    ("format", 4),
    ("diff", 5),
    ("leaks", 5),
    ("suspects", 5),
    ("waste", 5),
    ("results", 6),
    ("session", 6),
    ("present", 7),
    ("query", 7),
    ("cli", 8),
    ("ui", 8),
];

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

/// A source's code without its comments (line comments, doc comments included).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a source names after `crate::`: `crate::a::b` gives `a::b`, and a group
/// `crate::{a::b, c}` (over several lines too) gives `a::b` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect::<String>()
            .trim_end_matches("::")
            .to_string()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group, up to its closing brace.
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(ident(item.trim()));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// Every source of `src/` but `main.rs` and `lib.rs`: (path below `src/`, its code).
fn codes() -> Vec<(std::path::PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_path_buf();
            let text = std::fs::read_to_string(&f).unwrap();
            (rel, code_of(&text))
        })
        .filter(|(rel, _)| !matches!(module_of(rel).as_str(), "main" | "lib"))
        .collect()
}

/// For each top-level module, the top-level modules its code names as `crate::X`.
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, code) in codes() {
        let from = module_of(&rel);
        for p in crate_paths(&code) {
            let name = p.split("::").next().unwrap_or("").to_string();
            if name != from {
                out.entry(from.clone()).or_default().insert(name);
            }
        }
    }
    out
}

fn rank(m: &str) -> Option<u8> {
    RANKS.iter().find(|(n, _)| *n == m).map(|(_, r)| *r)
}

#[test]
fn the_scan_reads_grouped_and_multi_line_imports() {
    let code = code_of("use crate::{a::b, c,\n  d::{e, f}};\nlet x = crate::g::h(); // crate::i\n");
    assert_eq!(crate_paths(&code), ["a::b", "c", "d", "g::h"]);
}

#[test]
fn every_top_level_module_has_a_rank() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut unranked = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let m = name.trim_end_matches(".rs");
        if m != "main" && m != "lib" && rank(m).is_none() {
            unranked.push(m.to_string());
        }
    }
    assert!(
        unranked.is_empty(),
        "give these a rank in RANKS: {unranked:?}"
    );
}

#[test]
fn imports_only_point_down() {
    let uses = uses();
    let mut wrong = Vec::new();
    for (from, tos) in &uses {
        for to in tos {
            match (rank(from), rank(to)) {
                (Some(a), Some(b)) if b < a => {}
                _ => wrong.push(format!("{from} → {to}")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that do not point down the ranks: {wrong:?}\nall: {uses:#?}"
    );
    // The scan sees the imports it is about.
    assert!(
        uses["cli"].contains("session")
            && uses["ui"].contains("session")
            && uses["session"].contains("cache")
            && uses["session"].contains("format")
            && uses["cache"].contains("heap")
            && uses["heap"].contains("sys"),
        "{uses:#?}"
    );
}

/// No circle among the top-level modules, whatever their ranks say: found by a walk of
/// the imports themselves.
#[test]
fn no_circle_among_top_level_modules() {
    let uses = uses();
    fn walk<'a>(
        m: &'a str,
        uses: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        circles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == m) {
            circles.push(format!("{} → {m}", path[at..].join(" → ")));
            return;
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        for to in uses.get(m).into_iter().flatten() {
            walk(to, uses, path, done, circles);
        }
        path.pop();
    }
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for m in uses.keys() {
        walk(m, &uses, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(circles.is_empty(), "circles: {circles:?}");
}

/// The front-ends open a dump only through the session: neither names the cache or
/// the source, and neither names a format's own module (`format::hprof`, …): what a
/// format offers is asked of the listing (`Format::quick_histogram`, …).
#[test]
fn the_front_ends_open_dumps_only_through_the_session() {
    let formats = ["hprof", "v8", "go", "moarvm", "dart"];
    let mut wrong = Vec::new();
    for (rel, code) in codes() {
        let m = module_of(&rel);
        if m != "cli" && m != "ui" {
            continue;
        }
        for p in crate_paths(&code) {
            let mut parts = p.split("::");
            let (top, next) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            if top == "cache" || top == "source" || (top == "format" && formats.contains(&next)) {
                wrong.push(format!("{}: crate::{p}", rel.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "front-ends past the session: {wrong:#?}");
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

/// The module path of a source below `src/` (`ui/app/diff.rs` → `ui::app::diff`,
/// `heap/dominators/mod.rs` → `heap::dominators`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// No two modules of one folder import each other, at any depth (a module and one
/// inside it may: a child uses its parent's items): the circles issue 38 found were
/// `format/hprof/decode.rs ↔ labels.rs`, `ui/app.rs ↔ ui/diff.rs`, `ui/job.rs ↔
/// ui/panes/mod.rs`. `crate::` and `super::` paths are resolved to the deepest module
/// they name.
#[test]
fn no_two_modules_of_a_folder_import_each_other() {
    let codes = codes();
    let modules: BTreeSet<Vec<String>> = codes.iter().map(|(rel, _)| module_path(rel)).collect();
    let deepest = |path: Vec<String>| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut uses: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (rel, code) in &codes {
        let me = module_path(rel);
        let mut named = Vec::new();
        for p in crate_paths(code) {
            named.extend(deepest(p.split("::").map(String::from).collect()));
        }
        for (i, _) in code.match_indices("super::") {
            if code[..i].ends_with("super::") {
                continue; // counted from the first of a run
            }
            let rest = &code[i..];
            let ups = rest.matches("super::").count().min(
                rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .matches("super::")
                    .count(),
            );
            let tail: String = rest["super::".len() * ups..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            // `super` of `a::b::c` is `a::b`, whether `c` is `c.rs` or `c/mod.rs`.
            let base_len = me.len().saturating_sub(ups);
            let mut path: Vec<String> = me[..base_len].to_vec();
            path.extend(tail.split("::").filter(|s| !s.is_empty()).map(String::from));
            named.extend(deepest(path));
        }
        for n in named {
            if n != me {
                uses.entry(me.clone()).or_default().insert(n);
            }
        }
    }
    let related = |a: &Vec<String>, b: &Vec<String>| a.starts_with(b) || b.starts_with(a);
    let mut both = Vec::new();
    for (a, tos) in &uses {
        for b in tos {
            if a < b && !related(a, b) && uses.get(b).is_some_and(|t| t.contains(a)) {
                both.push(format!("{} ↔ {}", a.join("::"), b.join("::")));
            }
        }
    }
    assert!(both.is_empty(), "modules importing each other: {both:?}");
    // The scan sees what it is about.
    assert!(
        uses[&vec!["ui".to_string(), "app".to_string()]].contains(&vec![
            "ui".to_string(),
            "app".to_string(),
            "diff".to_string()
        ])
    );
}
