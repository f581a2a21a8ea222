//! A V8 `.heapsnapshot` cut anywhere opens as far as it is whole (truncated, at an offset
//! no later than the cut) or fails naming the offset and what was expected — never a
//! panic. The file is Chrome's, from the public corpus (`../shared/corpus/v8`); skipped
//! with a message when it is absent.

use crate::common;

use common::*;
use heaptui::source::Source;
use heaptui::sys::progress::Progress;

fn open_bytes(bytes: &[u8]) -> Result<heaptui::Snapshot, heaptui::error::ParseError> {
    let mut m = memmap2::MmapMut::map_anon(bytes.len().max(1)).unwrap();
    m[..bytes.len()].copy_from_slice(bytes);
    let map = m.make_read_only().unwrap();
    heaptui::format::v8::open(
        Source::from_map(std::path::Path::new("cut.heapsnapshot"), Some(map)),
        &Progress::new(),
    )
}

#[test]
fn a_snapshot_cut_anywhere_opens_what_is_whole() {
    let Some(p) = corpus("v8/small.heapsnapshot") else {
        return;
    };
    let full = std::fs::read(p).unwrap();
    let whole = open_bytes(&full).unwrap();
    assert!(whole.truncated.is_none());
    let (n, m) = (whole.graph.len(), whole.graph.edge_count());
    // Structural boundaries (key starts, array ends, line ends) along the file, and 60
    // pseudo-random cuts.
    let mut cuts: Vec<usize> = Vec::new();
    for key in [&b"\"nodes\""[..], b"\"edges\"", b"\"strings\"", b"]", b"\n"] {
        let mut from = 0;
        while let Some(k) = full[from..].windows(key.len()).position(|w| w == key) {
            cuts.extend([from + k, from + k + 1, from + k + key.len()]);
            // Sample the boundaries of each kind along the file.
            from += k + 1 + full.len() / 40;
            if from >= full.len() {
                break;
            }
        }
    }
    let mut x: u64 = 0x2545f4914f6cdd1d;
    for _ in 0..60 {
        cuts.push((xorshift(&mut x) % full.len() as u64) as usize);
    }
    let (mut opened, mut failed) = (0, 0);
    for &cut in &cuts {
        match open_bytes(&full[..cut]) {
            Ok(s) => {
                opened += 1;
                let t = s
                    .truncated
                    .unwrap_or_else(|| panic!("cut at {cut}: not truncated"));
                assert!(t <= cut as u64, "cut at {cut}: truncated at {t}");
                assert!(s.graph.len() <= n && s.graph.edge_count() <= m);
                // Every node that is there has a class, and the analyses run.
                if opened % 10 == 0 {
                    let d = heaptui::heap::dominators::compute(&s.graph, &Progress::new());
                    assert!(d.reach.reachable <= s.graph.len() as u64);
                }
                for o in (0..s.graph.len() as u32).step_by(4999) {
                    let _ = s.inspect(o);
                    let _ = s.label(o);
                }
            }
            Err(e) => {
                failed += 1;
                assert!(e.offset <= cut as u64, "cut at {cut}: {e}");
                assert!(!e.expected.is_empty());
            }
        }
    }
    // Past the header, every cut opens.
    assert!(
        opened > cuts.len() * 9 / 10,
        "{opened} opened, {failed} failed"
    );
}
