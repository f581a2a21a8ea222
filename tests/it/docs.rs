//! What a user reads and installs beside the binary (issue 38), checked against the built
//! binary so that it stays true:
//! - `docs/cli.md` has a section for every command the binary has and no other, each
//!   naming exactly its command's long options (as `heaptui COMMAND --help` lists them),
//!   names no option the binary lacks anywhere, and its JSON examples have the keys of
//!   the real output of the command each names, run on the bundled fixtures;
//! - README.md and `docs/` link to, and the README names, only files that exist; the
//!   README's keys are keys the TUI binds; neither points at a folder outside the
//!   repository;
//! - `heaptui completions SHELL` and `heaptui man` print scripts and a page that name
//!   every command (and, for the man page, every option).

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Output;

/// Runs the real binary (private cache directory, no memory settings from the
/// environment) from the repository's root, so that the examples' relative paths work.
fn run(args: &[&str]) -> Output {
    common::heaptui_command(args)
        .current_dir(common::root())
        .env_remove("HEAPTUI_ON_DISK")
        .env_remove("HEAPTUI_MEMORY_LIMIT")
        .env_remove("HEAPTUI_IGNORE_MEMORY")
        .env_remove("HEAPTUI_NO_CACHE")
        .output()
        .expect("run heaptui")
}

fn stdout_ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "heaptui {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(common::root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The lines of the block of `--help` output that starts with `title` (`Commands:`,
/// `Options:`), up to the next blank line.
fn help_block<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// The commands `heaptui --help` lists, less clap's `help`.
fn commands() -> Vec<String> {
    let help = stdout_ok(&["--help"]);
    let names: Vec<String> = help_block(&help, "Commands:")
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    assert!(names.len() >= 12, "{help}");
    names
}

/// The long options of a `--help` output's `Options:` block (`--sort`, `--no-cache`).
fn help_options(help: &str) -> BTreeSet<String> {
    help_block(help, "Options:")
        .iter()
        // An option's own line, not its help wrapped onto the next: `  -h, --help`,
        // `      --json`.
        .filter(|l| l.trim_start().starts_with('-') && l.len() - l.trim_start().len() <= 6)
        .flat_map(|l| l.split_whitespace().take(2))
        .filter(|w| w.starts_with("--"))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

/// The options `heaptui` itself takes (`--no-cache`, `--help`, `--version`), which every
/// command takes too.
fn global_options() -> BTreeSet<String> {
    let o = help_options(&stdout_ok(&["--help"]));
    assert!(o.contains("--no-cache") && o.contains("--version"), "{o:?}");
    o
}

fn command_options(cmd: &str) -> BTreeSet<String> {
    help_options(&stdout_ok(&[cmd, "--help"]))
}

/// Every `--word` in `text`: a long option as the docs write one.
fn options_in(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("--") {
        let before_ok = i == 0 || !(b[i - 1] == b'-' || b[i - 1].is_ascii_alphanumeric());
        let word: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if before_ok && word.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(format!("--{}", word.trim_end_matches('-')));
        }
    }
    out
}

/// docs/cli.md's command sections: (command, the section's text), from each heading
/// "### `heaptui COMMAND`" to the next heading.
fn sections(md: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in md.lines() {
        if line.starts_with('#') {
            out.extend(current.take());
            if let Some(rest) = line.strip_prefix("### `heaptui ") {
                let name = rest.trim_end_matches('`').to_string();
                current = Some((name, String::new()));
            }
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out.extend(current);
    out
}

#[test]
fn cli_md_has_a_section_for_every_command_and_no_other() {
    let md = read("docs/cli.md");
    let documented: Vec<String> = sections(&md).into_iter().map(|(c, _)| c).collect();
    let mut want = commands();
    let mut have = documented.clone();
    want.sort();
    have.sort();
    assert_eq!(
        have, want,
        "docs/cli.md's command sections against `heaptui --help`"
    );
    // The scan sees what it is about.
    assert!(want.contains(&"histogram".to_string()) && want.contains(&"man".to_string()));
}

#[test]
fn each_command_section_names_exactly_its_command_s_options() {
    let md = read("docs/cli.md");
    let global = global_options();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (cmd, text) in sections(&md) {
        let own: BTreeSet<String> = command_options(&cmd).difference(&global).cloned().collect();
        let named = options_in(&text);
        let missing: Vec<&String> = own.difference(&named).collect();
        let foreign: Vec<&String> = named
            .iter()
            .filter(|o| !own.contains(*o) && !global.contains(*o))
            .collect();
        if !missing.is_empty() || !foreign.is_empty() {
            wrong.push(format!(
                "{cmd}: not documented {missing:?}; not options of {cmd} {foreign:?}"
            ));
        }
        checked += own.len();
    }
    assert!(wrong.is_empty(), "docs/cli.md: {wrong:#?}");
    assert!(checked >= 20, "only {checked} options seen");
}

#[test]
fn cli_md_names_every_global_option_and_no_option_the_binary_lacks() {
    let md = read("docs/cli.md");
    let global = global_options();
    let mut all = global.clone();
    for c in commands() {
        all.extend(command_options(&c));
    }
    let named = options_in(&md);
    let unknown: Vec<&String> = named.difference(&all).collect();
    assert!(
        unknown.is_empty(),
        "docs/cli.md names options the binary lacks: {unknown:?}"
    );
    let undocumented: Vec<&String> = all.difference(&named).collect();
    assert!(
        undocumented.is_empty(),
        "options docs/cli.md does not name: {undocumented:?}"
    );
    // The scanner finds options in the docs' spellings and only there.
    assert_eq!(
        options_in("`--top N`, --group-by; a--b, ---, --X, ---json"),
        ["--group-by", "--top"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

/// The shape of a JSON document: every key path (`.classes[].count`), with a `null`
/// leaf's path marked so that it can stand for an object or an array elsewhere.
fn shape(v: &serde_json::Value, at: String, out: &mut BTreeSet<String>, nulls: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            out.insert(format!("{at}{{}}"));
            for (k, x) in m {
                shape(x, format!("{at}.{k}"), out, nulls);
            }
        }
        serde_json::Value::Array(a) => {
            out.insert(format!("{at}[]"));
            for x in a {
                shape(x, format!("{at}[]"), out, nulls);
            }
        }
        serde_json::Value::Null => nulls.push(at),
        _ => {
            out.insert(at);
        }
    }
}

/// The key paths of `v`, less those under a path that is `null` in `v` or in `other`
/// (a `"truncated": null` here is an offset there; an owner's `"base_entries"` a number
/// or `null`).
fn comparable_shape(v: &serde_json::Value, other: &serde_json::Value) -> BTreeSet<String> {
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    let (mut na, mut nb) = (Vec::new(), Vec::new());
    shape(v, String::new(), &mut a, &mut na);
    shape(other, String::new(), &mut b, &mut nb);
    let nulls: Vec<&String> = na.iter().chain(&nb).collect();
    a.into_iter()
        .filter(|p| {
            !nulls.iter().any(|n| {
                p == *n
                    || p.strip_prefix(n.as_str())
                        .is_some_and(|r| r.starts_with(['.', '[', '{']))
            })
        })
        .collect()
}

/// docs/cli.md's JSON examples: (the command line it names, the document).
fn json_examples(md: &str) -> Vec<(Vec<String>, serde_json::Value)> {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if *l != "```json" {
            continue;
        }
        let intro = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap();
        let cmd = intro
            .strip_prefix("From `heaptui ")
            .and_then(|r| r.strip_suffix("`:"))
            .unwrap_or_else(|| {
                panic!("a JSON example must follow \"From `heaptui …`:\", not {intro:?}")
            });
        let end = i + 1 + lines[i + 1..].iter().position(|l| *l == "```").unwrap();
        let text = lines[i + 1..end].join("\n");
        let doc: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the example of `heaptui {cmd}` is not JSON: {e}"));
        out.push((cmd.split_whitespace().map(str::to_string).collect(), doc));
    }
    out
}

#[test]
fn cli_md_json_examples_have_the_keys_of_the_real_output() {
    let md = read("docs/cli.md");
    let examples = json_examples(&md);
    let mut wrong = Vec::new();
    let mut shown = BTreeSet::new();
    for (args, doc) in &examples {
        assert!(args.iter().any(|a| a == "--json"), "{args:?}");
        shown.insert(args[0].clone());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let real: serde_json::Value = serde_json::from_str(&stdout_ok(&argv))
            .unwrap_or_else(|e| panic!("heaptui {argv:?}: not JSON: {e}"));
        let (d, r) = (comparable_shape(doc, &real), comparable_shape(&real, doc));
        let undocumented: Vec<&String> = r.difference(&d).collect();
        let gone: Vec<&String> = d.difference(&r).collect();
        if !undocumented.is_empty() || !gone.is_empty() {
            wrong.push(format!(
                "heaptui {}: keys not in the example {undocumented:?}; in the example, not in the output {gone:?}",
                args.join(" ")
            ));
        }
        // A real comparison: the documents have keys below their top level (or, for
        // `query`, rows that are arrays of values).
        assert!(
            r.iter()
                .any(|p| p.matches('.').count() >= 2 || p.ends_with("[][]")),
            "{args:?}: {r:?}"
        );
    }
    assert!(wrong.is_empty(), "docs/cli.md's JSON examples: {wrong:#?}");
    // Every command that prints JSON has an example.
    let with_json: BTreeSet<String> = commands()
        .into_iter()
        .filter(|c| command_options(c).contains("--json"))
        .collect();
    let missing: Vec<&String> = with_json.difference(&shown).collect();
    assert!(
        missing.is_empty(),
        "commands with --json but no example: {missing:?}"
    );
    assert!(with_json.len() >= 10, "{with_json:?}");
}

#[test]
fn the_shape_comparison_sees_a_missing_key_and_passes_nulls() {
    let a = serde_json::json!({"objects": [{"object": "0x1", "class": "A"}], "truncated": null});
    let b = serde_json::json!({"objects": [{"object": "0x1"}], "truncated": 5});
    assert_ne!(comparable_shape(&a, &b), comparable_shape(&b, &a));
    let c =
        serde_json::json!({"objects": [{"object": "0x2", "class": "B"}], "truncated": {"at": 5}});
    assert_eq!(comparable_shape(&a, &c), comparable_shape(&c, &a));
}

/// The Markdown files a user reads: README.md and everything in docs/.
fn user_pages() -> Vec<PathBuf> {
    let root = common::root();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 4, "{docs:?}");
    pages.extend(docs);
    pages
}

/// The targets of a page's Markdown links and images, `[text](target)`.
fn links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

#[test]
fn readme_and_docs_link_only_to_files_that_exist() {
    let mut broken = Vec::new();
    let mut seen = 0;
    for page in user_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if file.is_empty() {
                continue;
            }
            seen += 1;
            if !page.parent().unwrap().join(file).exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
    assert!(seen >= 20, "only {seen} links seen");
}

#[test]
fn readme_names_only_files_that_exist() {
    let readme = read("README.md");
    let root = common::root();
    let tops = [
        "fixtures/",
        "screenshots/",
        "docs/",
        "bench/",
        "fuzz/",
        "tests/",
        "src/",
        ".ci/",
    ];
    let mut missing = Vec::new();
    let mut seen = 0;
    for word in readme.split(|c: char| c.is_whitespace() || "`()[]".contains(c)) {
        let word = word.trim_end_matches([',', '.', ':', ';']);
        if !tops.iter().any(|t| word.starts_with(t)) {
            continue;
        }
        let file = word.split('#').next().unwrap();
        seen += 1;
        if !root.join(file).exists() {
            missing.push(word.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "README.md names {missing:?}, which do not exist"
    );
    assert!(seen >= 10, "only {seen} paths seen");
}

#[test]
fn readme_keys_are_keys_the_tui_binds() {
    let readme = read("README.md");
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| key | what it does |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(table.len() >= 8, "{table:?}");
    let bound: BTreeSet<&str> = heaptui::ui::keys::KEYMAP
        .iter()
        .flat_map(|b| b.keys.iter().copied())
        .collect();
    let mut unbound = Vec::new();
    for row in &table {
        let first = row.split('|').nth(1).unwrap();
        for (i, key) in first.split('`').enumerate() {
            if i % 2 == 1 && !bound.contains(key) {
                unbound.push(key.to_string());
            }
        }
    }
    assert!(
        unbound.is_empty(),
        "README.md names keys the TUI does not bind: {unbound:?}"
    );
}

#[test]
fn no_page_points_outside_the_repository() {
    let mut wrong = Vec::new();
    for page in user_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("../shared") || line.contains("](../../") {
                wrong.push(format!("{}:{}: {line}", page.display(), n + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

#[test]
fn completions_for_every_shell_name_every_command_and_option() {
    let commands = commands();
    // The options whose names are words no script holds by chance (`group-by`,
    // `include-weak`, `no-retained`).
    let mut options = BTreeSet::new();
    for c in &commands {
        options.extend(
            command_options(c)
                .into_iter()
                .filter(|o| o.trim_start_matches('-').contains('-')),
        );
    }
    assert!(options.len() >= 4, "{options:?}");
    // What each shell's script registers itself with.
    let marks = [
        ("bash", "complete -F _heaptui"),
        ("zsh", "#compdef heaptui"),
        ("fish", "complete -c heaptui"),
        ("elvish", "edit:completion:arg-completer[heaptui]"),
        ("powershell", "Register-ArgumentCompleter"),
    ];
    for shell in SHELLS {
        let script = stdout_ok(&["completions", shell]);
        let mark = marks.iter().find(|(s, _)| *s == shell).unwrap().1;
        assert!(script.contains(mark), "{shell}: no {mark:?}");
        for c in &commands {
            assert!(script.contains(c.as_str()), "{shell}: no command {c}");
        }
        for o in &options {
            assert!(
                script.contains(o.trim_start_matches('-')),
                "{shell}: no option {o}"
            );
        }
        // The values of an option with a fixed set are offered (elvish's and
        // PowerShell's scripts complete names only).
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(
                script.contains("delta-retained"),
                "{shell}: no value of diff --sort"
            );
        }
    }
    // bash reads the script without a syntax error, where bash is installed.
    if let Ok(out) = std::process::Command::new("bash")
        .arg("-n")
        .arg(write_scratch(
            "heaptui.bash",
            &stdout_ok(&["completions", "bash"]),
        ))
        .output()
    {
        assert!(
            out.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn write_scratch(name: &str, text: &str) -> PathBuf {
    let p = common::scratch().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tcsh") && err.contains("powershell"), "{err}");
    // No shell at all is one too.
    assert_eq!(run(&["completions"]).status.code(), Some(1));
}

#[test]
fn the_man_page_has_every_command_and_option() {
    let page = stdout_ok(&["man"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH HEAPTUI 1")),
        "{page}"
    );
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH COMMANDS",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
    ] {
        assert!(page.contains(section), "no {section}");
    }
    for c in commands() {
        let heading = format!(".SS \"heaptui {c}\"");
        assert!(page.contains(&heading), "no {heading}");
        // Each option under its command's heading, roff-escaped (`\-\-json`).
        let from = page.find(&heading).unwrap();
        let rest = &page[from + heading.len()..];
        let body = &rest[..rest.find(".SS ").or_else(|| rest.find(".SH ")).unwrap()];
        for o in command_options(&c) {
            let escaped = o.replace('-', "\\-");
            assert!(body.contains(&escaped), "{c}: no {o} in its section");
        }
    }
    // The exit status and the environment that clap does not know.
    assert!(page.contains("HEAPTUI_MEMORY_LIMIT") && page.contains("\\fB3\\fR"));
    // One apostrophe preamble, at the top: the sections are joined, not concatenated pages.
    assert_eq!(page.matches(".ds Aq").count(), 2, "{page}");
    assert!(!page.contains(".SS \"heaptui help\""));
}
