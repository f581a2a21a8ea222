//! The prefetching thread beside the semidominator loop on graphs whose numbering has
//! little locality, and the checks that keep it idle while the two cores are far apart.

use super::*;

/// Whether the semidominator loop of a [`Graph::scattered`] graph gets a thread that
/// prefetches ahead of it: when it is large enough that the loop's loads miss the caches,
/// on x86-64, with a second core; not with `HEAPTUI_NO_PREFETCH=1` (for benchmarks).
pub(super) fn prefetching(k: usize) -> bool {
    cfg!(target_arch = "x86_64")
        && k >= 1 << 20
        && rayon::current_num_threads() >= 2
        && std::env::var_os("HEAPTUI_NO_PREFETCH").is_none_or(|v| v != "1")
}

/// Nodes the prefetching thread keeps ahead of the semidominator loop: far enough to hide
/// the loads' latency, near enough that the lines are still cached when the loop comes
/// (128 did at least as well as 384, and both better than 2048, which was slower than no
/// thread, on the 6 M-node V8 snapshot).
pub(super) const AHEAD: u32 = 128;

/// How far behind its first stage (nearer the loop) the prefetching thread's second stage
/// goes: far enough for the first stage's prefetches to have arrived.
pub(super) const SECOND_STAGE: u32 = 48;

/// The semidominator loop's second core. Going down the preorder a little ahead of the
/// loop (whose position is `at`), it reads what the loop will read for each node (the
/// node's referrers and their preorder numbers) and prefetches the working records and
/// semidominator slots of those that the loop will evaluate, so the loop finds them in
/// the shared cache rather than in memory. A second stage, [`SECOND_STAGE`] nodes nearer
/// the loop, goes over the same referrers again and reads the records the first stage
/// prefetched: it prefetches the semidominator of each one's label (what an evaluation
/// compares, a node of its own) and the record its link leads to (where a compression
/// starts). On the 6 M-node V8 snapshot it took the loop from 0.26 to 0.23 s.
///
/// It idles while the last nearness check ([`Beside::check`]) found it far from the loop.
/// It writes nothing but its answers to the checks: a value it reads after the loop has passed (a semidominator in
/// place of an object, a label or link the loop has since changed) only misdirects a
/// prefetch.
pub(super) fn prefetch_ahead(
    g: &Graph,
    pre: &[u32],
    semi: &[AtomicU32],
    work: &[SharedWork],
    beside: &Beside,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let n = g.len();
        let k = semi.len().min(work.len());
        let refs = g.referrer_index();
        let fetch = |p: *const u8| {
            // SAFETY: a prefetch hint reads and writes nothing; every address given is
            // inside `work` or `semi`.
            unsafe { _mm_prefetch(p as *const i8, _MM_HINT_T0) }
        };
        // The referrers of the node at preorder `x` that the loop will evaluate: those
        // numbered after it.
        let later = |x: u32, mut each: &mut dyn FnMut(usize)| {
            let node = semi[x as usize].load(Ordering::Relaxed) as usize;
            if node < n {
                for i in refs.range(node as ObjId) {
                    if refs.is_weak(i) {
                        continue;
                    }
                    let pv = pre[refs.in_sources[i] as usize];
                    if pv != NONE && pv > x && (pv as usize) < k {
                        each(pv as usize);
                    }
                }
            }
            let _ = &mut each;
        };
        let c = &beside.control.0;
        let mut x = u32::MAX;
        let mut idle = 0u32;
        while !c.done.load(Ordering::Acquire) {
            if c.ping.load(Ordering::Acquire) & 1 == 1 {
                beside.answer();
            }
            if c.far.load(Ordering::Relaxed) {
                // Far from the loop's core: prefetching would only slow it. Idle, but
                // answer the next check.
                std::thread::sleep(std::time::Duration::from_micros(20));
                x = u32::MAX;
                continue;
            }
            let w = beside.at.0.load(Ordering::Relaxed);
            if x >= w {
                // Behind the loop (or starting): go on from just ahead of it.
                x = w.saturating_sub(64);
            }
            if x == 0 {
                return;
            }
            if w - x > AHEAD {
                idle += 1;
                if idle % 1024 == 0 {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            later(x, &mut |pv| {
                fetch(&work[pv] as *const SharedWork as *const u8);
                fetch(&semi[pv] as *const AtomicU32 as *const u8);
            });
            let y = x + SECOND_STAGE;
            if y < w {
                later(y, &mut |pv| {
                    let (label, link) = (work[pv].label(), work[pv].ancestor());
                    if (label as usize) < k {
                        fetch(&semi[label as usize] as *const AtomicU32 as *const u8);
                    }
                    if link > y && (link as usize) < k {
                        fetch(&work[link as usize] as *const SharedWork as *const u8);
                    }
                });
            }
            x -= 1;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, pre, semi, work, beside);
}

/// A value on a cache line of its own (128 bytes: adjacent-line prefetchers pair lines).
#[repr(align(128))]
pub(super) struct Padded<T>(pub(super) T);

/// What the semidominator loop shares with its prefetching thread, beside the arrays.
pub(super) struct Beside {
    /// The loop's position, every 64 nodes.
    pub(super) at: Padded<AtomicU32>,
    pub(super) control: Padded<Control>,
}

/// The rarely written part of [`Beside`].
pub(super) struct Control {
    /// The nearness check's handshake ([`Beside::check`]): odd values from the loop,
    /// each answered by the thread with the next even one; 0 when no check runs.
    pub(super) ping: AtomicU32,
    /// What the last check found: the thread's core is far from the loop's, and it idles.
    pub(super) far: AtomicBool,
    /// The loop is over.
    pub(super) done: AtomicBool,
}

/// Nodes between two nearness checks, less one (a mask): 262,144, 23 checks on the
/// 6 M-node V8 snapshot, a few microseconds each.
pub(super) const CHECK_EVERY: u32 = (1 << 18) - 1;

/// Round trips in a nearness check.
pub(super) const CHECK_ROUNDS: u32 = 32;

/// The longest round trip, in nanoseconds, of two cores near enough for the prefetching
/// thread to help: those that share a cache. On this project's 2-core VM the round trip
/// is 75–110 ns while the two virtual cores share a cache, and 350–400 ns when the host
/// has put them apart (it moves them every few seconds); apart, the thread's prefetches
/// land in the wrong cache and its reads of the lines the loop writes make each write
/// wait: the semidominators of the 6 M-node V8 snapshot took 0.5–1.0 s with the thread,
/// 0.30–0.33 s without it, and 0.23–0.29 s with it when near.
pub(super) const NEAR_NS: u128 = 200;

impl Beside {
    pub(super) fn new(k: u32) -> Self {
        Beside {
            at: Padded(AtomicU32::new(k)),
            control: Padded(Control {
                ping: AtomicU32::new(0),
                far: AtomicBool::new(false),
                done: AtomicBool::new(false),
            }),
        }
    }

    /// On the loop's side: times [`CHECK_ROUNDS`] round trips to the prefetching thread
    /// and tells it whether to prefetch (`far`). A thread that does not answer within
    /// 2 ms (not started yet, or not running) counts as far until the next check.
    /// Returns the mean round trip, or `None` when there was no answer.
    pub(super) fn check(&self) -> Option<u128> {
        let c = &self.control.0;
        let start = std::time::Instant::now();
        let limit = std::time::Duration::from_millis(2);
        let wait = |want: u32| {
            let mut spins = 0u32;
            loop {
                if c.ping.load(Ordering::Acquire) == want {
                    return true;
                }
                spins += 1;
                if spins % 256 == 0 && start.elapsed() > limit {
                    return false;
                }
                std::hint::spin_loop();
            }
        };
        c.ping.store(1, Ordering::Release);
        let mut answered = wait(2);
        let t = std::time::Instant::now();
        let mut i = 0;
        while answered && i < CHECK_ROUNDS {
            c.ping.store(3 + 2 * i, Ordering::Release);
            answered = wait(4 + 2 * i);
            i += 1;
        }
        let round_trip = t.elapsed().as_nanos() / CHECK_ROUNDS as u128;
        let near = answered && round_trip <= NEAR_NS;
        c.far.store(!near, Ordering::Relaxed);
        c.ping.store(0, Ordering::Release);
        answered.then_some(round_trip)
    }

    /// On the thread's side: answers a check until the loop ends it.
    pub(super) fn answer(&self) {
        let c = &self.control.0;
        loop {
            let p = c.ping.load(Ordering::Acquire);
            if p == 0 || c.done.load(Ordering::Relaxed) {
                return;
            }
            if p & 1 == 1 {
                // The loop may have given up and reset `ping` meanwhile: answer only the
                // value it wrote.
                let _ = c
                    .ping
                    .compare_exchange(p, p + 1, Ordering::AcqRel, Ordering::Relaxed);
            }
            std::hint::spin_loop();
        }
    }
}

/// What the nearness checks found (for `HEAPTUI_TIMING`).
#[derive(Default)]
pub(super) struct Checks {
    pub(super) count: u32,
    pub(super) near: u32,
    /// The shortest and longest round trips of the answered checks.
    pub(super) range_ns: Option<(u128, u128)>,
}

impl Checks {
    pub(super) fn add(&mut self, round_trip: Option<u128>) {
        self.count += 1;
        if let Some(ns) = round_trip {
            self.near += (ns <= NEAR_NS) as u32;
            let (lo, hi) = self.range_ns.unwrap_or((ns, ns));
            self.range_ns = Some((lo.min(ns), hi.max(ns)));
        }
    }
}
