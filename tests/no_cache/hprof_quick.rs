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
        .map(|q| {
            let q = q.expect("the quick pass proves every real file's ids unique");
            (sorted(q.rows), q.truncated)
        });
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

/// The top-level records of an HPROF file: (start, end) of each, after the header.
fn records(b: &[u8]) -> (usize, Vec<(usize, usize)>) {
    let head = b.iter().position(|&c| c == 0).unwrap() + 1 + 4 + 8;
    let mut v = Vec::new();
    let mut at = head;
    while at + 9 <= b.len() {
        let len = u32::from_be_bytes(b[at + 5..at + 9].try_into().unwrap()) as usize;
        let end = (at + 9 + len).min(b.len());
        v.push((at, end));
        at = end;
    }
    (head, v)
}

/// The file with its heap dump segments (tags 0x0c, 0x1c) rearranged by `f`, which gets
/// the segments' byte ranges and returns the ones to write, in order, where the first
/// segment was; every other record keeps its place.
fn with_segments(b: &[u8], f: impl Fn(&[(usize, usize)]) -> Vec<(usize, usize)>) -> Vec<u8> {
    let (head, recs) = records(b);
    let seg = |r: &(usize, usize)| matches!(b[r.0], 0x0c | 0x1c);
    let segs: Vec<(usize, usize)> = recs.iter().copied().filter(seg).collect();
    assert!(!segs.is_empty());
    let mut out = b[..head].to_vec();
    for r in &recs {
        if r.0 == segs[0].0 {
            for s in f(&segs) {
                out.extend_from_slice(&b[s.0..s.1]);
            }
        } else if !seg(r) {
            out.extend_from_slice(&b[r.0..r.1]);
        }
    }
    out
}

#[test]
fn the_quick_passes_answer_as_the_index_when_records_repeat_or_move() {
    // Issue 40, defect 6: a record written twice under one id was counted twice by the
    // quick walks (`waste`: `2 × byte[] length 1048576`; `histogram --no-retained`: 13
    // objects) while the index keeps the first and warns (10 objects). On the JDK
    // fixtures with their heap segments doubled, shuffled, or one appended again, each
    // quick pass either answers exactly as the index or leaves the file to it, and
    // `histogram --no-retained` says what the index says, with its warning.
    std::env::set_var("HEAPTUI_NO_CACHE", "1");
    let dir = scratch().join("quick-repeats");
    std::fs::create_dir_all(&dir).unwrap();
    type Mutation = fn(&[(usize, usize)]) -> Vec<(usize, usize)>;
    let mutations: [(&str, Mutation, bool); 4] = [
        ("as written", |s| s.to_vec(), false),
        (
            "doubled",
            |s| s.iter().flat_map(|&x| [x, x]).collect(),
            true,
        ),
        ("shuffled", |s| s.iter().rev().copied().collect(), false),
        (
            "first appended again",
            |s| s.iter().copied().chain([s[0]]).collect(),
            true,
        ),
    ];
    for rel in [
        "java/coops/heap-live-jvmgz.hprof.gz",
        "java/growth/base.hprof.gz",
    ] {
        let bytes = std::fs::read(gunzipped(rel)).unwrap();
        for (what, m, repeats) in mutations {
            let f = dir.join("mutated.hprof");
            let b = with_segments(&bytes, m);
            std::fs::write(&f, &b).unwrap();
            let snap = heaptui::session::open(&f, &Progress::new()).unwrap();
            let warned = snap
                .warnings
                .iter()
                .any(|w| w.contains("repeat an address already seen"));
            assert_eq!(warned, repeats, "{rel} {what}: {:?}", snap.warnings);
            let index = sorted(histogram::by_class(&snap.graph));
            let quick = heaptui::format::hprof::quick_histogram(&b, &Progress::new()).unwrap();
            if let Some(q) = &quick {
                assert_eq!(sorted(q.rows.clone()), index, "{rel} {what}");
            }
            if !repeats {
                assert!(quick.is_some(), "{rel} {what}: declined");
            } else {
                assert!(quick.is_none(), "{rel} {what}: a repeat was counted");
            }
            let w = heaptui::waste::find(&snap, 50);
            if let Some(q) = heaptui::format::hprof::quick_waste(&b, &Progress::new(), 50).unwrap()
            {
                let key = |v: &heaptui::heap::waste::Waste| {
                    (
                        v.strings
                            .iter()
                            .map(|s| (s.text.clone(), s.count))
                            .collect::<Vec<_>>(),
                        v.arrays
                            .iter()
                            .map(|a| (a.length, a.count))
                            .collect::<Vec<_>>(),
                        v.sparse
                            .iter()
                            .map(|c| (c.holder.clone(), c.count))
                            .collect::<Vec<_>>(),
                    )
                };
                assert_eq!(key(&q.waste), key(&w), "{rel} {what}");
            }
            // The CLI without an index entry: the index's answer.
            let out = heaptui(&["histogram", f.to_str().unwrap(), "--no-retained", "--json"]);
            let v = json_of(&out);
            let cli: u64 = items(&v, "classes").iter().map(count).sum();
            let total: u64 = index.iter().map(|r| r.1).sum();
            assert_eq!(cli, total, "{rel} {what}");
        }
    }
}
