//! heaptui: a terminal heap-snapshot browser.
//!
//! The library holds all the logic; `main.rs` only calls [`cli::main`], handing it the
//! TUI's entry ([`ui::run_files`]) for a command line without a subcommand. The rooms,
//! from the floor up (imports only point down; `tests/it/layers.rs` checks the ranks and
//! that no circle forms; `docs/architecture.md` has the picture):
//! - [`error`] and [`text`], leaves: the typed errors, and how text from a dump is made
//!   safe and fitted to a width;
//! - [`sys`], the floor: allocator hooks, huge pages, the memory budget and need, spill
//!   files, temporary files, the cache directories, progress;
//! - [`source`] maps a dump (decompressing gzip input once into the user's cache), and
//!   [`heap`] is the format-neutral model and the graph algorithms;
//! - [`cache`] stores index entries and kept dominator trees in the user's cache
//!   directory and reads them back, checked; it names no format and computes nothing;
//! - [`format`](mod@format) detects the format by its first bytes, lists what each format
//!   offers and builds the index; [`Snapshot`] is what a reader returns;
//! - the analyses: [`diff`] (classes, owners by their path from the roots, objects by
//!   ids that survive), [`suspects`], [`waste`] and [`leaks`] (memlab's three-snapshot
//!   method);
//! - [`session`], the one way from a path to an analysed snapshot (detect, cache entry,
//!   memory budget, build, dominator tree, depths), and [`present`], what the CLI and the
//!   TUI both say;
//! - the front-ends: [`cli`] (the batch commands) and [`ui`] (the terminal interface);
//!   neither imports the other, and both open dumps only through the session.

pub mod cache;
pub mod cli;
pub mod diff;
pub mod error;
pub mod format;
pub mod heap;
pub mod leaks;
pub mod present;
#[cfg(feature = "sql")]
pub mod query;
pub mod results;
pub mod session;
pub mod source;
pub mod suspects;
pub mod sys;
pub mod text;
pub mod ui;
pub mod waste;

pub use error::{Error, Result};
pub use format::Snapshot;
pub use session::{open, Session};
