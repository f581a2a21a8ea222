//! The quick histogram (one pass, no index) against the index's histogram on every real
//! HPROF file at hand: the JDK 17 fixtures (compressed and uncompressed oops, the growth
//! pair), the corpus' older JVMs, the JVMTI agent and Android's ART, whole and cut at
//! spread-out offsets. The index's histogram is the one `tests/it/hprof_jvm.rs` checks
//! against `jcmd GC.class_histogram`; the quick pass must count and size every class as
//! it does and report the same truncation point.

use crate::common;

use common::*;
use heaptui::heap::histogram;
use heaptui::sys::progress::Progress;

type Rows = Vec<(String, u64, u64)>;
/// A histogram and where the file was found cut, or `None` when it could not be read.
type Result = Option<(Rows, Option<u64>)>;

fn sorted(rows: Vec<histogram::Row>) -> Rows {
    let mut v: Rows = rows
        .into_iter()
        .map(|r| (r.name, r.count, r.shallow))
        .collect();
    v.sort();
    v
}

/// (rows, truncation offset) by the quick pass and by the index, for the file at `p`.
fn both(p: &std::path::Path) -> (Result, Result) {
    let bytes = std::fs::read(p).unwrap();
    let quick = heaptui::format::hprof::quick_histogram(&bytes, &Progress::new())
        .ok()
        .map(|q| (sorted(q.rows), q.truncated));
    let index = heaptui::session::open(p, &Progress::new())
        .ok()
        .map(|s| (sorted(histogram::by_class(&s.graph)), s.truncated));
    (quick, index)
}

fn files() -> Vec<std::path::PathBuf> {
    let mut v = vec![
        gunzipped("java/coops/heap-live-jvmgz.hprof.gz"),
        gunzipped("java/nocoops/heap-live.hprof.gz"),
        gunzipped("java/growth/base.hprof.gz"),
    ];
    for c in [
        "hprof/sun_jdk6_18_x32.hprof",
        "hprof/sun_jdk5_64bit.hprof",
        "hprof/jdk8u-jhat-hprof-32.bin",
        "hprof/netbeans-heap_dump.bin",
        "hprof/RI.hprof",
        "android/leak_service_binder.hprof",
    ] {
        v.extend(corpus(c));
    }
    v
}

#[test]
fn quick_histogram_equals_the_index_on_every_real_file() {
    std::env::set_var("HEAPTUI_NO_CACHE", "1");
    for p in files() {
        let (quick, index) = both(&p);
        let (quick, index) = (quick.unwrap(), index.unwrap());
        assert!(
            quick.0.len() > 50,
            "{}: {} rows",
            p.display(),
            quick.0.len()
        );
        assert_eq!(quick, index, "{}", p.display());
    }
}

#[test]
fn quick_histogram_equals_the_index_on_cut_files() {
    std::env::set_var("HEAPTUI_NO_CACHE", "1");
    let dir = scratch().join("quick-cuts");
    std::fs::create_dir_all(&dir).unwrap();
    let mut cuts = 0;
    for p in files() {
        let bytes = std::fs::read(&p).unwrap();
        for k in 1..24u64 {
            // Spread over the file, and off any alignment.
            let at = (bytes.len() as u64 * k / 24 + k * 7) as usize;
            let cut = dir.join(format!("cut-{k}"));
            std::fs::write(&cut, &bytes[..at]).unwrap();
            let (quick, index) = both(&cut);
            assert_eq!(quick, index, "{} cut at {at}", p.display());
            if let Some((_, t)) = index {
                assert!(
                    t.is_some(),
                    "{} cut at {at}: no truncation reported",
                    p.display()
                );
            }
            cuts += 1;
        }
    }
    assert!(cuts >= 3 * 23);
}
