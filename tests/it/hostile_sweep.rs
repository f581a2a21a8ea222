//! Issue 28's acceptance: under `prlimit --as=4GiB` every file of the attack's shapes
//! gives exit 0 or 2 — never 134, 137 or another signal — in under 60 s each. The
//! shapes, the runs and the checks are in `common/sweep.rs`.
//!
//! `sweep_small` runs every shape at about a thousandth of its size on the test build,
//! in `cargo test`. `sweep_full` (ignored) runs them at the attack's sizes (a 270 MB
//! HPROF of empty segments, a MoarVM file claiming 99.6 M collectables, a 1.2 GB V8
//! file of minimal nodes, a 620 MB Dart file of one-byte references, chains of 5 M,
//! 750,000 classes, a gzip of 1 GiB of zeros, ...): `fuzz/hostile-sweep.sh`, which
//! builds the release binary first and prints the table `fuzz/README.md` quotes.
//! `SWEEP_DIR` is where the files go (the scratch directory by default; each file is
//! removed after its runs), `SWEEP_ONLY` a part of the shapes' names or files to keep.

use crate::common;
#[path = "../common/sweep.rs"]
mod sweep;

use sweep::*;

fn settings(dir: std::path::PathBuf) -> Settings {
    Settings {
        bin: env!("CARGO_BIN_EXE_heaptui").into(),
        dir,
        limit_as: 4 << 30,
        max_secs: 60.0,
        cgroup: None,
        fsize: None,
    }
}

/// A v1 memory cgroup capped at `mib` MiB for the sweep's runs, removed on drop.
struct Cgroup(std::path::PathBuf);

impl Cgroup {
    fn new(mib: u64) -> Cgroup {
        let dir = std::path::PathBuf::from(format!(
            "/sys/fs/cgroup/memory/heaptui-sweep-{}-{mib}",
            std::process::id()
        ));
        std::fs::create_dir(&dir).expect("a memory cgroup (needs root and cgroup v1)");
        std::fs::write(dir.join("memory.limit_in_bytes"), (mib << 20).to_string()).unwrap();
        Cgroup(dir)
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn check(outcomes: &[Outcome]) {
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.failure.is_some())
        .map(row)
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} runs failed:\n{HEADER}\n{}",
        failed.len(),
        outcomes.len(),
        failed.join("\n")
    );
}

#[test]
fn sweep_small() {
    let dir = common::scratch().join("sweep");
    let only = std::env::var("SWEEP_ONLY").unwrap_or_default();
    eprintln!("{HEADER}");
    let out = sweep(&settings(dir), Scale::Small, &only, |o| {
        eprintln!("{}", row(o))
    });
    assert!(out.len() > 80, "{} runs", out.len());
    check(&out);
    // The shapes whose every run is refused must say where and why: a FIFO before it is
    // opened, the gzip of zeros after its first bytes, the bad records with their offset.
    for o in &out {
        let expect = match o.shape {
            "FIFO" => Some("not a regular file"),
            "gzip of 1 GiB of zeros" => Some("zeros.gz"),
            "Go record of an unknown kind mid-file" if !o.command.starts_with("path") => {
                Some("a record kind from 0 to 17")
            }
            "V8 integer of 20 digits" => Some("at most 18 digits"),
            _ => None,
        };
        if let Some(e) = expect {
            assert_eq!(o.end, End::Exit(2), "{}", row(o));
            assert!(o.message.contains(e), "{}", row(o));
        }
    }
}

#[test]
#[ignore = "the attack's sizes, minutes: fuzz/hostile-sweep.sh"]
fn sweep_full() {
    let dir = std::env::var_os("SWEEP_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| common::scratch().join("sweep"));
    let only = std::env::var("SWEEP_ONLY").unwrap_or_default();
    // SWEEP_HOST: the host's limits besides the address space's (issue 40):
    // `cgroup:MIB` runs each command in a v1 memory cgroup of MIB MiB, `fsize:BYTES`
    // under a file-size limit (`ulimit -f`).
    let host = std::env::var("SWEEP_HOST").unwrap_or_default();
    let mut s = settings(dir);
    let _cg = host.strip_prefix("cgroup:").map(|m| {
        let cg = Cgroup::new(m.parse().expect("SWEEP_HOST=cgroup:MIB"));
        s.cgroup = Some(cg.0.clone());
        cg
    });
    if let Some(b) = host.strip_prefix("fsize:") {
        s.fsize = Some(b.parse().expect("SWEEP_HOST=fsize:BYTES"));
    }
    println!(
        "host: address space {} GiB{}",
        s.limit_as >> 30,
        if host.is_empty() {
            String::new()
        } else {
            format!(", {host}")
        }
    );
    println!("{HEADER}");
    let out = sweep(&s, Scale::Full, &only, |o| println!("{}", row(o)));
    check(&out);
}

#[test]
fn the_runner_tells_an_exit_a_signal_and_a_timeout_apart() {
    // The sweep's verdicts rest on this: a shell standing in for the program.
    let dir = common::scratch().join("runner");
    std::fs::create_dir_all(&dir).unwrap();
    let s = Settings {
        bin: "/bin/sh".into(),
        dir: dir.clone(),
        limit_as: 4 << 30,
        // Killed after twice this: the quick scripts below end long before on a loaded
        // machine, and `sleep 30` is killed well before it ends.
        max_secs: 5.0,
        cgroup: None,
        fsize: None,
    };
    let sh = |script: &str| run_limited(&s, &["-c".into(), script.into()], &[], &dir.join("cache"));
    let (end, _, _, _, msg) = sh("echo said it >&2; exit 2");
    assert_eq!((end, msg.as_str()), (End::Exit(2), "said it"));
    let (end, ..) = sh("kill -ABRT $$");
    assert_eq!(end, End::Signal(libc::SIGABRT));
    let (end, secs, ..) = sh("sleep 30");
    assert_eq!(end, End::Timeout);
    assert!(secs < 25.0, "{secs}");
    // The address-space limit is the program's (`ulimit -v` counts KiB).
    let (end, _, _, _, msg) = sh("ulimit -v >&2");
    assert_eq!((end, msg.as_str()), (End::Exit(0), "4194304"));
}
