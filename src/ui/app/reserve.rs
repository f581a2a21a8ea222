//! The pages kept for browsing once loading is over ([`crate::sys::alloc::browsing_reserve`]).
//!
//! The build's phases free hundreds of MB that the allocator pools for the next phase;
//! once the trees are in, the TUI gives the pool back to the kernel but for the
//! reserve, and fills the reserve on a thread that runs only when a core is idle
//! (`SCHED_IDLE`), so that the large blocks of browsing (a class's merged paths, an
//! instance filter, a grouping) get pages that are resident already. On this project's
//! bench machine first touch of fresh memory runs at 0.35–2.9 GB/s: with every page
//! fresh, the merged paths of the 50 M-object bench dump's 5.5 M sessions took 317 ms,
//! most of it in the kernel clearing pages; from the reserve, 170–190 ms
//! (`bench/README.md`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The reserve's size (read once) and its filling.
#[derive(Default)]
pub(super) struct Reserve {
    keep: Option<usize>,
    filled: bool,
    stop: Arc<AtomicBool>,
}

impl Reserve {
    /// Loading of a graph of `objects` objects is over: the pool beyond the reserve goes
    /// back to the kernel; the first time, what the reserve lacks is faulted in.
    pub(super) fn loaded(&mut self, objects: usize) {
        let keep = *self
            .keep
            .get_or_insert_with(|| crate::sys::alloc::browsing_reserve(objects));
        if crate::sys::alloc::pooled() > keep {
            crate::sys::alloc::release_beyond(keep);
        }
        if self.filled {
            return;
        }
        self.filled = true;
        let more = keep.saturating_sub(crate::sys::alloc::pooled());

        if more == 0 {
            return;
        }
        let stop = self.stop.clone();
        let _ = std::thread::Builder::new()
            .name("reserve".into())
            .spawn(move || {
                idle_only();
                crate::sys::alloc::fill(more, &stop);
            });
    }
}

impl Drop for Reserve {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The objects of the graphs on `screen`.
pub(super) fn objects(screen: &super::Screen) -> usize {
    match screen {
        super::Screen::Ready(r) => r.snap.graph.len(),
        super::Screen::Diff(d) => d.base.snap.graph.len() + d.target.snap.graph.len(),
        _ => 0,
    }
}

/// Puts the calling thread in the scheduler's idle class: it runs only on a core
/// nothing else wants.
fn idle_only() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: 0 is the calling thread; `param` is a valid sched_param.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    }
}
