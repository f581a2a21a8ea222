//! Tests that open dumps in this process with the index cache off (`HEAPTUI_NO_CACHE=1`
//! set in the process's environment, which every test of a binary shares and every
//! program it runs inherits): the quick HPROF histogram against the index
//! (`hprof_quick`), and every fixture cut short (`truncation`). A binary of their own,
//! so that the setting reaches no test that needs the cache (`tests/cache/`, the TUI's).

#[path = "../common/mod.rs"]
mod common;

mod hprof_quick;
mod truncation;
