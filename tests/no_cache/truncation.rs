//! The truncation sweep: every fixture of the five formats cut at its record boundaries
//! and at seeded pseudo-random offsets, opened through its reader; and the gzip fixtures
//! cut the same way and opened as a user would (`heaptui::open`: decompression, format
//! detection, the reader). A cut file must never panic; it either opens with
//! `truncated == Some(t)`, `t <= cut`, no more objects than the whole file and an index
//! that passes the fuzzers' well-formedness checks (`fuzz/src/walk.rs`), or fails with a
//! `ParseError` whose offset is `<= cut` and which says what it expected (and, through
//! `heaptui::open`, names the file). And once a prefix of a file opens, every longer
//! prefix opens too: a reader that gives up on a longer cut has lost its place.
//!
//! Record boundaries: where every object's record starts, from the whole file's own index
//! (`Graph::offset`: HPROF heap sub-records, V8 nodes, Go objects, Dart objects); HPROF's
//! top-level record headers; MoarVM's blocks (found by their names; its collectables are
//! rows of columns, with no record of their own) and, in format 2, the 28-byte entries of
//! the `coll` blocks; gzip's members. Each boundary is cut at, and (for a spread sample of
//! them) one byte before and after. A file of 64 KiB or less is cut at every byte. Random
//! offsets come from a fixed LCG seeded by the file's length, so a failure names a cut
//! that reproduces.
//!
//! Two sizes:
//! - `sweep_ci` (default `cargo test`): a few boundaries and ~200 random offsets over all
//!   fixtures, a few cuts of each gzip fixture.
//! - `sweep_full` and `sweep_full_gzip` (`#[ignore]`d): every record boundary and 1 000
//!   random offsets per fixture, a full walk of every hundredth cut; every gzip member
//!   boundary and 1 000 random offsets per gzip fixture. `bench/truncation-sweep.sh`
//!   runs them in release mode (figures in `fuzz/README.md`). `SWEEP_BOUNDARIES=N` caps
//!   the boundaries per fixture (evenly spread), `SWEEP_ONLY=SUBSTRING` picks fixtures,
//!   `SWEEP_THREADS=N` sets the workers (default: the cores). Every failing cut is listed
//!   (file, cut offset, the panic and where it was raised) before the test fails.

use crate::common;
#[path = "../../fuzz/src/walk.rs"]
mod walk;

use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use common::*;
use heaptui::error::ParseError;
use heaptui::format::{self, Snapshot};
use heaptui::source::Source;
use heaptui::sys::progress::Progress;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    Hprof,
    V8,
    Go,
    MoarVm,
    Dart,
}

/// Every fixture of the five formats: (path under `fixtures/` or `tests/`, format).
/// (`fixtures/moarvm/zstd-bomb.mvmheap` is a hostile file, not a snapshot: not here.)
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
    ("moarvm/app-v2.mvmheap.gz", Fmt::MoarVm),
    ("moarvm/app-v3.mvmheap.gz", Fmt::MoarVm),
    ("dart/before.dartheap.gz", Fmt::Dart),
    ("dart/after.dartheap.gz", Fmt::Dart),
];

/// The gzip path: one compressed fixture per format (the HPROF one is HotSpot's
/// multi-member `-gz` output), cut as compressed files.
const GZIP_FIXTURES: &[&str] = &[
    "java/coops/heap-live-jvmgz.hprof.gz",
    "node/baseline.heapsnapshot.gz",
    "go/heap.dump.gz",
    "moarvm/app-v3.mvmheap.gz",
    "dart/before.dartheap.gz",
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
    let src = Source::from_bytes(Path::new("cut"), bytes).unwrap();
    let p = Progress::new();
    match fmt {
        Fmt::Hprof => format::hprof::open(src, &p),
        Fmt::V8 => format::v8::open(src, &p),
        Fmt::Go => format::go::open(src, &p),
        Fmt::Dart => format::dart::open(src, &p),
        // A refusal of the bytes is a parse error with its offset; anything else (a
        // usage error: no snapshot #N) is a bug here, as `which` is `None`.
        Fmt::MoarVm => match format::moarvm::open(src, None, &p) {
            Ok(s) => Ok(s),
            Err(heaptui::Error::Parse { error, .. }) => Err(error),
            Err(e) => panic!("refused without an offset: {e}"),
        },
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

/// Every place `needle` occurs in `b`.
fn find_all(b: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&b[from..], needle) {
        out.push(from + i);
        from += i + 1;
    }
    out
}

/// MoarVM's record boundaries: the starts of its blocks, found by their names (a name
/// that occurs inside a block by chance is one more cut, no harm), and in format 2 the
/// entries of every `coll` block (20-byte header, 28-byte entries).
fn moarvm_records(b: &[u8]) -> Vec<usize> {
    let v3: &[&[u8]] = &[
        b"filemeta",
        b"snapmeta",
        b"toc\0\0\0\0\0",
        b"strings\0",
        b"reprname",
        b"typename",
        b"sfname\0\0",
        b"sfcuid\0\0",
        b"sfline\0\0",
        b"sffile\0\0",
        b"colkind\0",
        b"colsize\0",
        b"coltofi\0",
        b"colrfcnt",
        b"colrfstr",
        b"colusize",
        b"refdescr",
        b"reftrget",
    ];
    let v2: &[&[u8]] = &[b"coll", b"refs", b"strs", b"type", b"fram"];
    let mut out = Vec::new();
    if b.starts_with(b"MoarHeapDumpv003") {
        for n in v3 {
            out.extend(find_all(b, n));
        }
    } else {
        for n in v2 {
            out.extend(find_all(b, n));
        }
        let scan = format::moarvm::v2::scan(b, &Progress::new()).expect("the whole v2 file");
        for l in &scan.snapshots {
            if let Some((start, end)) = l.block("coll") {
                out.extend((start + 20..=end).step_by(28));
            }
        }
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

thread_local! {
    /// Where the last panic on this thread was raised (kept by the hook below).
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps every panic's location for the report (a caught panic's payload has none); the
/// default hook still prints it.
fn hook_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            PANIC_AT.with(|p| *p.borrow_mut() = at);
            prev(info);
        }));
    });
}

/// Runs `f`; a panic becomes `Err("message (at file:line)")`.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    hook_panics();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let at = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
        format!("{msg} (at {at})")
    })
}

/// The fuzzers' index checks (`walk::check_graph`). MoarVM leaves `Graph::offset` empty
/// by design (its collectables have no record: `src/format/moarvm/mod.rs`), which that
/// check does not allow yet; the offsets are filled with zeros first so that the rest of
/// it runs.
fn check_graph(s: &mut Snapshot, len: usize) {
    if s.format == format::Format::MoarVm && s.graph.offset.is_empty() {
        s.graph.offset = vec![0; s.graph.len()].into();
    }
    walk::check_graph(s, len);
}

/// The objects of every snapshot of the whole file (one, but for MoarVM).
fn counts(s: &Snapshot) -> Vec<u64> {
    if s.snapshots.is_empty() {
        vec![s.graph.len() as u64]
    } else {
        s.snapshots.iter().map(|i| i.objects).collect()
    }
}

/// A cut opens as far as it is whole: no more objects than the whole file has; for
/// MoarVM, the last snapshot that is whole before the cut, so exactly the objects that
/// snapshot has in the whole file.
fn check_objects(s: &Snapshot, whole: &[u64]) {
    let n = s.graph.len() as u64;
    let k = s.snapshot_index;
    let w = *whole
        .get(k)
        .unwrap_or_else(|| panic!("snapshot #{k}, the whole file has {}", whole.len()));
    if s.format == format::Format::MoarVm {
        assert_eq!(n, w, "snapshot #{k}: {n} objects, {w} in the whole file");
    } else {
        assert!(n <= w, "{n} objects, more than the whole file's {w}");
    }
}

/// What one cut gave.
#[derive(Clone, Debug)]
enum Outcome {
    /// Opened (truncated, or whole at the full length).
    Opened,
    /// Refused with a parse error (offset, expectation).
    Refused,
    /// A panic or a broken promise: the message.
    Failed(String),
}

/// One cut of `full` at `cut` through the reader.
fn check_cut(fmt: Fmt, full: &[u8], whole: &[u64], cut: usize, walk_it: bool) -> Outcome {
    let r = catch(|| {
        let b = &full[..cut];
        match open(fmt, b) {
            Ok(mut s) => {
                if cut < full.len() {
                    let t = s
                        .truncated
                        .unwrap_or_else(|| panic!("not reported as truncated"));
                    assert!(t <= cut as u64, "truncated at {t}, past the cut");
                }
                check_graph(&mut s, cut);
                check_objects(&s, whole);
                if walk_it {
                    walk::walk(&s);
                }
                Outcome::Opened
            }
            Err(e) => {
                assert!(e.offset <= cut as u64, "error past the cut: {e}");
                assert!(!e.expected.is_empty(), "an error that expects nothing: {e}");
                Outcome::Refused
            }
        }
    });
    r.unwrap_or_else(Outcome::Failed)
}

/// The figures of one fixture's sweep.
#[derive(Debug, Default)]
struct Tally {
    cuts: usize,
    /// Record boundaries cut at, of how many the file has.
    boundaries: usize,
    all_boundaries: usize,
    opened: usize,
    refused: usize,
    failures: Vec<String>,
    secs: f64,
}

impl Tally {
    fn line(&self, rel: &str) -> String {
        format!(
            "{rel}: {} cuts ({} of {} record boundaries), {} opened truncated, {} refused with offset and expectation, {} failed, {:.1} s",
            self.cuts,
            self.boundaries,
            self.all_boundaries,
            self.opened,
            self.refused,
            self.failures.len(),
            self.secs
        )
    }
}

fn threads() -> usize {
    std::env::var("SWEEP_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Runs `f` on every cut, on `threads()` workers; the outcomes in the order of `cuts`.
fn run_cuts(cuts: &[usize], f: impl Fn(usize, usize) -> Outcome + Sync) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<Outcome>> = vec![None; cuts.len()];
    let results = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..threads().min(cuts.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= cuts.len() {
                    break;
                }
                let o = f(k, cuts[k]);
                results.lock().unwrap()[k] = Some(o);
            });
        }
    });
    out.into_iter().map(|o| o.expect("every cut ran")).collect()
}

/// Counts the outcomes and checks that once a prefix opens, every longer one does.
fn tally(rel: &str, cuts: &[usize], outcomes: &[Outcome], t: &mut Tally) {
    t.cuts = cuts.len();
    let mut first_open: Option<usize> = None;
    for (&cut, o) in cuts.iter().zip(outcomes) {
        match o {
            Outcome::Opened => {
                t.opened += 1;
                first_open.get_or_insert(cut);
            }
            Outcome::Refused => {
                t.refused += 1;
                if let Some(f) = first_open {
                    t.failures.push(format!(
                        "{rel} cut at {cut}: refused, but the shorter prefix of {f} bytes opens"
                    ));
                }
            }
            Outcome::Failed(m) => t.failures.push(format!("{rel} cut at {cut}: {m}")),
        }
    }
}

/// Sweeps one fixture through its reader: `boundaries` record boundaries (`None`: all of
/// them; each cut at, and the spread `near` of them also one byte before and after) and
/// `randoms` pseudo-random cuts; a full walk of every `walk_every`th cut (0: none).
fn sweep(
    rel: &str,
    fmt: Fmt,
    boundaries: Option<usize>,
    near: usize,
    randoms: usize,
    walk_every: usize,
) -> Tally {
    let started = std::time::Instant::now();
    let full = bytes_of(rel);
    let mut whole = open(fmt, &full).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(whole.truncated.is_none(), "{rel}: the whole file is whole");
    check_graph(&mut whole, full.len());
    let n = counts(&whole);

    let mut starts: Vec<usize> = whole.graph.offset.iter().map(|o| o as usize).collect();
    drop(whole);
    match fmt {
        Fmt::Hprof => starts.extend(hprof_records(&full)),
        Fmt::MoarVm => starts.extend(moarvm_records(&full)),
        _ => {}
    }
    starts.retain(|&s| s <= full.len());
    starts.sort_unstable();
    starts.dedup();
    let all_boundaries = starts.len();
    let chosen = match boundaries {
        Some(max) => spread(&starts, max),
        None => starts,
    };
    let mut cuts: Vec<usize> = vec![0, 1, 2, full.len() - 1, full.len()];
    cuts.extend(&chosen);
    for s in spread(&chosen, near) {
        cuts.extend([s.saturating_sub(1), s + 1]);
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

    let outcomes = run_cuts(&cuts, |k, cut| {
        let walk_it = walk_every > 0 && k % walk_every == 0;
        check_cut(fmt, &full, &n, cut, walk_it)
    });
    let mut t = Tally {
        boundaries: chosen.len(),
        all_boundaries,
        ..Default::default()
    };
    tally(rel, &cuts, &outcomes, &mut t);
    // The whole file is the last cut: it opened, as whole.
    t.opened -= 1;
    t.secs = started.elapsed().as_secs_f64();
    t
}

/// The gzip path: `rel` (a compressed fixture) cut at its gzip members' starts and at
/// `randoms` pseudo-random offsets, each cut written to a file and opened with
/// `heaptui::open`. A cut opens with `truncated` set or with the warning that the gzip
/// stream ends early (a cut in the last member's trailer leaves the dump whole), or is
/// refused with a parse error naming the file.
fn sweep_gzip(rel: &str, members: Option<usize>, randoms: usize) -> Tally {
    static ENV: Once = Once::new();
    ENV.call_once(|| {
        std::env::set_var("HEAPTUI_CACHE_DIR", scratch().join("gzip-cache"));
        std::env::set_var("HEAPTUI_NO_CACHE", "1");
    });
    let started = std::time::Instant::now();
    let full = std::fs::read(fixture(rel)).unwrap();
    let whole =
        heaptui::open(&fixture(rel), &Progress::new()).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let n = counts(&whole);
    drop(whole);

    // Member starts (and chance occurrences of the magic inside the data: more cuts).
    let starts = find_all(&full, &[0x1f, 0x8b, 0x08]);
    let all_boundaries = starts.len();
    let chosen = match members {
        Some(max) => spread(&starts, max),
        None => starts,
    };
    let mut cuts: Vec<usize> = vec![0, 1, 2, 10, full.len() - 8, full.len() - 1];
    for &s in &chosen {
        cuts.extend([s.saturating_sub(1), s, s + 1, s + 10]);
    }
    let mut rng = Lcg(0x9e ^ full.len() as u64);
    for _ in 0..randoms {
        cuts.push(rng.below(full.len()));
    }
    cuts.retain(|&c| c < full.len());
    cuts.sort_unstable();
    cuts.dedup();

    let stem = rel.replace('/', "_");
    let outcomes = run_cuts(&cuts, |_, cut| {
        let dir = scratch().join(format!("gz-{stem}-{cut}"));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cut.gz");
        std::fs::write(&path, &full[..cut]).unwrap();
        let o = catch(|| match heaptui::open(&path, &Progress::new()) {
            Ok(mut s) => {
                let len = s.bytes().len();
                let early = s.warnings.iter().any(|w| w.contains("ends early"));
                assert!(
                    s.truncated.is_some() || early,
                    "neither truncated nor an early end of the gzip stream: {:?}",
                    s.warnings
                );
                check_graph(s.get_mut().unwrap(), len);
                check_objects(&s, &n);
                Outcome::Opened
            }
            Err(heaptui::Error::Parse { file, error }) => {
                assert!(file.contains("cut.gz"), "the error names {file}");
                assert!(!error.expected.is_empty(), "expects nothing: {error}");
                Outcome::Refused
            }
            Err(e) => panic!("not a parse error: {e}"),
        })
        .unwrap_or_else(Outcome::Failed);
        // The decompressed copy is in the cache, under a key file that names the path:
        // remove both (the cuts are megabytes each).
        let gunzip = heaptui::sys::files::cache_dir().unwrap().join("gunzip");
        let mine = dir.canonicalize().unwrap().display().to_string();
        for f in std::fs::read_dir(&gunzip).into_iter().flatten().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "key")
                && std::fs::read_to_string(&p).is_ok_and(|k| k.contains(&mine))
            {
                let _ = std::fs::remove_file(p.with_extension("hprof"));
                let _ = std::fs::remove_file(&p);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        o
    });
    let mut t = Tally {
        boundaries: chosen.len(),
        all_boundaries,
        ..Default::default()
    };
    tally(&format!("{rel} (gzip)"), &cuts, &outcomes, &mut t);
    t.secs = started.elapsed().as_secs_f64();
    t
}

/// Prints each fixture's line and fails with every failing cut listed.
fn report(tallies: Vec<(String, Tally)>) {
    let mut failures = Vec::new();
    let mut cuts = 0;
    for (rel, t) in &tallies {
        eprintln!("{}", t.line(rel));
        cuts += t.cuts;
        failures.extend(t.failures.iter().cloned());
    }
    eprintln!("{cuts} cuts, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} cuts failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn selected(rel: &str) -> bool {
    std::env::var("SWEEP_ONLY").map_or(true, |s| rel.contains(&s))
}

#[test]
fn sweep_ci() {
    // A few boundaries per fixture (each with its neighbours); ~200 random cuts over all
    // fixtures; the large MoarVM v2 file (16 MB, every cut scans it) gets fewer.
    let mut out = Vec::new();
    for &(rel, fmt) in FIXTURES {
        let (b, r) = if rel.contains("app-v2") {
            (3, 4)
        } else {
            (6, 14)
        };
        out.push((rel.to_string(), sweep(rel, fmt, Some(b), b, r, 0)));
    }
    for &rel in GZIP_FIXTURES {
        out.push((format!("{rel} (gzip)"), sweep_gzip(rel, Some(1), 3)));
    }
    report(out);
}

#[test]
#[ignore = "release mode, long: bench/truncation-sweep.sh"]
fn sweep_full() {
    let cap = std::env::var("SWEEP_BOUNDARIES")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut out = Vec::new();
    for &(rel, fmt) in FIXTURES {
        if selected(rel) {
            let t = sweep(rel, fmt, cap, 1000, 1000, 100);
            eprintln!("{}", t.line(rel));
            out.push((rel.to_string(), t));
        }
    }
    report(out);
}

#[test]
#[ignore = "release mode, long: bench/truncation-sweep.sh"]
fn sweep_full_gzip() {
    let mut out = Vec::new();
    for &rel in GZIP_FIXTURES {
        if selected(rel) {
            let t = sweep_gzip(rel, None, 1000);
            eprintln!("{}", t.line(rel));
            out.push((format!("{rel} (gzip)"), t));
        }
    }
    report(out);
}

/// Found by this sweep: a Go dump cut right after a record's kind byte was read as an
/// unreadable record ("expected object address, found end of file") rather than a cut,
/// so the first object's cut refused the file and later ones warned of corruption.
#[test]
fn a_go_dump_cut_right_after_a_record_kind_is_a_cut() {
    let full = bytes_of("go/heap.dump.gz");
    let whole = open(Fmt::Go, &full).unwrap();
    let mut offsets: Vec<usize> = whole.graph.offset.iter().map(|o| o as usize).collect();
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
