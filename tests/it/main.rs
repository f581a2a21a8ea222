//! The integration tests that share nothing but the crate and `tests/common/`: the
//! formats' fixtures, the CLI, the analyses, hostile inputs run as a separate process,
//! the source layers. One binary for them all (as ripgrep's `tests/tests.rs`), so that
//! the crate is linked once rather than once per file.
//!
//! A test here leaves the process's environment alone: the tests of one binary share it
//! (and the binaries they run inherit it). Tests that set `HEAPTUI_*` variables in the
//! process are in `tests/cache/` (the index cache on) and `tests/no_cache/` (off); a file
//! that installs its own `#[global_allocator]` is a binary of its own (`tests/hostile.rs`,
//! `tests/hostile_memory.rs`). `layers::the_tests_are_a_few_binaries` keeps it so.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod budget;
mod cli;
mod dart_fixture;
mod dart_hand_built;
mod docs;
mod dominators;
mod edge_names;
mod fuzz_regressions;
mod go_fixture;
mod hostile_sweep;
mod hprof_analyses;
mod hprof_corpus;
mod hprof_diff;
mod hprof_jvm;
mod hprof_threads;
mod layers;
mod merged_paths;
mod moarvm_fixture;
mod on_disk;
#[cfg(feature = "sql")]
mod query;
#[cfg(feature = "sql")]
mod query_engine;
#[cfg(feature = "sql")]
mod query_tables;
mod schema;
mod sets;
mod suspects;
mod v8_cuts;
mod v8_fixtures;
