//! Progress of long work (decompressing, indexing), shared between the worker and
//! whoever draws it: the TUI's loading screen or the CLI's stderr bar.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Progress(Arc<Inner>);

#[derive(Default)]
struct Inner {
    done: AtomicU64,
    total: AtomicU64,
    phase: Mutex<String>,
}

impl Progress {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a phase of `total` units (bytes, objects).
    pub fn phase(&self, name: &str, total: u64) {
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

    pub fn fraction(&self) -> f64 {
        let (_, d, t) = self.get();
        if t == 0 {
            0.0
        } else {
            (d as f64 / t as f64).min(1.0)
        }
    }
}
