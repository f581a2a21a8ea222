//! Work a key asks for that can take longer than a frame (a class's merged paths, a
//! node's children grouped by class, an instance filter over millions of values) runs
//! on a thread of its own: the pane says "working…" meanwhile, every key stays live
//! (`Esc` cancels), and the result replaces the pane's rows when it comes
//! ([`crate::ui::panes::Pane::poll`]).
//!
//! A [`Job`] owns its result's channel: dropping it (the pane closed, the work asked for
//! again) cancels it; the thread sees the flag where it looks, and its result, if any,
//! goes nowhere. A result sent wakes the run loop ([`Jobs::notifier`]), which takes it
//! on that turn: nothing looks for results on a timer.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::sync::{Condvar, Mutex, Weak};

use crate::format::Snapshot;
use std::time::Duration;

use crate::ui::events::Notifier;
use crate::ui::panes::Ctx;

/// The jobs of one app: how many threads are running (tests wait for none), and a delay
/// each waits before it starts (tests make the work slow enough to press keys during it).
#[derive(Clone, Default, Debug)]
pub struct Jobs {
    running: Arc<AtomicUsize>,
    ended: Arc<AtomicU64>,
    /// A filter's values per chunk (0: its own) and the pause after each, in ms (tests).
    filter_step: Arc<(AtomicUsize, AtomicU64)>,
    delay_ms: Arc<AtomicU64>,
    memo: Memo,
    /// Wakes the run loop when a result has been sent.
    notify: Notifier,
    /// Signalled each time a job thread ends ([`Jobs::wait_idle`]).
    idle: Arc<(Mutex<()>, Condvar)>,
}

/// Results kept for the next pane that asks for the same work: the merged paths of a
/// class, which the histogram's detail pane and `P` both show, and which a selection
/// moving back and forth over the histogram asks for again. By the snapshot (a diff's
/// two sides, and the snapshots of a MoarVM file opened one after another, share the
/// app's jobs) and a key the pane makes; the last [`MEMO_KEEPS`] kept. The snapshot is
/// held weakly: its memory goes when it is closed, but not its address, so a snapshot
/// opened later at the same place is never taken for it.
#[derive(Clone, Default)]
struct Memo(Arc<Mutex<Vec<Entry>>>);

/// One result a [`Memo`] keeps: its snapshot, its key and the result.
type Entry = (Weak<Snapshot>, u64, Kept);

/// A result a [`Memo`] keeps, of whatever type the pane made.
type Kept = Arc<dyn Any + Send + Sync>;

/// How many results [`Memo`] keeps.
const MEMO_KEEPS: usize = 16;

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "Memo({n} kept)")
    }
}

impl Jobs {
    /// The jobs of an app whose queue `notify` pushes into.
    pub fn new(notify: Notifier) -> Self {
        Jobs {
            notify,
            ..Default::default()
        }
    }

    /// What a job (or a filter publishing its matches so far) wakes the run loop with.
    pub fn notifier(&self) -> &Notifier {
        &self.notify
    }

    /// Waits until no job thread runs, at most `limit`: whether none does (tests, which
    /// wait on this rather than on a sleep).
    pub fn wait_idle(&self, limit: Duration) -> bool {
        let until = std::time::Instant::now() + limit;
        let (lock, ended) = &*self.idle;
        let Ok(mut g) = lock.lock() else {
            return false;
        };
        while self.running() > 0 {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            g = match ended.wait_timeout(g, left) {
                Ok((g, _)) => g,
                Err(_) => return false,
            };
        }
        true
    }

    /// How many job threads are running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// How many job threads have ended so far: counted before they stop counting as
    /// running, so that once none runs this holds every one that has.
    pub fn ended(&self) -> u64 {
        self.ended.load(Ordering::SeqCst)
    }

    /// The result kept under `key`, if one of type `T` is.
    pub fn remembered<T: Any + Send + Sync>(
        &self,
        snap: &Arc<Snapshot>,
        key: u64,
    ) -> Option<Arc<T>> {
        let m = self.memo.0.lock().ok()?;
        let (_, _, v) = m
            .iter()
            .find(|(w, k, _)| *k == key && std::ptr::eq(w.as_ptr(), Arc::as_ptr(snap)))?;
        v.clone().downcast::<T>().ok()
    }

    /// Forgets every result kept (benchmarks: the work done again, not read back).
    pub fn forget_all(&self) {
        if let Ok(mut m) = self.memo.0.lock() {
            m.clear();
        }
    }

    /// Keeps `value` under `key` (the oldest kept goes once there are [`MEMO_KEEPS`]).
    pub fn remember<T: Any + Send + Sync>(&self, snap: &Arc<Snapshot>, key: u64, value: Arc<T>) {
        if let Ok(mut m) = self.memo.0.lock() {
            // What was kept for this key, and for snapshots closed since, goes.
            m.retain(|(w, k, _)| {
                w.strong_count() > 0 && !(*k == key && std::ptr::eq(w.as_ptr(), Arc::as_ptr(snap)))
            });
            if m.len() >= MEMO_KEEPS {
                m.remove(0);
            }
            m.push((Arc::downgrade(snap), key, value));
        }
    }

    /// A filter job reads `values` values at a time (between which it publishes its
    /// matches so far) and pauses `pause` after each (tests: to see the matches so far).
    pub fn set_filter_step(&self, values: usize, pause: Duration) {
        self.filter_step.0.store(values, Ordering::SeqCst);
        self.filter_step
            .1
            .store(pause.as_millis() as u64, Ordering::SeqCst);
    }

    /// [`Jobs::set_filter_step`]'s values per chunk (0: the filter's own) and pause.
    pub fn filter_step(&self) -> (usize, Duration) {
        (
            self.filter_step.0.load(Ordering::SeqCst),
            Duration::from_millis(self.filter_step.1.load(Ordering::SeqCst)),
        )
    }

    /// Each job waits `d` before it starts (tests).
    pub fn set_delay(&self, d: Duration) {
        self.delay_ms.store(d.as_millis() as u64, Ordering::SeqCst);
    }
}

/// Counts a job thread out however it ends (a panic included), once its result is sent
/// or its sender dropped: wakes the run loop to take it, then counts it out.
struct Running(Jobs);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.notify.arrived();
        // Under the lock that `Jobs::wait_idle` checks the count under: no wake is lost.
        let (lock, ended) = &*self.0.idle;
        let _g = lock.lock();
        self.0.ended.fetch_add(1, Ordering::SeqCst);
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        ended.notify_all();
    }
}

/// Work running for a pane; its result is taken with [`Job::poll`].
pub struct Job<T> {
    rx: Receiver<T>,
    cancel: Arc<AtomicBool>,
}

impl<T: Send + 'static> Job<T> {
    /// Runs `f` on a thread of its own with the snapshot and the dominator tree `ctx`
    /// shares, or at once where it shares none (a pane handed bare references).
    pub fn start<F>(ctx: &Ctx, f: F) -> Self
    where
        F: FnOnce(&Ctx, &AtomicBool) -> T + Send + 'static,
    {
        match &ctx.shared {
            Some(shared) => {
                let snap = shared.snap.clone();
                let dom = shared.dom.cloned();
                let theme = *ctx.theme;
                Self::spawn(shared.jobs, move |flag| {
                    let ctx = Ctx {
                        snap: &snap,
                        dom: dom.as_deref(),
                        theme: &theme,
                        shared: None,
                    };
                    f(&ctx, flag)
                })
            }
            None => {
                let (tx, rx) = std::sync::mpsc::channel();
                let cancel = Arc::new(AtomicBool::new(false));
                let _ = tx.send(f(ctx, &cancel));
                Job { rx, cancel }
            }
        }
    }

    /// Runs `f` on a thread of its own, counted among `jobs`, with the flag that
    /// dropping the job sets (for work that hands it on: a query's engine).
    pub fn spawn<F>(jobs: &Jobs, f: F) -> Self
    where
        F: FnOnce(&Arc<AtomicBool>) -> T + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        jobs.running.fetch_add(1, Ordering::SeqCst);
        let running = Running(jobs.clone());
        let delay = jobs.delay_ms.load(Ordering::SeqCst);
        std::thread::spawn(move || {
            let _running = running;
            // Dropped before `_running`: the loop, woken by it, finds the result (or the
            // sender gone, after a panic).
            let tx = tx;
            if delay > 0 {
                std::thread::sleep(Duration::from_millis(delay));
            }
            if flag.load(Ordering::Relaxed) {
                return;
            }
            let _ = tx.send(f(&flag));
        });
        Job { rx, cancel }
    }

    /// The result, once it has come; `Some(None)`-like failures (the thread ended
    /// without one) come back as `Err(())`.
    pub fn poll(&self) -> Option<Result<T, ()>> {
        match self.rx.try_recv() {
            Ok(t) => Some(Ok(t)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(())),
        }
    }
}

impl<T> Drop for Job<T> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}
