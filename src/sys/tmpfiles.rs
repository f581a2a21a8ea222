//! Temporary files being written (a gzip copy, an index cache entry, a key), so that a
//! signal that ends the process ([`ENDING`]) removes them first: SIGTERM, SIGINT and SIGHUP used to
//! leave `gunzip/<stem>.tmp<pid>-0` (hundreds of MB) or `index/.<pid>.tmp` behind. The
//! batch commands' watcher ([`watch_signals`]) and the TUI's (`ui::terminal`) call
//! [`remove_all`] before the process ends. What a SIGKILL or a power cut leaves is
//! removed when the cache is next used ([`stale`]: its process is gone).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file on the list while this lives (dropped once it is renamed into place
/// or removed).
pub struct Registered(PathBuf);

impl Drop for Registered {
    fn drop(&mut self) {
        let mut l = live();
        if let Some(i) = l.iter().position(|p| *p == self.0) {
            l.swap_remove(i);
        }
    }
}

/// Puts `path` on the list of temporary files to remove if a signal ends the process.
pub fn register(path: &Path) -> Registered {
    live().push(path.to_path_buf());
    Registered(path.to_path_buf())
}

/// Removes every temporary file on the list (a signal is ending the process).
pub fn remove_all() {
    for p in live().drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

/// The signals whose default action ends the process and that heaptui handles: on each
/// the temporary files are removed (and, in the TUI, the terminal put back) before the
/// process ends by the same signal. SIGXFSZ is ignored (`main`: a write past `ulimit -f`
/// fails instead); SIGPIPE is handled by the TUI only, since a batch command writing to
/// a reader that has gone should end quietly as `cat` does, and writes no temporary file
/// while it prints. The kernel's own SIGKILL, SIGSEGV, SIGBUS (handled apart) and SIGABRT
/// cannot be, or are not, caught here.
pub const ENDING: &[i32] = &[
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGXCPU,
    libc::SIGVTALRM,
    libc::SIGPROF,
];

/// Removes the temporary files and ends the process by `sig`, as its default action
/// would have (a core dump for SIGQUIT where core dumps are on), so a parent sees the
/// signal; `exit(128 + sig)` if the signal somehow did not end it.
pub fn end_by(sig: i32) -> ! {
    remove_all();
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig)
}

/// For the batch commands: a thread that, on any of [`ENDING`], removes the temporary
/// files and then ends the process as the signal would have (the TUI has its own
/// watcher, which puts the terminal back too).
pub fn watch_signals() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new(ENDING) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                end_by(sig);
            }
        });
}

/// How long a temporary file of a process that is gone stays before it is removed: a
/// live writer in another pid namespace (not in our `/proc`) keeps its file fresh.
pub const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Whether the temporary file `p`, written by process `pid`, was left by a process that
/// is gone: it is not running here (Linux's `/proc`), and the file is untouched for
/// [`STALE`].
pub fn stale(p: &Path, pid: u32) -> bool {
    let old = std::fs::metadata(p)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age >= STALE);
    old && Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}
