//! `suspects` and `waste`: the leak suspects and the wasted memory of one snapshot, as
//! the plain 80-column text and the JSON documents of `docs/cli.md`.

use super::commands::print_json;
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::results::{Suspects, WasteReport};
use crate::text::human;
use crate::text::{pad_to, sanitize};
use crate::waste::Waste;

pub use crate::results::waste::ExampleNames;

pub fn suspects(snap: &Snapshot, d: &Dominators, as_json: bool, top: usize) {
    let doc = Suspects::of(snap, &crate::suspects::find(snap, d, top));
    if as_json {
        print_json(&doc);
        return;
    }
    let r = &doc;
    println!(
        "Leak suspects: {} found; shares are of {} reachable",
        r.suspects.len(),
        human(r.heap_bytes)
    );
    if r.suspects.is_empty() {
        println!("(nothing holds 1 % of the heap or more below the GC roots' own objects)");
    }
    for s in &r.suspects {
        println!();
        println!(
            "{}. {} ({:.1} % of the heap), {}",
            s.rank,
            human(s.retained_bytes),
            s.share_exact * 100.0,
            s.kind,
        );
        println!("   {}", sanitize(&s.title));
        println!("   object  {} {}", s.object, sanitize(&s.class));
        println!("   holder  {}", sanitize(&s.holder));
        if let Some(a) = &s.accumulation {
            println!(
                "   accumulates in {} {} ({})",
                a.object,
                sanitize(&a.class),
                human(a.retained_bytes)
            );
        }
        for m in s.members.iter().take(5) {
            println!(
                "   {:>10} × {} {:>11}",
                m.count,
                pad_to(&sanitize(&m.class), 40),
                human(m.retained_bytes)
            );
        }
        if let Some(first) = s.path.first() {
            println!(
                "   path from a GC root ({}):",
                sanitize(first.root_detail.as_deref().unwrap_or(""))
            );
            for (k, step) in s.path.iter().enumerate() {
                let mut step = step.clone();
                step.label = None;
                println!("{}", sanitize(&super::analyses::step_line(&step, k, 2)));
            }
        }
    }
}

pub fn waste(snap: &(impl ExampleNames + ?Sized), w: &Waste, as_json: bool) {
    let doc = WasteReport::of(snap, w);
    if as_json {
        print_json(&doc);
        return;
    }
    let w = &doc;
    println!("Duplicate strings (equal text in distinct objects):");
    if w.duplicate_strings.is_empty() {
        println!("  none{}", w.strings_note.as_deref().unwrap_or(""));
    }
    for s in &w.duplicate_strings {
        let mut text: String = s.text.chars().take(40).collect();
        if s.text.chars().count() > 40 {
            text.push('…');
        }
        println!(
            "  {:>11} wasted  {:>8} × {:>7}  {} e.g. {}",
            human(s.wasted_bytes),
            s.count,
            human(s.bytes_each),
            // Quoted with the escapes of Rust's `{:?}` (controls and characters that draw
            // nothing written as `\u{…}`) first, then made safe: quoting the safe text
            // escaped its backslashes a second time (issue 40).
            sanitize(&format!("{text:?}")),
            s.example
        );
    }
    println!();
    println!("Duplicate primitive arrays (equal contents):");
    if w.duplicate_arrays.is_empty() {
        println!("  none");
    }
    for a in &w.duplicate_arrays {
        println!(
            "  {:>11} wasted  {:>8} × {:>7}  {} length {} e.g. {}{}",
            human(a.wasted_bytes),
            a.count,
            human(a.bytes_each),
            sanitize(&a.class),
            a.length,
            a.example,
            a.preview
                .as_ref()
                .map(|p| format!(" {}", sanitize(p)))
                .unwrap_or_default()
        );
    }
    println!();
    println!("Sparse collections (capacity far above size), by the reference holding them:");
    if w.sparse_collections.is_empty() {
        println!("  none");
    }
    for c in &w.sparse_collections {
        println!(
            "  {:>11} wasted  {:>8} × {} in {}: {} entries in {} slots, e.g. {}",
            human(c.wasted_bytes),
            c.count,
            sanitize(&c.class),
            sanitize(&crate::suspects::in_title(&c.holder)),
            c.size,
            c.capacity,
            c.example
        );
    }
}
