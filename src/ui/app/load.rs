//! The loading thread of one snapshot (`heaptui FILE`): what it hands the UI, in order,
//! and what it writes to the cache beside the user's browsing.
//!
//! Where a quick pass can count the classes (HPROF with no index cache entry), the class
//! histogram first, in about a tenth of the index's time; then the index, handed to the
//! UI; then the dominator tree: the one kept beside the index cache entry when the index
//! came from one and the tree passes its checks (a reopen shows the retained sizes at
//! once), else computed; then the leak suspects. Beside the tree, on a thread of its
//! own: the summary, the index cache entry and the tree kept beside it, while the user
//! already browses.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};

use super::{DomsReady, Loaded, SUSPECTS};
use crate::error::Result;
use crate::heap::dominators::{Dominators, Origin};
use crate::progress::Progress;

/// What the loading thread needs: the file, the progress it reports, the channels to
/// the UI and the flags it shares with it.
pub(super) struct Loader {
    pub file: PathBuf,
    pub progress: Progress,
    pub dom_progress: Progress,
    pub early_tx: Sender<crate::format::hprof::QuickHistogram>,
    pub tx: Sender<Result<Loaded>>,
    pub dom_tx: Sender<DomsReady>,
    /// The summary lines, filled in beside the tree.
    pub summary: Arc<OnceLock<Vec<(String, String)>>>,
    /// Set while an index cache entry or a tree is still to be written: quitting waits.
    pub writing: Arc<AtomicBool>,
    /// Set when quitting: the entry is written without waiting for the tree.
    pub hurry: Arc<AtomicBool>,
}

/// Clears a flag however its scope ends (a panic included), so that quitting never
/// waits for an entry nobody writes.
struct Clear(Arc<AtomicBool>);

impl Drop for Clear {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Loader {
    pub fn run(self) {
        let Loader {
            file,
            progress: p,
            dom_progress: dp,
            early_tx,
            tx,
            dom_tx,
            summary: cell,
            writing,
            hurry,
        } = self;
        if let Ok(Some(q)) = crate::format::quick_histogram(&file, &p) {
            let _ = early_tx.send(q);
        }
        drop(early_tx);
        let (snap, pending) = match crate::format::open_deferring_cache(&file, &p) {
            Ok(x) => x,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let snap = Arc::new(snap);
        writing.store(pending.is_some(), Ordering::SeqCst);
        let _clear = Clear(writing.clone());
        let rows = crate::heap::histogram::by_class(&snap.graph);
        if tx.send(Ok(Loaded::Counted(snap.clone(), rows))).is_err() {
            return;
        }
        // The tree kept beside the index cache entry the index came from, if any: read
        // and checked in a fraction of a second, where computing it takes seconds.
        let kept = match snap.load_tree(&dp) {
            crate::cache::TreeLoaded::Hit(d) => Ok(*d),
            crate::cache::TreeLoaded::Rejected(why) => Err(Some(why)),
            crate::cache::TreeLoaded::Missing => Err(None),
        };
        // A tree computed here is kept beside the entry, which quitting waits for.
        if kept.is_err() && (pending.is_some() || snap.cache_entry.get().is_some()) {
            writing.store(true, Ordering::SeqCst);
        }
        let tree: OnceLock<Arc<Dominators>> = OnceLock::new();
        let quit = hurry.clone();
        std::thread::scope(|s| {
            // Beside the dominator pass: the referrers while its search runs (the search
            // uses one core), then, once the tree and the suspects are ready (the
            // semidominator pass keeps both cores busy), the summary's walk of every
            // object (1 s for 64 M objects), the index cache entry (1.6 s for a 3 GB
            // dump; one that cannot be written only means the next open indexes again)
            // and the tree beside it.
            let side = &snap;
            let tree = &tree;
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            s.spawn(move || {
                let _clear = Clear(writing);
                // The referrers first, as the dominator pass would build them beside its
                // search: the summary and the entry need them.
                side.graph.referrer_index_beside_the_search();
                // Then the tree and the suspects (or their end, however it ends), unless
                // the user quits first: quitting waits for the entry.
                let mut hurried = false;
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    done_rx.recv_timeout(std::time::Duration::from_millis(20))
                {
                    if hurry.load(Ordering::SeqCst) {
                        hurried = true;
                        break;
                    }
                }
                if !hurried {
                    // The tree's own line is the overlay's, from the tree it has: lines
                    // the UI walked first (`i` as the tree came) are kept, and lacked it.
                    let _ = cell.set(crate::present::summary_lines_for(side));
                }
                if let Some(entry) = pending {
                    // For tests of quitting while the entry is written: a slow disk, made
                    // deterministic (at most 10 s).
                    if let Some(ms) = std::env::var("HEAPTUI_TEST_CACHE_DELAY_MS")
                        .ok()
                        .and_then(|v| v.parse::<u64>().ok())
                    {
                        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
                    }
                    let _ = entry.store(side, &Progress::new());
                }
                if let Some(d) = tree.get() {
                    let _ = side.keep_tree(d, &Progress::new());
                }
            });
            let d = Arc::new(match kept {
                Ok(d) => d,
                Err(rejected) => {
                    let mut d = crate::heap::dominators::compute(&snap.graph, &dp);
                    if let Some(why) = rejected {
                        d.origin = Origin::Rebuilt(why);
                    }
                    d
                }
            });
            let _ = tree.set(d.clone());
            let _ = dom_tx.send(DomsReady::One(d.clone()));
            dp.phase("finding leak suspects", 0);
            let report = crate::suspects::find(&snap, &d, SUSPECTS);
            let _ = dom_tx.send(DomsReady::Suspects(Arc::new(report)));
            drop(done_tx);
            // Then, beside the entry, each object's depth from the roots: a class's
            // merged paths from it in a tenth of the time of a search.
            keep_depths(&snap.graph, &quit);
        });
    }
}

/// Builds `g`'s depths from the roots ([`crate::heap::depth`]) unless memory is short
/// (the merged paths then search, as they do until the depths are there) or the user
/// quits first.
pub fn keep_depths(g: &crate::heap::Graph, quit: &AtomicBool) {
    let need = crate::heap::depth::bytes_needed(g);
    if let Ok(Some(b)) = crate::format::budget::budget() {
        if b.bytes < 2 * need {
            return;
        }
    }
    crate::heap::depth::keep(g, || quit.load(Ordering::Relaxed));
}
