//! The `heaptui` binary: everything lives in the library; this installs the SIGBUS
//! handler, dispatches to the CLI (which hands a command line without a subcommand to
//! the TUI) and sets the exit code.

/// Large blocks' pages are reused between the index build's phases (see `alloc`).
#[global_allocator]
static GLOBAL: heaptui::sys::alloc::Global = heaptui::sys::alloc::Global;

fn main() {
    // `heaptui histogram big.hprof | head` should end quietly when `head` does, as `cat`
    // and `grep` do, rather than panic on a write to a closed pipe: restore the default
    // action of SIGPIPE, which Rust's runtime sets to "ignore".
    // SAFETY: called before any other thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Under a file-size limit (`ulimit -f`, which batch schedulers set) a write past it
    // would kill the process with SIGXFSZ, leaving its temporary file and, in the TUI, the
    // terminal raw: ignored, the write fails with EFBIG instead, and the cache entry is
    // skipped with a warning, a gzip copy refused with exit 2 (issue 40).
    // SAFETY: as above; SIG_IGN is a valid handler.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // Every allocation of 1 MiB or more gets its own mapping, returned to the kernel when
    // freed. glibc's default raises that threshold each time such a block is freed (up to
    // 32 MiB), after which the index's per-object arrays of tens of MB come from the heap
    // and per-thread arenas, and memory freed between phases stays resident: 70 MB more
    // at the peak of a 6 M-node V8 snapshot's dominator tree (bench/README.md).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called before any other thread exists or allocates much.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    // A dump cut short on disk under the map ends with a message (and the terminal put
    // back when the TUI has it), not a silent SIGBUS.
    heaptui::ui::terminal::install_sigbus_handler();
    // An allocation that fails ends the process with the terminal put back, exit 2.
    heaptui::sys::oom::on_failure(heaptui::ui::terminal::emergency_exit);
    heaptui::sys::alloc::configure();
    // main → cli | ui: the CLI runs the commands and hands a command line without one
    // to the TUI's entry.
    std::process::exit(heaptui::cli::main(heaptui::ui::run_files));
}
