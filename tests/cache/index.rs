//! The persistent index (`src/cache.rs`): a second open reads the index from the user's
//! cache directory and answers exactly as the first did; an entry that is stale, damaged
//! or cut short is never used but rebuilt; `--no-cache` neither reads nor writes.
//!
//! Each test has its own cache directory (`HEAPTUI_CACHE_DIR`) and writes entries for
//! the small fixtures (`HEAPTUI_CACHE_MIN_BYTES=0`; by default only dumps of 64 MiB or
//! more are cached).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn run(cache: &Path, args: &[&str]) -> Output {
    common::run_cached(cache, args)
}

fn json(cache: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&run(cache, args).stdout).expect("JSON")
}

fn entries(cache: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(cache.join("index")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "idx"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Where the index came from, as `summary` says.
fn from_cache(summary: &Value) -> bool {
    summary["details"]["index cache"]
        .as_str()
        .is_some_and(|s| s.starts_with("read from "))
}

/// The answers that depend on the whole index: counts, the histogram, the dominator tree
/// (computed again from the graph read back), an object's fields and its path to a root.
fn answers(cache: &Path, file: &str, no_cache: bool) -> Vec<Value> {
    let q = |args: &[&str]| {
        let mut a = args.to_vec();
        if no_cache {
            a.push("--no-cache");
        }
        json(cache, &a)
    };
    let s = q(&["summary", file, "--json"]);
    let mut v = vec![
        s["objects"].clone(),
        s["edges"].clone(),
        s["classes"].clone(),
        s["roots"].clone(),
        s["shallow_bytes"].clone(),
        s["reachable_objects"].clone(),
        s["truncated"].clone(),
        s["threads"].clone(),
        s["warnings"].clone(),
        q(&["histogram", file, "--json", "--top", "15"]),
    ];
    let d = q(&["dominators", file, "--json", "--flat", "--top", "10"]);
    v.push(d.clone());
    let top = d["objects"][2]["object"]
        .as_str()
        .expect("an object")
        .to_string();
    v.push(q(&["inspect", file, &top, "--json"]));
    v.push(q(&["path", file, &top, "--json"]));
    v
}

#[test]
fn every_format_reopens_from_the_cache_with_the_same_answers() {
    let files = [
        "java/nocoops/heap-live.hprof.gz",
        "node/baseline.heapsnapshot.gz",
        "chromium/detached.heapsnapshot.gz",
        "go/heap.dump.gz",
        "dart/before.dartheap.gz",
        "moarvm/app-v2.mvmheap.gz",
    ];
    for rel in files {
        let cache = tempfile::tempdir().unwrap();
        let file = common::fixture(rel);
        let file = file.to_str().unwrap();
        let reference = answers(cache.path(), file, true);
        assert!(
            entries(cache.path()).is_empty(),
            "{rel}: --no-cache wrote an entry"
        );
        let first = json(cache.path(), &["summary", file, "--json"]);
        assert!(!from_cache(&first), "{rel}");
        assert_eq!(entries(cache.path()).len(), 1, "{rel}: one entry");
        let second = json(cache.path(), &["summary", file, "--json"]);
        assert!(
            from_cache(&second),
            "{rel}: not read from the cache: {second}"
        );
        let again = answers(cache.path(), file, false);
        assert_eq!(
            reference, again,
            "{rel}: answers differ when read from the cache"
        );
        assert_eq!(entries(cache.path()).len(), 1, "{rel}: still one entry");
    }
}

#[test]
fn a_moarvm_file_keeps_one_entry_per_snapshot() {
    let cache = tempfile::tempdir().unwrap();
    let file = common::fixture("moarvm/app-v3.mvmheap.gz");
    let f0 = format!("{}#0", file.display());
    let last = json(cache.path(), &["summary", file.to_str().unwrap(), "--json"]);
    let first = json(cache.path(), &["summary", &f0, "--json"]);
    assert_eq!(entries(cache.path()).len(), 2);
    assert_ne!(last["objects"], first["objects"]);
    let first2 = json(cache.path(), &["summary", &f0, "--json"]);
    assert!(from_cache(&first2));
    assert_eq!(first2["objects"], first["objects"]);
    assert_eq!(first2["snapshot"], first["snapshot"]);
}

/// A copy of a fixture in its own directory, so that its time and bytes can change.
fn copy_of(rel: &str, dir: &Path) -> PathBuf {
    let to = dir.join(Path::new(rel).file_name().unwrap());
    std::fs::copy(common::fixture(rel), &to).unwrap();
    to
}

fn warnings(s: &Value) -> String {
    s["warnings"].to_string()
}

#[test]
fn a_stale_damaged_or_cut_entry_is_rebuilt_never_used() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let dump = copy_of("java/nocoops/heap-live.hprof.gz", work.path());
    let file = dump.to_str().unwrap();
    let reference = json(&cache, &["histogram", file, "--json", "--top", "10"]);
    let all = entries(&cache);
    assert_eq!(all.len(), 1, "one entry expected");
    let entry = all[0].clone();

    // Stale: the dump's modification time changed.
    let f = std::fs::File::options().write(true).open(&dump).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    drop(f);
    let s = json(&cache, &["summary", file, "--json"]);
    assert!(!from_cache(&s));
    assert!(warnings(&s).contains("stale"), "{}", warnings(&s));
    assert!(from_cache(&json(&cache, &["summary", file, "--json"])));

    // Damaged: one byte of a column flipped.
    let mut b = std::fs::read(&entry).unwrap();
    let mid = b.len() * 2 / 3;
    b[mid] ^= 0x40;
    std::fs::write(&entry, &b).unwrap();
    let s = json(&cache, &["summary", file, "--json"]);
    assert!(!from_cache(&s));
    assert!(
        warnings(&s).contains("damaged (checksum)"),
        "{}",
        warnings(&s)
    );
    assert_eq!(
        json(&cache, &["histogram", file, "--json", "--top", "10"]),
        reference
    );

    // Cut short, at several places.
    let whole = std::fs::read(&entry).unwrap();
    for cut in [10, 40, whole.len() / 2, whole.len() - 1] {
        std::fs::write(&entry, &whole[..cut]).unwrap();
        let s = json(&cache, &["summary", file, "--json"]);
        assert!(!from_cache(&s), "cut at {cut} was used");
        assert!(
            warnings(&s).contains("index cache entry not used"),
            "cut at {cut}: {}",
            warnings(&s)
        );
        assert_eq!(
            json(&cache, &["histogram", file, "--json", "--top", "10"]),
            reference
        );
    }

    // Not an entry at all.
    std::fs::write(&entry, b"hello").unwrap();
    let s = json(&cache, &["summary", file, "--json"]);
    assert!(!from_cache(&s));
    assert!(from_cache(&json(&cache, &["summary", file, "--json"])));
}

#[test]
fn no_cache_neither_reads_nor_writes_and_the_dump_is_never_written() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let dump = copy_of("node/baseline.heapsnapshot.gz", work.path());
    let before = std::fs::read(&dump).unwrap();
    let mtime = std::fs::metadata(&dump).unwrap().modified().unwrap();
    let file = dump.to_str().unwrap();
    let s = json(&cache, &["summary", file, "--json", "--no-cache"]);
    assert!(!from_cache(&s));
    assert!(entries(&cache).is_empty());
    json(&cache, &["summary", file, "--json"]);
    assert_eq!(entries(&cache).len(), 1);
    let s = json(&cache, &["summary", "--no-cache", file, "--json"]);
    assert!(!from_cache(&s), "--no-cache before the file read the entry");
    // Before the command, as a global option (it was taken for a file name).
    let s = json(&cache, &["--no-cache", "summary", file, "--json"]);
    assert!(
        !from_cache(&s),
        "--no-cache before the command read the entry"
    );
    let s = json(&cache, &["summary", file, "--json"]);
    assert!(from_cache(&s));
    assert_eq!(std::fs::read(&dump).unwrap(), before);
    assert_eq!(std::fs::metadata(&dump).unwrap().modified().unwrap(), mtime);
}

/// Opens a fixture in this process (the other tests run the binary), with this process's
/// cache settings, which every in-process test shares (the environment is the process's):
/// the fixture's path, the progress and the snapshot, which writes the entry.
fn opened_in_process(
    fixture: &str,
) -> (
    std::path::PathBuf,
    heaptui::sys::progress::Progress,
    heaptui::Session,
) {
    std::env::set_var("HEAPTUI_CACHE_DIR", common::scratch().join("in-place"));
    std::env::set_var("HEAPTUI_CACHE_MIN_BYTES", "0");
    let p = common::gunzipped(fixture);
    let progress = heaptui::sys::progress::Progress::new();
    let built = heaptui::session::open(&p, &progress).unwrap();
    (p, progress, built)
}

#[test]
fn a_reopened_index_is_used_in_place_from_the_mapped_entry() {
    let (p, progress, built) = opened_in_process("java/coops/heap-live-jvmgz.hprof.gz");
    let read = heaptui::session::open(&p, &progress).unwrap();
    assert!(
        read.facts
            .iter()
            .any(|(k, v)| k == "index cache" && v.starts_with("read from")),
        "{:?}",
        read.facts
    );
    let (a, b) = (&built.graph, &read.graph);
    // The entry holds the referrers: the reopened graph has them without building.
    assert!(b.has_referrers());
    let (ra, rb) = (a.referrer_index(), b.referrer_index());
    assert!(!a.class_of.is_mapped() && !a.out_targets.is_mapped());
    for mapped in [
        b.class_of.is_mapped(),
        b.shallow.is_mapped(),
        b.out_targets.is_mapped(),
        rb.in_sources.is_mapped(),
        b.weak.is_mapped(),
    ] {
        assert!(mapped);
    }
    assert!(a.len() > 30_000);
    assert_eq!(a.class_of, b.class_of);
    assert_eq!(a.class_of.is_narrow(), b.class_of.is_narrow());
    assert_eq!(a.shallow, b.shallow);
    assert!(a.shallow.is_narrow());
    assert_eq!(a.big_sizes, b.big_sizes);
    assert_eq!(&*a.out_targets, &*b.out_targets);
    assert_eq!(&*ra.in_sources, &*rb.in_sources);
    assert!(a.offset.iter().eq(b.offset.iter()));
    assert!((0..=a.len()).all(|i| a.out_start.get(i) == b.out_start.get(i)));
    assert!((0..=a.len()).all(|i| ra.in_start.get(i) == rb.in_start.get(i)));
    // A mapped index still counts its columns (summary's index_bytes).
    let plain_columns =
        b.class_of.bytes() + b.shallow.bytes() + (b.out_targets.len() + rb.in_sources.len()) * 4;
    assert!(
        b.index_bytes() >= plain_columns as u64,
        "{}",
        b.index_bytes()
    );
}

#[test]
fn an_entry_whose_snapshot_part_does_not_read_back_is_rebuilt() {
    // The cache keeps the snapshot's part as bytes it does not read; the format reads
    // them back, and an entry whose part it cannot read is not used.
    let (p, progress, built) = opened_in_process("go/heap.dump.gz");
    let key = heaptui::cache::key(&p, None, &built.source).unwrap();
    // A sound index whose owner's part is no snapshot's.
    let entry = heaptui::cache::store(&key, &built.graph, || Some(b"no snapshot".to_vec()));
    assert!(entry.unwrap().is_some());
    let read = heaptui::session::open(&p, &progress).unwrap();
    assert!(
        !read.facts.iter().any(|(k, _)| k == "index cache"),
        "{:?}",
        read.facts
    );
    assert!(
        read.warnings
            .iter()
            .any(|w| w.starts_with("index cache entry not used and rebuilt")
                && w.ends_with(": unreadable decoder state")),
        "{:?}",
        read.warnings
    );
    // Rebuilt: the next open reads it, with the facts of the first (and the warnings of
    // the rebuild, which the entry keeps).
    let again = heaptui::session::open(&p, &progress).unwrap();
    let (cached, facts): (Vec<_>, Vec<_>) = again
        .facts
        .iter()
        .cloned()
        .partition(|(k, _)| k == "index cache");
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert_eq!(facts, built.facts);
    assert_eq!(again.warnings, read.warnings);
}

/// A V8 snapshot (hand-built: no runtime makes 70,000 constructors in a fixture of a few
/// kB) whose histogram has more classes than two bytes can number: the class column is
/// kept four bytes wide, and the entry reads back as such with the same answers.
#[test]
fn more_than_65536_classes_reopen_from_the_cache() {
    let n = 70_000usize;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.heapsnapshot");
    let mut s = String::from(
        r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object"],"string","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":"#,
    );
    s.push_str(&format!(
        "{},\"edge_count\":{}}},\n\"nodes\":[1,0,1,0,{n}",
        n + 1,
        n
    ));
    // Node k (1..=n) is an object of constructor "C{k}" (string k), size k % 97 + 1.
    for k in 1..=n {
        s.push_str(&format!(",1,{k},{},{},0", 2 * k + 1, k % 97 + 1));
    }
    s.push_str("],\n\"edges\":[");
    for k in 1..=n {
        let sep = if k == 1 { "" } else { "," };
        s.push_str(&format!("{sep}1,{},{}", k - 1, k * 5));
    }
    s.push_str("],\n\"strings\":[\"\"");
    for k in 1..=n {
        s.push_str(&format!(",\"C{k}\""));
    }
    s.push_str("]}\n");
    std::fs::write(&path, s).unwrap();
    let file = path.to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let reference = answers(cache.path(), file, true);
    assert_eq!(
        reference[2],
        n + 1,
        "classes: every constructor and the root's"
    );
    let first = json(cache.path(), &["summary", file, "--json"]);
    assert!(!from_cache(&first));
    let second = json(cache.path(), &["summary", file, "--json"]);
    assert!(from_cache(&second), "not read from the cache: {second}");
    assert_eq!(reference, answers(cache.path(), file, false));
    let h = json(
        cache.path(),
        &["histogram", file, "--json", "--filter", "C69999"],
    );
    assert_eq!(h["classes"][0]["class"], "C69999", "{h}");
    assert_eq!(h["classes"][0]["count"], 1, "{h}");
}

/// The decompressed copies of gzip dumps are bounded: the four most recently used are
/// kept, a reuse counts as a use, and a temporary file of a process that is gone is
/// removed. (Before, every gzip dump a user opened stayed in the cache, full size.)
#[test]
fn gunzip_copies_are_bounded_and_kept_by_use() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let gz = common::fixture("go/heap.dump.gz");
    let copies: Vec<PathBuf> = (0..6)
        .map(|i| {
            let p = work.path().join(format!("dump{i}.gz"));
            std::fs::copy(&gz, &p).unwrap();
            p
        })
        .collect();
    let dir = cache.join("gunzip");
    std::fs::create_dir_all(&dir).unwrap();
    // A temporary file of a process that is gone (no such pid), untouched for an hour,
    // and one just written (perhaps by a heaptui in another pid namespace).
    let dead_tmp = dir.join("0123456789abcdef.tmp999999999-0");
    std::fs::write(&dead_tmp, b"left by a killed process").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(&dead_tmp)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let fresh_tmp = dir.join("0123456789abcdef.tmp999999999-1");
    std::fs::write(&fresh_tmp, b"being written").unwrap();
    // The copies' key files name the dump they were made from.
    let kept = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "key"))
            .map(|e| {
                let k = std::fs::read_to_string(e.path()).unwrap();
                let data = e.path().with_extension("hprof");
                assert!(data.exists(), "a key without its copy: {k}");
                let line = k.lines().find(|l| l.starts_with("path=")).unwrap();
                Path::new(&line["path=".len()..])
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    let histogram = |p: &Path| json(&cache, &["histogram", p.to_str().unwrap(), "--json"]);
    let first = histogram(&copies[0]);
    for (i, p) in copies.iter().enumerate().take(5).skip(1) {
        // Apart in the keys' modification times (a kernel tick at the coarsest).
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(histogram(p)["classes"], first["classes"], "dump{i}");
    }
    assert_eq!(kept(), ["dump1.gz", "dump2.gz", "dump3.gz", "dump4.gz"]);
    assert!(!dead_tmp.exists(), "a dead process's temporary file stays");
    assert!(fresh_tmp.exists(), "a fresh temporary file is removed");
    std::fs::remove_file(&fresh_tmp).unwrap();
    // Reusing dump1 makes it recent; dump2 is the one to go when dump5 comes in.
    std::thread::sleep(std::time::Duration::from_millis(30));
    histogram(&copies[1]);
    std::thread::sleep(std::time::Duration::from_millis(30));
    histogram(&copies[5]);
    assert_eq!(kept(), ["dump1.gz", "dump3.gz", "dump4.gz", "dump5.gz"]);
}

/// heaptui leaves room on the disk: with less free than the entry needs plus the margin
/// (`HEAPTUI_DISK_RESERVE`, here more than any disk has), no index entry is written and
/// `summary` says why, with the figures; a gzip dump is not decompressed (exit 2, naming
/// the file and the figures, nothing left behind) unless its copy is already there.
#[test]
fn a_full_disk_gets_no_cache_files_and_says_why() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let plain = common::gunzipped("java/coops/heap-live-jvmgz.hprof.gz");
    let gz = common::fixture("go/heap.dump.gz");
    let with_reserve = |reserve: &str, args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_heaptui"));
        c.args(args)
            .env("HEAPTUI_CACHE_DIR", &cache)
            .env("HEAPTUI_CACHE_MIN_BYTES", "0")
            .env_remove("HEAPTUI_NO_CACHE");
        c.env("HEAPTUI_DISK_RESERVE", reserve);
        c.output().unwrap()
    };
    let huge = "4611686018427387904";
    let out = with_reserve(huge, &["summary", plain.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("index cache not written") && warnings.contains("MB free on the disk of"),
        "{warnings}"
    );
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
    // With no margin the entry is written (with the usual one, this test would depend
    // on the machine's free space).
    let out = with_reserve("0", &["summary", plain.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    assert_eq!(entries(&cache).len(), 1);

    let out = with_reserve(huge, &["summary", gz.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("heap.dump.gz")
            && err.contains("no room to decompress")
            && err.contains("MB free"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(cache.join("gunzip"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    // A copy already made is used without writing anything.
    assert!(with_reserve("0", &["summary", gz.to_str().unwrap()])
        .status
        .success());
    let out = with_reserve(huge, &["histogram", gz.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A gzip dump cut short ends in compressed data, not in the trailer that states the
/// length: the room asked for is the copy's, not what those last bytes would say. Here
/// the last four bytes of the cut read as more than 200 MB, and the disk is given just
/// 200 MB to spare: the cut still opens, as far as it is whole.
#[test]
fn a_cut_gzip_dump_is_not_refused_for_its_garbage_trailer() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let gz = std::fs::read(common::fixture("java/coops/heap-live-jvmgz.hprof.gz")).unwrap();
    let cut = (gz.len() / 2..gz.len() - 8)
        .find(|&n| u32::from_le_bytes(gz[n - 4..n].try_into().unwrap()) > 400 << 20)
        .expect("a cut whose last four bytes read as a large length");
    let f = work.path().join("cut.hprof.gz");
    std::fs::write(&f, &gz[..cut]).unwrap();
    let Some(free) = heaptui::sys::files::disk_free(&cache) else {
        eprintln!("skipping: the free space of {} is unknown", cache.display());
        return;
    };
    let reserve = free.saturating_sub(200 << 20).to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["summary", f.to_str().unwrap(), "--json"])
        .env("HEAPTUI_CACHE_DIR", &cache)
        .env("HEAPTUI_DISK_RESERVE", &reserve)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["warnings"].to_string().contains("gzip stream ends early"),
        "{v}"
    );
}

/// A gzip file that fails to decompress leaves no temporary file in the cache: the
/// error names the file (exit 2) and the `gunzip` directory is empty afterwards.
#[test]
fn a_failed_decompression_leaves_nothing_behind() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    // A gzip header, then bytes that are no deflate stream.
    let mut bytes = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    bytes.extend(std::iter::repeat_n(0xffu8, 4096));
    let f = work.path().join("broken.hprof.gz");
    std::fs::write(&f, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["summary", f.to_str().unwrap()])
        .env("HEAPTUI_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broken.hprof.gz") && err.contains("gzip"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(cache.join("gunzip"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_rewrite_that_keeps_size_and_mtime_is_not_served_from_the_cache() {
    // Issue 28, defect 9: zeroing the middle of a dump, size and mtime kept, still served
    // the old index. The key has the inode's change time and a sample of the middle now.
    let dir = common::scratch().join("rewrite");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("dump.hprof");
    std::fs::copy(common::gunzipped("java/coops/heap-live-jvmgz.hprof.gz"), &f).unwrap();
    let reference = dir.join("reference");
    std::fs::write(&reference, b"").unwrap();
    assert!(std::process::Command::new("touch")
        .args(["-r", f.to_str().unwrap(), reference.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let cache = dir.join("cache");
    let summary = |no_cache: bool| -> serde_json::Value {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_heaptui"));
        c.args(["summary", f.to_str().unwrap(), "--json"])
            .env("HEAPTUI_CACHE_DIR", &cache)
            .env("HEAPTUI_CACHE_MIN_BYTES", "0")
            .env_remove("HEAPTUI_NO_CACHE");
        if no_cache {
            c.arg("--no-cache");
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let before = summary(false);
    // The entry is there and used.
    assert_eq!(summary(false)["objects"], before["objects"]);
    // Zero a stretch in the middle: same size, modification time set back.
    let mut b = std::fs::read(&f).unwrap();
    let (from, to) = (b.len() / 10 * 7, b.len() / 10 * 9);
    b[from..to].fill(0);
    std::fs::write(&f, &b).unwrap();
    assert!(std::process::Command::new("touch")
        .args(["-r", reference.to_str().unwrap(), f.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let fresh = summary(true);
    let cached = summary(false);
    assert_ne!(
        fresh["objects"], before["objects"],
        "the rewrite changed the dump"
    );
    assert_eq!(cached["objects"], fresh["objects"]);
    assert_eq!(cached["truncated"], fresh["truncated"]);
}

/// The files in `dir` whose names say they are temporary (`.tmp`).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_signal_during_a_gunzip_leaves_no_temporary_file() {
    // Issue 28, defect 10: SIGTERM, SIGINT or SIGHUP while a gzip dump was decompressed
    // left `gunzip/<stem>.tmp<pid>-0` (hundreds of MB): the batch commands had no signal
    // handling. Each signal now removes it, and the process still ends by the signal.
    // A dump of 2 GiB, mostly zeros: one gzip member for the header and the first MiB,
    // then the same member of 1 MiB of zeros again and again (a multi-member gzip).
    use flate2::write::GzEncoder;
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    let member = |data: &[u8]| {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let mut head = b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0".to_vec();
    head.resize(1 << 20, 0);
    let mut gz = member(&head);
    let zeros = member(&vec![0; 1 << 20]);
    for _ in 0..2047 {
        gz.extend_from_slice(&zeros);
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.hprof.gz");
    std::fs::write(&f, &gz).unwrap();
    // Issue 40, defect 7: and every other signal whose default action ends a process.
    for (sig, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
        (libc::SIGUSR1, "USR1"),
        (libc::SIGALRM, "ALRM"),
        (libc::SIGVTALRM, "VTALRM"),
    ] {
        let cache = dir.path().join(format!("cache-{name}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_heaptui"))
            .args(["summary", f.to_str().unwrap()])
            .env("HEAPTUI_CACHE_DIR", &cache)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let gunzip = cache.join("gunzip");
        let start = std::time::Instant::now();
        while temporaries(&gunzip).is_empty() {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(120),
                "SIG{name}: no temporary file appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, sig) };
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(sig), "SIG{name}: {status}");
        assert_eq!(temporaries(&gunzip), Vec::<String>::new(), "SIG{name}");
    }
}

#[test]
fn a_temporary_index_entry_of_a_process_that_is_gone_is_removed() {
    // Issue 28, defect 10: `index/.<pid>.tmp` of a process killed while it wrote was
    // never removed. The next open removes it once its process is gone (and it is
    // untouched for ten minutes, as the gzip copies' temporaries: a writer in another
    // pid namespace keeps its file fresh); a live process's stays.
    let cache = tempfile::tempdir().unwrap();
    let index = cache.path().join("index");
    std::fs::create_dir_all(&index).unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(1200);
    let dead = index.join(format!(".{}.tmp", gone.id()));
    let live = index.join(format!(".{}.tmp", std::process::id()));
    for p in [&dead, &live] {
        let f = std::fs::File::create(p).unwrap();
        f.set_len(4096).unwrap();
        f.set_modified(old).unwrap();
    }
    let f = common::fixture("java/nocoops/heap-live.hprof.gz");
    run(cache.path(), &["summary", f.to_str().unwrap()]);
    assert!(
        !dead.exists(),
        "the dead writer's temporary entry is still there"
    );
    assert!(live.exists(), "a live writer's temporary entry was removed");
}

/// Issue 40: a cache folder that is not the user's own is never trusted. Another user's
/// folder (made here by `chown`, so as root only: skipped otherwise) is refused with the
/// reason, and a gzip dump then exits 2 with nothing read from it or written to it; a
/// `gunzip/` that is a link to another folder is refused and that folder's files stay;
/// a folder of ours that others may write to is closed to 0700; a copy without its key
/// (which heaptui cannot tell it wrote) is not pruned.
#[test]
fn cache_folders_not_the_user_s_own_are_never_trusted() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let work = tempfile::tempdir().unwrap();
    let gz = common::fixture("go/heap.dump.gz");
    let gz = gz.to_str().unwrap();
    let run_in = |cache: &Path| {
        Command::new(env!("CARGO_BIN_EXE_heaptui"))
            .args(["histogram", gz, "--json"])
            .env("HEAPTUI_CACHE_DIR", cache)
            .env("HEAPTUI_CACHE_MIN_BYTES", "0")
            .env_remove("HEAPTUI_NO_CACHE")
            .output()
            .unwrap()
    };
    // A link for gunzip/, to a folder of the user's with a file of theirs in it.
    let victim = work.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep.hprof"), b"the user's own dump").unwrap();
    let linked = work.path().join("linked");
    std::fs::create_dir(&linked).unwrap();
    std::os::unix::fs::symlink(&victim, linked.join("gunzip")).unwrap();
    let out = run_in(&linked);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(victim.join("keep.hprof").exists());
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
    // Ours but open to others: closed, then used; a copy without its key stays.
    let open = work.path().join("open");
    std::fs::create_dir_all(open.join("gunzip")).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let stray = open.join("gunzip").join("0000000000000000.hprof");
    std::fs::write(&stray, b"not heaptui's").unwrap();
    let out = run_in(&open);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::metadata(&open).unwrap().mode() & 0o777, 0o700);
    assert!(stray.exists(), "a copy without its key was pruned");
    // Another user's folder (root only).
    let theirs = work.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    let chowned = Command::new("chown")
        .args(["12345:12345", theirs.to_str().unwrap()])
        .status()
        .is_ok_and(|s| s.success());
    if !chowned {
        eprintln!("skipped the other user's folder: chown needs root here");
        return;
    }
    let out = run_in(&theirs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("belongs to another user (uid 12345"), "{err}");
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0, "written in");
    // A plain dump still opens there, with no index cache read or written.
    let plain = common::gunzipped("java/leak/heap-live.hprof.gz");
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["summary", plain.to_str().unwrap(), "--json"])
        .env("HEAPTUI_CACHE_DIR", &theirs)
        .env("HEAPTUI_CACHE_MIN_BYTES", "0")
        .env_remove("HEAPTUI_NO_CACHE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0, "written in");
}

/// Issue 40: under a file-size limit (`ulimit -f`; `prlimit --fsize` here) a cache write
/// past it fails with EFBIG instead of the process dying of SIGXFSZ (exit 153, its
/// temporary file left): a gzip dump that cannot be copied exits 2 naming the file, an
/// index entry that cannot be written is skipped with a warning, and no temporary file
/// stays behind.
#[test]
fn a_file_size_limit_fails_the_write_not_the_process() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("skipped: no prlimit here");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let limited = |cache: &Path, args: &[&str]| {
        Command::new("prlimit")
            .arg("--fsize=1000000")
            .arg(env!("CARGO_BIN_EXE_heaptui"))
            .args(args)
            .env("HEAPTUI_CACHE_DIR", cache)
            .env("HEAPTUI_CACHE_MIN_BYTES", "0")
            .env_remove("HEAPTUI_NO_CACHE")
            .output()
            .unwrap()
    };
    let leftovers = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    // A gzip dump of 56 MB decompressed.
    let gz = common::fixture("java/leak/heap-live.hprof.gz");
    let cache = work.path().join("gz");
    let out = limited(&cache, &["histogram", gz.to_str().unwrap(), "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert_eq!(leftovers(&cache.join("gunzip")), Vec::<PathBuf>::new());
    // The same dump plain: answered, its entry (4 MB) not written, and said why.
    let plain = common::gunzipped("java/leak/heap-live.hprof.gz");
    let cache = work.path().join("plain");
    let out = limited(&cache, &["summary", plain.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        warnings(&s).contains("index cache not written") && warnings(&s).contains("File too large"),
        "{s}"
    );
    assert_eq!(leftovers(&cache.join("index")), Vec::<PathBuf>::new());
}
