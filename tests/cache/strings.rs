//! The strings' text kept beside the index cache entry (`src/cache/texts.rs`): the first
//! query that reads the `strings` table writes it, the next reads it instead of decoding
//! every string again, with the same answers as without the cache; one damaged, cut
//! short, of another index or inconsistent under a right checksum is never used but made
//! again and rewritten.

use crate::common;

use std::path::{Path, PathBuf};

/// Every string's id, text, length and bytes, and the strings' totals, as JSON.
const QUERIES: [&str; 2] = [
    "SELECT id, text, length, bytes, n FROM strings ORDER BY n",
    "SELECT count(*), sum(octet_length(text)), sum(length), sum(bytes) FROM strings",
];

fn answers(cache: &Path, file: &str, no_cache: bool) -> Vec<Vec<u8>> {
    QUERIES
        .iter()
        .map(|q| {
            let mut a = vec!["query", file, q, "--json"];
            if no_cache {
                a.push("--no-cache");
            }
            common::run_cached(cache, &a).stdout
        })
        .collect()
}

fn the_file(cache: &Path) -> Option<PathBuf> {
    let rd = std::fs::read_dir(cache.join("index")).ok()?;
    let mut all: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "strings"))
        .collect();
    assert!(all.len() <= 1, "one strings file expected: {all:?}");
    all.pop()
}

#[test]
fn the_second_query_reads_the_kept_strings_with_the_same_answers() {
    for rel in [
        "java/leak/heap-live.hprof.gz",
        "node/baseline.heapsnapshot.gz",
        "dart/before.dartheap.gz",
    ] {
        let cache = tempfile::tempdir().unwrap();
        let file = common::fixture(rel);
        let file = file.to_str().unwrap();
        let reference = answers(cache.path(), file, true);
        assert!(the_file(cache.path()).is_none(), "{rel}: --no-cache wrote");
        let count: serde_json::Value = serde_json::from_slice(&reference[1]).unwrap();
        assert!(
            count["rows"][0][0].as_u64().unwrap() > 100,
            "{rel}: {count}"
        );
        // Only a query that reads the strings makes them.
        common::run_cached(
            cache.path(),
            &["query", file, "SELECT count(*) FROM objects"],
        );
        assert!(the_file(cache.path()).is_none(), "{rel}: made unasked");
        assert!(
            answers(cache.path(), file, false) == reference,
            "{rel}: first"
        );
        let kept = the_file(cache.path()).expect("written by the first query");
        let written = std::fs::read(&kept).unwrap();
        let stamp = std::fs::metadata(&kept).unwrap().modified().unwrap();
        assert!(
            answers(cache.path(), file, false) == reference,
            "{rel}: kept"
        );
        assert_eq!(
            std::fs::metadata(&kept).unwrap().modified().unwrap(),
            stamp,
            "{rel}: made again rather than read"
        );
        assert!(std::fs::read(&kept).unwrap() == written, "{rel}: rewritten");
    }
}

#[test]
fn damaged_cut_or_inconsistent_strings_are_made_again_never_used() {
    let cache = tempfile::tempdir().unwrap();
    let cache = cache.path();
    let file = common::fixture("java/leak/heap-live.hprof.gz");
    let file = file.to_str().unwrap();
    let reference = answers(cache, file, true);
    answers(cache, file, false);
    let kept = the_file(cache).unwrap();
    let good = std::fs::read(&kept).unwrap();
    let (_, cols) = crate::columns_of(&good, 5);
    // Each time the answers are those of strings made again, which are written in its
    // place.
    let check = |damaged: &[u8], what: &str| {
        std::fs::write(&kept, damaged).unwrap();
        assert!(
            answers(cache, file, false) == reference,
            "{what}: other answers"
        );
        assert!(
            std::fs::read(&kept).unwrap() == good,
            "{what}: not rewritten"
        );
    };
    for &(at, n) in &cols {
        for k in [0, n / 2, n - 1] {
            let mut b = good.clone();
            b[at + k] ^= 0x5a;
            check(&b, &format!("a byte at {} flipped", at + k));
        }
    }
    for cut in [10, 30, good.len() / 2, good.len() - 1] {
        check(&good[..cut], &format!("cut at {cut}"));
    }
    let mut grown = good.clone();
    grown.extend_from_slice(&[0; 16]);
    check(&grown, "grown");
    // Under a right checksum: two objects swapped, an object past the snapshot's, two
    // starts swapped, a text that is not UTF-8, a start inside a character.
    let at_u32 = |i: usize| cols[0].0 + 4 * i;
    let at_u64 = |i: usize| cols[3].0 + 8 * i;
    let strings = cols[0].1 / 4;
    let mut b = good.clone();
    b.copy_within(at_u32(1)..at_u32(2), at_u32(0));
    crate::fix_trailer(&mut b, 5);
    check(&b, "objects out of order");
    let mut b = good.clone();
    b[at_u32(strings - 1)..at_u32(strings)].copy_from_slice(&u32::MAX.to_ne_bytes());
    crate::fix_trailer(&mut b, 5);
    check(&b, "an object out of range");
    let mut b = good.clone();
    let (s1, s2) = (
        b[at_u64(1)..at_u64(2)].to_vec(),
        b[at_u64(2)..at_u64(3)].to_vec(),
    );
    b[at_u64(1)..at_u64(2)].copy_from_slice(&s2);
    b[at_u64(2)..at_u64(3)].copy_from_slice(&s1);
    crate::fix_trailer(&mut b, 5);
    check(&b, "starts out of order");
    let mut b = good.clone();
    b[cols[4].0 + cols[4].1 / 2] = 0xff;
    crate::fix_trailer(&mut b, 5);
    check(&b, "text not UTF-8");
    // A two-byte character in place of the first string's first two bytes, the second
    // string starting between them.
    let start =
        |b: &[u8], i: usize| u64::from_ne_bytes(b[at_u64(i)..at_u64(i + 1)].try_into().unwrap());
    let i = (0..strings - 1)
        .find(|&i| {
            start(&good, i + 1) - start(&good, i) >= 2 && start(&good, i + 2) > start(&good, i + 1)
        })
        .unwrap();
    let mut b = good.clone();
    let s = cols[4].0 + start(&good, i) as usize;
    b[s..s + 2].copy_from_slice("é".as_bytes());
    b[at_u64(i + 1)..at_u64(i + 2)].copy_from_slice(&(start(&good, i) + 1).to_ne_bytes());
    crate::fix_trailer(&mut b, 5);
    check(&b, "a start inside a character");
}
