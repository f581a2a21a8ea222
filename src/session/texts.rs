//! The strings' text of the session's snapshot ([`crate::format::texts`]): read from
//! beside the index cache entry when one passes the checks, else made by the format's
//! decoder and kept there for the next open. The cache only reads, checks and writes the
//! bytes.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::Session;
use crate::cache::TextsLoaded;
use crate::heap::texts::Texts;

impl Session {
    /// The strings' text: kept in the snapshot once made, else read from beside the
    /// index cache entry, else made and written there. `None` when `stop` is set first.
    pub fn texts(&self, stop: &AtomicBool) -> Option<Arc<Texts>> {
        let entry = self.entry.get();
        self.snap.texts_with(stop, || {
            match crate::cache::load_texts(&self.snap.graph, entry) {
                TextsLoaded::Hit(t) => return Some(*t),
                TextsLoaded::Missing | TextsLoaded::Rejected(_) => {}
            }
            let t = Texts::build(&self.snap, stop)?;
            // Without it the next open makes it again: nothing else is lost.
            let _ = crate::cache::store_texts(entry, &t);
            Some(t)
        })
    }
}
