//! How much memory this process may still use, and where that figure comes from: the
//! smallest of `HEAPTUI_MEMORY_LIMIT` (when set, it alone), the kernel's MemAvailable
//! plus free swap, what the memory cgroup still allows (limit less usage, at every
//! level up the hierarchy: v2 `memory.max`/`memory.current`, v1
//! `memory.limit_in_bytes`/`memory.usage_in_bytes`), and the address-space and data
//! limits (`RLIMIT_AS` less `VmSize`, `RLIMIT_DATA` less `VmData`).
//!
//! A cgroup's usage counts the page cache of the files its processes read, which the
//! kernel reclaims before it kills anyone: the inactive file pages (`memory.stat`'s
//! `inactive_file` in v2, `total_inactive_file` in v1) are left out of "used", as the
//! kernel's own working-set figure does. Copying a dump into a container reads it into
//! the cgroup's page cache; counted as used, it refused dumps that fit (issue 40).
//!
//! Inside a container (`kubectl exec`, a systemd slice, a CI runner) MemAvailable is
//! the machine's, far above what the cgroup lets the process have; a check against it
//! started work the kernel then killed without a word (issue 27).

use std::path::Path;

use crate::error::{Error, Result};

/// Memory left, and where the figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    pub from: String,
}

/// Limits at or above this are "no limit" (cgroup v1 writes 2^63 rounded to a page).
const UNLIMITED: u64 = 1 << 60;

/// The memory this process may still use (see the module's doc), `None` when nothing
/// says.
pub fn budget() -> Result<Option<Budget>> {
    if let Some(v) = std::env::var_os("HEAPTUI_MEMORY_LIMIT").filter(|v| !v.is_empty()) {
        let text = v.to_string_lossy();
        return match text.trim().parse::<u64>() {
            Ok(n) => Ok(Some(Budget {
                bytes: n,
                from: "HEAPTUI_MEMORY_LIMIT".into(),
            })),
            Err(_) => Err(Error::Usage(format!(
                "HEAPTUI_MEMORY_LIMIT={:?} is not a whole number of bytes (e.g. 4294967296)",
                text
            ))),
        };
    }
    let mut all = Vec::new();
    all.extend(meminfo(
        &std::fs::read_to_string("/proc/meminfo").unwrap_or_default(),
    ));
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    all.extend(cgroup(&cgroups, Path::new("/sys/fs/cgroup")));
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    all.extend(rlimits(&status));
    Ok(all.into_iter().min_by_key(|b| b.bytes))
}

/// `key:  N kB` of a `/proc` status-like text, in bytes.
fn kb(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let n: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(n * 1024)
}

/// The kernel's MemAvailable plus free swap.
fn meminfo(text: &str) -> Option<Budget> {
    let bytes = kb(text, "MemAvailable:")? + kb(text, "SwapFree:").unwrap_or(0);
    Some(Budget {
        bytes,
        from: "the kernel's MemAvailable and free swap".into(),
    })
}

/// A number in a cgroup file (`max`, or a limit of 2^60 or more: none).
fn cgroup_number(path: &Path) -> Option<u64> {
    let t = std::fs::read_to_string(path).ok()?;
    let n: u64 = t.trim().parse().ok()?;
    (n < UNLIMITED).then_some(n)
}

/// The value of `key` in a cgroup's `memory.stat` (lines of `key value`).
fn stat_number(path: &Path, key: &str) -> Option<u64> {
    let t = std::fs::read_to_string(path).ok()?;
    t.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// What the memory cgroups of this process still allow: the least room (limit less
/// usage) over its cgroup and every cgroup above it, from `/proc/self/cgroup`'s text
/// and the cgroup file system mounted at `root`.
pub fn cgroup(proc_self_cgroup: &str, root: &Path) -> Option<Budget> {
    let mut best: Option<Budget> = None;
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        // v2: "0::/path"; v1: "N:memory:/path" (maybe with other controllers).
        let (base, limit_file, usage_file, inactive_key, v) = if controllers.is_empty() {
            (
                root.to_path_buf(),
                "memory.max",
                "memory.current",
                "inactive_file",
                "v2",
            )
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                root.join("memory"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
                "v1",
            )
        } else {
            continue;
        };
        // The cgroup, then each one above it up to the root.
        let mut rel = std::path::PathBuf::from(path.trim().trim_start_matches('/'));
        loop {
            let dir = base.join(&rel);
            if let Some(limit) = cgroup_number(&dir.join(limit_file)) {
                let charged = cgroup_number(&dir.join(usage_file)).unwrap_or(0);
                let reclaimable = stat_number(&dir.join("memory.stat"), inactive_key)
                    .unwrap_or(0)
                    .min(charged);
                let usage = charged - reclaimable;
                let room = limit.saturating_sub(usage);
                if best.as_ref().is_none_or(|b| room < b.bytes) {
                    best = Some(Budget {
                        bytes: room,
                        from: format!(
                            "the memory cgroup /{} ({v}: limit {} MB, {} MB used{})",
                            rel.display(),
                            limit >> 20,
                            usage >> 20,
                            match reclaimable >> 20 {
                                0 => String::new(),
                                mb => format!(" besides {mb} MB of reclaimable page cache"),
                            }
                        ),
                    });
                }
            }
            if !rel.pop() {
                break;
            }
        }
    }
    best
}

/// What `RLIMIT_AS` and `RLIMIT_DATA` still allow, given the process's `VmSize` and
/// `VmData` (from `/proc/self/status`'s text).
fn rlimits(status: &str) -> Vec<Budget> {
    let mut out = Vec::new();
    for (res, name, used) in [
        (libc::RLIMIT_AS, "RLIMIT_AS", kb(status, "VmSize:")),
        (libc::RLIMIT_DATA, "RLIMIT_DATA", kb(status, "VmData:")),
    ] {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given, which lives on this stack.
        if unsafe { libc::getrlimit(res, &mut r) } != 0 {
            continue;
        }
        if r.rlim_cur == libc::RLIM_INFINITY || r.rlim_cur >= UNLIMITED {
            continue;
        }
        let used = used.unwrap_or(0);
        out.push(Budget {
            bytes: (r.rlim_cur).saturating_sub(used),
            from: format!("{name} ({} MB, {} MB used)", r.rlim_cur >> 20, used >> 20),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty directory of this test process under the temporary directory.
    fn fresh(name: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("heaptui-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        root
    }

    /// Writes each file of `files` (its path below `dir`, its text).
    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (rel, text) in files {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    #[test]
    fn cgroup_v2_takes_the_least_room_up_the_hierarchy() {
        let root = fresh("cg2");
        // The service's own cgroup allows 1,900 MiB with 100 MiB used; the slice above
        // it 1,200 MiB with 1,000 MiB used: 200 MiB left is the budget.
        write(
            &root,
            &[
                ("system.slice/memory.max", "1258291200\n"),
                ("system.slice/memory.current", "1048576000\n"),
                ("system.slice/app.service/memory.max", "1992294400\n"),
                ("system.slice/app.service/memory.current", "104857600\n"),
                ("memory.current", "5000000000\n"),
            ],
        );
        let b = cgroup("0::/system.slice/app.service\n", &root).unwrap();
        assert_eq!(b.bytes, 1258291200 - 1048576000);
        assert!(
            b.from.contains("/system.slice") && b.from.contains("v2"),
            "{b:?}"
        );
        // "max" is no limit.
        write(&root, &[("system.slice/memory.max", "max\n")]);
        let b = cgroup("0::/system.slice/app.service\n", &root).unwrap();
        assert_eq!(b.bytes, 1992294400 - 104857600);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn cgroup_v1_reads_the_memory_controller_and_ignores_the_unlimited() {
        let root = fresh("cg1");
        write(
            &root,
            &[
                ("memory/capped/memory.limit_in_bytes", "1992294400\n"),
                ("memory/capped/memory.usage_in_bytes", "92294400\n"),
                ("memory/memory.limit_in_bytes", "9223372036854771712\n"),
                ("memory/memory.usage_in_bytes", "7000000000\n"),
            ],
        );
        let text = "12:cpu,cpuacct:/capped\n11:memory:/capped\n0::/\n";
        let b = cgroup(text, &root).unwrap();
        assert_eq!(b.bytes, 1992294400 - 92294400);
        assert!(b.from.contains("v1"), "{b:?}");
        // No memory controller, no limit anywhere: nothing said.
        assert_eq!(cgroup("3:cpu:/x\n", &root), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// A cgroup whose usage is mostly the page cache of a file read (a dump copied into
    /// the container): the inactive file pages are not counted as used, in v2 and v1, at
    /// every level; the active ones are.
    #[test]
    fn reclaimable_page_cache_is_not_counted_as_used() {
        let root = fresh("cg-cache");
        // 600 MiB allowed, 580 MiB charged, of which 550 MiB inactive file pages.
        write(
            &root,
            &[
                ("pod/memory.max", "629145600\n"),
                ("pod/memory.current", "608174080\n"),
                (
                    "pod/memory.stat",
                    "anon 20971520\nfile 587202560\nactive_file 10485760\ninactive_file 576716800\n",
                ),
            ],
        );
        let b = cgroup("0::/pod\n", &root).unwrap();
        assert_eq!(b.bytes, 629145600 - (608174080 - 576716800));
        assert!(b.from.contains("550 MB of reclaimable page cache"), "{b:?}");
        // v1, the limit one level up, the stat's hierarchical total.
        write(
            &root,
            &[
                ("memory/kube/memory.limit_in_bytes", "629145600\n"),
                ("memory/kube/memory.usage_in_bytes", "608174080\n"),
                (
                    "memory/kube/memory.stat",
                    "inactive_file 1048576\ntotal_inactive_file 576716800\n",
                ),
                ("memory/kube/app/memory.usage_in_bytes", "1000\n"),
            ],
        );
        let b = cgroup("9:memory:/kube/app\n", &root).unwrap();
        assert_eq!(b.bytes, 629145600 - (608174080 - 576716800));
        // A stat that claims more than is charged leaves nothing used, never less.
        write(
            &root,
            &[("pod/memory.stat", "inactive_file 999999999999\n")],
        );
        assert_eq!(cgroup("0::/pod\n", &root).unwrap().bytes, 629145600);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn meminfo_adds_free_swap() {
        let b = meminfo("MemTotal: 100 kB\nMemAvailable:   2048 kB\nSwapFree: 1024 kB\n").unwrap();
        assert_eq!(b.bytes, 3072 * 1024);
    }
}
