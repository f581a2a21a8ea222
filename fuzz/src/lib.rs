//! Shared code of heaptui's fuzz targets: open bytes as one format, or through the gzip
//! path, and walk the result (see [`walk`]).
//!
//! Each target is a thin `fuzz_target!` over one function here, so that the same
//! function can be called on a crashing input outside libFuzzer (see `README.md`).

pub mod walk;

use std::path::Path;

use heaptui::format::{self, Snapshot};
use heaptui::source::Source;
use heaptui::sys::progress::Progress;

/// Which reader a target feeds.
#[derive(Clone, Copy, Debug)]
pub enum Reader {
    Hprof,
    V8,
    Go,
    /// MoarVM v2 and v3 (its zstd columns included); the last snapshot of the file.
    MoarVm,
    Dart,
}

/// Opens `data` with one reader (no format detection: the reader itself must refuse
/// what is not its format) and, when it opens, checks and walks the snapshot.
pub fn run(reader: Reader, data: &[u8]) {
    let src = Source::from_bytes(Path::new("fuzz-input"), data).expect("anonymous map");
    let progress = Progress::new();
    let r = match reader {
        Reader::Hprof => {
            let quick = format::hprof::quick_histogram(data, &progress);
            let _ = format::hprof::quick_waste(data, &progress, 5);
            let r = format::hprof::open(src, &progress);
            quick_agrees(quick, &r);
            r
        }
        Reader::V8 => format::v8::open(src, &progress),
        Reader::Go => format::go::open(src, &progress),
        Reader::Dart => format::dart::open(src, &progress),
        // MoarVM's open answers the crate's error (it may name a snapshot that is not in
        // the file); a refusal of the bytes is a parse error with its offset.
        Reader::MoarVm => match format::moarvm::open(src, None, &progress) {
            Ok(s) => Ok(s),
            Err(heaptui::Error::Parse { error, .. }) => Err(error),
            Err(e) => panic!("MoarVM refused bytes without an offset: {e}"),
        },
    };
    match r {
        Ok(s) => exercise(&s, data.len()),
        Err(e) => {
            // A refusal must say where: never past the end of what was read.
            assert!(
                e.offset <= data.len() as u64,
                "error offset {} past the input's {} bytes: {e}",
                e.offset,
                data.len()
            );
        }
    }
}

/// The quick histogram (one pass, no index) refuses what the index refuses, finds the
/// file cut where the index does, and counts and sizes every class as the index does; or
/// leaves the file to the index where it cannot prove that no object id repeats (the
/// index keeps the first record of each and warns): it never answers over a repeat.
fn quick_agrees(
    quick: Result<Option<format::QuickHistogram>, heaptui::error::ParseError>,
    index: &Result<Snapshot, heaptui::error::ParseError>,
) {
    let (q, s) = match (quick, index) {
        (Ok(None), _) => return,
        (Ok(Some(q)), Ok(s)) => (q, s),
        (Err(_), Err(_)) => return,
        (q, s) => panic!(
            "the quick histogram and the index disagree on the bytes: {:?} / {:?}",
            q.err(),
            s.as_ref().err()
        ),
    };
    assert_eq!(q.truncated, s.truncated, "truncation point");
    assert!(
        !s.warnings.iter().any(|w| w.contains("repeat an address")),
        "the quick histogram answered over a repeated object id"
    );
    let rows = |r: Vec<heaptui::heap::histogram::Row>| {
        let mut v: Vec<(String, u64, u64)> = r
            .into_iter()
            .map(|r| (r.name, r.count, r.shallow))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        rows(q.rows),
        rows(heaptui::heap::histogram::by_class(&s.graph)),
        "quick histogram against the index"
    );
}

/// Checks the index and walks it.
pub fn exercise(s: &Snapshot, len: usize) {
    walk::check_graph(s, len);
    std::hint::black_box(walk::walk(s));
}

/// The gzip path: writes `data` to a file in a private directory and opens it as a user
/// would (`heaptui::open`: sniff gzip, decompress into the cache, detect, read), with
/// `HEAPTUI_CACHE_DIR` pointing into that directory. The directory (input and cache) is
/// removed after each run: the cache is keyed by path, size and modification time, and
/// two inputs of one size written within a clock tick would otherwise share a stale copy;
/// and nothing is left behind when the process ends.
pub fn run_gzip(data: &[u8]) {
    let dir = scratch_parent().join(format!("heaptui-fuzz-gzip-{}", std::process::id()));
    static ENV: std::sync::Once = std::sync::Once::new();
    ENV.call_once(|| std::env::set_var("HEAPTUI_CACHE_DIR", dir.join("cache")));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let input = dir.join("input.gz");
    std::fs::write(&input, data).expect("write input");
    let r = heaptui::open(&input, &Progress::new());
    match r {
        Ok(s) => {
            let len = s.bytes().len();
            exercise(&s, len);
        }
        Err(heaptui::Error::Parse { error, .. }) => {
            // Offsets are in the decompressed bytes or the compressed ones; neither can
            // be past what a 1032:1 stream could produce.
            assert!(error.offset <= (data.len() as u64 + 1) * 1032 + (1 << 20));
        }
        Err(_) => {}
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A RAM-backed directory when there is one: the gzip target writes every input and its
/// decompressed copy.
fn scratch_parent() -> std::path::PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}
