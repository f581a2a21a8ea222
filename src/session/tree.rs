//! The session's analyses of a whole snapshot that outlive one view: the dominator tree
//! (read from beside the index cache entry when one passes the checks, else computed by
//! [`crate::heap::dominators`], and kept there for the next open) and each object's depth
//! from the roots ([`crate::heap::depth`]). The cache only reads, checks and writes the
//! tree's bytes; the computing is asked of the heap from here.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Session;
use crate::cache::TreeLoaded;
use crate::heap::dominators::{Dominators, Origin};
use crate::heap::Graph;
use crate::sys::progress::Progress;

impl Session {
    /// The dominator tree: the one kept beside the snapshot's index cache entry when
    /// there is one that passes the checks, else computed (its origin then says why the
    /// kept one was not used, if there was one).
    pub fn dominator_tree(&self, progress: &Progress) -> Dominators {
        match self.kept_tree(progress) {
            Ok(d) => d,
            Err(rejected) => self.compute_tree(rejected, progress),
        }
    }

    /// The dominator tree kept beside the snapshot's index cache entry, checked
    /// ([`crate::cache::load_tree`]); else why a kept one was not used (it is computed
    /// again), or `None` when none was kept.
    pub fn kept_tree(&self, progress: &Progress) -> Result<Dominators, Option<String>> {
        match crate::cache::load_tree(&self.graph, self.entry.get(), progress) {
            TreeLoaded::Hit(d) => Ok(*d),
            TreeLoaded::Rejected(why) => Err(Some(why)),
            TreeLoaded::Missing => Err(None),
        }
    }

    /// The dominator tree computed ([`crate::heap::dominators::compute`]); `rejected`
    /// says why a kept one was not used, if one was there.
    pub fn compute_tree(&self, rejected: Option<String>, progress: &Progress) -> Dominators {
        let mut d = crate::heap::dominators::compute(&self.graph, progress);
        if let Some(why) = rejected {
            d.origin = Origin::Rebuilt(why);
        }
        d
    }

    /// Keeps `d`, the snapshot's dominator tree, beside its index cache entry for the next
    /// open, unless it was read from there or there is no entry (`Ok(None)`). What the
    /// kept tree holds but may not be made yet (the children lists, the per-class
    /// retained sizes) is made first. An error says why it could not be written (the
    /// caller carries on without it).
    pub fn keep_tree(
        &self,
        d: &Dominators,
        progress: &Progress,
    ) -> std::result::Result<Option<PathBuf>, String> {
        if matches!(d.origin, Origin::Read(_)) {
            return Ok(None);
        }
        let Some(entry) = self.entry.get() else {
            return Ok(None);
        };
        progress.phase("dominators: children lists", 0);
        d.children(crate::heap::dominators::VIRTUAL_ROOT);
        progress.phase("dominators: retained sizes per class", 0);
        d.class_retained(&self.graph);
        progress.phase("writing the dominator tree to the cache", 0);
        let (figures, parts) = d.stored(&self.graph);
        crate::cache::store_tree(Some(entry), figures, &parts)
    }
}

/// Builds `g`'s depths from the roots ([`crate::heap::depth`]) unless memory is short
/// (the merged paths then search, as they do until the depths are there) or `quit` is
/// set first.
pub fn keep_depths(g: &Graph, quit: &AtomicBool) {
    let need = crate::heap::depth::bytes_needed(g);
    if let Ok(Some(b)) = crate::sys::budget::budget() {
        if b.bytes < 2 * need {
            return;
        }
    }
    crate::heap::depth::keep(g, || quit.load(Ordering::Relaxed));
}
