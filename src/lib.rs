//! heaptui: a terminal heap-snapshot browser.
//!
//! The library holds all the logic; `main.rs` only calls [`cli::main`], handing it the
//! TUI's entry ([`ui::run_files`]) for a command line without a subcommand. Layers,
//! from the bytes up (see `../shared/DESIGN.md`):
//! - [`source`] maps a dump (decompressing gzip input once into the user's cache);
//! - [`format`](mod@format) detects the format by its first bytes and builds the index;
//! - [`cache`] keeps built indexes in the user's cache directory and reads them back,
//!   checked, on the next open; it names no format (a snapshot's own part of an entry is
//!   bytes the format encodes and reads back), so imports run `format → cache → heap`;
//! - [`heap`] is the format-neutral model and the analyses;
//! - [`diff`] compares two snapshots (classes, owners by their path from the roots,
//!   objects by ids that survive);
//! - [`suspects`], [`waste`] and [`leaks`] the findings (leak suspects, wasted memory,
//!   memlab's three-snapshot leaks);
//! - [`present`] and [`text`] what the CLI and the TUI both say and how text from a dump
//!   is made safe and fitted to a width;
//! - [`cli`] the batch commands of `../shared/CLI.md`, [`ui`] the terminal interface;
//!   neither imports the other;
//! - [`tmpfiles`] the temporary files a signal must not leave behind;
//! - [`alloc`] the binary's allocator, which reuses the pages of large blocks between the
//!   index build's phases.

pub mod alloc;
pub mod cache;
pub mod cli;
pub mod diff;
pub mod error;
pub mod format;
pub mod heap;
pub mod leaks;
pub mod present;
pub mod progress;
pub mod results;
pub mod source;
pub mod suspects;
pub mod text;
pub mod tmpfiles;
pub mod ui;
pub mod waste;

pub use error::{Error, Result};
pub use format::{open, Snapshot};
