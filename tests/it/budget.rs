//! Issue 27: the memory check reads the real budget. Run inside a memory cgroup capped
//! below what indexing the file needs, heaptui exits 2 up front with a message naming
//! the cgroup and the figures, where it used to read the machine's MemAvailable, start,
//! and be killed by the kernel without a word. Needs root and cgroup v1's memory
//! controller at `/sys/fs/cgroup/memory` (as on this machine); skips with a message
//! otherwise.

use crate::common;

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
    // Below what indexing the 56 MB dump takes (about its size in anonymous memory),
    // and below the floor of building it on disk.
    let Some(cg) = Capped::new(size * 3 / 4) else {
        return;
    };
    let (out, _, _) = run_in(&cg, &["summary", f.to_str().unwrap(), "--no-cache"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(err.contains("memory cgroup /heaptui-test-"), "{err}");
    assert!(err.contains("needs about") && err.contains("MB"), "{err}");
    assert!(err.contains("built on disk it would still need"), "{err}");
    // Uncapped, the same file opens.
    let out = heaptui(&["summary", f.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
}

/// In a cgroup capped between the on-disk floor and what indexing needs, the index is
/// built on disk: exit 0, no OOM kill, and the answers of the uncapped run.
#[test]
fn a_cgroup_below_the_need_builds_on_disk_and_answers_as_uncapped() {
    // 2.6 M objects, 102 MiB: indexing needs 122 MiB; the floor is 76 MiB.
    let f = scratch().join("budget-tree.hprof");
    std::fs::write(&f, graphs::hprof_tree(2_600_000)).unwrap();
    let args = [
        "dominators",
        f.to_str().unwrap(),
        "--top",
        "5",
        "--json",
        "--no-cache",
    ];
    let Some(cg) = Capped::new(90 << 20) else {
        return;
    };
    let (out, peak, oom) = run_in(&cg, &args);
    assert_eq!(out.status.code(), Some(0), "{out:?}\n{oom}");
    assert!(oom.contains("oom_kill 0"), "{oom}");
    assert!(peak <= 90 << 20, "{peak}");
    drop(cg);
    // The same run with room to spare (a cgroup of 4 GiB, to read its peak): the same
    // answer, in more memory than the cap allowed, so the cap did bite.
    let big = Capped::new(4 << 30).unwrap();
    let (uncapped, big_peak, _) = run_in(&big, &args);
    assert!(uncapped.status.success(), "{uncapped:?}");
    assert!(
        out.stdout == uncapped.stdout,
        "the capped run's answer differs"
    );
    assert!(big_peak > 90 << 20, "uncapped peak {big_peak}");
    std::fs::remove_file(&f).unwrap();
}

/// Runs `heaptui ARGS` in `cg`, with a private cache directory: its output, the cgroup's
/// peak and its OOM kills.
fn run_in(cg: &Capped, args: &[&str]) -> (std::process::Output, u64, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo $$ > {}/cgroup.procs && exec {} \"$@\"",
            cg.0.display(),
            env!("CARGO_BIN_EXE_heaptui"),
        ))
        .arg("heaptui")
        .args(args)
        .env("HEAPTUI_CACHE_DIR", scratch().join("budget-run-cache"))
        .env_remove("HEAPTUI_MEMORY_LIMIT")
        .output()
        .unwrap();
    let peak = std::fs::read_to_string(cg.0.join("memory.max_usage_in_bytes"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let oom = std::fs::read_to_string(cg.0.join("memory.oom_control")).unwrap();
    (out, peak, oom)
}

/// Issue 28, defect 3: a crafted HPROF file whose index needs more than the estimate (an
/// average per byte of file), in a cgroup whose cap the estimate fits in: the allocator's
/// guard sends what goes past the budget to disk, so the kernel does not kill it.
#[test]
fn an_index_larger_than_estimated_is_not_killed_in_its_cgroup() {
    let f = scratch().join("budget-dense.hprof");
    std::fs::write(&f, common::hostile::hprof_instances(4_000_000)).unwrap();
    let file = f.to_str().unwrap();
    // The estimate, from the refusal's message under a tiny budget.
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["summary", file, "--no-cache"])
        .env("HEAPTUI_MEMORY_LIMIT", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let need_mb: u64 = err
        .split("needs about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    // The cap: the estimate fits in it, with a little room.
    let cap = (need_mb + 16) << 20;
    let args = ["histogram", file, "--json", "--no-cache"];
    let Some(big) = Capped::new(4 << 30) else {
        return;
    };
    let (uncapped, uncapped_peak, _) = run_in(&big, &args);
    drop(big);
    assert!(uncapped.status.success(), "{uncapped:?}");
    // Uncapped, it takes more than the cap: the estimate is low for this file.
    assert!(uncapped_peak > cap, "peak {uncapped_peak}, cap {cap}");
    let cg = Capped::new(cap).unwrap();
    let (out, peak, oom) = run_in(&cg, &args);
    assert_eq!(out.status.code(), Some(0), "{out:?}\n{oom}");
    assert!(oom.contains("oom_kill 0"), "{oom}");
    assert!(peak <= cap, "{peak}");
    assert!(
        out.stdout == uncapped.stdout,
        "the capped run's answer differs"
    );
    std::fs::remove_file(&f).unwrap();
}
