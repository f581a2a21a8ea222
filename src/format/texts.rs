//! The text of every string of a snapshot, in one place: what the `strings` table of a
//! query reads ([`crate::query`]), so that a `LIKE '%…%'` over ten million strings scans
//! one run of UTF-8 instead of decoding each string from the dump (a Java `String` is an
//! instance, its `value` field, and an array elsewhere in the file).
//!
//! Made in one parallel pass over the objects ([`Texts::build`]) the first time a query
//! reads the strings, and kept: in the snapshot for the rest of the process
//! ([`Snapshot::texts`]), and beside the snapshot's index cache entry for the next open
//! (the session writes it; `src/cache/texts.rs` reads it back, checked with
//! [`Texts::check`]). Which objects are strings and how their text reads is the format's
//! ([`super::Decoder::content`]); text that is not UTF-8 in the dump (Latin-1 beyond
//! ASCII, UTF-16) is converted once here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use super::{Content, Encoding, Snapshot};
use crate::heap::texts::Texts;
use crate::heap::ObjId;

/// What one piece of the pass finds.
#[derive(Default)]
struct Piece {
    objs: Vec<u32>,
    length: Vec<u64>,
    bytes: Vec<u64>,
    /// Where each string's text ends in `text`.
    ends: Vec<u64>,
    text: Vec<u8>,
}

/// Objects per piece of the pass.
const PIECE: usize = 1 << 18;

/// Appends a string's text as UTF-8: as it is where it already is (ASCII in Latin-1, or
/// UTF-8), else converted.
fn push_text(out: &mut Vec<u8>, c: &Content<'_>) {
    match c.encoding {
        Encoding::Utf8 | Encoding::Latin1 if c.data.is_ascii() => out.extend_from_slice(&c.data),
        Encoding::Utf8 => out.extend_from_slice(String::from_utf8_lossy(&c.data).as_bytes()),
        _ => out.extend_from_slice(c.text().as_bytes()),
    }
}

/// Per class, whether its instances may be strings: the classes with contents but for
/// those whose first instance's contents are not a string (primitive arrays: never
/// scanned).
fn text_classes(snap: &Snapshot) -> Vec<bool> {
    let g = &snap.graph;
    let content = snap.decoder.content_classes(snap.bytes(), g);
    let first = g.first_instances();
    let mut is_text = vec![false; g.classes.len()];
    for c in content {
        let array = first.get(c as usize).copied().flatten().is_some_and(|o| {
            snap.decoder
                .content(snap.bytes(), g, o)
                .is_some_and(|x| !x.string)
        });
        if let Some(x) = is_text.get_mut(c as usize) {
            *x = !array;
        }
    }
    is_text
}

impl Texts {
    /// The strings of `snap`, in one pass over its objects on the thread pool; `None`
    /// when `stop` is set first.
    pub fn build(snap: &Snapshot, stop: &AtomicBool) -> Option<Texts> {
        let g = &snap.graph;
        let is_text = text_classes(snap);
        let n = g.len();
        let pieces: Vec<Option<Piece>> = (0..n.div_ceil(PIECE))
            .into_par_iter()
            .map(|i| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let mut p = Piece::default();
                for o in i * PIECE..n.min((i + 1) * PIECE) {
                    if !is_text[g.class_of.get(o) as usize] {
                        continue;
                    }
                    let Some(c) = snap.decoder.content(snap.bytes(), g, o as ObjId) else {
                        continue;
                    };
                    if !c.string {
                        continue;
                    }
                    p.objs.push(o as u32);
                    p.length.push(c.length);
                    p.bytes.push(c.bytes);
                    push_text(&mut p.text, &c);
                    p.ends.push(p.text.len() as u64);
                }
                Some(p)
            })
            .collect();
        let pieces: Vec<Piece> = pieces.into_iter().collect::<Option<_>>()?;
        let strings: usize = pieces.iter().map(|p| p.objs.len()).sum();
        let bytes: usize = pieces.iter().map(|p| p.text.len()).sum();
        let mut t = Texts::default();
        t.objs.reserve_exact(strings);
        t.length.reserve_exact(strings);
        t.bytes.reserve_exact(strings);
        t.starts.reserve_exact(strings + 1);
        t.text.reserve_exact(bytes);
        t.starts.push(0);
        for p in pieces {
            let at = t.text.len() as u64;
            t.objs.extend_from_slice(&p.objs);
            t.length.extend_from_slice(&p.length);
            t.bytes.extend_from_slice(&p.bytes);
            t.starts.extend(p.ends.iter().map(|e| at + e));
            t.text.extend_from_slice(&p.text);
        }
        Some(t)
    }
}

impl Snapshot {
    /// The strings' text ([`Texts`]), made the first time it is asked for and kept;
    /// `make` gives it (the session: read from beside the index cache entry, or built
    /// and written there), else it is built here. `None` when `stop` is set before it is
    /// made.
    pub fn texts_with(
        &self,
        stop: &AtomicBool,
        make: impl FnOnce() -> Option<Texts>,
    ) -> Option<Arc<Texts>> {
        let mut kept = self.texts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = kept.as_ref() {
            return Some(t.clone());
        }
        let t = Arc::new(make().or_else(|| Texts::build(self, stop))?);
        *kept = Some(t.clone());
        Some(t)
    }

    /// The strings' text, built in memory the first time ([`Snapshot::texts_with`]).
    pub fn texts(&self, stop: &AtomicBool) -> Option<Arc<Texts>> {
        self.texts_with(stop, || None)
    }
}
