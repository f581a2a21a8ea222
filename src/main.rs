//! The `heaptui` binary: everything lives in the library; this only sets the exit code.

fn main() {
    // `heaptui histogram big.hprof | head` should end quietly when `head` does, as `cat`
    // and `grep` do, rather than panic on a write to a closed pipe: restore the default
    // action of SIGPIPE, which Rust's runtime sets to "ignore".
    // SAFETY: called before any other thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(heaptui::cli::main());
}
