//! Issue 27: the memory check reads the real budget. Run inside a memory cgroup capped
//! below what indexing the file needs, heaptui exits 2 up front with a message naming
//! the cgroup and the figures, where it used to read the machine's MemAvailable, start,
//! and be killed by the kernel without a word. Needs root and cgroup v1's memory
//! controller at `/sys/fs/cgroup/memory` (as on this machine); skips with a message
//! otherwise.

mod common;

use common::*;
use std::process::Command;

/// A v1 memory cgroup capped at `cap` bytes, removed on drop.
struct Capped(std::path::PathBuf);

impl Capped {
    fn new(cap: u64) -> Option<Capped> {
        let dir = std::path::PathBuf::from(format!(
            "/sys/fs/cgroup/memory/heaptui-test-{}",
            std::process::id()
        ));
        if std::fs::create_dir(&dir).is_err() {
            eprintln!("skipping: cannot make a memory cgroup (needs root and cgroup v1)");
            return None;
        }
        let c = Capped(dir);
        std::fs::write(c.0.join("memory.limit_in_bytes"), cap.to_string()).ok()?;
        Some(c)
    }
}

impl Drop for Capped {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_cgroup_too_small_for_the_index_is_refused_up_front_with_its_figures() {
    let f = gunzipped("java/leak/heap-live.hprof.gz");
    let size = std::fs::metadata(&f).unwrap().len();
    // Below what indexing the 56 MB dump takes (about its size in anonymous memory).
    let Some(cg) = Capped::new(size * 3 / 4) else {
        return;
    };
    let cache = scratch().join("budget-cache");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo $$ > {}/cgroup.procs && exec {} summary {} --no-cache",
            cg.0.display(),
            env!("CARGO_BIN_EXE_heaptui"),
            f.display()
        ))
        .env("HEAPTUI_CACHE_DIR", &cache)
        .env_remove("HEAPTUI_MEMORY_LIMIT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(err.contains("memory cgroup /heaptui-test-"), "{err}");
    assert!(err.contains("needs about") && err.contains("MB"), "{err}");
    // Uncapped, the same file opens.
    let out = heaptui(&["summary", f.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
}
