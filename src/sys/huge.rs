//! Transparent huge pages for the large arrays that the graph passes index at random
//! (the dominator computation's per-object state, the CSR arrays): with 4 KiB pages a
//! random load into a multi-GB array misses the TLB almost every time; with 2 MiB pages
//! far less often. Linux with `transparent_hugepage` set to `madvise` (Debian's default)
//! gives huge pages only to memory advised so, and only at the first touch, so the
//! advice comes between allocating and filling. Elsewhere, or when the kernel says no,
//! this does nothing and the arrays are ordinary. (In the binary, whose allocator asks for
//! huge pages on its fresh blocks of 8 to 128 MiB ([`crate::sys::alloc`]), the advice here
//! matters for larger arrays, for blocks made of pooled pages, and for the library used
//! with another allocator.)

/// Arrays smaller than this keep ordinary pages.
const MIN_BYTES: usize = 8 << 20;

/// Asks for huge pages on the vector's spare capacity (call before filling it).
pub fn advise<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes < MIN_BYTES || !wanted() {
            return;
        }
        const HUGE: usize = 2 << 20;
        let start = v.as_mut_ptr() as usize;
        let first = start.div_ceil(HUGE) * HUGE;
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range lies inside the vector's own allocation; MADV_HUGEPAGE
            // changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Whether huge pages are asked for at all: not when `HEAPTUI_NO_HUGEPAGES` is set (read
/// once; the allocator asks too, so this allocates nothing large).
pub fn wanted() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static WANTED: AtomicU8 = AtomicU8::new(0);
    match WANTED.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let on = !super::env::flag("HEAPTUI_NO_HUGEPAGES");
            WANTED.store(if on { 1 } else { 2 }, Ordering::Relaxed);
            on
        }
    }
}

/// `vec![value; n]`, on huge pages where the kernel gives them.
pub fn filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(&mut v);
    v.resize(n, value);
    v
}

/// `Vec::with_capacity(n)`, on huge pages where the kernel gives them.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(&mut v);
    v
}
