//! The index cache's tests: its entries (`index`) and what is kept beside them: the
//! dominator trees (`tree`) and the strings' text (`strings`). A binary of its own because `index` opens a fixture in this process
//! with the cache on for every size (`HEAPTUI_CACHE_DIR` and `HEAPTUI_CACHE_MIN_BYTES=0`
//! set in the process's environment, which every test of a binary shares and every
//! program it runs inherits): elsewhere that would write and read entries under the
//! other tests.

#[path = "../common/mod.rs"]
mod common;

mod index;
#[cfg(feature = "sql")]
mod strings;
mod tree;
