//! Inputs the fuzzers (`fuzz/`) and the truncation sweep found, replayed exactly as the
//! fuzz targets run them: every file under `tests/data/fuzz/TARGET/` goes through the
//! target's own function (`fuzz/src/lib.rs`, included here by path), which opens it,
//! checks the index and walks every object. Each file's first line of explanation is in
//! `tests/data/fuzz/README.md`: what it did before the fix.
//!
//! A new crash: minimise it (`cargo fuzz tmin TARGET ARTIFACT`), copy it to
//! `tests/data/fuzz/TARGET/`, say in the README what it did, fix the reader.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz;

use std::path::PathBuf;

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn replay(target: &str, run: impl Fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no input under tests/data/fuzz/{target}");
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&data)));
        assert!(r.is_ok(), "{} panicked", f.display());
    }
}

#[test]
fn hprof_inputs() {
    replay("hprof", |d| fuzz::run(fuzz::Reader::Hprof, d));
}

#[test]
fn v8_inputs() {
    replay("v8", |d| fuzz::run(fuzz::Reader::V8, d));
}

#[test]
fn go_inputs() {
    replay("go", |d| fuzz::run(fuzz::Reader::Go, d));
}

#[test]
fn gzip_inputs() {
    replay("gzip", fuzz::run_gzip);
}
