//! The pool's tests: blocks freed and reused, zeroed, never-touched pages, slots, the
//! prefaulting and the browsing reserve.

use super::*;

fn fill(p: *mut u8, len: usize, seed: u8) {
    for i in (0..len).step_by(4096) {
        // SAFETY: `p .. p + len` is a live block.
        unsafe { *p.add(i) = seed.wrapping_add((i / 4096) as u8) };
    }
}

fn check(p: *mut u8, len: usize, seed: u8) {
    for i in (0..len).step_by(4096) {
        // SAFETY: as above.
        let v = unsafe { *p.add(i) };
        assert_eq!(v, seed.wrapping_add((i / 4096) as u8), "byte {i}");
    }
}

#[test]
fn freed_pages_serve_the_next_block_and_are_zeroed_when_asked() {
    let r = Recycler::new();
    let a = Layout::from_size_align(20 << 20, 8).unwrap();
    // SAFETY: layouts are non-zero; every block is freed with its own layout.
    unsafe {
        let p = r.alloc(a);
        assert_eq!(p as usize % UNIT, 0);
        fill(p, a.size(), 7);
        r.dealloc(p, a);
        assert_eq!(r.pooled(), round(a.size()));
        // A larger block takes all of it, and the rest fresh.
        let b = Layout::from_size_align(50 << 20, 8).unwrap();
        let q = r.alloc_zeroed(b);
        assert_eq!(r.pooled(), 0);
        for i in (0..b.size()).step_by(4096) {
            assert_eq!(*q.add(i), 0, "byte {i} of a zeroed block");
        }
        fill(q, b.size(), 5);
        r.dealloc(q, b);
        // A smaller one takes part and leaves the rest.
        let c = Layout::from_size_align(10 << 20, 8).unwrap();
        let s = r.alloc(c);
        assert_eq!(r.pooled(), round(b.size()) - round(c.size()));
        fill(s, c.size(), 1);
        check(s, c.size(), 1);
        r.dealloc(s, c);
        r.release();
        assert_eq!(r.pooled(), 0);
    }
}

#[test]
fn realloc_keeps_contents_across_every_size_class() {
    let r = Recycler::new();
    // Pool something, so that growth takes pooled pages too.
    let junk = Layout::from_size_align(30 << 20, 8).unwrap();
    // SAFETY: as above; each realloc's result replaces the pointer and layout.
    unsafe {
        let j = r.alloc(junk);
        fill(j, junk.size(), 99);
        r.dealloc(j, junk);
        let sizes = [
            1 << 20,
            (9 << 20) + 123,
            64 << 20,
            (12 << 20) + 1,
            40 << 20,
            3 << 20,
            100,
        ];
        let mut l = Layout::from_size_align(4096, 8).unwrap();
        let mut p = r.alloc(l);
        fill(p, l.size(), 3);
        for &n in &sizes {
            let keep = l.size().min(n);
            p = r.realloc(p, l, n);
            assert!(!p.is_null());
            check(p, keep, 3);
            l = Layout::from_size_align(n, 8).unwrap();
            fill(p, n, 3);
        }
        r.dealloc(p, l);
        r.release();
    }
}

#[test]
fn the_pool_keeps_no_more_than_its_slots() {
    let r = Recycler::new();
    let l = Layout::from_size_align(MIN, 8).unwrap();
    // SAFETY: as above.
    unsafe {
        let blocks: Vec<*mut u8> = (0..SLOTS + 3).map(|_| r.alloc(l)).collect();
        for &b in &blocks {
            assert!(!b.is_null());
            // The last page: the whole block counts as used.
            *b.add(l.size() - 1) = 1;
            r.dealloc(b, l);
        }
    }
    assert_eq!(r.pooled(), SLOTS * round(MIN));
    r.release();
}

#[test]
fn the_reserve_is_filled_resident_and_kept_to_its_size() {
    use std::sync::atomic::AtomicBool;
    let r = Recycler::new();
    let go = AtomicBool::new(false);
    // 40 MiB in blocks of 32: two spans, every page resident.
    r.fill(40 << 20, &go);
    assert_eq!(r.pooled(), 40 << 20);
    assert_eq!(r.pooled_resident(), 40 << 20);
    // Told to stop: nothing more.
    r.fill(64 << 20, &AtomicBool::new(true));
    assert_eq!(r.pooled(), 40 << 20);
    // Kept to 10 MiB: the first span goes, the second is cut to a whole unit.
    r.release_beyond(10 << 20);
    assert_eq!(r.pooled(), 10 << 20);
    assert_eq!(r.pooled_resident(), 10 << 20);
    r.release_beyond(10 << 20);
    assert_eq!(r.pooled(), 10 << 20, "within the bound: nothing given back");
    // The kept pages serve the next block.
    let layout = Layout::from_size_align(10 << 20, UNIT).unwrap();
    // SAFETY: a block of this layout, allocated and freed by this recycler only.
    unsafe {
        let p = r.alloc(layout);
        assert_eq!(r.pooled(), 0);
        r.dealloc(p, layout);
    }
    r.release_beyond(0);
    assert_eq!(r.pooled(), 0);
}

#[test]
fn prefaulting_leaves_touched_pages_in_the_pool_until_told_to_stop() {
    use std::sync::atomic::AtomicBool;
    let r = Recycler::new();
    let go = AtomicBool::new(false);
    r.prefault(MIN - 1, &go);
    assert_eq!(r.pooled(), 0, "less than a large block: nothing");
    r.prefault(24 << 20, &go);
    assert_eq!(r.pooled_resident(), 24 << 20);
    // On top of what the pool holds.
    r.prefault(16 << 20, &go);
    assert_eq!(r.pooled_resident(), 40 << 20);
    // Told to stop: nothing more.
    let stop = AtomicBool::new(true);
    r.prefault(64 << 20, &stop);
    assert_eq!(r.pooled_resident(), 40 << 20);
    // The pooled pages serve the next block.
    let layout = Layout::from_size_align(40 << 20, UNIT).unwrap();
    // SAFETY: a block of this layout, allocated and freed by this recycler only.
    unsafe {
        let p = r.alloc(layout);
        assert_eq!(r.pooled(), 0);
        r.dealloc(p, layout);
    }
    r.release();
}

#[test]
fn pages_never_touched_are_not_pooled() {
    let r = Recycler::new();
    // SAFETY: as above.
    unsafe {
        // A block reserved for 64 MiB of which the first 5 MiB were written: the pool
        // keeps them, rounded up to a unit (6 MiB), and nothing of the rest.
        let l = Layout::from_size_align(64 << 20, 8).unwrap();
        let p = r.alloc(l);
        fill(p, 5 << 20, 2);
        r.dealloc(p, l);
        assert_eq!(r.pooled(), 6 << 20);
        // A block that touches nothing itself keeps only the pages it was given.
        let q = r.alloc(l);
        assert_eq!(r.pooled(), 0);
        r.dealloc(q, l);
        assert_eq!(r.pooled(), 6 << 20);
        r.release();
        // A shrink gives back an untouched tail without pooling it.
        let s = r.alloc(l);
        fill(s, 3 << 20, 4);
        let s = r.realloc(s, l, 20 << 20);
        assert_eq!(r.pooled(), 0);
        check(s, 3 << 20, 4);
        r.dealloc(s, Layout::from_size_align(20 << 20, 8).unwrap());
        assert_eq!(r.pooled(), 4 << 20);
        r.release();
    }
}
