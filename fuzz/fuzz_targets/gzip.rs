//! Bytes → a file → `heaptui::open` (gzip sniffing, decompression into the cache,
//! format detection, any reader) → index checks and the walk.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    heaptui_fuzz::run_gzip(data);
});
