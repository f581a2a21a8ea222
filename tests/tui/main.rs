//! The TUI's tests: the run loop driven in-process over ratatui's `TestBackend` (`app`,
//! `diff`, `keys`, `query`, `v8`, `widths`), its screens against insta snapshots (`snapshots`, files in
//! `tests/tui/snapshots/`), and the real binary in a real terminal under tmux (`tmux`).
//! One binary for them (the crate linked once); like `tests/it/`, no test here sets the
//! process's environment.

#[path = "../common/mod.rs"]
mod common;

mod app;
mod diff;
mod inspector;
mod keys;
mod layout;
mod query;
mod snapshots;
mod tmux;
mod v8;
mod widths;
