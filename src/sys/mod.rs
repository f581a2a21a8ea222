//! The floor: what the process needs from the machine, whatever it reads. It imports
//! nothing of the crate but [`crate::error`] (a leaf), so that every room above may use
//! it and no circle can pass through it (`tests/it/layers.rs` checks both).
//!
//! - [`alloc`]: the binary's allocator hooks (large blocks' pages reused between the
//!   index build's phases, huge pages, the failure that ends the process cleanly);
//! - [`oom`]: the end of the process when an allocation fails, saying what ran out;
//! - [`spill`]: large blocks built in unlinked spill files when memory is short;
//! - [`huge`]: vectors whose pages the kernel may back with huge pages;
//! - [`budget`]: the memory this process may use (kernel, cgroups, rlimits);
//! - [`memory`]: a build's memory need against that budget: in memory, guarded, on
//!   disk, or refused up front;
//! - [`env`]: every `HEAPTUI_*` variable, checked before anything runs;
//! - [`files`]: the user's cache directory, private files and folders, disk room;
//! - [`tmpfiles`]: the temporary files a signal must not leave behind;
//! - [`maps`]: the files mapped, so that a SIGBUS names the one cut short;
//! - [`codec`]: the encoding of what the cache keeps beside its columns;
//! - [`progress`]: the phase and fraction of a long job, read by any front-end;
//! - [`simd`]: loops compiled for AVX2 where the processor has it.

pub mod alloc;
pub mod budget;
pub mod codec;
pub mod env;
pub mod files;
pub mod huge;
pub mod maps;
pub mod memory;
pub mod oom;
pub mod progress;
pub mod simd;
pub mod spill;
pub mod tmpfiles;
