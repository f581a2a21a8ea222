//! Issue 27: an index that would not fit in the memory budget is built on disk (the
//! allocator's large blocks in unlinked spill files, `src/sys/spill.rs`) and gives the
//! same answers; below the floor it is refused up front with the figures. The run in a
//! real capped memory cgroup is in `tests/it/budget.rs`.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the binary with a private cache directory and the given environment.
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_heaptui"));
    c.args(args)
        .env("HEAPTUI_CACHE_DIR", scratch().join("on-disk-cache"))
        .env_remove("HEAPTUI_MEMORY_LIMIT")
        .env_remove("HEAPTUI_ON_DISK")
        .env_remove("HEAPTUI_IGNORE_MEMORY");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run heaptui")
}

/// Every dump among the repository's fixtures (one snapshot of each file).
fn fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root().join("fixtures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                dirs.push(p);
            } else if [".hprof", ".heapsnapshot", ".dump", ".mvmheap", ".dartheap"]
                .iter()
                .any(|x| name.trim_end_matches(".gz").ends_with(x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn memory_mode(file: &Path, env: &[(&str, &str)]) -> serde_json::Value {
    let out = run(
        &["summary", file.to_str().unwrap(), "--json", "--no-cache"],
        env,
    );
    json_of(&out)["memory_mode"].clone()
}

#[test]
fn every_fixture_built_on_disk_answers_as_in_memory() {
    let all = fixtures();
    assert!(all.len() >= 10, "{all:?}");
    let (mut spilled, mut opened) = (0, 0);
    for f in &all {
        let f = f.to_str().unwrap();
        let mut ok = true;
        for cmd in [
            &["dominators", f, "--top", "10", "--json", "--no-cache"][..],
            &["histogram", f, "--json", "--no-cache"][..],
        ] {
            let mem = run(cmd, &[]);
            let disk = run(cmd, &[("HEAPTUI_ON_DISK", "1")]);
            // The fixtures of bad input (a zstd bomb) are refused alike.
            assert_eq!(mem.status.code(), disk.status.code(), "{f}: {disk:?}");
            assert!(mem.stdout == disk.stdout, "{f}: {cmd:?} differs on disk");
            ok &= mem.status.success();
        }
        if !ok {
            continue;
        }
        opened += 1;
        let m = memory_mode(Path::new(f), &[("HEAPTUI_ON_DISK", "1")]);
        assert_eq!(m["mode"], "disk", "{f}: {m}");
        spilled += m["spilled_bytes"].as_u64().unwrap();
        assert_eq!(memory_mode(Path::new(f), &[])["mode"], "memory", "{f}");
    }
    assert!(opened >= 10, "{opened} of {all:?}");
    // The fixtures' large arrays (8 MiB or more) did go to the spill files.
    assert!(spilled > 32 << 20, "{spilled} bytes spilled");
}

#[test]
fn a_budget_between_the_floor_and_the_need_builds_on_disk_with_the_same_answers() {
    // 2.6 M objects, 102 MiB: the check wants 1.2 bytes of memory per byte (122 MiB); a
    // budget of 100 MB (95 MiB) is below that and above the on-disk floor (64 MiB and
    // 10 %: 76 MiB).
    let f = scratch().join("on-disk-tree.hprof");
    std::fs::write(&f, graphs::hprof_tree(2_600_000)).unwrap();
    let file = f.to_str().unwrap();
    let limit = [("HEAPTUI_MEMORY_LIMIT", "100000000")];
    let m = memory_mode(&f, &limit);
    assert_eq!(m["mode"], "disk", "{m}");
    assert!(m["spilled_bytes"].as_u64().unwrap() > 100 << 20, "{m}");
    assert!(m["why"].as_str().unwrap().contains("only 96 MB"), "{m}");
    for cmd in [
        &["dominators", file, "--top", "5", "--json", "--no-cache"][..],
        &["histogram", file, "--json", "--no-cache"][..],
    ] {
        let mem = run(cmd, &[]);
        let disk = run(cmd, &limit);
        assert!(mem.status.success() && disk.status.success(), "{disk:?}");
        assert!(mem.stdout == disk.stdout, "{cmd:?} differs on disk");
    }
    // The root object retains the whole tree: 2.6 M objects of its size.
    let v = json_of(&run(
        &["dominators", file, "--top", "1", "--json", "--no-cache"],
        &limit,
    ));
    let top = &v["objects"][0];
    assert_eq!(top["object"], "0x10000", "{v}");
    let shallow = top["shallow_bytes"].as_u64().unwrap();
    assert!(shallow > 0, "{v}");
    // ... and the class object, reached only through them.
    assert_eq!(v["reachable_objects"], 2_600_001, "{v}");
    let class_bytes = top["retained_bytes"].as_u64().unwrap() - 2_600_000 * shallow;
    assert!(class_bytes > 0 && class_bytes < 1024, "{v}");
    // Below the floor: refused up front, exit 2, with the figures.
    let out = run(
        &["summary", file, "--no-cache"],
        &[("HEAPTUI_MEMORY_LIMIT", "50000000")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("needs about 122 MB")
            && err.contains("only 48 MB")
            && err.contains("built on disk it would still need 77 MB"),
        "{err}"
    );
    std::fs::remove_file(&f).unwrap();
}

/// Issue 28, defect 3, for the formats whose need is an average per byte of file (HPROF,
/// Go): a crafted file whose index needs more than the estimate. Under a budget the
/// estimate fits in, what goes past the budget goes to disk (the allocator's guard),
/// instead of the process past its cgroup's limit; the answers are the same.
#[test]
fn an_index_larger_than_estimated_goes_to_disk_past_the_budget() {
    // 4 M empty instances, 25 bytes each (100 MB): the estimate is 1.2 bytes per byte
    // (120 MB), the index of so many small objects takes more.
    let f = scratch().join("on-disk-dense.hprof");
    std::fs::write(&f, hostile::hprof_instances(4_000_000)).unwrap();
    let file = f.to_str().unwrap();
    let limit = [("HEAPTUI_MEMORY_LIMIT", "130000000")];
    let m = memory_mode(&f, &limit);
    assert_eq!(m["mode"], "disk", "{m}");
    assert!(
        m["why"]
            .as_str()
            .unwrap()
            .contains("took more memory than estimated"),
        "{m}"
    );
    assert!(m["spilled_bytes"].as_u64().unwrap() > 0, "{m}");
    let cmd = &["histogram", file, "--json", "--no-cache"];
    let (mem, disk) = (run(cmd, &[]), run(cmd, &limit));
    assert!(mem.status.success() && disk.status.success(), "{disk:?}");
    assert!(mem.stdout == disk.stdout, "the histogram differs on disk");
    // With room to spare, nothing goes to disk.
    assert_eq!(memory_mode(&f, &[])["mode"], "memory");
    std::fs::remove_file(&f).unwrap();
}

/// Issue 40: spill files on a memory-backed file system (tmpfs: `/dev/shm` here, `/tmp`
/// on many systems, a memory-backed `emptyDir`) would take memory too. The build on disk
/// is refused up front with the reason and the way out; with `HEAPTUI_SPILL_DIR` on a
/// disk it goes on.
#[test]
fn a_spill_folder_on_tmpfs_is_refused_with_the_way_out() {
    let shm = Path::new("/dev/shm");
    let on_tmpfs = Command::new("stat")
        .args(["-f", "-c", "%T", "/dev/shm"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "tmpfs");
    if !on_tmpfs {
        eprintln!("skipped: /dev/shm is not a tmpfs here");
        return;
    }
    let cache = tempfile::tempdir_in(shm).unwrap();
    let file = fixture("java/leak/heap-live.hprof.gz");
    let file = file.to_str().unwrap();
    let forced = [("HEAPTUI_ON_DISK", "1")];
    let mut c = Command::new(env!("CARGO_BIN_EXE_heaptui"));
    let out = c
        .args(["summary", file, "--json", "--no-cache"])
        .env("HEAPTUI_CACHE_DIR", cache.path())
        .env_remove("HEAPTUI_SPILL_DIR")
        .envs(forced)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("memory-backed") && err.contains("tmpfs") && err.contains("HEAPTUI_SPILL_DIR"),
        "{err}"
    );
    // The same with the spill files on a disk: built there, answered.
    let disk = tempfile::tempdir_in(scratch()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["summary", file, "--json", "--no-cache"])
        .env("HEAPTUI_CACHE_DIR", cache.path())
        .env("HEAPTUI_SPILL_DIR", disk.path())
        .envs(forced)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        json_of(&out)["memory_mode"]["mode"],
        "disk",
        "{:?}",
        json_of(&out)
    );
}
