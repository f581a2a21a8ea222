//! The index cache's tests: its entries (`index`) and what is kept beside them: the
//! dominator trees (`tree`) and the strings' text (`strings`). A binary of its own because `index` opens a fixture in this process
//! with the cache on for every size (`HEAPTUI_CACHE_DIR` and `HEAPTUI_CACHE_MIN_BYTES=0`
//! set in the process's environment, which every test of a binary shares and every
//! program it runs inherits): elsewhere that would write and read entries under the
//! other tests.

#[path = "../common/mod.rs"]
mod common;

mod index;
#[cfg(feature = "sql")]
mod strings;
mod tree;

/// Byte offsets of a cache file's parts (the layout of `src/cache.rs`'s doc): where its
/// columns start (after the two sections) and each of its `n` columns' (offset, length)
/// in bytes.
pub fn columns_of(b: &[u8], n: usize) -> (usize, Vec<(usize, usize)>) {
    let u64_at = |at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let mut pos = 24;
    for _ in 0..2 {
        pos += 8 + u64_at(pos);
    }
    let prefix = pos;
    let mut cols = Vec::new();
    for _ in 0..n {
        pos = pos.div_ceil(8) * 8;
        let len = u64_at(pos);
        cols.push((pos + 8, len));
        pos += 8 + len;
    }
    assert_eq!(pos + 8, b.len(), "the layout of cache.rs's doc");
    (prefix, cols)
}

/// Writes the trailer that the bytes of `b` (a cache file of `n` columns) hash to, as
/// the writer does.
pub fn fix_trailer(b: &mut [u8], n: usize) {
    use xxhash_rust::xxh3::xxh3_64;
    let (prefix, cols) = columns_of(b, n);
    let mut digests = vec![xxh3_64(&b[..prefix])];
    for &(at, len) in &cols {
        digests.push(heaptui::cache::column_digest(
            &b[at - 8..at],
            &b[at..at + len],
        ));
    }
    let all: Vec<u8> = digests.iter().flat_map(|d| d.to_ne_bytes()).collect();
    let end = b.len();
    b[end - 8..].copy_from_slice(&xxh3_64(&all).to_ne_bytes());
}
