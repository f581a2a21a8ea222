//! V8 snapshots (Node, Chromium) in the TUI, drawn into ratatui's `TestBackend` with
//! scripted keys (the harness: `common/tui.rs`).

use crate::common;

use common::tui::*;
use common::*;
use heaptui::ui::app::App;

/// Filtering a V8 snapshot's `(string)` instances by text: the title counts every
/// instance whose name and label match by the one matcher (counted here one by one over
/// the whole class), the program's two-byte string is among the rows shown, and the
/// matches keep the list's order within each kind of match (the filter decodes them in
/// object order).
#[test]
fn v8_string_instances_filter_by_their_text() {
    let (p, snap) = open_fixture("node/baseline.heapsnapshot.gz");
    let class = snap
        .graph
        .classes
        .iter()
        .position(|c| c.name == "(string)")
        .unwrap();
    let pattern = "heaptui-two-byte";
    let m = heaptui::heap::matcher::Matcher::new(pattern);
    let (mut all, mut want) = (0u64, 0u64);
    for o in 0..snap.graph.len() as u32 {
        if snap.graph.class_of.get(o as usize) as usize == class {
            all += 1;
            let text = format!(
                "{} {}",
                snap.object_name(o),
                snap.label(o).unwrap_or_default()
            );
            want += m.find(&text).is_some() as u64;
        }
    }
    assert!(want >= 1 && want < all / 10, "{want} of {all}");
    let mut a = App::with_snapshot(p.clone(), snap);
    let mut t = terminal(200, 50);
    let s = run(&mut a, &mut t, "\u{1b}/(string)\n\n");
    assert!(s.contains("Instances of (string)"), "{s}");
    let s = run(&mut a, &mut t, &format!("/{pattern}\n"));
    let title = format!("{} match \"{pattern}\"", want);
    assert!(s.contains(&title), "want {title}:\n{s}");
    let e = fixture_json("node/expected.json");
    let text = e["strings"]["twoByte"]["text"].as_str().unwrap();
    // The text up to its first wide character, and after its last (a cell behind a
    // wide character keeps what the buffer held there before).
    let (head, tail) = (
        text.split('日').next().unwrap(),
        text.rsplit('本').next().unwrap(),
    );
    assert!(
        s.lines().any(|l| l.contains(head) && l.contains(tail)),
        "the string {text:?} is not shown:\n{s}"
    );
    // A wider pattern: the best kind of match first, in the list's order (largest
    // retained first) within each kind.
    let s = run(&mut a, &mut t, "/\u{1b}/heaptui\n");
    let bytes = |v: &str, unit: &str| -> f64 {
        let v: f64 = v.replace(',', "").parse().unwrap();
        v * match unit {
            "B" => 1.0,
            "KiB" => 1024.0,
            "MiB" => 1048576.0,
            u => panic!("unit {u}"),
        }
    };
    // Each row: the kind of match (`^` prefix, `+` substring, `~` fuzzy), then the id.
    let retained: Vec<(char, f64)> = s
        .lines()
        .filter(|l| l.get(1..3) == Some(" @"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].chars().next().unwrap(), bytes(w[4], w[5]))
        })
        .collect();
    assert!(retained.len() >= 20, "{s}");
    let rank = |m: char| "=^+~".find(m).unwrap();
    assert!(
        retained.windows(2).all(|w| {
            let (a, b) = (rank(w[0].0), rank(w[1].0));
            a < b || (a == b && w[0].1 >= w[1].1)
        }),
        "not the best kind first, then largest first: {retained:?}\n{s}"
    );
}

#[test]
fn the_filter_puts_substring_matches_before_fuzzy_ones_and_marks_each() {
    let mut a = app_of("chromium/detached.heapsnapshot.gz");
    let mut term = terminal(120, 30);
    let s = run(&mut a, &mut term, "/Detached <div\n");
    let rows: Vec<&str> = s.lines().skip(2).collect();
    assert!(rows[0].starts_with("^ Detached <div> "), "{s}");
    // Fuzzy matches follow, marked as such, and no substring match comes after one.
    let kinds: Vec<char> = rows
        .iter()
        .take_while(|l| l.starts_with(['=', '^', '+', '~']))
        .map(|l| l.chars().next().unwrap())
        .collect();
    assert!(kinds.len() > 1 && kinds.contains(&'~'), "{s}");
    assert!(
        kinds.windows(2).all(|w| !(w[0] == '~' && w[1] != '~')),
        "{s}"
    );
    // The CLI's --filter keeps the substring matches only, by the same matcher.
    let f = fixture_arg("chromium/detached.heapsnapshot.gz");
    let v = json_of(&heaptui(&[
        "histogram",
        &f,
        "--filter",
        "Detached <div",
        "--json",
    ]));
    let classes = items(&v, "classes");
    assert_eq!(classes.len(), 1);
    assert!(classes[0]["class"]
        .as_str()
        .unwrap()
        .starts_with("Detached <div"));
}

/// Issue 26: detached DOM elements are one row per tag in the TUI's histogram, and each
/// instance shows its own attributes in the instance list (Chromium fixture: 40 detached
/// cards, as the page counted them).
#[test]
fn detached_divs_are_one_row_and_each_instance_shows_its_attributes() {
    let mut a = app_of("chromium/detached.heapsnapshot.gz");
    let mut term = terminal(120, 30);
    let s = run(&mut a, &mut term, "/Detached <div\n\n");
    assert!(
        s.contains("Instances of Detached <div> — 40 objects"),
        "{s}"
    );
    assert!(
        s.contains("<div class=\"detached-card\" data-kind=\"card\">"),
        "{s}"
    );
}

/// Issue 26: in the three-snapshot view (`heaptui BASELINE TARGET FINAL`, the Node
/// fixtures), `I` shows the runtime's internal nodes as clusters of their own, as
/// `leaks --internal` does, and again folds them under their owner; the title and the
/// status line say which, and `Enter` opens a cluster of the list on screen.
#[test]
fn i_shows_or_folds_the_runtime_s_internal_nodes_in_the_leaks() {
    let open = open_node;
    let ids = node_leak_ids();
    let last = open("final");
    let d = dominators_of(&last);
    let folded = heaptui::leaks::find(&ids, &last, &d, false).unwrap();
    let shown = heaptui::leaks::find(&ids, &last, &d, true).unwrap();
    assert!(folded.folded > 0 && shown.folded == 0);
    assert_ne!(folded.clusters.len(), shown.clusters.len());
    let mut a = on_histogram(gunzipped("node/final.heapsnapshot.gz"), last);
    if let heaptui::ui::app::Screen::Ready(r) = &mut a.screen {
        r.leaks = Some((std::sync::Arc::new(ids), Default::default()));
        let theme = heaptui::ui::theme::Theme { color: false };
        r.open(heaptui::ui::panes::Request::Leaks, &theme);
    }
    let mut t = terminal(120, 30);
    let status = |s: &str| s.lines().rev().nth(1).unwrap_or("").to_string();
    let title = |r: &heaptui::leaks::Report, how: &str| {
        format!(
            "{} clusters (node id, {how})",
            with_commas(r.clusters.len())
        )
    };
    let s = run(&mut a, &mut t, "");
    let folded_title = title(&folded, &format!("{} folded", folded.folded));
    assert!(s.contains(&folded_title), "{s}");
    assert!(
        s.contains("I internal"),
        "the hint line names the key:\n{s}"
    );
    let s = run(&mut a, &mut t, "I");
    assert!(s.contains(&title(&shown, "internal shown")), "{s}");
    assert!(
        status(&s).contains("the runtime's internal nodes shown"),
        "{s}"
    );
    // The list on screen is the one Enter opens from: its first cluster's objects.
    let first = &shown.clusters[0];
    let s = run(&mut a, &mut t, "\n");
    assert!(
        s.contains(&format!(
            "Leaked instances of {} — {} objects",
            first.class,
            with_commas(first.objects.len())
        )),
        "{s}"
    );
    let s = run(&mut a, &mut t, "\u{1b}I");
    assert!(s.contains(&folded_title), "{s}");
    assert!(status(&s).contains("folded into their owner"), "{s}");
    // `I` elsewhere does nothing, and says so.
    let s = run(&mut a, &mut t, "HI");
    assert!(
        status(&s).contains("`I` does nothing in Class histogram"),
        "{s}"
    );
}
