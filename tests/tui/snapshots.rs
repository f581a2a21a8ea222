//! Every pane drawn into ratatui's `TestBackend` at 80×24, 120×40 and 160×45 (issue 39) on
//! the Java fixture,
//! compared with the snapshots in `tests/tui/snapshots/` (insta). A change to what a pane
//! shows fails here until it is reviewed and re-blessed (`INSTA_UPDATE=always cargo test
//! --test tui snapshots::`, or `cargo insta review`).

use crate::common;

use common::*;
use heaptui::ui::app::App;

fn screen(keys: &str, w: u16, h: u16) -> String {
    // It opens on the leak suspects; `Esc` goes back to the histogram, where each
    // pane's keys start.
    let mut app = common::tui::app();
    drawn(&mut app, keys, w, h)
}

/// Feeds `keys` to the run loop at `w`×`h`, then a turn more (the work the last key
/// asked for, the width the last frame had) and the screen, lines trimmed.
fn drawn(app: &mut App, keys: &str, w: u16, h: u16) -> String {
    let mut t = common::tui::terminal(w, h);
    common::tui::drive(app, &mut t, keys);
    t.draw(|f| app.draw(f)).unwrap();
    // The loop's next turn: the work the last key asked for (the waste findings), drawn.
    if app.work() {
        common::tui::settle(app);
        t.draw(|f| app.draw(f)).unwrap();
    }
    app.tick();
    t.draw(|f| app.draw(f)).unwrap();
    // What that turn asked for (the histogram's merged paths beside it), drawn.
    if app.work() {
        common::tui::settle(app);
        t.draw(|f| app.draw(f)).unwrap();
    }
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

const PANES: &[(&str, &str)] = &[
    ("histogram", ""),
    ("suspects", "!"),
    ("waste", "!W"),
    ("histogram_filtered", "/fixture\n"),
    ("instances", "/fixture.Session\n\n"),
    ("inspector", "/fixture.Session\n\n\n"),
    ("inspector_string", "/fixture.Session\n\n\njj\n"),
    ("paths", "/fixture.Session\n\n\np"),
    ("referrers", "/fixture.Session\n\n\nr"),
    ("outgoing", "/fixture.Session\n\n\no"),
    ("dominators", "d"),
    ("dominators_expanded", "dl"),
    ("help", "?"),
    // (Not the `i` summary: it shows the file's path and the memory left, which differ
    // from machine to machine.)
    ("threads", "t"),
    ("threads_expanded", "tl"),
];

/// The sizes every pane is drawn at: the smallest terminal, the split's first width, a
/// wide one.
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (160, 45)];

/// Each pane of `panes` (name, keys) at each size of `sizes`, against its snapshot
/// `<prefix><name>_<w>x<h>`.
fn assert_panes(prefix: &str, panes: &[(&str, &str)], sizes: [(u16, u16); 3]) {
    for &(name, keys) in panes {
        for (w, h) in sizes {
            let s = screen(keys, w, h);
            insta::assert_snapshot!(format!("{prefix}{name}_{w}x{h}"), s);
        }
    }
}

#[test]
fn every_pane_at_80x24_120x40_and_160x45() {
    assert_panes("", PANES, SIZES);
}

/// Issue 26's screens at the three sizes: the dominator tree's top node with its
/// children grouped by class (`g`), the merged paths of a class (`P`), and an instance
/// list, which from 120 columns has the selected object's inspector beside it.
const COCKPIT: &[(&str, &str)] = &[
    ("grouped", "dlg"),
    ("merged_paths", "/fixture.Session\nP"),
    ("split", "/fixture.Session\n\n"),
];

#[test]
fn the_cockpit_s_panes_at_every_size() {
    assert_panes("cockpit_", COCKPIT, SIZES);
}

/// The three-snapshot view's leak clusters (issue 26) on the Node fixtures, at the
/// three sizes: FINAL opened, the ids new in TARGET given, the clusters found.
#[test]
fn the_leak_clusters_at_every_size() {
    let open = open_node;
    let ids = node_leak_ids();
    for (w, h) in SIZES {
        let p = gunzipped("node/final.heapsnapshot.gz");
        let mut app = common::tui::on_histogram(p, open("final"));
        if let heaptui::ui::app::Screen::Ready(r) = &mut app.screen {
            r.leaks = Some((std::sync::Arc::new(ids.clone()), Default::default()));
            let theme = heaptui::ui::theme::Theme { color: false };
            r.open(heaptui::ui::panes::Request::Leaks, &theme);
        }
        let s = drawn(&mut app, "", w, h);
        assert!(s.contains("250  HeaptuiLeak"), "{s}");
        insta::assert_snapshot!(format!("leaks_{w}x{h}"), s);
    }
}

/// The diff's two sides at 80×24 and 120×40 and, with the focused side's inspector beside
/// them, at 160×45 (issue 26), on the Java growth pair: `CacheEntry` (2,000 → 5,000) opened.
#[test]
fn the_diff_s_sides_at_every_size() {
    let open =
        |f: &str| heaptui::open(&gunzipped(f), &heaptui::sys::progress::Progress::new()).unwrap();
    for (w, h) in SIZES {
        let mut app = App::with_snapshots(
            open("java/growth/base.hprof.gz"),
            open("java/growth/target.hprof.gz"),
        );
        let s = drawn(&mut app, "ssgj\n", w, h);
        assert!(s.contains("Entry — 5,000 objects"), "{s}");
        assert_eq!(s.contains("TARGET: the selected object"), w >= 160, "{s}");
        insta::assert_snapshot!(format!("diff_sides_{w}x{h}"), s);
    }
}
