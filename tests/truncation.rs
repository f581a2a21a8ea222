//! The truncation sweep: every HPROF, V8 and Go fixture cut at record boundaries and at
//! seeded pseudo-random offsets, opened through the library. A cut file must never
//! panic; it either opens with `truncated == Some(t)`, `t <= cut`, and an index that
//! passes the fuzzers' well-formedness checks (`fuzz/src/walk.rs`), or fails with a
//! `ParseError` whose offset is `<= cut`. And once a prefix of a file opens, every
//! longer prefix opens too: a reader that gives up on a longer cut has lost its place.
//!
//! Record boundaries come from the whole file's own index (`Graph::offset`: where every
//! object's record starts) and, for HPROF, from the top-level record headers; each is
//! cut at, one byte before and one byte after; a file of 64 KiB or less is cut at every
//! byte. Random offsets come from a fixed LCG, so a failure names a cut that reproduces.
//!
//! Two sizes:
//! - `sweep_ci` (default `cargo test`): a sample of the boundaries and ~200 random
//!   offsets over all fixtures; about 20 s in release mode on the 2-core dev machine,
//!   longer in debug.
//! - `sweep_full` (`#[ignore]`d): 1 000 boundaries (3 000 cuts) and 1 000 random offsets
//!   per fixture, with a full walk of every hundredth cut. Run it with
//!   `cargo test --release --test truncation -- --ignored`: about 2-3 minutes per large
//!   fixture on the shared 2-core dev machine, 20-30 minutes in all.

mod common;
#[path = "../fuzz/src/walk.rs"]
mod walk;

use common::*;
use heaptui::error::ParseError;
use heaptui::format::{self, Snapshot};
use heaptui::progress::Progress;
use heaptui::source::Source;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    Hprof,
    V8,
    Go,
}

/// Every fixture of the three formats: (path under `fixtures/` or `tests/`, format).
const FIXTURES: &[(&str, Fmt)] = &[
    ("java/nocoops/heap-live.hprof.gz", Fmt::Hprof),
    ("java/coops/heap-live-jvmgz.hprof.gz", Fmt::Hprof),
    ("java/growth/base.hprof.gz", Fmt::Hprof),
    ("java/growth/target.hprof.gz", Fmt::Hprof),
    ("node/baseline.heapsnapshot.gz", Fmt::V8),
    ("node/target.heapsnapshot.gz", Fmt::V8),
    ("node/final.heapsnapshot.gz", Fmt::V8),
    ("chromium/detached.heapsnapshot.gz", Fmt::V8),
    ("tests/data/v8-edge-cases.heapsnapshot", Fmt::V8),
    ("go/heap.dump.gz", Fmt::Go),
    ("go/heap-memprofile.dump.gz", Fmt::Go),
];

fn bytes_of(rel: &str) -> Vec<u8> {
    let p = if let Some(r) = rel.strip_prefix("tests/") {
        root().join("tests").join(r)
    } else {
        gunzipped(rel)
    };
    std::fs::read(p).unwrap()
}

fn open(fmt: Fmt, bytes: &[u8]) -> Result<Snapshot, ParseError> {
    let src = Source::from_bytes(std::path::Path::new("cut"), bytes).unwrap();
    let p = Progress::new();
    match fmt {
        Fmt::Hprof => format::hprof::open(src, &p),
        Fmt::V8 => format::v8::open(src, &p),
        Fmt::Go => format::go::open(src, &p),
    }
}

/// The starts of HPROF's top-level records (tag, time, length), as the file says.
fn hprof_records(b: &[u8]) -> Vec<usize> {
    let Some(nul) = b.iter().position(|&c| c == 0) else {
        return Vec::new();
    };
    let mut pos = nul + 13;
    let mut out = Vec::new();
    while pos + 9 <= b.len() {
        out.push(pos);
        let len = u32::from_be_bytes(b[pos + 5..pos + 9].try_into().unwrap()) as usize;
        pos += 9 + len;
    }
    out
}

/// A 64-bit LCG (Knuth's MMIX constants); the high bits are the good ones.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Up to `max` entries of `v`, evenly spread.
fn spread(v: &[usize], max: usize) -> Vec<usize> {
    if v.len() <= max {
        return v.to_vec();
    }
    (0..max).map(|k| v[k * v.len() / max]).collect()
}

/// What one cut gave: the number of objects, or `None` when it was refused.
fn check_cut(name: &str, fmt: Fmt, full: &[u8], cut: usize, walk_it: bool) -> Option<usize> {
    let r = std::panic::catch_unwind(|| {
        let b = &full[..cut];
        match open(fmt, b) {
            Ok(s) => {
                if cut < full.len() {
                    let t = s
                        .truncated
                        .unwrap_or_else(|| panic!("not reported as truncated"));
                    assert!(t <= cut as u64, "truncated at {t}, past the cut");
                }
                walk::check_graph(&s, cut);
                if walk_it {
                    walk::walk(&s);
                }
                Some(s.graph.len())
            }
            Err(e) => {
                assert!(e.offset <= cut as u64, "error past the cut: {e}");
                assert!(!e.expected.is_empty(), "an error that expects nothing: {e}");
                None
            }
        }
    });
    match r {
        Ok(v) => v,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{name} cut at {cut} of {}: {msg}", full.len())
        }
    }
}

/// Sweeps one fixture: `boundaries` record boundaries (each with its neighbours) and
/// `randoms` pseudo-random cuts. Returns how many cuts were made.
fn sweep(rel: &str, fmt: Fmt, boundaries: usize, randoms: usize, walk_every: usize) -> usize {
    let full = bytes_of(rel);
    let whole = open(fmt, &full).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(whole.truncated.is_none(), "{rel}: the whole file is whole");
    walk::check_graph(&whole, full.len());
    let n = whole.graph.len();

    let mut starts: Vec<usize> = whole.graph.offset.iter().map(|&o| o as usize).collect();
    if fmt == Fmt::Hprof {
        starts.extend(hprof_records(&full));
    }
    starts.sort_unstable();
    starts.dedup();
    drop(whole);
    let mut cuts: Vec<usize> = vec![0, 1, 2, full.len() - 1, full.len()];
    for s in spread(&starts, boundaries) {
        cuts.extend([s.saturating_sub(1), s, s + 1]);
    }
    let mut rng = Lcg(0x5eed ^ full.len() as u64);
    for _ in 0..randoms {
        cuts.push(rng.below(full.len() + 1));
    }
    if full.len() <= 1 << 16 {
        // A small file is cheap to cut everywhere.
        cuts.extend(0..=full.len());
    }
    cuts.retain(|&c| c <= full.len());
    cuts.sort_unstable();
    cuts.dedup();

    let mut first_open: Option<usize> = None;
    for (k, &cut) in cuts.iter().enumerate() {
        let walk_it = walk_every > 0 && k % walk_every == 0;
        match check_cut(rel, fmt, &full, cut, walk_it) {
            Some(objects) => {
                assert!(objects <= n, "{rel} cut at {cut}: {objects} objects > {n}");
                first_open.get_or_insert(cut);
            }
            None => {
                if let Some(f) = first_open {
                    panic!(
                        "{rel}: the prefix of {f} bytes opens, the longer one of {cut} does not"
                    );
                }
            }
        }
    }
    // The whole file is the last cut, and it opened: something did.
    assert!(first_open.is_some());
    cuts.len()
}

#[test]
fn sweep_ci() {
    // Boundaries per fixture; random cuts are ~200 over all fixtures.
    let mut total = 0;
    for &(rel, fmt) in FIXTURES {
        let randoms = 200 / FIXTURES.len() + 1;
        let t = std::time::Instant::now();
        let n = sweep(rel, fmt, 6, randoms, 0);
        eprintln!("{rel}: {n} cuts in {:.1} s", t.elapsed().as_secs_f64());
        total += n;
    }
    eprintln!("{total} cuts");
}

#[test]
#[ignore = "20-30 minutes in release mode: cargo test --release --test truncation -- --ignored"]
fn sweep_full() {
    let mut total = 0;
    for &(rel, fmt) in FIXTURES {
        let t = std::time::Instant::now();
        let n = sweep(rel, fmt, 1000, 1000, 100);
        eprintln!("{rel}: {n} cuts in {:.1} s", t.elapsed().as_secs_f64());
        total += n;
    }
    eprintln!("{total} cuts");
}

/// Found by this sweep: a Go dump cut right after a record's kind byte was read as an
/// unreadable record ("expected object address, found end of file") rather than a cut,
/// so the first object's cut refused the file and later ones warned of corruption.
#[test]
fn a_go_dump_cut_right_after_a_record_kind_is_a_cut() {
    let full = bytes_of("go/heap.dump.gz");
    let whole = open(Fmt::Go, &full).unwrap();
    let mut offsets: Vec<usize> = whole.graph.offset.iter().map(|&o| o as usize).collect();
    offsets.sort_unstable();
    // The first object (before it, no object: the cut was refused) and 49 more.
    for &at in spread(&offsets, 50).iter() {
        let s = open(Fmt::Go, &full[..at + 1]).unwrap_or_else(|e| panic!("cut at {}: {e}", at + 1));
        assert_eq!(s.truncated, Some(at as u64), "cut at {}", at + 1);
        assert!(
            !s.warnings.iter().any(|w| w.contains("unreadable")),
            "cut at {}: {:?}",
            at + 1,
            s.warnings
        );
    }
}
