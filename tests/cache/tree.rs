//! The dominator tree kept beside the index cache entry (`src/cache/tree.rs`): the run
//! that computes a tree writes it, the next reads it instead of computing it again, with
//! byte-identical `dominators` and `histogram` outputs (and identical to `--no-cache`);
//! a tree that is damaged, cut short, of another index or inconsistent under a right
//! checksum is never used but computed again and rewritten.
//!
//! Each test has its own cache directory (`HEAPTUI_CACHE_DIR`) and writes entries for
//! the small fixtures (`HEAPTUI_CACHE_MIN_BYTES=0`).

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn run(cache: &Path, args: &[&str]) -> Vec<u8> {
    common::run_cached(cache, args).stdout
}

/// Where `summary` says the tree came from (`None`: computed plainly).
fn tree_origin(cache: &Path, file: &str) -> Option<String> {
    let s: Value = serde_json::from_slice(&run(cache, &["summary", file, "--json"])).unwrap();
    s["details"]["dominator tree"].as_str().map(String::from)
}

/// The outputs that show the tree: its top levels, the largest objects anywhere in it,
/// the histogram's retained sizes (by class, by package, sorted by them, as JSON).
fn outputs(cache: &Path, file: &str, no_cache: bool) -> Vec<Vec<u8>> {
    outputs_of(cache, file, no_cache, 5)
}

/// The first `k` of [`outputs`].
fn outputs_of(cache: &Path, file: &str, no_cache: bool, k: usize) -> Vec<Vec<u8>> {
    let commands: [&[&str]; 5] = [
        &["dominators", file, "--top", "10", "--depth", "3"],
        &["dominators", file, "--json", "--flat", "--top", "25"],
        &["histogram", file, "--sort", "retained", "--top", "30"],
        &["histogram", file, "--json"],
        &["histogram", file, "--group-by", "package", "--top", "10"],
    ];
    commands[..k]
        .iter()
        .map(|args| {
            let mut a = args.to_vec();
            if no_cache {
                a.push("--no-cache");
            }
            run(cache, &a)
        })
        .collect()
}

fn files_with(cache: &Path, ext: &str) -> Vec<PathBuf> {
    match std::fs::read_dir(cache.join("index")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn the_tree(cache: &Path) -> PathBuf {
    let trees = files_with(cache, "tree");
    assert_eq!(trees.len(), 1, "one tree expected: {trees:?}");
    trees[0].clone()
}

const FILES: [&str; 4] = [
    "java/leak/heap-live.hprof.gz",
    "node/baseline.heapsnapshot.gz",
    "go/heap.dump.gz",
    "dart/before.dartheap.gz",
];

#[test]
fn the_second_run_reads_the_kept_tree_with_byte_identical_outputs() {
    for rel in FILES {
        let cache = tempfile::tempdir().unwrap();
        let file = common::fixture(rel);
        let file = file.to_str().unwrap();
        let reference = outputs(cache.path(), file, true);
        assert!(files_with(cache.path(), "tree").is_empty(), "{rel}");
        // The first run computes the tree and keeps it beside the index entry.
        let first = outputs(cache.path(), file, false);
        assert!(first == reference, "{rel}: the first run differs");
        let tree = the_tree(cache.path());
        let written = std::fs::read(&tree).unwrap();
        // The next ones read it, and leave it as it was.
        let origin = tree_origin(cache.path(), file);
        assert!(
            origin
                .as_deref()
                .is_some_and(|o| o.starts_with("read from")),
            "{rel}: {origin:?}"
        );
        let second = outputs(cache.path(), file, false);
        assert!(
            second == reference,
            "{rel}: read from the cache, it differs"
        );
        assert!(std::fs::read(&tree).unwrap() == written, "{rel}: rewritten");
    }
}

#[test]
fn a_damaged_cut_or_inconsistent_tree_is_computed_again_never_used() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let file = common::fixture("java/leak/heap-live.hprof.gz");
    let file = file.to_str().unwrap();
    let reference = outputs(&cache, file, true);
    outputs(&cache, file, false);
    let tree = the_tree(&cache);
    let good = std::fs::read(&tree).unwrap();
    let (_, cols) = crate::columns_of(&good, 6);
    // Each time: the damaged tree is not used (summary says why), the answers are those
    // of a tree computed again, which is written in its place and read next time.
    let check = |damaged: &[u8], why: &str| {
        std::fs::write(&tree, damaged).unwrap();
        let origin = tree_origin(&cache, file).unwrap_or_default();
        assert!(
            origin.starts_with("computed again") && origin.contains(why),
            "{why}: {origin}"
        );
        assert!(
            std::fs::read(&tree).unwrap() == good,
            "{why}: not rewritten"
        );
        std::fs::write(&tree, damaged).unwrap();
        assert!(
            outputs_of(&cache, file, false, 2) == reference[..2],
            "{why}: other answers"
        );
        let origin = tree_origin(&cache, file).unwrap_or_default();
        assert!(origin.starts_with("read from"), "{why}: {origin}");
    };
    // Bytes flipped in every column (immediate dominators, retained sizes and counts,
    // weak bits, children starts, children), and in the figures.
    for &(at, n) in &cols {
        for k in [0, n / 2, n - 1] {
            let mut b = good.clone();
            b[at + k] ^= 0x5a;
            check(&b, "damaged (checksum)");
        }
    }
    let mut b = good.clone();
    b[cols[0].0 - 40] ^= 0x01;
    check(&b, "tree");
    // Cut short, or grown.
    for cut in [10, 30, good.len() / 2, good.len() - 1] {
        check(&good[..cut], "tree");
    }
    let mut b = good.clone();
    b.extend_from_slice(&[0; 16]);
    check(&b, "tree");
    // Inconsistent under a right checksum: an object moved under another dominator, a
    // child listed below no object, an immediate dominator past the objects.
    let u32_at = |b: &[u8], at: usize| u32::from_ne_bytes(b[at..at + 4].try_into().unwrap());
    let put = |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_ne_bytes());
    let (idom, _) = cols[0];
    let objects = cols[0].1 / 4;
    let reached = (0..objects)
        .filter(|&o| u32_at(&good, idom + 4 * o) < u32::MAX - 1)
        .collect::<Vec<_>>();
    let (o, other) = (reached[reached.len() / 2], reached[0]);
    assert_ne!(u32_at(&good, idom + 4 * o), other as u32);
    let mut b = good.clone();
    put(&mut b, idom + 4 * o, other as u32);
    crate::fix_trailer(&mut b, 6);
    check(&b, "not the immediate dominators'");
    let mut b = good.clone();
    put(&mut b, idom + 4 * o, objects as u32 + 5);
    crate::fix_trailer(&mut b, 6);
    check(&b, "out of range");
    let mut b = good.clone();
    put(&mut b, cols[5].0, objects as u32);
    crate::fix_trailer(&mut b, 6);
    check(&b, "a tree child of no object");
    // Retained less than the object's own size.
    let mut b = good.clone();
    put(&mut b, cols[1].0 + 4 * o, 0);
    crate::fix_trailer(&mut b, 6);
    check(&b, "sizes that cannot be");
}

#[test]
fn a_tree_of_another_index_entry_is_not_used() {
    let cache = tempfile::tempdir().unwrap();
    let file = common::fixture("node/baseline.heapsnapshot.gz");
    let file = file.to_str().unwrap();
    let reference = outputs(cache.path(), file, true);
    outputs(cache.path(), file, false);
    let tree = the_tree(cache.path());
    let good = std::fs::read(&tree).unwrap();
    // The index entry's trailer the tree names (its metadata's first field, in bincode's
    // varint: a tag byte and eight bytes), changed under a right checksum.
    let meta = 24 + 8 + u64::from_ne_bytes(good[24..32].try_into().unwrap()) as usize + 8;
    assert_eq!(good[meta], 253, "a u64 of 32 bits or more");
    let mut b = good.clone();
    b[meta + 3] ^= 0x10;
    crate::fix_trailer(&mut b, 6);
    std::fs::write(&tree, &b).unwrap();
    let origin = tree_origin(cache.path(), file).unwrap_or_default();
    assert!(origin.ends_with("of another index entry"), "{origin}");
    assert!(std::fs::read(&tree).unwrap() == good, "not rewritten");
    // The index entry damaged: it is rebuilt (its warnings now say so: another
    // trailer), which removes the tree beside it; the tree is computed again over the
    // new entry and written beside it.
    let idx = files_with(cache.path(), "idx").remove(0);
    let mut b = std::fs::read(&idx).unwrap();
    let end = b.len();
    b[end / 2] ^= 0xff;
    std::fs::write(&idx, &b).unwrap();
    std::fs::write(&tree, b"left from before").unwrap();
    assert!(
        outputs(cache.path(), file, false) == reference,
        "other answers"
    );
    let rewritten = std::fs::read(&tree).unwrap();
    assert!(rewritten.len() == good.len() && rewritten != good);
    let origin = tree_origin(cache.path(), file).unwrap_or_default();
    assert!(origin.starts_with("read from"), "{origin}");
}

#[test]
fn no_cache_writes_no_tree_and_pruning_removes_trees_with_their_entries() {
    let cache = tempfile::tempdir().unwrap();
    let file = common::fixture("go/heap.dump.gz");
    let file = file.to_str().unwrap();
    outputs(cache.path(), file, true);
    assert!(files_with(cache.path(), "tree").is_empty());
    outputs(cache.path(), file, false);
    let tree = the_tree(cache.path());
    // A tree whose entry is gone is removed when the next entry is written.
    for idx in files_with(cache.path(), "idx") {
        std::fs::remove_file(idx).unwrap();
    }
    run(
        cache.path(),
        &[
            "summary",
            common::fixture("dart/before.dartheap.gz").to_str().unwrap(),
        ],
    );
    assert!(!tree.exists(), "a tree without its entry was kept");
}
