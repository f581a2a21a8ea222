//! How long the merged paths of every instance of a class take on a real dump (issue 39:
//! all 5.5 M sessions of the 50 M-object bench dump in 250 ms at most): the tree from the
//! depths ([`heaptui::heap::merged::merge_all`]) three times, then `P` in the app from the
//! key to the frame with its rows (the tree and the rows grouped by class and name), in a
//! fresh app each time (a class's merged paths are kept for the next ask).
//!
//! Usage: cargo run --release --example merged_timing -- FILE CLASS
//!
//! `ROUNDS=N` asks `P` N times (3 without it); `RELEASE=1` gives the allocator's pool
//! back to the kernel before each (every block of the merged paths then faults in fresh
//! pages, as they do in the TUI once loading is over).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use heaptui::ui::app::App;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

#[global_allocator]
static GLOBAL: heaptui::sys::alloc::Global = heaptui::sys::alloc::Global;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("usage: merged_timing FILE CLASS"));
    let class = args.next().expect("usage: merged_timing FILE CLASS");
    let snap = heaptui::open(&path, &heaptui::sys::progress::Progress::new()).expect("open");
    let t = Instant::now();
    heaptui::heap::depth::keep(&snap.graph, || false);
    eprintln!("depths: {:.3} s", t.elapsed().as_secs_f64());
    let g = &snap.graph;
    let c = g
        .classes
        .iter()
        .position(|k| k.name == class)
        .expect("no such class") as u32;
    let depth = g.depths.get().unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let m = heaptui::heap::merged::merge_all(g, depth, c, None, || false)
            .expect("within the depths' reach");
        eprintln!(
            "merge_all: {} of {} instances on {} levels in {:.1} ms",
            m.merged,
            m.instances,
            m.levels.len(),
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
    // TAIL=CLASS: the path of the object of CLASS that holds none of its class (a linked
    // list's tail), folded as `path` lists it.
    if let Ok(tail_class) = std::env::var("TAIL") {
        let of = |o: u32| snap.class_name(o) == tail_class;
        let tail =
            (0..g.len() as u32).find(|&o| of(o) && !g.edges(o).any(|e| of(g.out_targets[e])));
        if let Some(tail) = tail {
            let t = Instant::now();
            let p = heaptui::heap::paths::to_roots(g, tail, 1, false).remove(0);
            let found = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let steps = heaptui::results::PathStep::all(&snap, &p, true);
            eprintln!(
                "path of {}: {} steps found in {:.3} s, listed as {} in {:.3} s",
                snap.object_name(tail),
                p.len(),
                found,
                steps.len(),
                t.elapsed().as_secs_f64()
            );
            for s in &steps {
                match s.fold_words() {
                    Some(w) => eprintln!("  {w}"),
                    None => eprintln!("  {:?} → {} {}", s.edge, s.object, s.class),
                }
            }
        }
    }
    let key = |c: KeyCode| KeyEvent::new(c, KeyModifiers::NONE);
    let mut app = App::with_snapshot(path.clone(), snap);
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    for _ in 0..rounds {
        let mut term = Terminal::new(TestBackend::new(160, 45)).unwrap();
        // A fresh app is what the kept result would otherwise spare: P on another
        // class's row first would not clear it, so each round asks the jobs to forget.
        app.jobs().forget_all();
        app.on_key(&key(KeyCode::Char('H')));
        // The filter cleared, then typed.
        app.on_key(&key(KeyCode::Char('/')));
        app.on_key(&key(KeyCode::Esc));
        app.on_key(&key(KeyCode::Char('/')));
        for ch in class.chars() {
            app.on_key(&key(KeyCode::Char(ch)));
        }
        app.on_key(&key(KeyCode::Enter));
        term.draw(|f| app.draw(f)).unwrap();
        if std::env::var_os("RELEASE").is_some() {
            heaptui::sys::alloc::release();
        }
        let t = Instant::now();
        app.on_key(&key(KeyCode::Char('P')));
        term.draw(|f| app.draw(f)).unwrap();
        if app.work() {
            term.draw(|f| app.draw(f)).unwrap();
            while app.jobs().running() > 0 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            app.tick();
            term.draw(|f| app.draw(f)).unwrap();
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let buf = term.backend().buffer();
        let title: String = (0..buf.area.width).map(|x| buf[(x, 0)].symbol()).collect();
        eprintln!("P: {ms:.1} ms to the frame: {}", title.trim_end());
        app.on_key(&key(KeyCode::Esc));
    }
}
