//! The loading thread of one snapshot (`heaptui FILE`): what it hands the UI, in order,
//! and what it has the session write to the cache beside the user's browsing. Every
//! step is the session's ([`crate::session`]); this only orders them for the UI.
//!
//! Where a quick pass can count the classes (HPROF with no index cache entry), the class
//! histogram first, in about a tenth of the index's time; then the index, handed to the
//! UI; then the dominator tree: the one kept beside the index cache entry when the index
//! came from one and the tree passes its checks (a reopen shows the retained sizes at
//! once), else computed; then the leak suspects. Beside the tree, on a thread of its
//! own: the summary, the index cache entry and the tree kept beside it, while the user
//! already browses.
//!
//! Each thread hands its results over on a channel of its own and wakes the run loop
//! after each ([`Notifying`]), as it does when the summary is filled in and when the
//! entry is written: the loop sleeps until then.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use super::{App, DomsReady, Loaded, SUSPECTS};
use crate::error::Result;
use crate::heap::dominators::Dominators;
use crate::sys::progress::Progress;
use crate::ui::events::{Notifier, Notifying, Queue};

/// What the loading thread needs: the file, the progress it reports, the channels to
/// the UI and the flags it shares with it.
pub(super) struct Loader {
    pub file: PathBuf,
    pub progress: Progress,
    pub dom_progress: Progress,
    pub early_tx: Notifying<crate::format::QuickHistogram>,
    pub tx: Notifying<Result<Loaded>>,
    pub dom_tx: Notifying<DomsReady>,
    /// Wakes the run loop when the summary is filled in and when the entry is written.
    pub notify: Notifier,
    /// The summary lines, filled in beside the tree.
    pub summary: Arc<OnceLock<Vec<(String, String)>>>,
    /// Set while an index cache entry or a tree is still to be written: quitting waits.
    pub writing: Arc<AtomicBool>,
    /// Set when quitting: the entry is written without waiting for the tree.
    pub hurry: Arc<AtomicBool>,
}

/// Clears a flag however its scope ends (a panic included), so that quitting never
/// waits for an entry nobody writes, and wakes the run loop (quitting waits on it).
struct Clear(Arc<AtomicBool>, Notifier);

impl Drop for Clear {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
        self.1.arrived();
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
            notify,
        } = self;
        if let Ok(Some(q)) = crate::session::quick_histogram(&file, &p) {
            early_tx.send(q);
        }
        drop(early_tx);
        let session = match crate::session::open_deferring_cache(&file, &p) {
            Ok(x) => x,
            Err(e) => {
                tx.send(Err(e));
                return;
            }
        };
        let snap = session.snapshot().clone();
        let pending = session.entry_pending();
        writing.store(pending, Ordering::SeqCst);
        let _clear = Clear(writing.clone(), notify.clone());
        let rows = crate::heap::histogram::by_class(&snap.graph);
        if !tx.send(Ok(Loaded::Counted(snap.clone(), rows))) {
            return;
        }
        // The tree kept beside the index cache entry the index came from, if any: read
        // and checked in a fraction of a second, where computing it takes seconds.
        let kept = session.kept_tree(&dp);
        // A tree computed here is kept beside the entry, which quitting waits for.
        if kept.is_err() && (pending || session.has_entry()) {
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
            let side = &session;
            let tree = &tree;
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let notify = &notify;
            s.spawn(move || {
                let _clear = Clear(writing, notify.clone());
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
                    // (Where the tree came from is the UI's line: it has the tree.)
                    let _ = cell.set(crate::present::summary_lines_for(side));
                    notify.arrived();
                }
                if pending {
                    // For tests of quitting while the entry is written: a slow disk, made
                    // deterministic (at most 10 s).
                    if let Some(ms) = std::env::var("HEAPTUI_TEST_CACHE_DELAY_MS")
                        .ok()
                        .and_then(|v| v.parse::<u64>().ok())
                    {
                        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
                    }
                    let _ = side.write_entry(&Progress::new());
                }
                if let Some(d) = tree.get() {
                    let _ = side.keep_tree(d, &Progress::new());
                }
            });
            let d = Arc::new(match kept {
                Ok(d) => d,
                Err(rejected) => session.compute_tree(rejected, &dp),
            });
            let _ = tree.set(d.clone());
            dom_tx.send(DomsReady::One(d.clone()));
            dp.phase("finding leak suspects", 0);
            let report = crate::suspects::find(&snap, &d, SUSPECTS);
            dom_tx.send(DomsReady::Suspects(Arc::new(report)));
            drop(done_tx);
            // Then, beside the entry, each object's depth from the roots: a class's
            // merged paths from it in a tenth of the time of a search.
            crate::session::keep_depths(&snap.graph, &quit);
        });
    }
}

/// The loading threads' starts: one snapshot, the two of a diff, the three of the
/// three-snapshot view.
impl App {
    /// Starts loading `path` on a background thread.
    pub fn load(path: PathBuf) -> Self {
        Self::load_into(path, Queue::new())
    }

    /// [`App::load`], its threads waking the loop through `queue` (another snapshot of
    /// the file opened in place of this one keeps the queue the terminal feeds).
    pub(super) fn load_into(path: PathBuf, queue: Queue) -> Self {
        let notify = queue.notifier();
        let progress = Progress::new();
        let dom_progress = Progress::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let (dom_tx, dom_rx) = std::sync::mpsc::channel();
        let (early_tx, early_rx) = std::sync::mpsc::channel();
        let summary: Arc<std::sync::OnceLock<Vec<(String, String)>>> = Default::default();
        let writing: Arc<std::sync::atomic::AtomicBool> = Default::default();
        let hurry: Arc<std::sync::atomic::AtomicBool> = Default::default();
        let loader = Loader {
            file: path.clone(),
            progress: progress.clone(),
            dom_progress: dom_progress.clone(),
            early_tx: Notifying::new(early_tx, notify.clone()),
            tx: Notifying::new(tx, notify.clone()),
            dom_tx: Notifying::new(dom_tx, notify.clone()),
            notify,
            summary: summary.clone(),
            writing: writing.clone(),
            hurry: hurry.clone(),
        };
        std::thread::spawn(move || loader.run());
        let mut app = App::loading(path, progress, Some(rx), dom_rx, dom_progress, queue);
        app.early_rx = Some(early_rx);
        app.summary_cell = summary;
        app.cache_writing = writing;
        app.cache_hurry = hurry;
        app
    }

    /// Starts loading the two snapshots of `heaptui BASE TARGET`, then both dominator
    /// trees, on a background thread.
    pub fn load_diff(base: PathBuf, target: PathBuf) -> Self {
        let queue = Queue::new();
        let progress = Progress::new();
        let dom_progress = Progress::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let (dom_tx, dom_rx) = std::sync::mpsc::channel();
        let tx = Notifying::new(tx, queue.notifier());
        let dom_tx = Notifying::new(dom_tx, queue.notifier());
        let p = progress.clone();
        let dp = dom_progress.clone();
        let (fa, fb) = (base.clone(), target.clone());
        // One after the other: each reader and the dominator pass already use every
        // core (opening both at once measured slower, `bench/diff.sh`).
        std::thread::spawn(move || {
            let opened =
                crate::session::open(&fa, &p).and_then(|a| Ok((a, crate::session::open(&fb, &p)?)));
            let (a, b) = match opened {
                Ok(x) => x,
                Err(e) => {
                    tx.send(Err(e));
                    return;
                }
            };
            let (ids, warning) = crate::diff::identity_checked(&a, &b);
            let ids = ids.map(Arc::new);
            if tx.send(Ok(Loaded::Two(
                a.snapshot().clone(),
                b.snapshot().clone(),
                ids.clone(),
                warning,
            ))) {
                // The trees kept beside the snapshots' index cache entries, where they are.
                let (base, target) = (a.dominator_tree(&dp), b.dominator_tree(&dp));
                dom_tx.send(DomsReady::two((&a, base), (&b, target), ids.as_deref()));
                let never = std::sync::atomic::AtomicBool::new(false);
                crate::session::keep_depths(&a.graph, &never);
                crate::session::keep_depths(&b.graph, &never);
            }
        });
        let name = |p: &PathBuf| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut app = App::loading(
            target.clone(),
            progress,
            Some(rx),
            dom_rx,
            dom_progress,
            queue,
        );
        app.title = Some(format!("{} → {}", name(&base), name(&target)));
        app
    }

    /// `heaptui BASELINE TARGET FINAL`: FINAL opened as one snapshot is, BASELINE and
    /// TARGET read beside it for their ids; once FINAL's dominator tree is ready, the
    /// leak clusters are the first screen.
    pub fn load_leaks(baseline: PathBuf, target: PathBuf, final_: PathBuf) -> Self {
        let mut app = Self::load(final_);
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Notifying::new(tx, app.queue.notifier());
        std::thread::spawn(move || {
            let quiet = Progress::new();
            let ids = crate::session::open(&baseline, &quiet).and_then(|a| {
                let b = crate::session::open(&target, &quiet)?;
                Ok(crate::leaks::LeakIds::of(&a, &b))
            });
            tx.send(ids);
        });
        app.leaks_rx = Some(rx);
        // The leaks, not the suspects, take the screen.
        app.busy = true;
        app
    }
}
