//! Progress of long work (decompressing, indexing), shared between the worker and
//! whoever draws it: the TUI's loading screen or the CLI's stderr bar. It carries the
//! other direction too: whoever started the work may [`Progress::cancel`] it, and the
//! work stops at its next step ([`crate::session`] checks between its steps).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Progress(Arc<Inner>);

/// " (RssAnon N MB …, peak RSS N MB)" from `/proc/self/status` and the allocator's pool,
/// for the timing lines.
fn rss_now() -> String {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let kb = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    format!(
        " (RssAnon {} MB of which {} MB freed and kept for reuse, peak RSS {} MB)",
        kb("RssAnon:") / 1024,
        crate::sys::alloc::pooled_resident() >> 20,
        kb("VmHWM:") / 1024
    )
}

#[derive(Default)]
struct Inner {
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
    phase: Mutex<String>,
    /// When `HEAPTUI_TIMING` is set: the current phase and when it started, printed to
    /// stderr as each phase ends (for profiling; not an interface).
    timing: Mutex<Option<(String, std::time::Instant)>>,
}

impl Progress {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a phase of `total` units (bytes, objects).
    pub fn phase(&self, name: &str, total: u64) {
        if super::env::flag("HEAPTUI_TIMING") {
            if let Ok(mut t) = self.0.timing.lock() {
                if let Some((prev, start)) = t.take() {
                    eprintln!(
                        "timing: {prev}: {:.3} s{}",
                        start.elapsed().as_secs_f64(),
                        rss_now()
                    );
                }
                *t = Some((name.to_string(), std::time::Instant::now()));
            }
        }
        if let Ok(mut p) = self.0.phase.lock() {
            *p = name.to_string();
        }
        self.0.total.store(total, Ordering::Relaxed);
        self.0.done.store(0, Ordering::Relaxed);
    }

    #[inline]
    pub fn set(&self, done: u64) {
        self.0.done.store(done, Ordering::Relaxed);
    }

    /// (phase, done, total)
    pub fn get(&self) -> (String, u64, u64) {
        let phase = self.0.phase.lock().map(|p| p.clone()).unwrap_or_default();
        (
            phase,
            self.0.done.load(Ordering::Relaxed),
            self.0.total.load(Ordering::Relaxed),
        )
    }

    /// Asks the work to stop at its next step.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether [`Progress::cancel`] was called.
    pub fn cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    pub fn fraction(&self) -> f64 {
        let (_, d, t) = self.get();
        if t == 0 {
            0.0
        } else {
            (d as f64 / t as f64).min(1.0)
        }
    }
}
