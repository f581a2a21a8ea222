//! Bytes → the dart reader → index checks and a walk of every question a view asks
//! (see `heaptui_fuzz::walk`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    heaptui_fuzz::run(heaptui_fuzz::Reader::Dart, data);
});
