//! Input-to-draw latency of the TUI on a real dump: opens FILE, builds the dominator
//! tree, then feeds the leak hunt's keys one at a time to the same event handling and
//! drawing the binary runs (into ratatui's TestBackend at 200×50) and times each key from
//! input to the finished frame. Run by `bench/tui-latency.sh`.
//!
//! Usage: cargo run --release --example tui_latency -- FILE [CLASS]
//! CLASS is the class filtered to and opened (without it, the selected row of the
//! histogram, i.e. the largest by shallow size).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::App;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

// The binary's allocator (src/main.rs), so that the figures are what a user gets: it keeps
// freed pages for the next large blocks and asks for huge pages.
#[global_allocator]
static GLOBAL: heaptui::sys::alloc::Global = heaptui::sys::alloc::Global;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("usage: tui_latency FILE [CLASS]"));
    let class = args.next();
    let t0 = Instant::now();
    let snap = heaptui::open(&path, &heaptui::sys::progress::Progress::new()).expect("open");
    let opened = t0.elapsed().as_secs_f64();
    // Each object's depth from the roots, which the binary's loading thread builds after
    // the suspects and the merged paths read (the app would build them here too).
    let t1 = Instant::now();
    heaptui::heap::depth::keep(&snap.graph, || false);
    let depths = t1.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut app = App::with_snapshot(path.clone(), snap);
    let dominators = t1.elapsed().as_secs_f64();
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    // It opens on the leak suspects; the walk starts from the histogram, as a user's
    // first Esc gives it (untimed).
    app.on_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    term.draw(|f| app.draw(f)).unwrap();
    let class = class.unwrap_or_default();
    let key = |c: KeyCode| KeyEvent::new(c, KeyModifiers::NONE);
    let mut steps: Vec<(String, Vec<KeyEvent>)> = Vec::new();
    let chars = |s: &str| s.chars().map(|c| key(KeyCode::Char(c))).collect::<Vec<_>>();
    steps.push(("move down".into(), vec![key(KeyCode::Char('j'))]));
    steps.push(("page down".into(), vec![key(KeyCode::PageDown)]));
    steps.push(("to the last row".into(), vec![key(KeyCode::Char('G'))]));
    steps.push(("to the first row".into(), vec![key(KeyCode::Char('g'))]));
    steps.push(("sort (count)".into(), vec![key(KeyCode::Char('s'))]));
    steps.push(("sort (name)".into(), vec![key(KeyCode::Char('s'))]));
    steps.push(("sort (retained)".into(), vec![key(KeyCode::Char('s'))]));
    steps.push((
        "sort menu, then count (S c)".into(),
        vec![key(KeyCode::Char('S')), key(KeyCode::Char('c'))],
    ));
    steps.push((
        "sort menu, then retained (S r)".into(),
        vec![key(KeyCode::Char('S')), key(KeyCode::Char('r'))],
    ));
    if !class.is_empty() {
        let mut f = vec![key(KeyCode::Char('/'))];
        f.extend(chars(&class));
        f.push(key(KeyCode::Enter));
        steps.push((format!("filter to {class} (all keys)"), f));
    }
    steps.push(("open instances".into(), vec![key(KeyCode::Enter)]));
    steps.push((
        "move down in instances".into(),
        vec![key(KeyCode::Char('j'))],
    ));
    steps.push((
        "to the last instance (sorts them all)".into(),
        vec![key(KeyCode::Char('G'))],
    ));
    steps.push((
        "back to the first instance".into(),
        vec![key(KeyCode::Char('g'))],
    ));
    // Filtering the instances matches every one's name and label (on Enter).
    let mut f = vec![key(KeyCode::Char('/'))];
    let instance_filter = std::env::var("INSTANCE_FILTER").unwrap_or_else(|_| "77".into());
    f.extend(chars(&instance_filter));
    f.push(key(KeyCode::Enter));
    steps.push(("filter the instances (all keys)".into(), f));
    steps.push((
        "clear the filter".into(),
        vec![key(KeyCode::Char('/')), key(KeyCode::Esc)],
    ));
    // At 200 columns the inspector is beside the list: Tab there and back.
    steps.push((
        "focus the inspector beside the list and back (Tab)".into(),
        vec![key(KeyCode::Tab), key(KeyCode::Tab)],
    ));
    steps.push(("open inspector".into(), vec![key(KeyCode::Enter)]));
    steps.push(("paths from GC roots".into(), vec![key(KeyCode::Char('p'))]));
    steps.push((
        "weak references too, and not (w)".into(),
        vec![key(KeyCode::Char('w')), key(KeyCode::Char('w'))],
    ));
    steps.push(("back".into(), vec![key(KeyCode::Esc)]));
    steps.push(("referrer tree".into(), vec![key(KeyCode::Char('r'))]));
    steps.push((
        "expand a referrer".into(),
        vec![key(KeyCode::Char('j')), key(KeyCode::Char('l'))],
    ));
    steps.push(("back".into(), vec![key(KeyCode::Esc)]));
    steps.push((
        "dominator tree below it".into(),
        vec![key(KeyCode::Char('d'))],
    ));
    steps.push((
        "back to the histogram".into(),
        vec![key(KeyCode::Esc), key(KeyCode::Esc), key(KeyCode::Esc)],
    ));
    // The class's instances' shortest paths merged (the first 10,000), then back.
    steps.push((
        "merged paths of the class (P)".into(),
        vec![key(KeyCode::Char('P'))],
    ));
    steps.push(("back".into(), vec![key(KeyCode::Esc)]));
    steps.push((
        "dominator tree from the top".into(),
        vec![key(KeyCode::Char('d'))],
    ));
    steps.push(("expand the top row".into(), vec![key(KeyCode::Char('l'))]));
    steps.push(("page down in the tree".into(), vec![key(KeyCode::PageDown)]));
    // The last row of a node with more children than a page: the next 500 (Enter).
    steps.push((
        "the next 500 children (Enter on '… more')".into(),
        vec![key(KeyCode::End), key(KeyCode::Enter)],
    ));
    steps.push((
        "group the top row's children by class (g)".into(),
        vec![key(KeyCode::Home), key(KeyCode::Char('g'))],
    ));
    steps.push(("ungroup them (g)".into(), vec![key(KeyCode::Char('g'))]));
    steps.push((
        "the histogram from anywhere (H)".into(),
        vec![key(KeyCode::Char('H'))],
    ));
    println!(
        "{{\"file\": {:?}, \"objects\": {}, \"open_seconds\": {opened:.3}, \"dominators_seconds\": {dominators:.3}, \"depths_seconds\": {depths:.3}, \"steps\": [",
        path.display().to_string(),
        match &app.screen {
            heaptui::ui::app::Screen::Ready(r) => r.snap.graph.len(),
            _ => 0,
        }
    );
    let mut worst = 0.0f64;
    for (n, (what, keys)) in steps.iter().enumerate() {
        let mut max_ms = 0.0f64;
        for k in keys {
            let t = Instant::now();
            app.on_key(k);
            term.draw(|f| app.draw(f)).unwrap();
            // As the run loop does: work a key asked for follows the frame announcing
            // it (on a thread of its own for merged paths, grouping and filtering), and
            // the time counts to the frame with its result.
            settle(&mut app, &mut term);
            max_ms = max_ms.max(t.elapsed().as_secs_f64() * 1000.0);
        }
        worst = worst.max(max_ms);
        let t = Instant::now();
        term.draw(|f| app.draw(f)).unwrap();
        let redraw = t.elapsed().as_secs_f64() * 1000.0;
        if std::env::var_os("REDRAW").is_some() {
            eprintln!("{what}: a redraw alone {redraw:.2} ms");
        }
        let comma = if n + 1 < steps.len() { "," } else { "" };
        println!("  {{\"step\": {what:?}, \"max_ms_per_key\": {max_ms:.2}}}{comma}");
    }
    // Grouping the widest node of the dominator tree (the most children): opened
    // below it, then `g` timed from the key to the frame with the class rows.
    let mut widest = String::from("null");
    if let heaptui::ui::app::Screen::Ready(r) = &mut app.screen {
        if let Some(d) = r.dom.clone() {
            let n = r.snap.graph.len() as u32;
            let (kids, o) = (0..n)
                .map(|o| (d.children(o).len(), o))
                .max()
                .unwrap_or((0, 0));
            let theme = heaptui::ui::theme::Theme { color: false };
            r.open(heaptui::ui::panes::Request::Dominators(Some(o)), &theme);
            term.draw(|f| app.draw(f)).unwrap();
            let t = Instant::now();
            app.on_key(&key(KeyCode::Char('g')));
            term.draw(|f| app.draw(f)).unwrap();
            settle(&mut app, &mut term);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            widest = format!("{{\"children\": {kids}, \"group_ms\": {ms:.2}}}");
        }
    }
    // The instance filter again, from the histogram: the time to the first frame
    // with matches (those found so far) and to the frame with all of them.
    let mut filter = String::from("null");
    if !class.is_empty() {
        app.on_key(&key(KeyCode::Char('H')));
        // The histogram's filter is still the class's: cleared, then typed again.
        let mut keys = vec![key(KeyCode::Char('/'))];
        keys.extend(std::iter::repeat_n(
            key(KeyCode::Backspace),
            class.len() + 8,
        ));
        keys.extend(chars(&class));
        keys.push(key(KeyCode::Enter));
        keys.push(key(KeyCode::Enter));
        for k in keys {
            app.on_key(&k);
            term.draw(|f| app.draw(f)).unwrap();
            settle(&mut app, &mut term);
        }
        let t = Instant::now();
        let mut keys = vec![key(KeyCode::Char('/'))];
        keys.extend(chars(&instance_filter));
        keys.push(key(KeyCode::Enter));
        for k in keys {
            app.on_key(&k);
            term.draw(|f| app.draw(f)).unwrap();
        }
        app.work();
        term.draw(|f| app.draw(f)).unwrap();
        let mut first = None;
        while app.jobs().running() > 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
            if app.tick() {
                term.draw(|f| app.draw(f)).unwrap();
                first.get_or_insert(t.elapsed());
            }
        }
        app.tick();
        term.draw(|f| app.draw(f)).unwrap();
        let all = t.elapsed();
        let first = first.unwrap_or(all);
        filter = format!(
            "{{\"first_matches_ms\": {:.2}, \"all_ms\": {:.2}}}",
            first.as_secs_f64() * 1000.0,
            all.as_secs_f64() * 1000.0
        );
    }
    println!(
        "], \"worst_ms\": {worst:.2}, \"group_widest_node\": {widest}, \"instance_filter\": {filter}}}"
    );
}

/// The work the last key asked for, as the run loop does it: started after the frame
/// that announces it, then the frame with its result once its job (if it started one)
/// has ended.
fn settle(app: &mut App, term: &mut Terminal<TestBackend>) {
    if app.work() {
        term.draw(|f| app.draw(f)).unwrap();
        while app.jobs().running() > 0 {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        if app.tick() {
            term.draw(|f| app.draw(f)).unwrap();
        }
    }
}
