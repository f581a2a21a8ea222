//! An allocator for tests that counts: the live bytes, their peak and the largest single
//! allocation, so that a test can measure what a call allocated. A test binary that uses
//! it declares `#[global_allocator] static ALLOC: Counting = Counting;`; every test of it
//! holds [`shared`], and [`measure`] runs its call alone.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{RwLock, RwLockReadGuard};

pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
            LARGEST.fetch_max(l.size(), Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
            LARGEST.fetch_max(l.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
            LARGEST.fetch_max(new, Relaxed);
        }
        q
    }
}

/// Every test holds this shared; an allocation measurement holds it exclusively, so that
/// no other test allocates while it counts.
static GATE: RwLock<()> = RwLock::new(());

pub fn shared() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|e| e.into_inner())
}

/// What a measured call allocated: the peak of live bytes above the start, and the
/// largest single allocation.
#[derive(Debug, Clone, Copy)]
pub struct Allocated {
    pub peak: usize,
    pub largest: usize,
}

/// Runs `f` alone (no other test of this binary runs meanwhile) and measures it.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Allocated) {
    let _g = GATE.write().unwrap_or_else(|e| e.into_inner());
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    LARGEST.store(0, Relaxed);
    let r = f();
    let a = Allocated {
        peak: PEAK.load(Relaxed).saturating_sub(start),
        largest: LARGEST.load(Relaxed),
    };
    (r, a)
}
