//! The one place that compiles a loop for AVX2 where the processor has it: the
//! column checks of the index cache, the kept tree's checks, the packed columns' folds
//! and the cache's sum vectorise twice as wide with it (the baseline x86-64 has no
//! unsigned maximum of two or four bytes). Elsewhere, and on other processors, the same
//! code runs as it is.
//!
//! [`with_avx2`] runs a closure inside a function compiled with AVX2 enabled; the closure
//! (and what it calls with `#[inline(always)]`) is inlined there and compiled for it.
//! `HEAPTUI_NO_AVX2=1` turns the paths off, so that `bench/tricks.sh` can measure what
//! they are worth.

/// Whether the AVX2 paths are taken: the processor has AVX2 and `HEAPTUI_NO_AVX2` is
/// not `1`. Asked once.
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2") && !super::env::flag("HEAPTUI_NO_AVX2")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `f()`, compiled for AVX2 where [`avx2`] says so, else as it is.
#[inline(always)]
pub fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        #[target_feature(enable = "avx2")]
        fn wide<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: the processor has AVX2 (checked by `avx2`).
        return unsafe { wide(f) };
    }
    f()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_result_is_the_closure_s_either_way() {
        let v: Vec<u32> = (0..100_000).map(|i| (i * 7919) % 65_521).collect();
        let plain = v.iter().copied().max();
        assert_eq!(super::with_avx2(|| v.iter().copied().max()), plain);
    }
}
