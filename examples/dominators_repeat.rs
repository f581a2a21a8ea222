//! The dominator pass alone, repeated on one graph: opens FILE once (from the index cache
//! when it has an entry), then builds the dominator tree ROUNDS times in the same process
//! and prints each pass's phases and the fastest time. From the second round on, the
//! pass runs on pages the allocator has kept (as the binary's allocator keeps them), so
//! what is left is the pass's own work, without the first touch of fresh memory that
//! makes single runs on this project's VM vary by tens of percent. For comparing two
//! builds of the pass: run each a few times, alternating.
//!
//! Usage: cargo run --release --example dominators_repeat -- FILE [ROUNDS]

use std::time::Instant;

#[global_allocator]
static GLOBAL: heaptui::sys::alloc::Global = heaptui::sys::alloc::Global;

fn main() {
    let mut args = std::env::args().skip(1);
    let path =
        std::path::PathBuf::from(args.next().expect("usage: dominators_repeat FILE [ROUNDS]"));
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let t0 = Instant::now();
    let snap = heaptui::open(&path, &heaptui::sys::progress::Progress::new()).expect("open");
    println!(
        "opened {} objects in {:.3} s",
        snap.graph.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut best = f64::MAX;
    for round in 1..=rounds {
        let t = Instant::now();
        let d = heaptui::heap::dominators::compute(
            &snap.graph,
            &heaptui::sys::progress::Progress::new(),
        );
        let s = t.elapsed().as_secs_f64();
        best = best.min(s);
        println!("round {round}: {s:.3} s ({} reachable)", d.reach.reachable);
    }
    println!("fastest: {best:.3} s");
}
